"""Why a side wins: what happens in bot games of the identity game, by side (docs/balance.md).

    python benchmarks/balance_probe.py --players 8 --games 200 --agents heuristic
    python benchmarks/balance_probe.py --players 5 --games 200 --agents random --json

Plays seeded games like ``sgs simulate`` (the same seeds) and reads the public record
of each (who harmed whom, Game.public) against the true roles, which only the
harness knows. It reports, by the acting side (the lord with the roles on his side;
the rebels; a role alone, the traitor):

* damage dealt, and the share of it that went to the lord;
* focus: of the damage a side dealt to players of another side, the share that went
  to the one player it damaged most (mean over games);
* the round in which the first damage reached the lord, and in which the lord's
  side first damaged a rebel;
* the rounds a game lasts, and how many rebels were still alive when the lord died.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sgs_dsl.loader import load_content  # noqa: E402
from sgs_runtime.agents.beliefs import alignment  # noqa: E402
from sgs_runtime.resolution.game import Game  # noqa: E402
from sgs_runtime.runs.simulate import game_seed, make_agent  # noqa: E402


class _Watched(list):  # type: ignore[type-arg]
    """Game.public, remembering the turn number at which each record was made."""

    def __init__(self, game: Game) -> None:
        super().__init__(game.public)
        self.game = game
        self.turns: list[int] = [0] * len(self)

    def append(self, item: Any) -> None:
        self.turns.append(self.game.turn_number)
        super().append(item)

    def extend(self, items: Any) -> None:
        for item in items:
            self.append(item)


def side_name(rules: Any, role: str) -> str:
    a = alignment(rules.roles.get(role))
    return "lord side" if a < 0 else ("rebels" if a > 0 else "alone")


def probe(players: int, games: int, agents: str, seed: int = 0) -> dict[str, Any]:
    """Play the games and gather the figures (see the module docstring)."""
    content = load_content()
    rules = content.ruleset(None)
    damage: Counter[str] = Counter()
    to_lord: Counter[str] = Counter()
    first_lord_hit: list[float] = []
    first_rebel_hit: list[float] = []
    rounds: list[float] = []
    rebels_left: list[int] = []
    wins: Counter[str] = Counter()
    focus: dict[str, list[float]] = {}
    for i in range(games):
        s = game_seed(seed, i)
        g = Game(content, rules, players=players, seed=s, keep_log=False)
        bots = [make_agent(agents, s * 31 + k) for k in range(players)]
        # the turn of each public record, to tell the round it was made in
        watched = _Watched(g)
        g.public = watched
        result = g.play(bots)
        marks = watched.turns
        per_round = float(players)
        lord_seat = next(p.seat for p in g.players if alignment(rules.roles.get(p.role)) < 0
                         and rules.roles[p.role].lord_skills)
        on_enemy: dict[str, Counter[int]] = {}
        hit_lord: Optional[float] = None
        hit_rebel: Optional[float] = None
        for (what, src, dst, _thing, amount), turn in zip(g.public, marks):
            if what != "damage" or src == dst:
                continue
            side = side_name(rules, g.players[src].role)
            damage[side] += amount
            if side_name(rules, g.players[dst].role) != side:
                on_enemy.setdefault(side, Counter())[dst] += amount
            if dst == lord_seat:
                to_lord[side] += amount
                hit_lord = hit_lord if hit_lord is not None else turn / per_round
            if side == "lord side" and side_name(rules, g.players[dst].role) == "rebels":
                hit_rebel = hit_rebel if hit_rebel is not None else turn / per_round
        for side, per_target in on_enemy.items():
            focus.setdefault(side, []).append(max(per_target.values()) / sum(per_target.values()))
        if hit_lord is not None:
            first_lord_hit.append(hit_lord)
        if hit_rebel is not None:
            first_rebel_hit.append(hit_rebel)
        rounds.append(g.turn_number / per_round)
        if not g.players[lord_seat].alive:
            rebels_left.append(sum(1 for p in g.players if p.alive and side_name(rules, p.role) == "rebels"))
        wins["+".join(sorted(set(result.winner_roles))) or "draw"] += 1

    def med(xs: list[float]) -> float:
        return round(statistics.median(xs), 2) if xs else 0.0

    return {
        "players": players, "games": games, "agents": agents,
        "winners": dict(wins.most_common()),
        "damage_dealt": dict(damage),
        "damage_to_lord_share": {k: round(to_lord[k] / v, 3) for k, v in damage.items() if v},
        "focus": {k: round(statistics.fmean(v), 3) for k, v in sorted(focus.items())},
        "round_of_first_damage_to_lord": {"median": med(first_lord_hit), "games": len(first_lord_hit)},
        "round_lord_side_first_damages_a_rebel": {"median": med(first_rebel_hit), "games": len(first_rebel_hit)},
        "rounds": {"median": med(rounds), "mean": round(statistics.fmean(rounds), 2) if rounds else 0.0},
        "rebels_alive_when_the_lord_died": dict(sorted(Counter(rebels_left).items())),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=8)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--agents", default="heuristic")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    got = probe(args.players, args.games, args.agents, args.seed)
    if args.json:
        print(json.dumps(got, indent=2, ensure_ascii=False))
        return
    for k, v in got.items():
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
