"""The safe YAML loader: YAML 1.2 scalars, refusals, size caps and positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgs_dsl import yamlsafe
from sgs_dsl.errors import ContentError
from sgs_dsl.yamlsafe import MAX_BYTES, MAX_DEPTH, load_file, load_text, resolve_plain


def only_diagnostic(text: str, path: str = "x.yaml"):
    with pytest.raises(ContentError) as info:
        load_text(text, path)
    diags = info.value.diagnostics
    assert len(diags) == 1, [d.text() for d in diags]
    return diags[0]


# ------------------------------------------------------------------ scalars


def test_on_key_stays_text() -> None:
    # YAML 1.1 (plain PyYAML) reads this as {True: 'damaged'}
    doc = load_text("on: damaged\n", "x.yaml")
    assert doc.data == {"on": "damaged"}
    assert list(doc.data) == ["on"]
    assert isinstance(next(iter(doc.data)), str)


@pytest.mark.parametrize("word", ["yes", "no", "on", "off", "y", "n", "Yes", "NO", "On", "OFF"])
def test_yaml11_booleans_stay_text(word: str) -> None:
    doc = load_text(f"value: {word}\n{word}: 1\n", "x.yaml")
    assert doc.data["value"] == word
    assert doc.data[word] == 1


@pytest.mark.parametrize("word, value", [("true", True), ("false", False), ("True", True), ("FALSE", False)])
def test_only_true_and_false_are_booleans(word: str, value: bool) -> None:
    doc = load_text(f"flag: {word}\n", "x.yaml")
    assert doc.data["flag"] is value


def test_quoted_true_is_text() -> None:
    assert load_text("a: 'true'\nb: \"false\"\n", "x.yaml").data == {"a": "true", "b": "false"}


@pytest.mark.parametrize("text", ["2024-01-01", "2001-12-14t21:59:43.10-05:00", "2002-12-14"])
def test_dates_stay_text(text: str) -> None:
    doc = load_text(f"when: {text}\n", "x.yaml")
    assert doc.data["when"] == text
    assert isinstance(doc.data["when"], str)


def test_numbers_and_null() -> None:
    doc = load_text("i: 3\nneg: -2\nf: 1.5\nn: ~\nnull_word: null\nempty:\n", "x.yaml")
    assert doc.data == {"i": 3, "neg": -2, "f": 1.5, "n": None, "null_word": None, "empty": None}
    assert isinstance(doc.data["i"], int) and not isinstance(doc.data["i"], bool)


def test_keys_are_always_text() -> None:
    doc = load_text("2: two\ntrue: yes\nnull: x\n", "x.yaml")
    assert doc.data == {"2": "two", "true": "yes", "null": "x"}


def test_resolve_plain() -> None:
    assert resolve_plain("no") == "no"
    assert resolve_plain("true") is True
    assert resolve_plain("7") == 7
    assert resolve_plain("2024-01-01") == "2024-01-01"
    assert resolve_plain("~") is None


def test_explicit_python_tags_are_not_constructed() -> None:
    doc = load_text("a: !!python/object/apply:os.getcwd []\nb: !!python/name:os.system x\n", "x.yaml")
    assert doc.data == {"a": [], "b": "x"}


def test_empty_document() -> None:
    assert load_text("", "x.yaml").data is None
    assert load_text("# only a comment\n", "x.yaml").data is None


# ------------------------------------------------------------------ refusals


def test_duplicate_key_rejected_with_position() -> None:
    d = only_diagnostic("a: 1\nb: 2\na: 3\n", "dup.yaml")
    assert (d.file, d.line, d.col, d.code) == ("dup.yaml", 3, 1, "E101")
    assert "'a'" in d.message and "line 1" in d.message


def test_duplicate_key_in_nested_mapping() -> None:
    text = "skills:\n  - id: x\n    trigger:\n      on: damaged\n      on: dying\n"
    d = only_diagnostic(text)
    assert (d.line, d.col, d.code) == (5, 7, "E101")
    assert "'on'" in d.message and "line 4" in d.message


def test_duplicate_key_in_flow_mapping() -> None:
    d = only_diagnostic("name: {zh: 杀, zh: 闪}\n")
    assert (d.line, d.col, d.code) == (1, 15, "E101")


def test_same_key_in_different_mappings_is_fine() -> None:
    doc = load_text("- id: a\n- id: b\n", "x.yaml")
    assert doc.data == [{"id": "a"}, {"id": "b"}]


def test_alias_rejected() -> None:
    with pytest.raises(ContentError) as info:
        load_text("base: &b {hp: 4}\nother: *b\n", "x.yaml")
    d = info.value.diagnostics[0]
    assert d.code == "E102"
    # the anchor is the first thing refused
    assert (d.line, d.col) == (1, 7)


def test_bare_alias_rejected_at_its_position() -> None:
    d = only_diagnostic("a: 1\nb: [1, *x]\n")
    assert (d.line, d.col, d.code) == (2, 8, "E102")
    assert "alias" in d.message


def test_anchor_alone_rejected() -> None:
    d = only_diagnostic("a: 1\nb: &anchor 2\n")
    assert (d.line, d.col, d.code) == (2, 4, "E102")
    assert "anchor" in d.message


def test_alias_bomb_is_refused_quickly() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        name = chr(ord("a") + i)
        lines.append(f"{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]")
    d = only_diagnostic("\n".join(lines) + "\n")
    assert d.code == "E102"


def test_text_over_the_size_cap() -> None:
    d = only_diagnostic("a: " + "x" * MAX_BYTES + "\n", "big.yaml")
    assert (d.file, d.line, d.col, d.code) == ("big.yaml", 1, 1, "E103")


def test_file_over_the_size_cap(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("a: " + "x" * MAX_BYTES + "\n", encoding="utf-8")
    with pytest.raises(ContentError) as info:
        load_file(big, "big.yaml")
    (d,) = info.value.diagnostics
    assert (d.file, d.line, d.col, d.code) == ("big.yaml", 1, 1, "E103")
    assert str(MAX_BYTES) in d.message


def test_size_cap_counts_bytes_not_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlsafe, "MAX_BYTES", 20)
    load_text("a: abcdefghijklmn\n", "x.yaml")  # 18 bytes
    d = only_diagnostic("a: 杀杀杀杀杀杀\n")  # 10 characters, but 22 bytes
    assert d.code == "E103"


def test_file_just_under_the_cap_loads(tmp_path: Path) -> None:
    ok = tmp_path / "ok.yaml"
    ok.write_text("a: " + "x" * (MAX_BYTES - 10) + "\n", encoding="utf-8")
    assert len(load_file(ok).data["a"]) == MAX_BYTES - 10


def test_nesting_deeper_than_the_limit() -> None:
    deep = MAX_DEPTH + 2
    d = only_diagnostic("[" * deep + "]" * deep + "\n")
    assert d.code == "E103"


def test_recursion_becomes_a_content_error() -> None:
    # deep enough to exhaust Python's recursion in the composer: a content error, not a RecursionError
    d = only_diagnostic("[" * 100_000 + "]" * 100_000 + "\n")
    assert (d.line, d.code) == (1, "E103")


def test_yaml_syntax_error_has_position() -> None:
    d = only_diagnostic("a: 1\nb: [1, 2\nc: 3\n")
    assert d.code == "E100"
    assert d.line >= 2


def test_tab_indentation_is_a_syntax_error() -> None:
    d = only_diagnostic("a:\n\tb: 1\n")
    assert (d.line, d.code) == (2, "E100")


def test_not_utf8(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"a: \xff\xfe\n")
    with pytest.raises(ContentError) as info:
        load_file(bad, "bad.yaml")
    assert info.value.diagnostics[0].code == "E100"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ContentError) as info:
        load_file(tmp_path / "nope.yaml", "nope.yaml")
    assert info.value.diagnostics[0].code == "E100"


# ------------------------------------------------------------------ positions

DOC = """\
pack: standard
heroes:
  - id: xiahoudun
    hp: 4
    skills: [ganglie, tiandu]
    name: {zh: 夏侯惇, en: Xiahou Dun}
"""


def test_value_positions() -> None:
    doc = load_text(DOC, "h.yaml")
    assert doc.position(("pack",)) == (1, 7)
    assert doc.position(("heroes",)) == (3, 3)
    assert doc.position(("heroes", 0)) == (3, 5)
    assert doc.position(("heroes", 0, "id")) == (3, 9)
    assert doc.position(("heroes", 0, "hp")) == (4, 9)
    assert doc.position(("heroes", 0, "skills", 0)) == (5, 14)
    assert doc.position(("heroes", 0, "skills", 1)) == (5, 23)
    assert doc.position(("heroes", 0, "name", "zh")) == (6, 16)
    assert doc.position(("heroes", 0, "name", "en")) == (6, 25)


def test_key_positions() -> None:
    doc = load_text(DOC, "h.yaml")
    assert doc.key_position(("pack",)) == (1, 1)
    assert doc.key_position(("heroes",)) == (2, 1)
    assert doc.key_position(("heroes", 0, "id")) == (3, 5)
    assert doc.key_position(("heroes", 0, "hp")) == (4, 5)
    assert doc.key_position(("heroes", 0, "name", "zh")) == (6, 12)
    assert doc.key_position(("heroes", 0, "name", "en")) == (6, 21)


def test_position_of_a_missing_path_falls_back_to_the_parent() -> None:
    doc = load_text(DOC, "h.yaml")
    assert doc.position(("heroes", 0, "kingdom")) == doc.position(("heroes", 0))
    assert doc.position(("nothing", "here")) == (1, 1)


def test_diagnostic_uses_the_value_position() -> None:
    doc = load_text(DOC, "h.yaml")
    d = doc.diagnostic(("heroes", 0, "hp"), "E111", "bad")
    assert (d.file, d.line, d.col, d.code, d.message) == ("h.yaml", 4, 9, "E111", "bad")


def test_quoted_scalar_position_is_inside_the_quotes() -> None:
    doc = load_text('if: "count(alive) == 2"\n', "x.yaml")
    sc = doc.scalars[("if",)]
    assert sc.style == "quoted"
    assert (sc.line, sc.col) == (1, 6)


BLOCKS = """\
skills:
  - id: x
    literal: |
      draw 1
      if true:
        stop
    folded: >
      draw 1
      draw 2
    plain: draw 1
"""


def test_literal_block_scalar() -> None:
    doc = load_text(BLOCKS, "b.yaml")
    path = ("skills", 0, "literal")
    assert doc.data["skills"][0]["literal"] == "draw 1\nif true:\n  stop\n"
    sc = doc.scalars[path]
    assert sc.style == "literal"
    # the text's first line is the line after the indicator; its column is the block's indentation + 1
    assert (sc.line, sc.col, sc.indent) == (4, 7, 6)


def test_folded_block_scalar() -> None:
    doc = load_text(BLOCKS, "b.yaml")
    path = ("skills", 0, "folded")
    assert doc.data["skills"][0]["folded"] == "draw 1 draw 2\n"  # folding joins the lines
    sc = doc.scalars[path]
    assert sc.style == "folded"
    assert (sc.line, sc.col) == (8, 7)


def test_plain_scalar_style() -> None:
    doc = load_text(BLOCKS, "b.yaml")
    sc = doc.scalars[("skills", 0, "plain")]
    assert (sc.style, sc.line, sc.col) == ("plain", 10, 12)


def test_literal_block_with_chomping_indicator() -> None:
    doc = load_text("do: |-\n    draw 1\n    draw 2\n", "x.yaml")
    assert doc.data["do"] == "draw 1\ndraw 2"
    sc = doc.scalars[("do",)]
    assert (sc.style, sc.line, sc.col) == ("literal", 2, 5)


def test_literal_block_with_leading_blank_line() -> None:
    doc = load_text("do: |\n\n  draw 1\n", "x.yaml")
    assert doc.data["do"] == "\ndraw 1\n"
    sc = doc.scalars[("do",)]
    assert (sc.style, sc.line, sc.indent) == ("literal", 2, 2)


# ------------------------------------------------------------------ the count of values, skipped for short texts


def test_no_short_text_holds_more_values_per_character_than_the_bound() -> None:
    """load_text counts the values of a text (MAX_NODES) only when it could hold that many: every text
    of up to four of YAML's signs holds fewer than _VALUES_PER_CHARACTER values per character."""
    import itertools

    import yaml
    from yaml.events import MappingStartEvent, ScalarEvent, SequenceStartEvent

    if not getattr(yaml, "__with_libyaml__", False):
        pytest.skip("the count is skipped only with libyaml")
    signs = ["-", "?", ":", " ", "\n", "[", "]", "{", "}", ",", "a", "!", "|", "'"]
    most = 0.0
    for length in range(1, 5):
        for chars in itertools.product(signs, repeat=length):
            text = "".join(chars)
            try:
                events = list(yaml.parse(text, Loader=yaml.CSafeLoader))
            except yaml.YAMLError:
                continue
            values = sum(isinstance(e, (ScalarEvent, SequenceStartEvent, MappingStartEvent)) for e in events)
            most = max(most, values / len(text))
    assert 1 < most < yamlsafe._VALUES_PER_CHARACTER


def test_a_short_text_is_read_the_same_without_the_count(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "a:\n  - 1\n  - {b: 'x', c: [2, 3]}\n? d\n: |\n  draw 1\n"
    assert len(text) * yamlsafe._VALUES_PER_CHARACTER < yamlsafe.MAX_NODES and "&" not in text
    doc = load_text(text, "x.yaml")
    assert doc.data == {"a": [1, {"b": "x", "c": [2, 3]}], "d": "draw 1\n"}
    assert doc.positions[("a", 1, "c", 0)] == (3, 18)
    monkeypatch.setattr(yamlsafe, "_VALUES_PER_CHARACTER", yamlsafe.MAX_NODES)  # counted, as a long text is
    counted = load_text(text, "x.yaml")
    assert (counted.data, counted.positions, counted.key_positions, counted.scalars) == \
        (doc.data, doc.positions, doc.key_positions, doc.scalars)
