"""The compiled build (setup.py, ``SGS_COMPILE=1``): build it in a copy of this tree, and check it.

    python tools/compiled.py build /tmp/sgs-compiled     # a copy of the tree with the compiled modules
    python tools/compiled.py check                       # build in a temporary folder, then prove it right

``check`` plays in the compiled copy what CI plays in the tree: every rule case, and
``sgs simulate --json`` for random and heuristic bots at 2, 5 and 8 players, the 军争
rules and every hero; the JSON must equal the pure tree's, timings aside. A content kept
for a warm start by either build must be read back by the other and play the same games. It needs a C
compiler and mypy (``pip install mypy``); without a compiler it says so and exits 0
unless ``--require``. The copy takes the working tree as it is (uncommitted changes
too), so ``benchmarks/compare.py --compiled`` measures what is on disk.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: ``sgs simulate`` runs whose JSON must be the same in the pure tree and in the compiled copy
SIMULATIONS = [
    ["--players", "2,5,8", "--agents", "random"],
    ["--players", "5,8", "--agents", "heuristic"],
    ["--rules", "identity_all", "--players", "8", "--agents", "heuristic"],
    ["--rules", "maneuvering", "--players", "5", "--agents", "heuristic"],
]


def can_compile() -> str:
    """Why the compiled build cannot be made here ('' when it can)."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return "no C compiler (install gcc)"
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").exists():
        return f"no Python headers in {include} (install python3-dev)"
    try:
        import mypyc  # noqa: F401
    except ImportError:
        return "mypyc is missing (pip install mypy)"
    return ""


def _tree_files(source: Path) -> list[str]:
    """The files of ``source`` as git sees them: tracked and untracked, ignored ones left out."""
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=source, check=True,
                         capture_output=True, text=True).stdout
    return [f for f in out.splitlines() if (source / f).is_file()]


def build(dest: Path, source: Path = ROOT) -> Path:
    """Copy ``source`` to ``dest`` and compile the modules of setup.py's ``COMPILED`` there, in place."""
    if dest.exists():
        shutil.rmtree(dest)
    for name in _tree_files(source):
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / name, target)
    env = dict(os.environ, SGS_COMPILE="1")
    got = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=dest, env=env,
                         capture_output=True, text=True)
    if got.returncode != 0:
        raise SystemExit(f"the compiled build failed:\n{got.stdout[-3000:]}\n{got.stderr[-3000:]}")
    return dest


def _env(tree: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0", SGS_NO_CACHE="1")


def compiled_names(tree: Path) -> list[str]:
    """The module names of setup.py's ``COMPILED`` (read from its syntax tree; setup.py is not run)."""
    module = ast.parse((tree / "setup.py").read_text(encoding="utf-8"))
    for node in module.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "COMPILED" for t in node.targets):
            return [p.removesuffix(".py").replace("/", ".") for p in ast.literal_eval(node.value)]
    return []


def compiled_modules(tree: Path) -> list[str]:
    """The modules of ``COMPILED`` that ``tree`` loads from a compiled file."""
    probe = ("import importlib, json, sys; names = sys.argv[1:]; "
             "print(json.dumps([n for n in names if not importlib.import_module(n).__file__.endswith('.py')]))")
    out = subprocess.run([sys.executable, "-c", probe, *compiled_names(tree)], cwd=tree, env=_env(tree),
                         capture_output=True, text=True, check=True).stdout
    return list(json.loads(out))


def _strip(value: Any) -> Any:
    """A report without its timings (the only part that may differ between two builds)."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items()
                if not any(w in k for w in ("time", "seconds", "per_s", "cpu", "elapsed"))}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def simulate(tree: Path, args: list[str], games: int) -> Any:
    cmd = [sys.executable, "-m", "sgs_cli.main", "simulate", "--json", "--seed", "7", "--games", str(games), *args]
    got = subprocess.run(cmd, cwd=tree, env=_env(tree), capture_output=True, text=True)
    if got.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed in {tree}:\n{got.stderr[-3000:]}")
    return _strip(json.loads(got.stdout))


#: a warm start across the builds: ``dump PATH`` builds the content and keeps its snapshot in PATH, then (and
#: ``load PATH`` alone) reads PATH back and prints what a few games played with it give
WARM = """
import dataclasses, json, sys
from pathlib import Path
from sgs_dsl.loader import load_content
from sgs_dsl.snapshot import dumps, loads
from sgs_runtime.runs.simulate import play_one
how, path = sys.argv[1], Path(sys.argv[2])
if how == "dump":
    blob = dumps((load_content(), []))
    if blob is None:
        raise SystemExit("the content could not be kept")
    path.write_bytes(blob)
got = loads(path.read_bytes())
if got is None:
    raise SystemExit("the content kept could not be read back")
games = [play_one(got[0], "identity", 5, seed, seed, agents) for seed in (3, 4) for agents in ("random", "heuristic")]
print(json.dumps([dataclasses.asdict(g) for g in games], default=str))
"""


def warm_start(tree: Path) -> list[str]:
    """The content kept by one build is read back by the other and plays the same games (the compiled
    definitions are pickled as compiled classes: a user switching builds keeps one cache)."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="sgs-warm-") as tmp:
        kept = {"compiled": Path(tmp) / "compiled.snapshot", "pure": Path(tmp) / "pure.snapshot"}
        trees = {"compiled": tree, "pure": ROOT}
        plays: dict[str, Any] = {}
        for maker, other in (("compiled", "pure"), ("pure", "compiled")):
            for reader in (maker, other):  # (the maker keeps it first)
                how = "dump" if reader == maker else "load"
                got = subprocess.run([sys.executable, "-c", WARM, how, str(kept[maker])], cwd=trees[reader],
                                     env=_env(trees[reader]), capture_output=True, text=True)
                if got.returncode != 0:
                    problems.append(f"the {reader} build could not read the content the {maker} build kept:\n"
                                    f"{got.stdout[-1000:]}{got.stderr[-2000:]}")
                    continue
                plays[f"{maker}->{reader}"] = _strip(json.loads(got.stdout))
        same = len(plays) == 4 and all(v == plays["pure->pure"] for v in plays.values())
        print(f"warm start across the builds: {'same' if same else 'DIFFERENT'}")
        if not same and not problems:
            problems.append("a content kept by one build plays other games in the other build")
    return problems


#: tests run in the compiled copy too (the whole suite runs on the pure tree)
COMPILED_TESTS = ["tests/test_hostile_answers.py", "tests/test_hidden_information.py", "tests/test_request_inits.py",
                  "tests/test_beliefs.py", "tests/test_chance.py", "tests/test_state_cache.py", "tests/test_garbage.py"]


def check(tree: Path, games: int) -> list[str]:
    """What differs between the pure tree and the compiled copy ``tree`` (nothing: an empty list)."""
    problems = []
    names, loaded = compiled_names(tree), compiled_modules(tree)
    print(f"compiled modules loaded: {len(loaded)} of {len(names)}")
    if not names or len(loaded) != len(names):
        problems.append(f"the copy loads {sorted(set(names) - set(loaded))} from source, not compiled")
    cases = subprocess.run([sys.executable, "-m", "sgs_cli.main", "scenario", "run", "tests/scenarios"],
                           cwd=tree, env=_env(tree), capture_output=True, text=True)
    print(cases.stdout.strip().splitlines()[-1] if cases.stdout.strip() else cases.stderr[-500:])
    if cases.returncode != 0:
        problems.append(f"rule cases failed in the compiled build:\n{cases.stdout[-3000:]}{cases.stderr[-2000:]}")
    problems += warm_start(tree)
    # the tests where interpreted code meets compiled objects: answers of the wrong type (refused in
    # words, not by the compiled code's own type checks), requests, events and beliefs made from Python
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *COMPILED_TESTS],
                           cwd=tree, env=_env(tree), capture_output=True, text=True)
    print(tests.stdout.strip().splitlines()[-1] if tests.stdout.strip() else tests.stderr[-500:])
    if tests.returncode != 0:
        problems.append(f"tests failed in the compiled build:\n{tests.stdout[-3000:]}{tests.stderr[-2000:]}")
    for args in SIMULATIONS:
        same = simulate(ROOT, args, games) == simulate(tree, args, games)
        print(f"simulate {' '.join(args)}: {'same' if same else 'DIFFERENT'}")
        if not same:
            problems.append(f"simulate {' '.join(args)} differs between the pure and the compiled build")
    return problems


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="copy the tree to DEST and compile it there")
    b.add_argument("dest", type=Path)
    c = sub.add_parser("check", help="build in a temporary folder; rule cases and simulations must match")
    c.add_argument("--games", type=int, default=40, help="games per simulation")
    c.add_argument("--require", action="store_true", help="fail (rather than skip) where it cannot be built")
    args = ap.parse_args()
    why = can_compile()
    if why:
        if args.command == "check" and not args.require:
            print(f"the compiled build is not checked: {why}")
            return
        raise SystemExit(f"the compiled build cannot be made: {why}")
    if args.command == "build":
        build(args.dest.resolve())
        print(f"built {args.dest}: PYTHONPATH={args.dest} runs it")
        return
    with tempfile.TemporaryDirectory(prefix="sgs-compiled-") as tmp:
        tree = build(Path(tmp) / "tree")
        problems = check(tree, args.games)
    if problems:
        raise SystemExit("\n".join(problems))
    print("the compiled build plays the same games")


if __name__ == "__main__":
    main()
