"""The statements and skill keys that change skills, forbid, kill, keep piles and count.

Small test heroes (tests/content_trees/language/heroes.yaml) loaded beside the built-in
content; one rule case per construct in cases/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sgs_dsl.loader import check_content, load_content
from sgs_dsl.scenarios import run_file, scenario_files

TREE = Path(__file__).parent / "content_trees" / "language"
CASES = scenario_files([TREE / "cases"])


@pytest.fixture(scope="module")
def content():  # type: ignore[no-untyped-def]
    return load_content(None, [TREE / "heroes.yaml"])


def test_the_test_tree_validates() -> None:
    assert check_content(None, [TREE / "heroes.yaml"]) == []


def test_there_is_a_case_per_construct() -> None:
    assert len(CASES) >= 10


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_language_case(content, path: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_file(content, path)
    assert result.passed, result.reason
