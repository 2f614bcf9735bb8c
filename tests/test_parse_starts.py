"""The parser's trees know where each node starts exactly as with lark's own position propagation,
and the builder makes from them what lark's Transformer would.

sgs_dsl.lark_parser.grammar_parser gives each node only its start (what the builder reads); these
tests parse every snippet of the built-in content and of the invalid fixtures both ways and compare
every node's start, and check that the parser falls back on lark's propagation when it must.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import FIXTURES
from lark import Transformer, Tree

from sgs_dsl import lark_parser as LP
from sgs_dsl.loader import build
from sgs_dsl.parser import Origin

#: content files with problems of every kind, syntax errors among them
FIXTURE_FILES = sorted((FIXTURES / "invalid").glob("*.yaml")) + sorted((FIXTURES / "errors").glob("*.yaml"))


def starts(tree: Any) -> list[tuple[Any, ...]]:
    """Every node of a parse tree, top down, with its start (and whether it has one)."""
    out = []
    for node in tree.iter_subtrees_topdown():
        m = node.meta
        out.append((str(node.data), m.empty, getattr(m, "line", None), getattr(m, "column", None)))
    return out


@pytest.fixture(scope="module")
def snippets() -> list[tuple[str, str]]:
    """Every snippet text parsed in building the built-in content and the invalid fixtures, with its rule."""
    seen: list[tuple[str, str]] = []
    real = LP._parse_tree

    def record(text: str, start: str) -> Any:
        seen.append((text, start))
        return real(text, start)

    mp = pytest.MonkeyPatch()
    mp.setattr(LP, "_parse_tree", record)
    try:
        build(cache=False)
        for path in FIXTURE_FILES:
            build(None, [path], cache=False)
    finally:
        mp.undo()
    return list(dict.fromkeys(seen))


def test_every_node_starts_where_lark_s_propagation_says(snippets: list[tuple[str, str]]) -> None:
    ours, lark_s = LP.grammar_parser(), LP._lark(propagate_positions=True)
    assert ours.options.propagate_positions is False  # the starts are ours
    compared = 0
    for text, start in snippets:
        try:
            expected = lark_s.parse(text, start=start)
        except Exception:  # a syntax error: the same error both ways
            with pytest.raises(Exception):
                ours.parse(text, start=start)
            continue
        got = ours.parse(text, start=start)
        assert got == expected and starts(got) == starts(expected), text
        compared += 1
    assert compared > 250


def test_an_inlined_rule_starts_where_its_text_does() -> None:
    # `( hp )`: the parentheses are dropped from the tree, but the comparison starts at them
    text = "(hp) > 1\n"
    ours, lark_s = LP.grammar_parser().parse(text, start="expression"), \
        LP._lark(propagate_positions=True).parse(text, start="expression")
    assert starts(ours) == starts(lark_s)
    assert (ours.meta.line, ours.meta.column) == (1, 1)


def test_without_lark_s_callbacks_its_own_propagation_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoStarts:  # as if lark's callbacks were something else in another version: no start is set
        def __init__(self, callback: Any) -> None:
            self.callback = callback

        def __call__(self, children: list[Any]) -> Any:
            return self.callback(children)

    LP.grammar_parser.cache_clear()
    monkeypatch.setattr(LP, "_Starts", NoStarts)
    try:
        parser = LP.grammar_parser()
        assert parser.options.propagate_positions is True
        tree = parser.parse("draw 1\n", start="start")
        assert isinstance(tree, Tree) and (tree.meta.line, tree.meta.column) == (1, 1)
    finally:
        LP.grammar_parser.cache_clear()


def test_the_diagnostics_are_the_same_with_lark_s_propagation(monkeypatch: pytest.MonkeyPatch) -> None:
    paths = FIXTURE_FILES
    ours = [build(None, [p], cache=False)[1] for p in paths]
    LP._parse_tree.cache_clear()
    monkeypatch.setattr(LP, "grammar_parser", lambda: LP._lark(propagate_positions=True))
    try:
        theirs = [build(None, [p], cache=False)[1] for p in paths]
    finally:
        LP._parse_tree.cache_clear()
    assert ours == theirs
    assert any(d.code == "E200" for found in ours for d in found)  # syntax errors placed too


def test_the_builder_makes_what_lark_s_transformer_makes(snippets: list[tuple[str, str]]) -> None:
    class Through(Transformer[Any, Any]):  # lark's own walk, calling the builder's methods
        def __init__(self, builder: LP._Builder) -> None:
            super().__init__()
            self.builder = builder

        def __default__(self, data: Any, children: list[Any], meta: Any) -> Any:
            method = getattr(self.builder, data, None)
            return method(meta, children) if method is not None else Tree(data, children, meta)

    origin = Origin("x.yaml", 3, 5, block=True)
    built = 0
    for text, start in snippets:
        try:
            tree = LP.grammar_parser().parse(text, start=start)
        except Exception:
            continue
        assert LP._Builder(origin).build(tree) == Through(LP._Builder(origin)).transform(tree), text
        built += 1
    assert built > 250


def test_no_rule_is_named_like_the_builder_s_own_attributes() -> None:
    rules = {str(r.alias or r.options.template_source or r.origin.name) for r in LP.grammar_parser().rules}
    own = {"build", "origin"} | {n for n in vars(LP._Builder) if n.startswith("_")}
    assert not rules & own


def test_lark_is_imported_without_the_regex_module_which_stays_importable() -> None:
    import subprocess
    import sys

    from conftest import ROOT

    code = ("import sys; import sgs_dsl.lark_parser as L; print('regex' in sys.modules); "
            "print(L.grammar_parser().parse('draw 1\\n', start='start').data)\n"
            "try:\n    import regex\nexcept ImportError:\n    print('not installed')\nelse:\n    print('importable')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() in (["False", "start", "importable"], ["False", "start", "not installed"])
