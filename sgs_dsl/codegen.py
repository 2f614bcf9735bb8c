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

Compiling costs time at load; most snippets are never run in a given process,
so a unit is compiled when its function is first called (:data:`LAZY`,
:func:`compile_pending`). The code objects are kept between runs: every unit
compiled looks its code up under :meth:`Unit.key` (a hash of its file, source
and positions) and stores it (``marshal`` bytes) when it had to compile it, in
the user's content cache (:class:`sgs_dsl.cache.CodeStore`) or in whatever
mapping :data:`code_cache` is set to.
"""

from __future__ import annotations

import ast
import hashlib
import marshal
import os
import weakref
from collections.abc import MutableMapping
from dataclasses import dataclass
from types import CodeType, FunctionType
from typing import Any, Callable, NamedTuple, Optional

Pos = tuple[int, int]
Span = tuple[int, int, Pos]

#: values written into the source as literals; everything else is a global of the unit
_LITERAL_TYPES = (bool, int, str, type(None))


#: the kinds of Python syntax nodes that have a position
_LOCATED = (ast.stmt, ast.expr, ast.arg, ast.keyword, ast.excepthandler, ast.alias)


class Code(NamedTuple):
    """Python expression source, and the codes it is made of (at their offsets in ``src``).

    ``pos``: the YAML position of this piece (the innermost piece with a position names a place);
    ``simple``: reading it twice is cheap and has no effect (a name, a constant);
    ``boolean``: its value is always ``True`` or ``False``; ``notnone``: its value is never ``None``.
    """

    src: str
    parts: tuple[tuple[int, "Code"], ...] = ()
    pos: Optional[Pos] = None
    simple: bool = False
    boolean: bool = False
    notnone: bool = False

    def spans(self, base: int = 0) -> list[Span]:
        """The (start, end, position) of every piece with a position, outer pieces first."""
        out: list[Span] = []
        todo = [(base, self)]
        while todo:
            at, c = todo.pop()
            if c.pos is not None:
                out.append((at, at + len(c.src), c.pos))
            todo.extend((at + off, child) for off, child in reversed(c.parts))
        return out


def code(fmt: str, *parts: Code, pos: Optional[Pos] = None, simple: bool = False, boolean: bool = False,
         notnone: bool = False) -> Code:
    """``fmt`` with each ``{}`` replaced by the source of the next part.

    ``pos`` gives the whole result a position of its own."""
    if fmt == "{}" and parts[0].pos is None:
        p = parts[0]
        return Code(p.src, p.parts, pos, simple, boolean, notnone or boolean)
    pieces = fmt.split("{}")
    if len(pieces) != len(parts) + 1:  # pragma: no cover - a mistake in the compiler
        raise ValueError(f"{fmt!r} takes {len(pieces) - 1} parts, not {len(parts)}")
    out: list[str] = [pieces[0]]
    offsets: list[tuple[int, Code]] = []
    n = len(pieces[0])
    for p, piece in zip(parts, pieces[1:]):
        offsets.append((n, p))
        out.append(p.src)
        out.append(piece)
        n += len(p.src) + len(piece)
    return Code("".join(out), tuple(offsets), pos, simple, boolean, notnone or boolean)


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
        self._source: Optional[tuple[str, list[list[Span]]]] = None  # made once all functions are in (source())

    def __reduce__(self) -> tuple[Any, ...]:
        """A unit is kept (pickled) as what compiling it needs: its file, globals, source and spans."""
        src, spans = self.source()
        return _saved_unit, (self.file, self.globals, src, spans)

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
            return Code(ascii(value), simple=True, boolean=isinstance(value, bool), notnone=value is not None)
        name = self._by_id.get(id(value))
        if name is None:
            name = f"_k{len(self._by_id)}"
            self._by_id[id(value)] = name
            self.globals[name] = value
        return Code(name, simple=True)

    def function(self, lines: list[Line], pos: Pos, generator: bool) -> str:
        """Add ``def NAME(f):`` with ``lines`` as its body (after ``v = f.vars``); its name."""
        name = self.fresh("_snippet")
        self._source = None  # the module changes
        head = [Line(0, code(f"def {name}(f):", pos=pos)), Line(1, code("v = f.vars", pos=pos))]
        tail = [Line(1, code("if False: yield", pos=pos))] if generator else []
        self._functions.append((name, head + indent(lines) + tail, pos))
        return name

    def names(self) -> list[str]:
        """The names of the unit's functions, in the order they were added (the snippet's own is last)."""
        return [name for name, _, _ in self._functions]

    def source(self) -> tuple[str, list[list[Span]]]:
        """The module's source, and for each of its lines the spans on it (columns from the line's start)."""
        if self._source is not None:
            return self._source
        text: list[str] = []
        spans: list[list[Span]] = []
        for _, lines, _ in self._functions:
            for ln in lines:
                pad = " " * (4 * ln.indent)
                text.append(pad + ln.code.src)
                spans.append(ln.code.spans(len(pad)))
        self._source = ("\n".join(text) + "\n", spans)
        return self._source

    def module(self) -> ast.Module:
        """The module as a Python syntax tree whose nodes carry the YAML positions."""
        src, spans = self.source()
        tree = ast.parse(src, self.file)
        lines = src.split("\n")
        painted: list[list[Optional[Pos]]] = []
        for text, on_line in zip(lines, spans):
            at: list[Optional[Pos]] = [None] * (len(text) + 1)
            # longer pieces first: the innermost piece of a place is painted last
            for start, end, pos in sorted(on_line, key=lambda sp: sp[0] - sp[1]):
                at[start:max(end, start + 1)] = [pos] * (max(end, start + 1) - start)
            painted.append(at)
        stack: list[ast.AST] = [tree]
        while stack:
            node = stack.pop()
            for name in node._fields:
                value = getattr(node, name)
                if isinstance(value, list):
                    stack.extend(x for x in value if isinstance(x, ast.AST))
                elif isinstance(value, ast.AST):
                    stack.append(value)
            if isinstance(node, _LOCATED):
                spot = painted[node.lineno - 1][node.col_offset]
                if spot is None:  # pragma: no cover - every line has the position of its statement
                    continue
                node.lineno = node.end_lineno = max(spot[0], 1)
                node.col_offset = max(spot[1] - 1, 0)
                node.end_col_offset = node.col_offset + 1
        return tree

    def key(self) -> str:
        """What identifies the unit's compiled code: its source and positions (a key of :data:`code_cache`).

        Not its file: the same content in two places (a copy of a tree, a checkout beside another) shares
        its code, given the file's name when it is read back (:func:`_in_file`)."""
        src, spans = self.source()  # (marshal's version 2 writes no back-references: equal spans, equal bytes)
        return hashlib.sha256(b"unit/3\0" + src.encode() + b"\0" + marshal.dumps(spans, 2)).hexdigest()

    def compile(self) -> CodeType:
        """The code object of the whole unit (from :data:`code_cache` when it has it)."""
        cache = code_cache if code_cache is not None else _user_store()
        key = self.key() if cache is not None else ""
        if cache is not None:
            data = cache.get(key)
            if data is not None:
                got = marshal.loads(data)
                if isinstance(got, CodeType):
                    return got if got.co_filename == self.file else _in_file(got, self.file)
        compiled = compile(self.module(), self.file, "exec", dont_inherit=True)
        if cache is not None:
            cache[key] = marshal.dumps(compiled)
        return compiled

    def load(self, name: str, code_object: Optional[CodeType] = None) -> Callable[..., Any]:
        """Function ``name`` of the unit.

        With ``code_object`` (a :meth:`compile` result, perhaps from a cache), or when :data:`LAZY` is off,
        the module runs now. Otherwise the function compiles the unit when it is first called: until
        then it is a stand-in that does so and takes over the real function's code."""
        namespace = dict(self.globals)
        namespace[UNIT] = self  # the unit the function comes from (how a saved content keeps it, revive)
        if code_object is not None or not LAZY:
            exec(code_object if code_object is not None else self.compile(), namespace)  # noqa: S102
            fn: Callable[..., Any] = namespace[name]
            return fn
        stub = FunctionType(_STAND_IN, namespace, name)

        def first() -> Callable[..., Any]:
            if namespace.get(_FIRST) is first:
                exec(self.compile(), namespace)  # noqa: S102
                stub.__code__ = namespace[name].__code__
                del namespace[_FIRST]
                _PENDING.discard(stub)
            real: Callable[..., Any] = namespace[name]
            return real

        namespace[_FIRST] = first
        _PENDING.add(stub)
        return stub


def _in_file(code: CodeType, file: str) -> CodeType:
    """``code`` and every code object inside it, as compiled from ``file`` (tracebacks name the file).

    >>> _in_file(compile("def f(): pass", "a.yaml", "exec"), "b.yaml").co_consts[0].co_filename
    'b.yaml'
    """
    consts = tuple(_in_file(c, file) if isinstance(c, CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=file, co_consts=consts)


def _saved_unit(file: str, globals_: dict[str, Any], src: str, spans: list[list[Span]]) -> Unit:
    """A unit read back from :meth:`Unit.__reduce__`: its functions are loaded by name (:func:`revive`)."""
    unit = Unit(file)
    unit.globals = globals_
    unit._source = (src, spans)
    return unit


#: the name, in a loaded function's globals, of the :class:`Unit` it comes from
UNIT = "__sgs_unit__"


def unit_of(fn: Any) -> Optional[Unit]:
    """The unit a function loaded by :meth:`Unit.load` comes from (None for any other object)."""
    if not isinstance(fn, FunctionType):
        return None
    unit = fn.__globals__.get(UNIT)
    return unit if isinstance(unit, Unit) else None


def revive(unit: Unit, name: str) -> Callable[..., Any]:
    """Function ``name`` of ``unit`` loaded again (in another process: compiled when first called)."""
    return unit.load(name)


#: compiled code kept between runs: :meth:`Unit.key` -> ``marshal`` bytes of the unit's code object (any
#: mutable mapping: a dict, a ``shelve`` ...). None: the user's content cache (:class:`sgs_dsl.cache.CodeStore`),
#: unless ``SGS_NO_CACHE`` turns it off
code_cache: Optional[MutableMapping[str, bytes]] = None


def _user_store() -> Optional[MutableMapping[str, bytes]]:
    """The user's code cache (kept while the settings that find it stay the same)."""
    from .cache import CodeStore, default_cache

    settings = tuple(os.environ.get(k) for k in ("SGS_NO_CACHE", "SGS_CACHE_DIR", "XDG_CACHE_HOME", "HOME"))
    kept = _STORE.get(settings)
    if kept is None:
        found = default_cache()
        kept = _STORE[settings] = (CodeStore(found) if found is not None else None,)
    return kept[0]


#: the user's code cache by the settings that find it (:func:`_user_store`)
_STORE: dict[tuple[Optional[str], ...], tuple[Optional[MutableMapping[str, bytes]]]] = {}

#: compile a unit when its function is first called (most snippets of a content are never run in a process)
LAZY = True

_FIRST = "__first_call__"
#: the code of a function that has not been compiled yet: compile the unit, then run the real function
_STAND_IN: CodeType = next(c for c in compile(
    f"def stand_in(*args):\n    return {_FIRST}()(*args)\n", "<sgs_dsl.codegen>", "exec").co_consts
    if isinstance(c, CodeType))
_PENDING: "weakref.WeakSet[FunctionType]" = weakref.WeakSet()


def compile_pending() -> int:
    """Compile every loaded function that has not run yet (to find a problem now, or before forking); how many."""
    stubs = list(_PENDING)
    for stub in stubs:
        first = stub.__globals__.get(_FIRST)
        if first is not None:
            first()
    return len(stubs)
