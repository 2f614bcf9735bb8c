"""Performance figures: games per second, events per second, load time, memory, scaling.

    python benchmarks/run.py            # a table
    python benchmarks/run.py --json     # the figures as JSON

What is measured (5-player identity games with the built-in standard content):

* games per second on one core with random agents, and with heuristic bots;
* events per second (events pushed on the event stack);
* the cold load-and-compile time of all content, in a fresh process;
* the peak memory one game allocates (tracemalloc), beyond the shared content;
* games per second with 2 worker processes, against 1.

Targets (docs/performance.md): >= 50 random games/s and >= 20 heuristic games/s per
core, content loaded in < 0.5 s, 2 workers >= 1.7x one.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import tracemalloc
from typing import Any

from sgs_dsl.loader import load_content
from sgs_runtime.runs.simulate import game_seed, play_one, simulate

COLD_LOAD = """
import time
t0 = time.perf_counter()
from sgs_dsl.loader import build
t1 = time.perf_counter()
content, diags = build()
t2 = time.perf_counter()
assert not diags, diags
print(t1 - t0, t2 - t1)
"""


def games_per_second(content: Any, agents: str, games: int, seed: int = 101) -> tuple[float, float]:
    start = time.perf_counter()
    events = 0
    for i in range(games):
        s = play_one(content, "identity", 5, game_seed(seed, i), i, agents)
        assert s.error is None, s.error
        events += s.events
    seconds = time.perf_counter() - start
    return games / seconds, events / seconds


def cold_load(runs: int = 5) -> tuple[float, float]:
    best_import, best_build = 9e9, 9e9
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", COLD_LOAD], capture_output=True, text=True, check=True)
        imp, build = map(float, out.stdout.split())
        best_import, best_build = min(best_import, imp), min(best_build, build)
    return best_import, best_build


def peak_memory(content: Any, games: int = 20) -> float:
    peaks = []
    for i in range(games):
        tracemalloc.start()
        play_one(content, "identity", 5, game_seed(7, i), i, "random")
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        peaks.append(peak)
    return sum(peaks) / len(peaks) / 1024


def scaling(content: Any, games: int) -> tuple[float, float]:
    one = simulate(content, players=5, games=games, seed=55, workers=1)
    two = simulate(content, players=5, games=games, seed=55, workers=2)
    assert one["errors"] == two["errors"] == 0
    return one["games_per_second"], two["games_per_second"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quick", action="store_true", help="fewer games (a smoke run)")
    args = parser.parse_args()
    n = 60 if args.quick else 600
    content = load_content()
    games_per_second(content, "random", 20)  # warm up
    random_gps, random_eps = games_per_second(content, "random", n)
    heuristic_gps, heuristic_eps = games_per_second(content, "heuristic", n // 3)
    imp, build = cold_load(2 if args.quick else 5)
    memory_kib = peak_memory(content, 5 if args.quick else 20)
    one, two = scaling(content, 2 * n)
    figures = {
        "random_games_per_second": round(random_gps, 1),
        "random_events_per_second": round(random_eps),
        "heuristic_games_per_second": round(heuristic_gps, 1),
        "heuristic_events_per_second": round(heuristic_eps),
        "import_seconds": round(imp, 3),
        "load_and_compile_seconds": round(build, 3),
        "peak_memory_per_game_kib": round(memory_kib),
        "one_worker_games_per_second": one,
        "two_workers_games_per_second": two,
        "two_worker_speedup": round(two / one, 2) if one else 0.0,
        "python": sys.version.split()[0],
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for key, value in figures.items():
        print(f"{key:<32} {value}")


if __name__ == "__main__":
    main()
