"""What the answers a search bot changes are worth: each is played out again with many fresh worlds.

    python benchmarks/search_changes.py --deals 16 --worlds 60 --rows changes.jsonl
    python benchmarks/search_changes.py --deals 16 --search '{"rollouts": 48, "z": 2}'

Each deal is played as ``benchmarks/tiers.py`` plays its higher-tier game (5-player
identity, seed 2026, the search bot on seat ``deal mod 5``, heuristic bots elsewhere).
Wherever the search bot leaves the heuristic's answer, its answer and the heuristic's
are both played out again in ``--worlds`` fresh worlds, twice:

* **dealt**: the worlds the bot itself deals (:func:`sgs_runtime.state.redeal.redeal`, the
  roles by its belief): what a larger budget would have told it;
* **true**: the true hands and roles, only the draw pile's order and the chance drawn
  anew: what the change was worth in the game being played. (A diagnostic: no agent
  is given this.)

Printed: per change, the mean gain in the chance of winning and its standard error, in
both; at the end, the mean over all changes. A search that picks the luckiest of a few
noisy estimates (the winner's curse) shows changes worth about nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sgs_runtime.agents import search as search_module  # noqa: E402
from sgs_runtime.runs import fork  # noqa: E402
from sgs_runtime.state.redeal import shuffle_faces  # noqa: E402


def true_world(game: Any, seat: int, rng: random.Random, role_weight: Any = None) -> None:
    """In place of :func:`~sgs_runtime.state.redeal.redeal`: keep every hand and role, shuffle the draw pile."""
    shuffle_faces(list(game.draw_pile.cards), rng)
    game.bump()


def gain(scores: list[list[Optional[float]]]) -> tuple[float, float]:
    """The mean of the second answer's score less the first's, world by world, and its standard error."""
    d = [b - a for a, b in zip(scores[0], scores[1]) if a is not None and b is not None]
    if len(d) < 2:
        return (0.0, 0.0)
    m = sum(d) / len(d)
    return m, math.sqrt(sum((x - m) ** 2 for x in d) / (len(d) - 1) / len(d))


def describe(answer: Any) -> str:
    if answer is None:
        return "end / decline"
    card = getattr(answer, "card", None)
    label = card.label() if hasattr(card, "label") else str(card)
    skill = getattr(answer, "skill", None)
    targets = [t.name for t in getattr(answer, "targets", None) or []]
    return f"{label}{'/' + skill if skill else ''}{' -> ' + ','.join(targets) if targets else ''}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=16)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--worlds", type=int, default=60)
    ap.add_argument("--search", default="{}", help="the search bot's options (JSON), as tiers.py --search")
    ap.add_argument("--rows", help="append one JSON row per change to this file")
    args = ap.parse_args()
    from sgs_dsl.loader import load_content
    from sgs_runtime.runs import simulate
    from sgs_runtime.runs.simulate import game_seed, play_one

    options = json.loads(args.search)
    simulate.AGENTS["search"] = lambda seed: search_module.SearchAgent(seed, **options)
    content = load_content()
    original = search_module.SearchAgent._search
    rows: list[dict[str, Any]] = []
    deal_index = [0]

    def watched(self: Any, view: Any, req: Any, cands: list[Any], budget: int, horizon: Optional[int],
                z: Optional[float] = None) -> Any:
        got = original(self, view, req, cands, budget, horizon, z)
        if got is cands[0]:
            return got
        rng = random.Random(len(rows) * 7919 + deal_index[0])
        seeds = [rng.getrandbits(62) for _ in range(args.worlds)]
        pair = [cands[0], got]
        dealt = fork.evaluate(view, req, pair, seeds, max_turns=horizon, role_weight=self._role_weight(view))
        saved = fork.redeal
        fork.redeal = true_world  # type: ignore[assignment]
        try:
            true = fork.evaluate(view, req, pair, seeds, max_turns=horizon)
        finally:
            fork.redeal = saved
        g = view.game
        row = {"deal": deal_index[0], "turn": g.turn_number, "seat": view.seat, "role": g.players[view.seat].role,
               "heuristic": describe(cands[0]), "search": describe(got), "dealt": gain(dealt), "true": gain(true)}
        rows.append(row)
        print(json.dumps(row, ensure_ascii=False), flush=True)
        if args.rows:
            with open(args.rows, "a", encoding="utf-8") as out:
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        return got

    search_module.SearchAgent._search = watched  # type: ignore[method-assign]
    for i in range(args.first, args.first + args.deals):
        deal_index[0] = i
        play_one(content, "identity", 5, game_seed(2026, i), i, agents=f"search@{i % 5},heuristic")
    if rows:
        for key in ("dealt", "true"):
            gains = [r[key][0] for r in rows]
            m = sum(gains) / len(gains)
            se = math.sqrt(sum((x - m) ** 2 for x in gains) / max(1, len(gains) - 1) / len(gains))
            print(f"{key}: mean gain of the {len(rows)} changes {m:+.4f} (standard error {se:.4f})")
    else:
        print("no answer was changed")


if __name__ == "__main__":
    main()
