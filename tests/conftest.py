"""Shared helpers for the test suites."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

# the content cache of the test session is its own: tests never read or write the user's cache
os.environ["SGS_CACHE_DIR"] = tempfile.mkdtemp(prefix="sgs-test-cache-")
# games the terminal saves on leaving go to a folder of the test session, not the user's
os.environ["SGS_SAVE_DIR"] = tempfile.mkdtemp(prefix="sgs-test-saves-")

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
FIXTURES = TESTS / "fixtures"

# `path:line:col: CODE message`, as `sgs validate` prints diagnostics
DIAGNOSTIC_LINE = re.compile(r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+): (?P<code>[EW]\d{3}) (?P<message>.*)$")


@pytest.fixture(scope="session")
def content() -> Any:
    """The built-in content, loaded once."""
    from sgs_dsl.loader import load_content

    return load_content()


@pytest.fixture(scope="session")
def identity(content: Any) -> Any:
    return content.ruleset("identity")


def run_cli(*args: str) -> Any:
    """Run the `sgs` command in this process; the result has exit_code, stdout and stderr."""
    from sgs_cli.main import main

    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def benchmark(name: str) -> Any:
    """The module ``benchmarks/NAME.py`` (the benchmarks are scripts, not a package)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def copy_builtin_tree(dest: Path) -> Path:
    """Copy the built-in content tree (cards/, heroes/, rules/) to ``dest``."""
    for kind in ("cards", "heroes", "rules"):
        shutil.copytree(ROOT / kind, dest / kind)
    return dest


def same_file(reported: str, expected: Path) -> bool:
    """Whether a file named in a diagnostic (relative to the working folder or absolute) is ``expected``."""
    return Path(reported).resolve() == expected.resolve()


#: a rule case that passes (tests mutate it into failing ones)
PASSING_CASE = """\
name: Ex Nihilo draws two
seats:
  - hero: zhangfei
    role: lord
    hand: [ex_nihilo H7]
  - hero: guanyu
    role: rebel
draw_pile: [slash S7, jink D2, peach H3]
turn: zhangfei
phase: play
decisions:
  - zhangfei: {use: ex_nihilo H7}
  - zhangfei: end
stop: {after_phase: play}
state:
  zhangfei: {hand: [slash S7, jink D2]}
"""
