"""Errors that show everything at once (issue 12, part 5).

A schema error takes out only the object it is in, and the file's other checks still run; a trigger
on an unknown timing still has its condition and body checked; a statement the grammar lacks is
reported as such, with the nearest statement words of the grammar. Every diagnostic keeps its exact
file:line:col, with and without the content cache.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FIXTURES, same_file

from sgs_dsl.errors import Diagnostic
from sgs_dsl.lark_parser import statement_words
from sgs_dsl.loader import build, check_content
from sgs_dsl.parser import Origin, SyntaxProblem, parse_block

ERRORS = FIXTURES / "errors"


def found(path: Path) -> list[tuple[str, int, int]]:
    diags = check_content(None, [path])
    assert all(same_file(d.file, path) for d in diags), [d.text() for d in diags]
    return [(d.code, d.line, d.col) for d in sorted(diags)]


def messages(path: Path) -> dict[tuple[int, int], str]:
    return {(d.line, d.col): d.message for d in check_content(None, [path])}


def word_at(path: Path, line: int, col: int) -> str:
    return path.read_text(encoding="utf-8").splitlines()[line - 1][col - 1:]


# ---------------------------------------------------------------- a schema error hides nothing else


def test_a_schema_error_an_unknown_reference_and_a_snippet_error_are_all_reported() -> None:
    path = ERRORS / "all_at_once.yaml"
    assert found(path) == [("E112", 5, 5), ("E300", 15, 14), ("E200", 34, 9)]
    msg = messages(path)
    assert "missing key 'gender' in heroes.0" in msg[(5, 5)]
    assert "unknown skill 'strudy'" in msg[(15, 14)] and "did you mean 'sturdy'?" in msg[(15, 14)]
    assert word_at(path, 15, 14).startswith("strudy")
    assert "no such statement 'drwa'" in msg[(34, 9)] and "did you mean 'draw'?" in msg[(34, 9)]
    assert word_at(path, 34, 9).startswith("drwa")



def test_what_a_schema_error_takes_out_stays_a_known_name() -> None:
    """A skill refused by its schema is not also 'unknown' where a hero names it; the items after
    a refused hero keep their positions; an unknown key hides nothing of its skill."""
    path = ERRORS / "refused_parts.yaml"
    got = found(path)
    assert got == [("E111", 15, 9), ("E300", 22, 20), ("E112", 24, 5), ("E110", 34, 9), ("E300", 38, 14)], got
    msg = messages(path)
    assert "heroes.1.hp must be a whole number" in msg[(15, 9)]
    assert "missing key 'name' in skills.0" in msg[(24, 5)]
    assert "unknown key 'colour'" in msg[(34, 9)]
    assert "'tdy'" in msg[(22, 20)] and "did you mean 'tidy'?" in msg[(22, 20)]
    assert "'jnik'" in msg[(38, 14)] and "did you mean 'jink'?" in msg[(38, 14)]
    for (line, col), want in {(15, 9): "many", (22, 20): "tdy", (34, 9): "colour", (38, 14): "jnik"}.items():
        assert word_at(path, line, col).startswith(want)


def test_a_card_pack_with_a_refused_card_and_a_refused_deck_line() -> None:
    path = ERRORS / "refused_cards.yaml"
    got = found(path)
    # the refused card's id stays known (the deck and `is: spark` would name it); the misspelt
    # ones are still found; the deck's counts are not checked, since one line of it was refused
    assert got == [("E113", 7, 11), ("E300", 15, 9), ("E111", 22, 5), ("E300", 24, 5)], got
    msg = messages(path)
    assert "did you mean 'spark'?" in msg[(15, 9)]
    assert "did you mean 'flare'?" in msg[(24, 5)]
    for (line, col), want in {(7, 11): "magic", (15, 9): "sprak", (22, 5): "7", (24, 5): "flair"}.items():
        assert word_at(path, line, col).startswith(want)


def test_a_file_without_a_valid_required_top_level_key_gets_its_schema_errors_only(tmp_path: Path) -> None:
    path = tmp_path / "heroes.yaml"
    text = (ERRORS / "refused_parts.yaml").read_text(encoding="utf-8")
    path.write_text(text.replace("pack: refused_parts", "pack: [refused_parts]"), encoding="utf-8")
    assert found(path) == [("E111", 2, 7), ("E111", 15, 9), ("E112", 24, 5), ("E110", 34, 9)]


# ---------------------------------------------------------------- a wrong timing hides nothing else


def test_a_wrong_timing_does_not_hide_wrong_attributes_in_its_trigger() -> None:
    path = ERRORS / "timing_and_attribute.yaml"
    assert found(path) == [("E303", 15, 11), ("E304", 16, 17), ("E304", 18, 15), ("E300", 21, 14)]
    msg = messages(path)
    assert "unknown timing 'damagd'" in msg[(15, 11)] and "did you mean 'damaged'?" in msg[(15, 11)]
    assert "'sorce'" in msg[(16, 17)] and "did you mean 'source'?" in msg[(16, 17)]
    assert "'amont'" in msg[(18, 15)] and "did you mean 'amount'?" in msg[(18, 15)]
    assert "'jnik'" in msg[(21, 14)] and "did you mean 'jink'?" in msg[(21, 14)]
    for (line, col), want in {(16, 17): "sorce", (18, 15): "amont", (21, 14): "jnik"}.items():
        assert word_at(path, line, col).startswith(want)


def test_a_wrong_timing_checks_nothing_that_depends_on_the_timing() -> None:
    """`cancel`, `provide`, `retrial`, changing the event: allowed or not depends on the timing, unknown here."""
    assert found(ERRORS / "timing_only.yaml") == [("E303", 15, 11)]


# ---------------------------------------------------------------- a statement the grammar lacks


def test_misspelt_statements_are_named_with_the_nearest_statement() -> None:
    path = ERRORS / "misspelt_statements.yaml"
    assert found(path) == [("E200", 18, 9), ("E200", 25, 11), ("E200", 31, 22), ("E200", 37, 22)]
    msg = messages(path)
    assert "no such statement 'drwa'" in msg[(18, 9)] and "did you mean 'draw'?" in msg[(18, 9)]
    assert word_at(path, 18, 9).startswith("drwa 2")
    assert "no such statement 'event.cancel'" in msg[(25, 11)] and "did you mean 'cancel'?" in msg[(25, 11)]
    assert word_at(path, 25, 11).startswith("event.cancel")
    assert "no such statement 'dicsard'" in msg[(31, 22)] and "did you mean 'discard'?" in msg[(31, 22)]
    assert word_at(path, 31, 22).startswith("dicsard")
    assert "no such statement" in msg[(37, 22)] and "did you mean '+='?" in msg[(37, 22)]
    assert word_at(path, 37, 22).startswith("+ 1")
    assert not any("unexpected" in m for m in msg.values())


def problem(text: str) -> Diagnostic:
    with pytest.raises(SyntaxProblem) as info:
        parse_block(text, Origin("f.yaml", 10, 5, block=True))
    return info.value.diagnostic


@pytest.mark.parametrize("text, line, col, words", [
    ("drwa 2", 10, 5, ["no such statement 'drwa'", "did you mean 'draw'?"]),
    ("drwa event.amount", 10, 5, ["no such statement 'drwa'", "did you mean 'draw'?"]),
    ("draw 1\ntarget dicards 1 hand card", 11, 12, ["no such statement 'dicards'", "did you mean 'discard'?"]),
    ("if me.hp > 1:\n  recovr 1", 11, 7, ["no such statement 'recovr'", "did you mean 'recover'?"]),
    ("jugde", 10, 5, ["no such statement 'jugde'", "did you mean 'judge'?"]),
    ("frobnicate 2", 10, 5, ["no such statement 'frobnicate'", "draw, discard"]),
    ("event.amount 2", 10, 18, ["no such statement", "'event.amount' is followed by '2'"]),
    ("x == 1", 10, 7, ["no such statement", "did you mean '='?"]),
    ("draw", 10, 9, ["expected a value"]),
    ("draw 1\n  draw 2", 11, 7, ["indented more than the one before", "':'"]),
])
def test_parser_messages_in_words(text: str, line: int, col: int, words: list[str]) -> None:
    d = problem(text)
    assert (d.code, d.line, d.col) == ("E200", line, col), d.text()
    for w in words:
        assert w in d.message, d.message


def test_the_statement_words_come_from_the_grammar() -> None:
    words = statement_words()
    for w in ("draw", "discard", "damage", "recover", "judge", "ask", "give", "gain", "choose", "if", "for",
              "repeat", "let", "stop", "cancel", "look", "kill", "forbid"):
        assert w in words
    # each one starts a statement the parser accepts the start of (it fails later, or not at all)
    for w in words:
        try:
            parse_block(f"{w}\n", Origin("f.yaml", 1, 1, block=True))
        except SyntaxProblem as exc:
            assert "no such statement" not in exc.diagnostic.message, (w, exc.diagnostic.message)


# ---------------------------------------------------------------- the cache changes nothing


@pytest.mark.parametrize("name", ["all_at_once.yaml", "timing_and_attribute.yaml", "misspelt_statements.yaml"])
def test_the_cache_gives_the_same_diagnostics(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SGS_NO_CACHE", raising=False)
    path = ERRORS / name
    _, first = build(None, [path])
    _, second = build(None, [path])
    _, uncached = build(None, [path], cache=False)
    assert first and sorted(first) == sorted(second) == sorted(uncached)
    assert (tmp_path / "cache").exists()


def test_the_cache_gives_the_same_diagnostics_in_a_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tree of one valid file (cached) and one with a schema error (never cached)."""
    monkeypatch.setenv("SGS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SGS_NO_CACHE", raising=False)
    tree = tmp_path / "pack"
    (tree / "heroes").mkdir(parents=True)
    (tree / "heroes" / "a.yaml").write_text((ERRORS / "refused_parts.yaml").read_text(encoding="utf-8"),
                                           encoding="utf-8")
    (tree / "heroes" / "b.yaml").write_text((FIXTURES / "valid" / "hero_pack.yaml").read_text(encoding="utf-8"),
                                           encoding="utf-8")
    runs = [sorted(build(None, packs=[tree])[1]) for _ in range(2)] + [sorted(build(None, packs=[tree], cache=False)[1])]
    assert runs[0] and runs[0] == runs[1] == runs[2]
