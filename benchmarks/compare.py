"""Games per second of this tree against an earlier revision, side by side in one run.

    python benchmarks/compare.py --baseline 20bad30            # standard game, then the 军争 game
    python benchmarks/compare.py --baseline HEAD~3 --games 150 --rounds 5 --json
    python benchmarks/compare.py --baseline 24e70ea --agents random,heuristic
    python benchmarks/compare.py --baseline HEAD --compiled --agents random,heuristic   # compiled over pure

The machine is shared and noisy, so absolute figures drift; the ratio of two figures
taken alternately, in fresh processes, round after round, does not. The baseline is
checked out with ``git worktree`` into a temporary folder (and removed afterwards);
each round plays the same seeded 5-player games in each tree, once for each kind of
agents given (``--agents``, random by default), and the report gives every round and
the median ratio of each kind. The 军争 figure (rules ``maneuvering``, 160 cards) is
measured in this tree only, with the first kind of agents, in the same rounds.
With ``--compiled`` "this tree" is a copy of it with the compiled build (setup.py,
``SGS_COMPILE=1``; made by ``tools/compiled.py``, which needs a C compiler and mypy).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parent.parent

PLAY = """
import sys, time
from sgs_dsl.loader import load_content
try:
    from sgs_runtime.runs.simulate import game_seed, play_one
except ImportError:  # a revision from before sgs_runtime was grouped into subpackages (a8d96b4)
    from sgs_runtime.simulate import game_seed, play_one
rules, games, agents = sys.argv[1], int(sys.argv[2]), sys.argv[3]
content = load_content()
if rules not in content.rulesets:
    print("nan"); raise SystemExit
play_one(content, rules, 5, 1, 0, agents)  # warm up
start = time.perf_counter()
for i in range(games):
    s = play_one(content, rules, 5, game_seed(101, i), i, agents)
    assert s.error is None, s.error
print(games / (time.perf_counter() - start))
"""


def rate(tree: Path, rules: str, games: int, agents: str = "random") -> float:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", PLAY, rules, str(games), agents], cwd=tree, env=env,
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


@contextmanager
def baseline_tree(revision: str) -> Iterator[Path]:
    """The tree of ``revision``, checked out with ``git worktree`` into a temporary folder, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="sgs-baseline-") as tmp:
        base = Path(tmp) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", str(base), revision], cwd=ROOT, check=True,
                       capture_output=True)
        try:
            yield base
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, capture_output=True)


@contextmanager
def current_tree(compiled: bool) -> Iterator[Path]:
    """This tree, or a copy of it with the compiled build (removed afterwards)."""
    if not compiled:
        yield ROOT
        return
    sys.path.insert(0, str(ROOT / "tools"))
    import compiled as builder  # tools/compiled.py

    why = builder.can_compile()
    if why:
        raise SystemExit(f"--compiled: {why}")
    with tempfile.TemporaryDirectory(prefix="sgs-compiled-") as tmp:
        yield builder.build(Path(tmp) / "tree")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="a git revision to compare with (e.g. 20bad30)")
    ap.add_argument("--games", type=int, default=150, help="games per measurement")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--agents", default="random",
                    help="kinds of agents, separated by commas (random, heuristic): a ratio for each")
    ap.add_argument("--compiled", action="store_true",
                    help="measure a copy of this tree with the compiled build (tools/compiled.py)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    kinds = [a.strip() for a in args.agents.split(",") if a.strip()]
    if not kinds or any(k not in ("random", "heuristic") for k in kinds):
        ap.error(f"--agents takes random, heuristic or both, not '{args.agents}'")
    rounds: list[dict[str, Any]] = []
    with baseline_tree(args.baseline) as base, current_tree(args.compiled) as now:
        trees = [base, now] + ([ROOT] if args.compiled else [])  # (compiled: the pure tree too, side by side)
        for n in range(args.rounds):
            order = trees[n % len(trees):] + trees[:n % len(trees)]  # rotate the order round by round
            row: dict[str, Any] = {}
            for kind in kinds:
                got = {tree: rate(tree, "identity", args.games, kind) for tree in order}
                row[kind] = {"baseline": got[base], "current": got[now], "ratio": got[now] / got[base]}
                if args.compiled:
                    row[kind].update(pure=got[ROOT], pure_ratio=got[ROOT] / got[base],
                                     compiled_over_pure=got[now] / got[ROOT])
            row["maneuvering"] = rate(now, "maneuvering", args.games, kinds[0])
            rounds.append(row)
    first_kind = kinds[0]
    result: dict[str, Any] = {
        "baseline": args.baseline, "compiled": args.compiled, "games": args.games, "agents": kinds, "rounds": rounds,
        "median_ratio": {k: statistics.median(r[k]["ratio"] for r in rounds) for k in kinds},
        "median_standard": {k: statistics.median(r[k]["current"] for r in rounds) for k in kinds},
        "median_maneuvering": statistics.median(r["maneuvering"] for r in rounds),
    }
    if args.compiled:
        result["median_pure_ratio"] = {k: statistics.median(r[k]["pure_ratio"] for r in rounds) for k in kinds}
        result["median_compiled_over_pure"] = {k: statistics.median(r[k]["compiled_over_pure"] for r in rounds)
                                               for k in kinds}
    result["maneuvering_vs_standard"] = result["median_maneuvering"] / result["median_standard"][first_kind]
    if args.json:
        print(json.dumps(result, indent=2))
        return
    head = "".join(f" {k + ' base':>15} {k + ' now':>14} {'ratio':>6}" for k in kinds)
    print(f"{'round':>5}{head} {'军争 g/s':>9}")
    for i, r in enumerate(rounds, 1):
        cells = "".join(f" {r[k]['baseline']:>15.1f} {r[k]['current']:>14.1f} {r[k]['ratio']:>6.2f}" for k in kinds)
        print(f"{i:>5}{cells} {r['maneuvering']:>9.1f}")
    for k in kinds:
        print(f"median ratio current/baseline ({k} agents, standard game): {result['median_ratio'][k]:.2f}")
        if args.compiled:
            print(f"  the pure tree over the baseline: {result['median_pure_ratio'][k]:.2f}; "
                  f"compiled over pure: {result['median_compiled_over_pure'][k]:.2f}")
    print(f"军争 game ({first_kind} agents): {result['median_maneuvering']:.1f} games/s "
          f"({result['maneuvering_vs_standard']:.2f}x the standard game)")


if __name__ == "__main__":
    main()
