"""benchmarks/instructions.py: instruction counts of fixed games, with valgrind's callgrind."""

from __future__ import annotations

import doctest
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "instructions.py"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("instructions", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_its_examples_hold() -> None:
    failures, tried = doctest.testmod(_module(), verbose=False)
    assert tried > 0 and failures == 0


def test_a_file_without_a_summary_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "not-callgrind.out"
    out.write_text("hello\n")
    with pytest.raises(ValueError, match="no summary line"):
        _module().total(out)


def test_the_pure_tree_is_told_from_a_compiled_one() -> None:
    assert _module().is_compiled(ROOT) is False


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_one_game_is_counted_the_same_twice(tmp_path: Path) -> None:
    def run() -> dict[str, object]:
        out = subprocess.run([sys.executable, str(SCRIPT), "--games", "1", "--json", "--keep", str(tmp_path)],
                             capture_output=True, text=True, check=True, cwd=ROOT)
        rows = json.loads(out.stdout)
        assert len(rows) == 1
        return rows[0]

    first = run()
    assert first["compiled"] is False and first["games"] == 1
    assert isinstance(first["instructions"], int) and first["instructions"] > 1_000_000
    # the hash seed is fixed and the same tree is counted: the count is the same within a little
    again = run()
    assert abs(again["instructions"] - first["instructions"]) <= 0.01 * first["instructions"]  # type: ignore[operator]
    kept = sorted(p.name for p in tmp_path.iterdir())  # --keep: the run with the game and the one without
    assert len(kept) == 2 and kept[0].endswith(".0.out") and kept[1].endswith(".1.out")
