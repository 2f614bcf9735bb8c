"""Every rule case in tests/scenarios/ is a test: the table, the decisions, the expectations."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgs_dsl.loader import load_content
from sgs_dsl.scenarios import run_file, scenario_files

HERE = Path(__file__).parent
CASES = scenario_files([HERE / "scenarios"])


@pytest.fixture(scope="module")
def content():  # type: ignore[no-untyped-def]
    return load_content()


@pytest.mark.parametrize("path", CASES, ids=[str(p.relative_to(HERE / "scenarios")) for p in CASES])
def test_rule_case(content, path: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_file(content, path)
    assert result.passed, result.reason


def test_there_are_rule_cases() -> None:
    assert len(CASES) >= 2
