"""Python source for compiled snippets, mapped back to the content's lines.

The compiler (:mod:`sgs_dsl.compiler`) turns every checked expression into a
:class:`Code`: a piece of Python expression source plus *spans* that say which
part of it comes from which (line, col) of the YAML file. Statements become
:class:`Line` objects (an indent and a :class:`Code`). :class:`Unit` collects
the functions of one snippet (the snippet's own function and the ``where``
filters it hands to the runtime), parses the source with :mod:`ast`, moves
every node to the YAML position its span names and compiles the module with
the YAML file as its file name: a traceback through a compiled effect shows the
content's file, line and column.

Constants and helpers reach the generated code through the module's globals
(:meth:`Unit.const`), never by name lookups in the content.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Callable, Optional

Pos = tuple[int, int]
Span = tuple[int, int, Pos]

#: values written into the source as literals; everything else is a global of the unit
_LITERAL_TYPES = (bool, int, str, type(None))


#: the kinds of Python syntax nodes that have a position
_LOCATED = (ast.stmt, ast.expr, ast.arg, ast.keyword, ast.excepthandler, ast.alias)


@dataclass(frozen=True)
class Code:
    """Python expression source.

    ``simple``: reading it twice is cheap and has no effect (a name, a constant);
    ``boolean``: its value is always ``True`` or ``False``.
    """

    src: str
    spans: tuple[Span, ...] = ()
    simple: bool = False
    boolean: bool = False


def code(fmt: str, *parts: Code, pos: Optional[Pos] = None, simple: bool = False, boolean: bool = False) -> Code:
    """``fmt`` with each ``{}`` replaced by the source of the next part; the parts' spans follow them.

    ``pos`` gives the whole result a span of its own (the innermost span of a place wins)."""
    pieces = fmt.split("{}")
    if len(pieces) != len(parts) + 1:  # pragma: no cover - a mistake in the compiler
        raise ValueError(f"{fmt!r} takes {len(pieces) - 1} parts, not {len(parts)}")
    out: list[str] = []
    spans: list[Span] = []
    n = 0
    for i, piece in enumerate(pieces):
        out.append(piece)
        n += len(piece)
        if i < len(parts):
            p = parts[i]
            spans.extend((s + n, e + n, ps) for s, e, ps in p.spans)
            out.append(p.src)
            n += len(p.src)
    src = "".join(out)
    if pos is not None:
        spans.append((0, len(src), pos))
    return Code(src, tuple(spans), simple, boolean)


def join(items: list[Code], sep: str = ", ") -> Code:
    """The parts one after the other, ``sep`` between them."""
    return code(sep.join("{}" for _ in items), *items)


@dataclass(frozen=True)
class Line:
    """One line of a generated function body."""

    indent: int
    code: Code


def indent(lines: list[Line], by: int = 1) -> list[Line]:
    return [Line(ln.indent + by, ln.code) for ln in lines]


def body(lines: list[Line], pos: Pos) -> list[Line]:
    """``lines`` indented one level, or ``pass`` when there are none (a Python block needs a statement)."""
    return indent(lines) if lines else [Line(1, code("pass", pos=pos))]


class Unit:
    """The functions of one snippet, compiled together in one module."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.globals: dict[str, Any] = {}
        self._by_id: dict[int, str] = {}
        self._functions: list[tuple[str, list[Line], Pos]] = []
        self._count = 0
        self._locals: dict[str, str] = {}

    def fresh(self, stem: str = "_t") -> str:
        """A new Python name, used once in the unit."""
        self._count += 1
        return f"{stem}{self._count}"

    def local(self, var: str) -> str:
        """The Python local of language variable ``var`` (the same for every binding of it)."""
        if var not in self._locals:
            self._locals[var] = self.fresh("_l")
        return self._locals[var]

    def const(self, value: Any) -> Code:
        """``value`` in the generated source: a literal, or a global of the unit."""
        if isinstance(value, _LITERAL_TYPES):
            return Code(ascii(value), simple=True, boolean=isinstance(value, bool))
        name = self._by_id.get(id(value))
        if name is None:
            name = f"_k{len(self._by_id)}"
            self._by_id[id(value)] = name
            self.globals[name] = value
        return Code(name, simple=True)

    def function(self, lines: list[Line], pos: Pos, generator: bool) -> str:
        """Add ``def NAME(f):`` with ``lines`` as its body (after ``v = f.vars``); its name."""
        name = self.fresh("_snippet")
        head = [Line(0, code(f"def {name}(f):", pos=pos)), Line(1, code("v = f.vars", pos=pos))]
        tail = [Line(1, code("if False: yield", pos=pos))] if generator else []
        self._functions.append((name, head + indent(lines) + tail, pos))
        return name

    def names(self) -> list[str]:
        """The names of the unit's functions, in the order they were added (the snippet's own is last)."""
        return [name for name, _, _ in self._functions]

    def source(self) -> tuple[str, list[list[Span]]]:
        """The module's source, and for each of its lines the spans on it (columns from the line's start)."""
        text: list[str] = []
        spans: list[list[Span]] = []
        for _, lines, pos in self._functions:
            for ln in lines:
                pad = " " * (4 * ln.indent)
                text.append(pad + ln.code.src)
                spans.append([(s + len(pad), e + len(pad), p) for s, e, p in ln.code.spans])
        return "\n".join(text) + "\n", spans

    def module(self) -> ast.Module:
        """The module as a Python syntax tree whose nodes carry the YAML positions."""
        src, spans = self.source()
        tree = ast.parse(src, self.file)
        for node in ast.walk(tree):
            if not isinstance(node, _LOCATED):
                continue
            line, col = node.lineno, node.col_offset
            best: Optional[Span] = None
            for span in spans[line - 1]:
                if span[0] <= col < span[1] or span[0] == col == span[1]:
                    if best is None or span[1] - span[0] < best[1] - best[0]:
                        best = span
            if best is None:  # pragma: no cover - every line has a span of its statement
                continue
            yline, ycol = best[2]
            node.lineno = node.end_lineno = max(yline, 1)
            node.col_offset = max(ycol - 1, 0)
            node.end_col_offset = node.col_offset + 1
        return tree

    def compile(self) -> Any:
        """The code object of the whole unit (marshal-able: see :func:`load`)."""
        return compile(self.module(), self.file, "exec", dont_inherit=True)

    def load(self, name: str, code_object: Any = None) -> Callable[..., Any]:
        """Run the unit's module (compiling it unless ``code_object`` is given) and return function ``name``."""
        namespace = dict(self.globals)
        exec(code_object if code_object is not None else self.compile(), namespace)  # noqa: S102
        fn: Callable[..., Any] = namespace[name]
        return fn
