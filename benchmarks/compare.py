"""Games per second of this tree against an earlier revision, side by side in one run.

    python benchmarks/compare.py --baseline 20bad30            # standard game, then the 军争 game
    python benchmarks/compare.py --baseline HEAD~3 --games 150 --rounds 5 --json

The machine is shared and noisy, so absolute figures drift; the ratio of two figures
taken alternately, in fresh processes, round after round, does not. The baseline is
checked out with ``git worktree`` into a temporary folder (and removed afterwards);
each round plays the same seeded 5-player games with random agents in each tree, and
the report gives every round and the median ratio. The 军争 figure (rules
``maneuvering``, 160 cards) is measured in this tree only, in the same rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

PLAY = """
import sys, time
from sgs_dsl.loader import load_content
from sgs_runtime.simulate import game_seed, play_one
rules, games = sys.argv[1], int(sys.argv[2])
content = load_content()
if rules not in content.rulesets:
    print("nan"); raise SystemExit
play_one(content, rules, 5, 1, 0, "random")  # warm up
start = time.perf_counter()
for i in range(games):
    s = play_one(content, rules, 5, game_seed(101, i), i, "random")
    assert s.error is None, s.error
print(games / (time.perf_counter() - start))
"""


def rate(tree: Path, rules: str, games: int) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", PLAY, rules, str(games)], cwd=tree, env=env,
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="a git revision to compare with (e.g. 20bad30)")
    ap.add_argument("--games", type=int, default=150, help="games per measurement")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="sgs-baseline-") as tmp:
        base = Path(tmp) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", str(base), args.baseline], cwd=ROOT, check=True,
                       capture_output=True)
        try:
            rounds: list[dict[str, Any]] = []
            for r in range(args.rounds):
                first, second = (base, ROOT) if r % 2 == 0 else (ROOT, base)  # alternate the order
                got = {first: rate(first, "identity", args.games), second: rate(second, "identity", args.games)}
                rounds.append({"baseline": got[base], "current": got[ROOT], "ratio": got[ROOT] / got[base],
                               "maneuvering": rate(ROOT, "maneuvering", args.games)})
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, capture_output=True)
    result = {
        "baseline": args.baseline, "games": args.games, "rounds": rounds,
        "median_ratio": statistics.median(r["ratio"] for r in rounds),
        "median_standard": statistics.median(r["current"] for r in rounds),
        "median_maneuvering": statistics.median(r["maneuvering"] for r in rounds),
    }
    result["maneuvering_vs_standard"] = result["median_maneuvering"] / result["median_standard"]
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{'round':>5} {'baseline g/s':>13} {'current g/s':>12} {'ratio':>6} {'军争 g/s':>9}")
    for i, r in enumerate(rounds, 1):
        print(f"{i:>5} {r['baseline']:>13.1f} {r['current']:>12.1f} {r['ratio']:>6.2f} {r['maneuvering']:>9.1f}")
    print(f"median ratio current/baseline (standard game): {result['median_ratio']:.2f}")
    print(f"军争 game: {result['median_maneuvering']:.1f} games/s "
          f"({result['maneuvering_vs_standard']:.2f}x the standard game)")


if __name__ == "__main__":
    main()
