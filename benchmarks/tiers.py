"""The strength of each bot tier against the one below, role-controlled.

    python benchmarks/tiers.py --pair random:heuristic --deals 1000
    python benchmarks/tiers.py --pair heuristic:search:16 --deals 100 --workers 2 --json

Each deal (a seed: the same roles, seats and deck) is played twice: once with the
lower tier on every seat, once with the higher tier on one seat (seat ``deal mod
players``, so every seat and, over the deals, every role takes its turn) and the
lower tier on the others (``--agents HIGH@SEAT,LOW``). The figures are for that
seat, in the two games of each deal:

* ``high_rate`` / ``low_rate``: how often the seat won with the higher tier / with the
  lower one (Wilson 95% intervals);
* ``share``: the higher tier's share of the seat's wins, ``high wins / (high wins +
  low wins)``: 50% when the tiers are equally strong; a bootstrap 95% interval over the
  deals (paired: a deal's two games are resampled together);
* the same per role, and the CPU seconds per game with the higher tier (the process
  and its children: rollouts run in forked children).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sgs_runtime.runs.simulate import game_seed, play_one, wilson  # noqa: E402

_CONTENT: list[Any] = []


def _content() -> Any:
    if not _CONTENT:
        from sgs_dsl.loader import load_content

        _CONTENT.append(load_content())
    return _CONTENT[0]


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def seat_won(summary: Any, seat: int) -> Optional[bool]:
    """Whether ``seat`` won the game (None: the game did not finish)."""
    if summary.error is not None or summary.limit is not None or not summary.heroes:
        return None
    return summary.heroes[seat][0] in summary.winners


def search_options(options: dict[str, Any]) -> None:
    """Make ``search`` (and ``search:N``) agents with these keyword arguments of
    :class:`~sgs_runtime.agents.search.SearchAgent` in this process (``--search``)."""
    from sgs_runtime.agents.search import SearchAgent
    from sgs_runtime.runs import simulate

    def make(seed: int, budget: Optional[int] = None, **settings: Any) -> Any:
        kw = dict(options, **settings)  # (settings in the spec, search:16:hero=40, win over --search)
        if budget is not None:
            kw["rollouts"] = budget
        return SearchAgent(seed, **kw)

    simulate.AGENTS["search"] = make
    simulate.BUDGETED["search"] = make
    simulate.CONFIGURED["search"] = make


def play_deal(args: tuple[str, str, str, int, int, int]) -> dict[str, Any]:
    """One deal: the lower tier everywhere, then the higher tier on one seat."""
    low, high, rules, players, master, index = args
    content = _content()
    seed = game_seed(master, index)
    seat = index % players
    base = play_one(content, rules, players, seed, index, agents=low)
    start = _cpu()
    mixed = play_one(content, rules, players, seed, index, agents=f"{high}@{seat},{low}")
    cpu = _cpu() - start
    role = mixed.heroes[seat][1] if mixed.heroes else "?"
    same_role = bool(base.heroes) and bool(mixed.heroes) and base.heroes[seat][1] == role
    return {"index": index, "seat": seat, "role": role, "same_role": same_role, "low": seat_won(base, seat),
            "high": seat_won(mixed, seat), "cpu": cpu, "errors": [s.error for s in (base, mixed) if s.error],
            "seed": master}


def share_ci(rows: list[dict[str, Any]], rounds: int = 2000, seed: int = 1) -> tuple[float, float]:
    """A bootstrap 95% interval of the higher tier's share of the wins, resampling deals."""
    rng = random.Random(seed)
    shares = []
    for _ in range(rounds):
        pick = [rows[rng.randrange(len(rows))] for _ in rows]
        h = sum(r["high"] for r in pick)
        lo = sum(r["low"] for r in pick)
        if h + lo:
            shares.append(h / (h + lo))
    shares.sort()
    if not shares:
        return (0.0, 0.0)
    return (round(shares[int(0.025 * len(shares))], 4), round(shares[int(0.975 * len(shares)) - 1], 4))


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    done = [r for r in rows if r["low"] is not None and r["high"] is not None]
    n = len(done)
    h = sum(r["high"] for r in done)
    lo = sum(r["low"] for r in done)
    out: dict[str, Any] = {
        "deals": len(rows), "finished": n,
        "high_wins": h, "low_wins": lo,
        "high_rate": round(h / n, 4) if n else 0.0, "high_ci95": wilson(h, n),
        "low_rate": round(lo / n, 4) if n else 0.0, "low_ci95": wilson(lo, n),
        "share": round(h / (h + lo), 4) if h + lo else 0.0, "share_ci95": share_ci(done),
    }
    roles: dict[str, Any] = {}
    for role in sorted({r["role"] for r in done}):
        sub = [r for r in done if r["role"] == role]
        rh = sum(r["high"] for r in sub)
        rl = sum(r["low"] for r in sub)
        roles[role] = {"deals": len(sub), "high_rate": round(rh / len(sub), 4), "high_ci95": wilson(rh, len(sub)),
                       "low_rate": round(rl / len(sub), 4), "low_ci95": wilson(rl, len(sub)),
                       "share": round(rh / (rh + rl), 4) if rh + rl else 0.0}
    out["roles"] = roles
    out["cpu_per_game_high"] = round(sum(r["cpu"] for r in rows) / len(rows), 2) if rows else 0.0
    out["cpu_max_game_high"] = round(max((r["cpu"] for r in rows), default=0.0), 2)
    out["role_changed"] = sum(1 for r in rows if not r["same_role"])
    out["errors"] = [e for r in rows for e in r["errors"]][:5]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pair", action="append", default=None,
                    help="LOW:HIGH agent kinds (a budget and settings may follow HIGH, as in an --agents spec: "
                         "heuristic:search:16, heuristic:search:32:kinds=response:hero=40); repeatable "
                         "(default: random:heuristic and heuristic:search)")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--rules", default="identity")
    ap.add_argument("--seed", type=int, default=None, help="the master seed of the deals (default 2026; with "
                    "--summarise, for rows that do not record theirs)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--search", type=json.loads, default=None, metavar="JSON",
                    help="keyword arguments of the search bot, e.g. '{\"max_turns\": 5, \"z\": 2.5}' or "
                         "'{\"hero_rollouts\": 40, \"rollouts\": 1}'")
    ap.add_argument("--rows", type=Path, default=None,
                    help="also write each deal's result to this JSON-lines file as it comes (a long run can be "
                         "summarised before it ends with --summarise)")
    ap.add_argument("--summarise", type=Path, default=None, help="summarise the rows of an earlier --rows file")
    a = ap.parse_args()
    pairs = a.pair or ["random:heuristic", "heuristic:search"]
    seed = 2026 if a.seed is None else a.seed
    report: dict[str, Any] = {"players": a.players, "rules": a.rules, "seed": seed, "pairs": {}}
    if a.summarise is not None:
        rows_by_pair: dict[str, list[dict[str, Any]]] = {}
        seeds: set[Optional[int]] = set()
        for line in a.summarise.read_text().splitlines():
            row = json.loads(line)
            rows_by_pair.setdefault(row["pair"], []).append(row)
            seeds.add(row.get("seed", a.seed))
        # the seeds the rows were dealt with (None: not recorded in them, nor given with --seed)
        report["seed"] = next(iter(seeds)) if len(seeds) == 1 else sorted(seeds, key=lambda s: (s is None, s or 0))
        report["pairs"] = {p: summarise(r) for p, r in rows_by_pair.items()}
        print(json.dumps(report, indent=1))
        return
    for pair in pairs:
        low, _, high = pair.partition(":")
        jobs = [(low, high, a.rules, a.players, seed, i) for i in range(a.deals)]
        start = time.perf_counter()
        rows: list[dict[str, Any]] = []
        out = a.rows.open("a") if a.rows is not None else None
        init = (search_options, (a.search,)) if a.search else (None, ())
        with ProcessPoolExecutor(max_workers=a.workers, initializer=init[0], initargs=init[1]) as ex:
            for row in ex.map(play_deal, jobs):
                rows.append(row)
                if out is not None:
                    out.write(json.dumps(dict(row, pair=pair)) + "\n")
                    out.flush()
                print(f"{pair}: deal {len(rows)}/{a.deals}", file=sys.stderr, flush=True)
        if out is not None:
            out.close()
        got = summarise(rows)
        got["wall_seconds"] = round(time.perf_counter() - start, 1)
        report["pairs"][pair] = got
        if not a.json:
            print(f"{high} over {low}: {got['finished']} deals, seat won {got['high_rate']:.1%} {got['high_ci95']} "
                  f"with {high}, {got['low_rate']:.1%} {got['low_ci95']} with {low}; {high}'s share of the wins "
                  f"{got['share']:.1%} {got['share_ci95']}; {got['cpu_per_game_high']} s CPU per game "
                  f"(max {got['cpu_max_game_high']})")
            for role, r in got["roles"].items():
                print(f"  {role}: {r['deals']} deals, {r['high_rate']:.1%} {r['high_ci95']} against "
                      f"{r['low_rate']:.1%} {r['low_ci95']}")
    if a.json:
        print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
