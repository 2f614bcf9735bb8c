"""Instructions the engine runs for a fixed set of games, counted by valgrind's callgrind: a
figure that holds still where this shared machine's timings move by ±30%.

    python benchmarks/instructions.py                              # this tree, 10 random 5-player games
    python benchmarks/instructions.py --agents heuristic --games 5
    python benchmarks/instructions.py --agents heuristic --simulate  # as sgs simulate plays them (the meter too)
    python benchmarks/instructions.py --tree /tmp/sgs-compiled     # a compiled copy (tools/compiled.py build)
    python benchmarks/instructions.py --tree /tmp/old --tree .     # side by side: each over the first

Each count loads the content, plays one warm-up game, then the games (seeds 0 to N-1, the
agents seeded as ``benchmarks/speed.py`` seeds them), under ``valgrind --tool=callgrind``
with the hash seed fixed (``PYTHONHASHSEED=0``), less the count of the same run with no
games (the load and the warm-up); the games are played once without valgrind first, so that
the content cache and the snippets' code cache are warm for both. In a compiled tree only the instructions inside
``Game.play`` are counted at all (``--toggle-collect`` on its C function), which leaves
the warm-up game to take away; callgrind cannot single out a Python function, so a pure
tree counts the whole process. Two builds of the same code still differ by about 1%: the state
cache's keys hold ids, so where objects happen to lie moves the dictionaries' work. Read
differences below that as none; read a function's own count (``callgrind_annotate`` on
the kept file, ``--keep``) for smaller changes. Needs valgrind (``apt-get install valgrind``);
10 random games take about half a minute.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parent.parent

#: the C function of ``Game.play`` in the compiled build (mypyc's name for it)
COMPILED_PLAY = "CPyDef_game___Game___play"

PLAY = """
import sys
from sgs_dsl.loader import load_content
from sgs_runtime.resolution.game import Game
from sgs_runtime.runs.simulate import make_agent, play_one
agents, games, players, harness = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "simulate"
content = load_content()
rules = content.ruleset("identity")
def one(seed):
    if harness:  # as sgs simulate plays it (the same agents, and the role-reading meter watching them)
        s = play_one(content, "identity", players, seed, 0, agents)
        assert s.error is None, s.error
        return
    g = Game(content, rules, players=players, seed=seed, keep_log=False)
    g.play([make_agent(agents, seed * 31 + i) for i in range(players)])
one(10**6)  # warm up: the content's snippets compiled, the caches filled
for seed in range(games):
    one(seed)
"""

COMPILED_CHECK = "import sgs_runtime.resolution.game as m; print(m.__file__.endswith(('.so', '.pyd')))"


def total(out_file: Path) -> int:
    """The instructions a callgrind output file counted (its ``summary:`` line).

    >>> import tempfile; p = Path(tempfile.mkdtemp()) / "cg.out"
    >>> _ = p.write_text("events: Ir\\nsummary: 1234\\nfn=(1) f\\n")
    >>> total(p)
    1234
    """
    for line in out_file.read_text(errors="replace").splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise ValueError(f"{out_file} has no summary line: is it a callgrind output file?")


def _env(tree: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")


def is_compiled(tree: Path) -> bool:
    """Whether ``tree`` holds the compiled build (its game module is a C extension)."""
    out = subprocess.run([sys.executable, "-c", COMPILED_CHECK], cwd=tree, env=_env(tree), capture_output=True,
                         text=True, check=True)
    return out.stdout.strip() == "True"


def count(tree: Path, agents: str, games: int, players: int, keep: Optional[Path] = None,
          simulate: bool = False) -> dict[str, Any]:
    """Instructions inside the games (see the module's text); ``keep``: a folder for the output files;
    ``simulate``: the games played as ``sgs simulate`` plays them (:func:`simulate.play_one`)."""
    how = "simulate" if simulate else "game"
    compiled = is_compiled(tree)
    folder = Path(tempfile.mkdtemp(prefix="sgs-callgrind-")) if keep is None else keep
    folder.mkdir(parents=True, exist_ok=True)

    def run(n: int, name: str) -> int:
        out = folder / name
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
        if compiled:
            cmd.append(f"--toggle-collect={COMPILED_PLAY}")
        cmd += [sys.executable, "-c", PLAY, agents, str(n), str(players), how]
        subprocess.run(cmd, cwd=tree, env=_env(tree), capture_output=True, text=True, check=True)
        return total(out)

    # the same games once without valgrind first: the content cache and the snippets' code cache are
    # filled, so that neither counted run pays for building them (which would differ between the two)
    subprocess.run([sys.executable, "-c", PLAY, agents, str(games), str(players), how], cwd=tree, env=_env(tree),
                   capture_output=True, text=True, check=True)
    stem = f"{tree.name or 'tree'}.{agents}.{players}p{'.simulate' if simulate else ''}"
    # the warm-up game (and, in a pure tree, the load), counted alone and taken away
    got = run(games, f"{stem}.{games}.out") - run(0, f"{stem}.0.out")
    if keep is None:
        shutil.rmtree(folder, ignore_errors=True)
    return {"tree": str(tree), "compiled": compiled, "agents": agents, "players": players, "games": games,
            "simulate": simulate, "instructions": got, "per_game": round(got / games) if games else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", action="append", type=Path, help="a tree to count in (again for more; default: this one)")
    ap.add_argument("--agents", default="random", help="the agents of every seat (random, heuristic ...)")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--keep", type=Path, help="keep callgrind's output files in this folder")
    ap.add_argument("--simulate", action="store_true",
                    help="play the games as sgs simulate and benchmarks/compare.py do (simulate.play_one: the "
                         "role-reading meter watches the bots)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind): nothing counted")
    if args.games < 1:
        sys.exit("--games must be at least 1")
    rows = [count(t.resolve(), args.agents, args.games, args.players, args.keep, args.simulate)
            for t in (args.tree or [ROOT])]
    first = rows[0]["instructions"]
    for r in rows:
        r["over_first"] = round(r["instructions"] / first, 4) if first else None
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for r in rows:
        build = "compiled" if r["compiled"] else "pure"
        how = " (as sgs simulate plays them)" if r["simulate"] else ""
        print(f"{r['tree']} ({build}): {r['instructions']:,} instructions in {r['games']} {r['agents']} "
              f"{r['players']}-player games{how}, {r['per_game']:,} a game, {r['over_first']:.4f} of the first")


if __name__ == "__main__":
    main()
