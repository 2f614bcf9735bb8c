"""Warnings (W4xx, sgs_dsl/lint.py): content that loads but is probably not what its author meant."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FIXTURES, run_cli

from sgs_dsl.errors import Diagnostic
from sgs_dsl.lint import ENGINE_OPTIONS
from sgs_dsl.loader import check_content

LINT = FIXTURES / "lint"
HEROES = (LINT / "heroes.yaml").read_text(encoding="utf-8")
RULES = (LINT / "rules.yaml").read_text(encoding="utf-8")


@pytest.fixture()
def pack(tmp_path: Path) -> Path:
    (tmp_path / "heroes.yaml").write_text(HEROES, encoding="utf-8")
    (tmp_path / "rules.yaml").write_text(RULES, encoding="utf-8")
    return tmp_path


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def warnings(pack: Path) -> dict[str, list[Diagnostic]]:
    out: dict[str, list[Diagnostic]] = {}
    for d in check_content(None, [pack], lint=True):
        assert d.severity == "warning", d.text()
        out.setdefault(d.code, []).append(d)
    return out


def test_each_warning_at_its_place(pack: Path) -> None:
    got = warnings(pack)
    assert sorted(got) == ["W401", "W402", "W403", "W404"]
    (bare,) = got["W401"]
    assert "lint_bare" in bare.message and bare.file.endswith("heroes.yaml")
    assert (bare.line, bare.col) == (line_of(HEROES, "skills: []"), 5)
    # only the skill nobody refers to: a skill gained by another, granted, or in player_skills is used;
    # a skill that only names itself is not
    (orphan,) = got["W402"]
    assert "'lint_orphan'" in orphan.message
    assert (orphan.line, orphan.col) == (line_of(HEROES, "- id: lint_orphan"), 9)
    (option,) = got["W403"]
    assert "'lint_unread'" in option.message and option.file.endswith("rules.yaml")
    assert (option.line, option.col) == (line_of(RULES, "lint_unread"), 3)
    never, contradiction = sorted(got["W404"])
    assert "'never'" in never.message and never.line == line_of(HEROES, '"never"')
    assert "'contradiction'" in contradiction.message and contradiction.line == line_of(HEROES, '"contradiction"')
    assert never.col == HEROES.splitlines()[never.line - 1].index('"never"') + 1


def test_no_warning_on_the_builtin_content() -> None:
    assert [d.text() for d in check_content(lint=True)] == []


def test_warnings_wait_for_errors_to_be_fixed(pack: Path) -> None:
    (pack / "heroes.yaml").write_text(HEROES.replace("draw 2", "draw two"), encoding="utf-8")
    diags = check_content(None, [pack], lint=True)
    assert diags and all(d.severity == "error" for d in diags)


def test_engine_options_are_read(pack: Path) -> None:
    assert "role_table" in ENGINE_OPTIONS
    (pack / "rules.yaml").write_text(RULES.replace("  lint_unread: true\n", "  role_table: standard\n"),
                                     encoding="utf-8")
    assert "W403" not in warnings(pack)


def test_strict_fails_on_warnings(pack: Path) -> None:
    result = run_cli("validate", str(pack))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "content is valid, with 5 warning(s)"
    for code in ("W401", "W402", "W403", "W404"):
        assert f": {code} " in result.stdout
    result = run_cli("validate", str(pack), "--strict")
    assert result.exit_code == 1
    result = run_cli("validate", str(pack), "--format", "github")
    assert result.exit_code == 0
    assert result.stdout.count("::warning file=") == 5


def test_check_content_without_lint_has_no_warning(pack: Path) -> None:
    assert check_content(None, [pack]) == []
