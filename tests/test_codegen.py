"""Snippets compile to Python functions that keep the content's file, line and column."""

from __future__ import annotations

import linecache
import marshal
import traceback
from pathlib import Path
from typing import Any

import pytest

from sgs_dsl import codegen
from sgs_dsl.compiler import Compiler, Scope
from sgs_dsl.loader import build, load_content
from sgs_dsl.parser import Origin, parse_block, parse_expression
from sgs_runtime.errors import GameError
from sgs_runtime.state.frame import Frame

CONTENT = load_content()

YAML = """\
skills:
  - id: probe
    effect: |
      let n = "no_such_mark"
      let k = 2
      me.mark(n) = k
"""


class _Holder:
    """Stands in for a player: has marks and nothing else."""

    def __init__(self) -> None:
        self.marks: dict[str, int] = {}


def _block(path: Path, text: str, line: int, scope: Scope) -> tuple[Any, Compiler]:
    tree = parse_block(text, Origin(str(path), line, 7, block=True))
    comp = Compiler(CONTENT.env, str(path))
    fn = comp.block(tree, scope)
    assert comp.diagnostics == []
    return fn, comp


def _effect_text() -> str:
    return "".join(ln[6:] + "\n" for ln in YAML.splitlines()[3:])


def test_a_traceback_through_an_effect_names_the_yaml_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "probe.yaml"
    path.write_text(YAML, encoding="utf-8")
    fn, _ = _block(path, _effect_text(), 4, Scope({"me": "player"}))
    frame = Frame(None, {"me": _Holder()})  # type: ignore[arg-type]
    with pytest.raises(GameError) as info:
        list(fn(frame))
    frames = [fs for fs in traceback.extract_tb(info.value.__traceback__) if fs.filename == str(path)]
    assert frames, "the compiled effect's frame names the YAML file"
    assert frames[-1].lineno == 6  # `me.mark(n) = k`: the mark name is checked when it runs
    assert "me.mark(n) = k" in linecache.getline(str(path), 6)
    # the variables a block binds are also in the frame, where the runtime reads them
    assert frame.vars["n"] == "no_such_mark" and frame.vars["k"] == 2


def test_code_positions_are_yaml_lines_and_columns(tmp_path: Path) -> None:
    path = tmp_path / "probe.yaml"
    path.write_text(YAML, encoding="utf-8")
    fn, _ = _block(path, _effect_text(), 4, Scope({"me": "player"}))
    codegen.compile_pending()
    code = fn.__code__
    assert code.co_filename == str(path)
    lines = {pos[0] for pos in code.co_positions() if pos[0] is not None}
    assert lines <= {4, 5, 6} and {5, 6} <= lines
    # `k` on line 6 is at column 20 of the file (0-based 19)
    assert (6, 19) in {(pos[0], pos[2]) for pos in code.co_positions()}


def test_an_expression_is_one_function_with_typed_attribute_reads() -> None:
    tree = parse_expression("me.hp >= 2 and count(c from me.hand where c.suit == heart) == 0",
                            Origin("cond.yaml", 3, 9))
    comp = Compiler(CONTENT.env, "cond.yaml")
    fn = comp.condition(tree, Scope({"me": "player"}))
    codegen.compile_pending()
    src, _ = comp.unit.source()
    assert ".hp" in src and ".suit" in src and "_dynamic_get" not in src
    assert fn.__code__.co_filename == "cond.yaml"
    assert {pos[0] for pos in fn.__code__.co_positions() if pos[0] is not None} == {3}
    for name, value in comp.unit.globals.items():
        assert name in src and value is not _equal_of_compiler()


def _equal_of_compiler() -> Any:
    from sgs_dsl import compiler

    return compiler._equal


def test_card_texts_still_compare_by_what_they_name() -> None:
    tree = parse_expression('x == "spark S7"', Origin("cond.yaml", 1, 1))
    comp = Compiler(CONTENT.env, "cond.yaml")
    comp.condition(tree, Scope({"x": "any"}))
    assert _equal_of_compiler() in comp.unit.globals.values()


def test_the_unit_of_a_snippet_is_marshal_able(tmp_path: Path) -> None:
    path = tmp_path / "probe.yaml"
    path.write_text(YAML, encoding="utf-8")
    tree = parse_block(_effect_text(), Origin(str(path), 4, 7, block=True))
    comp = Compiler(CONTENT.env, str(path))
    comp.block(tree, Scope({"me": "player"}))
    code = marshal.loads(marshal.dumps(comp.unit.compile()))
    fn = comp.unit.load(comp.unit.names()[-1], code)
    frame = Frame(None, {"me": _Holder()})  # type: ignore[arg-type]
    with pytest.raises(GameError):
        list(fn(frame))


def test_every_snippet_of_the_content_compiles_and_a_cache_keeps_the_code() -> None:
    cache: dict[str, bytes] = {}
    codegen.code_cache = cache
    try:
        content, diags = build()
        assert not [d for d in diags if d.severity == "error"]
        n = codegen.compile_pending()
        # (every loaded build's pending functions compile; equal units of two builds share one entry)
        assert n > 100 and len(cache) > 100
        stored = dict(cache)
        again, _ = build()  # (kept: its pending functions live while it does)
        assert codegen.compile_pending() > 100 and cache == stored  # the second build compiled nothing new
        assert again.cards
    finally:
        codegen.code_cache = None


def test_a_units_key_is_its_source_and_spans_however_they_share_objects() -> None:
    # (a unit read back from the content cache holds equal spans that share no objects: the same key)
    pos = (3, 7)
    shared, fresh = codegen.Unit("a.yaml"), codegen.Unit("b.yaml")
    shared._source = ("x = 1\n", [[(0, 5, pos), (4, 5, pos)]])
    fresh._source = ("x = 1\n", [[(0, 5, (3, 7)), (4, 5, (3, 7))]])
    assert shared.key() == fresh.key()
    fresh._source = ("x = 1\n", [[(0, 5, (3, 8)), (4, 5, (3, 7))]])
    assert shared.key() != fresh.key()


def test_a_function_compiles_when_it_is_first_called() -> None:
    tree = parse_expression("1 + 2", Origin("cond.yaml", 1, 1))
    comp = Compiler(CONTENT.env, "cond.yaml")
    fn = comp.condition(tree, Scope({}))
    assert fn.__code__.co_filename != "cond.yaml"  # not compiled yet
    assert fn(Frame(None, {})) == 3  # type: ignore[arg-type]
    assert fn.__code__.co_filename == "cond.yaml"
    assert fn(Frame(None, {})) == 3  # type: ignore[arg-type]


@pytest.fixture()
def eager() -> Any:
    """Compile every unit as it is loaded (a problem in the generated Python shows at once)."""
    codegen.LAZY = False
    try:
        yield
    finally:
        codegen.LAZY = True


def test_random_snippets_compile_to_python(eager: Any) -> None:
    """The fuzzed snippets of test_fuzz, compiled for real: generated code is always valid Python."""
    import random

    from test_fuzz import SNIPPETS, TOKENS, _compile, _mutate

    rng = random.Random(5)
    for _ in range(300):
        _compile(" ".join(rng.choice(TOKENS) for _ in range(rng.randrange(40))), rng.random() < 0.5)
        _compile(_mutate(rng.choice(SNIPPETS), rng, rng.randrange(1, 8)), True)
    for snippet in SNIPPETS:
        _compile(snippet, True)


def test_the_same_content_in_two_places_shares_its_code_and_names_its_own_file(tmp_path: Path) -> None:
    cache: dict[str, bytes] = {}
    codegen.code_cache = cache
    try:
        codes = []
        for place in ("one", "two"):
            path = tmp_path / place / "probe.yaml"
            path.parent.mkdir()
            path.write_text(YAML, encoding="utf-8")
            comp = Compiler(CONTENT.env, str(path))
            comp.block(parse_block(_effect_text(), Origin(str(path), 4, 7, block=True)), Scope({"me": "player"}))
            codes.append((str(path), comp.unit.compile()))
        assert len(cache) == 1  # (the second copy read the first one's code)
        for path, code in codes:
            inner = [c for c in code.co_consts if hasattr(c, "co_filename")]
            assert code.co_filename == path and inner and all(c.co_filename == path for c in inner)
    finally:
        codegen.code_cache = None
