"""How fast the engine plays and starts, from one run, with RLCard's Dou Dizhu as a peer.

    python benchmarks/speed.py                  # the full table (a few minutes)
    python benchmarks/speed.py --quick          # a rough table in well under a minute
    python benchmarks/speed.py --games 60 --json
    python benchmarks/speed.py --baseline 24e70ea   # start-up of that revision too, in the same rounds

Play: identity rules with the built-in content, 2, 5 and 8 players, random and
heuristic agents; for each, games per second, microseconds per event (an event is
one step of the game: ``Game.steps``, the ``events`` of ``simulate.play_one``'s
summary) and per decision (one answer of an agent: each agent is wrapped to count
its ``decide`` calls). The games are played in rounds, every configuration once a
round, so that drift of the machine touches them all alike.

Peer: RLCard's Dou Dizhu with its random agents (``pip install 'sgs-engine[peer]'``;
without RLCard the peer is skipped, and the table says so), played in the same
process, alternately with the 5-player random Sanguosha game, round after round; the
ratio of the two is taken per round (the median is reported), which a noisy machine
does not move much. A Dou Dizhu step is one decision.

Start-up: the import of the command and of the loader, ``build()`` in process
with the content cache cold (an empty cache folder) and warm, and ``sgs validate``
and ``sgs simulate --games 1 --no-progress`` as fresh processes, cold and warm:
each the best of 5 (3 with --quick), taken round robin. With ``--baseline REV`` the
two commands of that revision (checked out with ``git worktree``) are measured in
the same rounds. The processes are given a compiled-bytecode
folder of their own (PYTHONPYCACHEPREFIX), compiled once first, so that the
figures do not include compiling the sources (which an environment with
PYTHONDONTWRITEBYTECODE would otherwise repeat in every process).

Everything runs on one core where the system allows it (``os.sched_setaffinity``).
Figures are wall times; they are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Callable, Optional

ROOT = Path(__file__).resolve().parent.parent
for _folder in (ROOT, ROOT / "benchmarks"):  # the engine, and compare.py beside this file
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

PLAYERS = (2, 5, 8)
AGENTS = ("random", "heuristic")
PEER_CONFIG = (5, "random")  # the Sanguosha game the peer is compared with, round by round


def pin_to_one_core() -> Optional[int]:
    """Run on one core (and so do the processes started from here); the core, or None where it cannot."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    try:
        cores = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cores[0]})
        return cores[0]
    except OSError:
        return None


# ---------------------------------------------------------------------- play


class Counting:
    """An agent that counts its answers and leaves them to the agent it wraps."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.decisions = 0

    def decide(self, request: Any, view: Any) -> Any:
        self.decisions += 1
        return self.agent.decide(request, view)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.agent, name)


class CountingPeer(Counting):
    """The same for an RLCard agent, which is asked ``eval_step`` (not ``decide``) when not training."""

    def eval_step(self, state: Any) -> Any:
        self.decisions += 1
        return self.agent.eval_step(state)


class Tally:
    def __init__(self) -> None:
        self.games = 0
        self.seconds = 0.0
        self.events = 0
        self.decisions = 0
        self.errors = 0
        self.limits = 0

    def row(self) -> dict[str, Any]:
        s = self.seconds
        return {"games": self.games, "seconds": round(s, 4),
                "games_per_s": round(self.games / s, 2) if s else None,
                "us_per_event": round(s * 1e6 / self.events, 2) if self.events else None,
                "us_per_decision": round(s * 1e6 / self.decisions, 2) if self.decisions else None,
                "events_per_game": round(self.events / self.games, 1) if self.games else None,
                "decisions_per_game": round(self.decisions / self.games, 1) if self.games else None,
                "errors": self.errors, "limits": self.limits}


def play_batch(content: Any, players: int, agents: str, seeds: list[int], tally: Tally) -> float:
    """Play games with these seeds (as ``simulate.play_one`` does, with counting agents); their wall time."""
    from sgs_runtime.errors import LimitExceeded
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.runs.simulate import make_agent

    rules = content.ruleset("identity")
    total = 0.0
    for seed in seeds:
        start = time.perf_counter()
        game = Game(content, rules, players=players, seed=seed, keep_log=False)
        bots = [Counting(make_agent(agents, seed * 31 + i)) for i in range(players)]
        try:
            game.play(bots)
        except LimitExceeded:
            tally.limits += 1
        except Exception:  # an engine error: counted, the benchmark goes on
            tally.errors += 1
        total += time.perf_counter() - start
        tally.games += 1
        tally.events += game.steps
        tally.decisions += sum(b.decisions for b in bots)
    tally.seconds += total
    return total


class Peer:
    """RLCard's Dou Dizhu with random agents, or why it cannot be played here."""

    def __init__(self) -> None:
        self.missing: Optional[str] = None
        self.version = ""
        try:
            import rlcard
            from rlcard.agents import RandomAgent
        except Exception as exc:  # not installed, or numpy missing
            self.missing = f"RLCard is not installed ({type(exc).__name__}: {exc}); pip install 'sgs-engine[peer]'"
            return
        self.version = getattr(rlcard, "__version__", "")
        self.env = rlcard.make("doudizhu", config={"seed": 0})
        self.agents = [CountingPeer(RandomAgent(num_actions=self.env.num_actions)) for _ in range(self.env.num_players)]
        self.env.set_agents(self.agents)
        self.tally = Tally()

    def batch(self, games: int) -> float:
        start = time.perf_counter()
        before = sum(a.decisions for a in self.agents)
        for _ in range(games):
            self.env.run(is_training=False)
        took = time.perf_counter() - start
        steps = sum(a.decisions for a in self.agents) - before
        t = self.tally
        t.games += games
        t.seconds += took
        t.events += steps
        t.decisions += steps
        return took


def measure_play(games: int, rounds: int, peer_games: int, use_peer: bool) -> dict[str, Any]:
    from sgs_dsl.loader import load_content
    from sgs_runtime.runs.simulate import game_seed

    content = load_content()
    configs = [(n, a) for n in PLAYERS for a in AGENTS]
    tallies = {c: Tally() for c in configs}
    peer = Peer() if use_peer else None
    for n, a in configs:  # warm up: one game each (and the peer's first game)
        play_batch(content, n, a, [game_seed(7, 0)], Tally())
    if peer is not None and peer.missing is None:
        peer.batch(1)
        peer.tally = Tally()
    per_round = [max(1, games // rounds + (1 if r < games % rounds else 0)) for r in range(rounds)]
    peer_rounds: list[dict[str, float]] = []
    done = 0
    for r, count in enumerate(per_round):
        seeds = [game_seed(101, done + i) for i in range(count)]
        done += count
        order = configs if r % 2 == 0 else list(reversed(configs))
        own: dict[tuple[int, str], float] = {}
        for c in order:
            before = (tallies[c].games, tallies[c].seconds)
            play_batch(content, c[0], c[1], seeds, tallies[c])
            own[c] = (tallies[c].games - before[0]) / (tallies[c].seconds - before[1])
        if peer is not None and peer.missing is None:
            n_peer = max(1, peer_games // rounds)
            took = peer.batch(n_peer)
            peer_rate = n_peer / took
            # the Sanguosha game again after the peer: its rate is taken on both sides of it
            again = Tally()
            play_batch(content, PEER_CONFIG[0], PEER_CONFIG[1], seeds, again)
            sgs_rate = statistics.mean([own[PEER_CONFIG], again.games / again.seconds])
            peer_rounds.append({"sgs_games_per_s": round(sgs_rate, 2), "peer_games_per_s": round(peer_rate, 2),
                                "peer_over_sgs": round(peer_rate / sgs_rate, 3)})
    out: dict[str, Any] = {"rules": "identity", "rounds": rounds,
                           "play": [{"players": n, "agents": a, **tallies[(n, a)].row()} for n, a in configs]}
    if peer is None:
        out["peer"] = {"skipped": "not asked for (--no-peer)"}
    elif peer.missing is not None:
        out["peer"] = {"skipped": peer.missing}
    else:
        out["peer"] = {"game": "rlcard doudizhu, random agents", "rlcard": peer.version, **peer.tally.row(),
                       "compared_with": f"{PEER_CONFIG[0]} players, {PEER_CONFIG[1]} agents",
                       "rounds": peer_rounds,
                       "median_peer_over_sgs": statistics.median(p["peer_over_sgs"] for p in peer_rounds)}
    return out


# ---------------------------------------------------------------------- start-up


def _env(cache_dir: Path, pycache: Path, tree: Path = ROOT) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("SGS_NO_CACHE", "PYTHONDONTWRITEBYTECODE")}
    env.update(SGS_CACHE_DIR=str(cache_dir), PYTHONPYCACHEPREFIX=str(pycache))
    env["PYTHONPATH"] = os.pathsep.join([str(tree), *filter(None, [os.environ.get("PYTHONPATH")])])
    return env


def _wall(cmd: list[str], env: dict[str, str], cwd: Path = ROOT) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr.strip()[-500:]}")
    return took, out.stdout


def sgs_command() -> tuple[list[str], str]:
    """The ``sgs`` console script beside this Python (not a shell shim in front of it), or ``python -m``."""
    script = Path(sys.executable).parent / ("sgs.exe" if os.name == "nt" else "sgs")
    if script.is_file():
        return [str(script)], str(script)
    return [sys.executable, "-m", "sgs_cli.main"], "python -m sgs_cli.main"


IMPORT_CLI = "import time; t = time.perf_counter(); import sgs_cli.main; print(time.perf_counter() - t)"
IMPORT_ALL = ("import time; t = time.perf_counter(); import sgs_dsl.loader, sgs_runtime.runs.simulate; "
              "print(time.perf_counter() - t)")
BUILD = ("import time; from sgs_dsl.loader import build; t = time.perf_counter(); c, d = build(); "
         "assert not d, d; print(time.perf_counter() - t)")
VALIDATE = ["validate"]
SIMULATE = ["simulate", "--games", "1", "--no-progress"]


def measure_startup(repeat: int, baseline: Optional[str] = None) -> dict[str, Any]:
    """Every figure taken ``repeat`` times, round robin (so that a noisy spell touches them all), the best kept.

    With ``baseline`` (a git revision), ``sgs validate`` and ``sgs simulate`` of that
    revision's tree are measured in the same rounds, with its cache kept from run to run and with
    a fresh cache folder every run (cold; the same as the other for a tree without the cache).
    """
    from compare import baseline_tree

    sgs, sgs_name = sgs_command()
    py = [sys.executable, "-c"]
    with tempfile.TemporaryDirectory(prefix="sgs-speed-") as tmp, \
            (baseline_tree(baseline) if baseline else nullcontext(None)) as base_tree:
        folder = Path(tmp)
        pycache = folder / "pycache"
        warm = _env(folder / "warm-cache", pycache)

        def cold() -> dict[str, str]:
            return _env(folder / f"cold-{time.perf_counter_ns()}", pycache)

        # (name, environment, command, the figure is printed by the command (in process), folder)
        cases: list[tuple[str, Callable[[], dict[str, str]], list[str], bool, Path]] = [
            ("import sgs_cli.main (in process)", lambda: warm, py + [IMPORT_CLI], True, ROOT),
            ("import loader + simulate (in process)", lambda: warm, py + [IMPORT_ALL], True, ROOT),
            ("python -c 'import sgs_cli.main' (process)", lambda: warm, py + ["import sgs_cli.main"], False, ROOT),
            ("sgs --help (process)", lambda: warm, sgs + ["--help"], False, ROOT),
            ("build() cold (in process)", cold, py + [BUILD], True, ROOT),
            ("build() warm (in process)", lambda: warm, py + [BUILD], True, ROOT),
            ("sgs validate cold (process)", cold, sgs + VALIDATE, False, ROOT),
            ("sgs validate warm (process)", lambda: warm, sgs + VALIDATE, False, ROOT),
            ("sgs simulate --games 1 cold (process)", cold, sgs + SIMULATE, False, ROOT),
            ("sgs simulate --games 1 warm (process)", lambda: warm, sgs + SIMULATE, False, ROOT),
            ("sgs validate, no cache (SGS_NO_CACHE=1)", lambda: dict(warm, SGS_NO_CACHE="1"), sgs + VALIDATE, False,
             ROOT),
        ]
        if base_tree is not None:
            old = _env(folder / "baseline-cache", pycache, base_tree)

            def old_cold() -> dict[str, str]:
                return _env(folder / f"baseline-cold-{time.perf_counter_ns()}", pycache, base_tree)

            cases += [(f"baseline {baseline}: sgs validate (process)", lambda: old, sgs + VALIDATE, False, base_tree),
                      (f"baseline {baseline}: sgs simulate --games 1 (process)", lambda: old, sgs + SIMULATE, False,
                       base_tree),
                      (f"baseline {baseline}: sgs validate cold (process)", old_cold, sgs + VALIDATE, False, base_tree),
                      (f"baseline {baseline}: sgs simulate --games 1 cold (process)", old_cold, sgs + SIMULATE, False,
                       base_tree)]
        for tree, env in ((ROOT, warm), *(((base_tree, _env(folder / "baseline-cache", pycache, base_tree)),)
                                          if base_tree is not None else ())):
            _wall(sgs + SIMULATE, env, tree)  # compile the bytecode (and fill the cache)
            _wall(sgs + VALIDATE, env, tree)
        got: dict[str, list[float]] = {name: [] for name, *_ in cases}
        for _ in range(repeat):
            for name, make_env, cmd, inner, cwd in cases:
                took, out = _wall(cmd, make_env(), cwd)
                got[name].append(float(out.strip().splitlines()[-1]) if inner else took)
    return {"command": sgs_name, "best_of": repeat, "baseline": baseline,
            "seconds": {name: round(min(v), 4) for name, v in got.items()}}


# ---------------------------------------------------------------------- report


def print_report(res: dict[str, Any]) -> None:
    print(f"sgs-engine speed  (python {res['python']}, {res['machine']}, core {res['core']}, "
          f"{res['play']['rounds']} rounds)")
    print()
    print(f"{'players':>7} {'agents':<10} {'games':>6} {'games/s':>8} {'µs/event':>9} {'µs/decision':>12} "
          f"{'events/game':>12} {'decisions/game':>15} {'errors':>6}")
    for r in res["play"]["play"]:
        print(f"{r['players']:>7} {r['agents']:<10} {r['games']:>6} {r['games_per_s']:>8.2f} {r['us_per_event']:>9.1f} "
              f"{r['us_per_decision']:>12.1f} {r['events_per_game']:>12.0f} {r['decisions_per_game']:>15.0f} "
              f"{r['errors'] + r['limits']:>6}")
    peer = res["play"]["peer"]
    print()
    if "skipped" in peer:
        print(f"peer: skipped: {peer['skipped']}")
    else:
        print(f"peer: {peer['game']} (rlcard {peer['rlcard']}): {peer['games']} games, {peer['games_per_s']:.2f} games/s, "
              f"{peer['us_per_decision']:.1f} µs per step (= decision), {peer['decisions_per_game']:.0f} steps/game")
        print(f"      against {peer['compared_with']}, alternately, per round: "
              + ", ".join(f"{p['peer_over_sgs']:.3f}" for p in peer["rounds"])
              + f"; median: Dou Dizhu plays {peer['median_peer_over_sgs']:.3f}x as many games per second"
              + f" (Sanguosha {1 / peer['median_peer_over_sgs']:.2f}x Dou Dizhu's)")
    if "startup" in res:
        st = res["startup"]
        print()
        print(f"start-up (best of {st['best_of']}; sgs = {st['command']}):")
        for name, secs in st["seconds"].items():
            print(f"  {name:<52} {secs:>7.3f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=None, help="games per configuration (default 40; 6 with --quick)")
    ap.add_argument("--rounds", type=int, default=None, help="rounds the games are spread over (default 4; 2 with --quick)")
    ap.add_argument("--peer-games", type=int, default=None, help="Dou Dizhu games (default 400; 60 with --quick)")
    ap.add_argument("--quick", action="store_true", help="few games, start-up best of 3")
    ap.add_argument("--no-peer", action="store_true", help="do not play the RLCard peer")
    ap.add_argument("--no-startup", action="store_true", help="do not measure start-up")
    ap.add_argument("--baseline", default=None,
                    help="a git revision whose start-up (sgs validate, sgs simulate) is measured alongside")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    games = args.games or (6 if args.quick else 40)
    rounds = max(1, min(args.rounds or (2 if args.quick else 4), games))
    peer_games = args.peer_games or (60 if args.quick else 400)
    core = pin_to_one_core()
    res: dict[str, Any] = {"python": platform.python_version(), "machine": platform.machine(), "core": core}
    if not args.no_startup:  # first: nothing of the engine is imported in this process yet
        res["startup"] = measure_startup(3 if args.quick else 5, args.baseline)
    res["play"] = measure_play(games, rounds, peer_games, not args.no_peer)
    if args.json:
        print(json.dumps(res, indent=2, ensure_ascii=False))
    else:
        print_report(res)


if __name__ == "__main__":
    main()
