"""Soak: many games over every rules file, reporting every engine error with its seed.

    python benchmarks/soak.py --games 10000 --workers 2
    python benchmarks/soak.py --games 300             # the smaller run CI does (tests/test_soak.py)
    python benchmarks/soak.py --games 2000 --check    # the invariants after every step, too

Games are spread over every rules file of the content, every player count from 5
to 8 that the rules allow (or the counts they allow when they play fewer), all the
heroes of the rules' packs, and both kinds of bots. An engine error is any
exception other than hitting a limit; each is printed with the rules, player
count, agents and seed that reproduce it:

    sgs simulate --rules RULES --players N --agents AGENTS ... (or play_one(..., seed))

Exit 0 when no game errs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from sgs_dsl.loader import load_content
from sgs_runtime.runs.simulate import game_seed, play_one

AGENTS = ("random", "heuristic")


def plan(content: Any, games: int, seed: int) -> list[tuple[str, int, str, int]]:
    """(rules, players, agents, seed) for every game, spread evenly over the configurations."""
    configs = []
    for rid, rules in sorted(content.rulesets.items()):
        counts = [n for n in range(5, 9) if rules.players_min <= n <= rules.players_max and n in rules.role_tables]
        if not counts:
            counts = [n for n in sorted(rules.role_tables) if rules.players_min <= n <= rules.players_max]
        for n in counts:
            for agents in AGENTS:
                configs.append((rid, n, agents))
    out = []
    for i in range(games):
        rid, n, agents = configs[i % len(configs)]
        out.append((rid, n, agents, game_seed(seed, i)))
    return out


_CONTENT: dict[str, Any] = {}


def _run(items: list[tuple[str, int, str, int]], check: bool = False) -> list[dict[str, Any]]:
    if "c" not in _CONTENT:
        _CONTENT["c"] = load_content()
    content = _CONTENT["c"]
    out = []
    for rid, n, agents, s in items:
        summary = play_one(content, rid, n, s, 0, agents, check=check)
        out.append({"rules": rid, "players": n, "agents": agents, "seed": s, "error": summary.error,
                    "limit": summary.limit, "turns": summary.turns, "violation": summary.violation})
    return out


def _run_checked(items: list[tuple[str, int, str, int]]) -> list[dict[str, Any]]:
    return _run(items, check=True)


def soak(games: int, seed: int = 2026, workers: int = 1, check: bool = False) -> dict[str, Any]:
    """Play ``games`` games; with ``check``, test the invariants after every step of each."""
    content = load_content()
    items = plan(content, games, seed)
    batches = [items[i:i + 50] for i in range(0, len(items), 50)]
    run = _run_checked if check else _run
    start = time.perf_counter()
    results: list[dict[str, Any]] = []
    if workers <= 1:
        for b in batches:
            results.extend(run(b))
    else:
        with ProcessPoolExecutor(max_workers=workers) as ex:
            for got in ex.map(run, batches):
                results.extend(got)
    seconds = time.perf_counter() - start
    errors = [r for r in results if r["error"]]
    by_rules: dict[str, int] = {}
    for r in results:
        by_rules[r["rules"]] = by_rules.get(r["rules"], 0) + 1
    return {
        "games": len(results),
        "errors": len(errors),
        "error_list": errors,
        "limits": sum(1 for r in results if r["limit"]),
        "checked": check,
        "violations": sum(1 for r in results if r["violation"]),
        "violation_list": [r for r in results if r["violation"]],
        "games_by_rules": by_rules,
        "seconds": round(seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--check", action="store_true", help="test the invariants after every step")
    args = parser.parse_args()
    result = soak(args.games, args.seed, args.workers, args.check)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(f"{result['games']} games in {result['seconds']} s: {result['errors']} engine errors, "
              f"{result['limits']} stopped by the turn limit"
              + (f", {result['violations']} invariant violations" if args.check else ""))
        for rid, n in sorted(result["games_by_rules"].items()):
            print(f"  {rid:<20} {n} games")
        for e in result["error_list"]:
            first = e["error"].splitlines()[0]
            print(f"ERROR rules={e['rules']} players={e['players']} agents={e['agents']} seed={e['seed']}: {first}")
        for v in result["violation_list"]:
            print(f"VIOLATION rules={v['rules']} players={v['players']} agents={v['agents']} seed={v['seed']}: "
                  f"{v['violation']}")
    sys.exit(1 if result["errors"] or result["violations"] else 0)


if __name__ == "__main__":
    main()
