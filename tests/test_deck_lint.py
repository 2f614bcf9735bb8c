"""The deck lint of `sgs validate`: counts per name and per suit, one card per suit+rank."""

from __future__ import annotations

from pathlib import Path

from sgs_dsl.loader import check_content

PACK = """# yaml-language-server: $schema=../../sgs_dsl/schemas/cards.schema.json
pack: lint_test
name: {{zh: 测试, en: Lint test}}
{decl}
cards:
  - id: spark
    name: {{zh: 火花, en: Spark}}
    type: basic
  - id: ember
    name: {{zh: 余烬, en: Ember}}
    type: basic
deck:
{deck}
"""


def lint(tmp_path: Path, decl: str, deck: list[str]) -> list[tuple[int, str, str]]:
    path = tmp_path / "lint_pack.yaml"
    path.write_text(PACK.format(decl=decl, deck="\n".join(f"  - {c}" for c in deck)), encoding="utf-8")
    return [(d.line, d.code, d.message) for d in check_content(None, [path]) if d.file.endswith("lint_pack.yaml")]


def test_counts_per_name_match(tmp_path: Path) -> None:
    assert lint(tmp_path, "deck_counts: {spark: 2, ember: 1}", ["spark S7", "spark H7", "ember C2"]) == []


def test_a_missing_card_is_reported_at_its_count(tmp_path: Path) -> None:
    got = lint(tmp_path, "deck_counts: {spark: 3, ember: 1}", ["spark S7", "spark H7", "ember C2"])
    assert got == [(4, "E320", "the deck holds 2 'spark' card(s), but deck_counts declares 3")]


def test_a_card_not_declared_is_reported_at_its_line(tmp_path: Path) -> None:
    got = lint(tmp_path, "deck_counts: {spark: 2}", ["spark S7", "spark H7", "ember C2"])
    assert got == [(15, "E320", "'ember' is in the deck but not in deck_counts")]


def test_suit_counts(tmp_path: Path) -> None:
    got = lint(tmp_path, "suit_counts: {spade: 1, heart: 2}", ["spark S7", "spark H7", "ember C2"])
    assert got == [(4, "E320", "the deck holds 1 heart card(s), but suit_counts declares 2")]


def test_unique_cells_names_the_repeated_card(tmp_path: Path) -> None:
    deck = [f"spark {s}{r}" for s in "SHCD" for r in ["A", *map(str, range(2, 11)), "J", "Q", "K"]]
    deck[5] = "ember SA"  # ♠A twice, ♠6 missing
    got = lint(tmp_path, "unique_cells: true", deck)
    assert (18, "E320", "ember: spade 1 is already taken on line 13") in got
    assert any(code == "E320" and "no card is spade 6" in msg for _, code, msg in got)


def test_the_standard_deck_passes_its_own_lint() -> None:
    assert check_content() == []
