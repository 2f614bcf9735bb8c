"""The build: pure Python by default; ``SGS_COMPILE=1`` compiles the runtime's hot modules with mypyc.

    pip install .                                   # pure Python
    SGS_COMPILE=1 pip install .                     # the compiled build (needs a C compiler)
    SGS_COMPILE=1 python setup.py build_ext --inplace   # compiled, in a copy of the tree (benchmarks)

The project's metadata is in pyproject.toml; this file only adds the compiled modules. The
compiled build plays exactly the same games (docs/performance.md, "The compiled build").
An editable install is always pure (tools/build_backend.py): a compiled module beside its
source would shadow every later edit of it.
"""

import os
import sys

from setuptools import setup

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools"))
from build_backend import compiling  # noqa: E402  (what SGS_COMPILE means, in one place)

#: The modules compiled: what runs at every step or decision (the state and the resolution, the
#: content's definitions, events and requests the runtime reads at every step, the heuristic bot
#: with its beliefs and styles, the decision log's encoding, the simulation's role-reading meter).
#: Left out: agents/__init__ (people extend Agent) and the modules that run only around a game.
#: (A few classes of the compiled modules stay plain classes: docs/architecture.md says which.)
COMPILED = [
    "sgs_runtime/state/cardview.py",
    "sgs_runtime/state/chance.py",
    "sgs_runtime/state/definitions.py",
    "sgs_runtime/state/events.py",
    "sgs_runtime/state/frame.py",
    "sgs_runtime/state/model.py",
    "sgs_runtime/state/redeal.py",
    "sgs_runtime/state/seatview.py",
    "sgs_runtime/state/skillset.py",
    "sgs_runtime/state/statecache.py",
    "sgs_runtime/state/visibility.py",
    "sgs_runtime/resolution/game.py",
    "sgs_runtime/resolution/hp.py",
    "sgs_runtime/resolution/judge.py",
    "sgs_runtime/resolution/legal.py",
    "sgs_runtime/resolution/moves.py",
    "sgs_runtime/resolution/ops.py",
    "sgs_runtime/resolution/prohibitions.py",
    "sgs_runtime/resolution/quantities.py",
    "sgs_runtime/resolution/requests.py",
    "sgs_runtime/resolution/respond.py",
    "sgs_runtime/resolution/triggers.py",
    "sgs_runtime/resolution/turn.py",
    "sgs_runtime/resolution/use.py",
    "sgs_runtime/resolution/vocabulary.py",
    "sgs_runtime/agents/__init__.py",
    "sgs_runtime/agents/beliefs.py",
    "sgs_runtime/agents/bots.py",
    "sgs_runtime/agents/styles.py",
    "sgs_runtime/records/replay.py",
    "sgs_runtime/runs/rolereading.py",
]


def ext_modules() -> list:
    if not compiling():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        if "egg_info" in sys.argv:  # pip asking what the build needs (mypy, tools/build_backend.py)
            return []
        raise SystemExit("SGS_COMPILE=1: the compiled build needs mypyc (pip install mypy) and a C compiler") from None
    return mypycify(COMPILED, opt_level="3")


setup(ext_modules=ext_modules())
