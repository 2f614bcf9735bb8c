"""Invalid content files: each mistake is reported once, with its exact file:line:col and code.

Every file in tests/fixtures/invalid/ is a copy of a minimal valid pack in tests/fixtures/valid/ with one
mistake. A file given as a path is checked together with the built-in packs, so the hero packs may use the
built-in cards (jink) and events.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest
from conftest import DIAGNOSTIC_LINE, FIXTURES, ROOT, copy_builtin_tree, run_cli, same_file

from sgs_dsl.errors import ContentError
from sgs_dsl.loader import build, check_content, load_content

VALID = FIXTURES / "valid"
INVALID = FIXTURES / "invalid"


@dataclass(frozen=True)
class Case:
    file: str
    base: str
    code: str
    line: int
    col: int
    word: Optional[str]  # the text found at line:col (None: nothing to check there)
    suggestion: Optional[str]  # the name offered by "did you mean", if any


CASES = [
    Case("unknown_key.yaml", "hero_pack.yaml", "E110", 23, 5, "tirgger", "trigger"),
    Case("misspelt_card_in_effect.yaml", "hero_pack.yaml", "E300", 41, 19, "jnk", "jink"),
    Case("effect_syntax_error.yaml", "hero_pack.yaml", "E200", 28, 30, None, None),
    Case("condition_syntax_error.yaml", "hero_pack.yaml", "E200", 25, 31, ")", None),
    Case("wrong_value_type.yaml", "hero_pack.yaml", "E111", 9, 9, "four", None),
    Case("duplicate_key.yaml", "hero_pack.yaml", "E101", 8, 5, "kingdom", None),
    Case("alias.yaml", "hero_pack.yaml", "E102", 7, 14, "&kingdom", None),
    Case("folded_effect.yaml", "hero_pack.yaml", "E104", 26, 11, ">", None),
    Case("unknown_event.yaml", "hero_pack.yaml", "E303", 24, 11, "damagd", "damaged"),
    Case("unknown_skill.yaml", "hero_pack.yaml", "E300", 10, 22, "gaurd", "guard"),
    Case("gender_not_in_enum.yaml", "hero_pack.yaml", "E113", 14, 13, "femal", "female"),
    Case("unknown_attribute.yaml", "hero_pack.yaml", "E304", 25, 17, "sorce", "source"),
    Case("unbound_name.yaml", "hero_pack.yaml", "E302", 27, 9, "target", None),
    Case("card_pack_misspelt_card_in_effect.yaml", "card_pack.yaml", "E300", 16, 25, "jnik", "jink"),
    Case("card_pack_misspelt_card_in_deck.yaml", "card_pack.yaml", "E300", 21, 5, "sprak", "spark"),
]

KNOWN_BUGS: dict[str, object] = {}


def params() -> list[object]:
    return [pytest.param(c, id=c.file, marks=KNOWN_BUGS.get(c.file, ())) for c in CASES]


def test_every_fixture_has_a_case() -> None:
    assert sorted(p.name for p in INVALID.glob("*.yaml")) == sorted(c.file for c in CASES)


@pytest.mark.parametrize("base", ["hero_pack.yaml", "card_pack.yaml"])
def test_the_base_packs_are_valid(base: str) -> None:
    assert check_content(None, [VALID / base]) == []


def test_the_base_packs_load_with_the_builtin_content() -> None:
    content = load_content(None, [VALID / "hero_pack.yaml", VALID / "card_pack.yaml"])
    assert {"tester", "helper"} <= set(content.heroes)
    assert {"steady", "guard"} <= set(content.skills)
    assert "spark" in content.cards
    assert "slash" in content.cards  # the built-in packs are there too


@pytest.mark.parametrize("case", CASES, ids=[c.file for c in CASES])
def test_fixture_differs_from_its_base_in_one_place(case: Case) -> None:
    base = (VALID / case.base).read_text(encoding="utf-8").splitlines()
    bad = (INVALID / case.file).read_text(encoding="utf-8").splitlines()
    assert len(base) == len(bad)
    changed = [i + 1 for i, (a, b) in enumerate(zip(base, bad)) if a != b and not a.startswith("#")]
    assert 1 <= len(changed) <= 2, changed
    assert case.line in changed


@pytest.mark.parametrize("case", params())
def test_invalid_fixture(case: Case) -> None:
    path = INVALID / case.file
    diags = check_content(None, [path])
    assert len(diags) == 1, [d.text() for d in diags]
    (d,) = diags
    assert same_file(d.file, path)
    assert d.severity == "error"
    assert (d.code, d.line, d.col) == (case.code, case.line, case.col), d.text()
    if case.word is not None:
        line = path.read_text(encoding="utf-8").splitlines()[d.line - 1]
        assert line[d.col - 1:].startswith(case.word), (line, d.col)
    if case.suggestion is not None:
        assert f"did you mean '{case.suggestion}'?" in d.message


@pytest.mark.parametrize("case", CASES, ids=[c.file for c in CASES])
def test_invalid_fixture_code_and_line(case: Case) -> None:
    """The code and the line hold even where the column is a known bug."""
    (d,) = check_content(None, [INVALID / case.file])
    assert (d.code, d.line) == (case.code, case.line)


def test_effect_syntax_error_message() -> None:
    (d,) = check_content(None, [INVALID / "effect_syntax_error.yaml"])
    line = (INVALID / "effect_syntax_error.yaml").read_text(encoding="utf-8").splitlines()[d.line - 1]
    # the line is unfinished: the error points just past its end, where ':' is missing
    assert d.col == len(line) + 1
    assert "':'" in d.message


def test_duplicate_key_names_the_first_line() -> None:
    (d,) = check_content(None, [INVALID / "duplicate_key.yaml"])
    assert "'kingdom'" in d.message and "line 7" in d.message


def test_wrong_type_message_names_the_path() -> None:
    (d,) = check_content(None, [INVALID / "wrong_value_type.yaml"])
    assert "heroes.0.hp" in d.message


def test_load_content_raises_with_every_diagnostic() -> None:
    with pytest.raises(ContentError) as info:
        load_content(None, [INVALID / "misspelt_card_in_effect.yaml"])
    (d,) = info.value.errors
    assert (d.code, d.line, d.col) == ("E300", 41, 19)
    assert "misspelt_card_in_effect.yaml:41:19: E300" in str(info.value)


def test_build_reports_the_same_as_check_content() -> None:
    _, diags = build(None, [INVALID / "unknown_event.yaml"])
    assert [(d.code, d.line, d.col) for d in diags] == [("E303", 24, 11)]


def test_several_invalid_files_together() -> None:
    paths = [INVALID / "unknown_key.yaml", INVALID / "card_pack_misspelt_card_in_deck.yaml"]
    diags = check_content(None, paths)
    assert sorted((Path(d.file).name, d.code, d.line, d.col) for d in diags) == [
        ("card_pack_misspelt_card_in_deck.yaml", "E300", 21, 5),
        ("unknown_key.yaml", "E110", 23, 5),
    ]


def test_a_folder_of_a_pack(tmp_path: Path) -> None:
    pack = tmp_path / "mypack"
    pack.mkdir()
    (pack / "heroes.yaml").write_text((INVALID / "unknown_event.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    (pack / "cards.yaml").write_text((VALID / "card_pack.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    diags = check_content(None, [pack])
    assert [(Path(d.file).name, d.code, d.line, d.col) for d in diags] == [("heroes.yaml", "E303", 24, 11)]


# ------------------------------------------------------------------ through the CLI


def test_validate_a_fixture_path() -> None:
    path = INVALID / "unknown_key.yaml"
    result = run_cli("validate", str(path))
    assert result.exit_code == 1
    lines = [ln for ln in result.stdout.splitlines() if DIAGNOSTIC_LINE.match(ln)]
    assert len(lines) == 1
    m = DIAGNOSTIC_LINE.match(lines[0])
    assert m is not None and same_file(m["file"], path)
    assert (m["line"], m["col"], m["code"]) == ("23", "5", "E110")
    assert "did you mean 'trigger'?" in m["message"]


def test_validate_a_valid_fixture_path() -> None:
    result = run_cli("validate", str(VALID / "hero_pack.yaml"), str(VALID / "card_pack.yaml"))
    assert result.exit_code == 0, result.output


@pytest.fixture
def misspelt_tree(tmp_path: Path) -> tuple[Path, Path, int, int]:
    """A copy of the built-in content with one card id misspelt inside an effect of a hero skill."""
    root = copy_builtin_tree(tmp_path / "content")
    heroes = root / "heroes" / "standard.yaml"
    lines = heroes.read_text(encoding="utf-8").splitlines(keepends=True)
    # the first effect line that asks for a jink by name (`ask p play jink for me`)
    for i, line in enumerate(lines):
        m = re.search(r"\bjink\b", line)
        if m and re.match(r"\s+ask\b", line):
            lines[i] = line[:m.start()] + "jnik" + line[m.end():]
            heroes.write_text("".join(lines), encoding="utf-8")
            return root, heroes, i + 1, m.start() + 1
    raise AssertionError("no effect line of heroes/standard.yaml names jink")


def test_builtin_content_copy_is_valid(tmp_path: Path) -> None:
    root = copy_builtin_tree(tmp_path / "content")
    assert check_content(root) == []


def test_validate_copy_with_misspelt_card_text(misspelt_tree: tuple[Path, Path, int, int]) -> None:
    root, heroes, line, col = misspelt_tree
    result = run_cli("validate", "--content", str(root))
    assert result.exit_code == 1
    found = [m for m in map(DIAGNOSTIC_LINE.match, result.stdout.splitlines()) if m]
    assert len(found) == 1, result.output
    m = found[0]
    assert same_file(m["file"], heroes)
    assert (int(m["line"]), int(m["col"]), m["code"]) == (line, col, "E300")
    assert "'jnik'" in m["message"] and "did you mean 'jink'?" in m["message"]
    assert heroes.read_text(encoding="utf-8").splitlines()[line - 1][col - 1:].startswith("jnik")


def test_validate_copy_with_misspelt_card_json(misspelt_tree: tuple[Path, Path, int, int]) -> None:
    root, heroes, line, col = misspelt_tree
    result = run_cli("validate", "--content", str(root), "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert isinstance(data, list) and len(data) == 1
    (item,) = data
    assert set(item) == {"file", "line", "col", "code", "severity", "message"}
    assert same_file(item["file"], heroes)
    assert (item["line"], item["col"], item["code"], item["severity"]) == (line, col, "E300", "error")
    assert "did you mean 'jink'?" in item["message"]


def test_validate_copy_with_misspelt_card_github(misspelt_tree: tuple[Path, Path, int, int]) -> None:
    root, heroes, line, col = misspelt_tree
    result = run_cli("validate", "--content", str(root), "--format", "github")
    assert result.exit_code == 1
    annotations = [ln for ln in result.stdout.splitlines() if ln.startswith("::")]
    assert len(annotations) == 1, result.output
    m = re.fullmatch(r"::error file=(?P<file>[^,]+),line=(?P<line>\d+),col=(?P<col>\d+)::(?P<code>E\d{3}) (?P<msg>.+)",
                     annotations[0])
    assert m is not None, annotations[0]
    assert same_file(m["file"], heroes)
    assert (int(m["line"]), int(m["col"]), m["code"]) == (line, col, "E300")
    assert "did you mean 'jink'?" in m["msg"]


def test_validate_copy_with_misspelt_card_in_a_condition(tmp_path: Path) -> None:
    """`peach` -> `paech` inside a skill's condition: the column of the misspelt word in its line."""
    root = copy_builtin_tree(tmp_path / "content")
    heroes = root / "heroes" / "standard.yaml"
    lines = heroes.read_text(encoding="utf-8").splitlines(keepends=True)
    at = None
    for i, line in enumerate(lines):
        m = re.search(r"\bpeach\b", line)
        if m and line.lstrip().startswith("if:"):
            lines[i] = line[:m.start()] + "paech" + line[m.end():]
            at = (i + 1, m.start() + 1)
            break
    assert at is not None, "no condition in heroes/standard.yaml names peach"
    heroes.write_text("".join(lines), encoding="utf-8")
    result = run_cli("validate", "--content", str(root))
    assert result.exit_code == 1
    found = [m for m in map(DIAGNOSTIC_LINE.match, result.stdout.splitlines()) if m]
    assert [(int(m["line"]), int(m["col"]), m["code"]) for m in found] == [(at[0], at[1], "E300")]
    assert same_file(found[0]["file"], heroes)
    assert "did you mean 'peach'?" in found[0]["message"]


def test_validate_copy_from_another_folder(misspelt_tree: tuple[Path, Path, int, int],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The reported path is usable from the folder `sgs` was run in."""
    root, heroes, line, col = misspelt_tree
    monkeypatch.chdir(root)
    result = run_cli("validate", "--content", ".")
    assert result.exit_code == 1
    (m,) = [m for m in map(DIAGNOSTIC_LINE.match, result.stdout.splitlines()) if m]
    assert (Path(m["file"]).resolve()) == heroes.resolve()
    assert (int(m["line"]), int(m["col"])) == (line, col)


def test_source_tree_is_untouched() -> None:
    # the tests above work on copies
    assert check_content(ROOT) == []

