"""A safe YAML loader that keeps source positions.

PyYAML follows YAML 1.1, where ``on: damaged`` loads as ``{True: 'damaged'}``,
``no`` as False and ``2024-01-01`` as a date, and a duplicate key silently
wins. Content is loaded here instead:

* scalars resolve as in YAML 1.2's core schema: only ``true``/``false`` are
  booleans, ``null``/``~``/empty is null, decimal numbers are numbers,
  everything else (dates included) is a string;
* duplicate keys, anchors and aliases are errors (an alias bomb loads fast
  and explodes on the first walk);
* files over :data:`MAX_BYTES` and nesting deeper than :data:`MAX_DEPTH` are
  errors;
* every value's position is kept in :class:`Document.positions`, keyed by its
  path (a tuple of keys and indexes), so later checks can report
  ``file:line:col``.

>>> doc = load_text("on: damaged\\nn: 2\\n", "x.yaml")
>>> doc.data
{'on': 'damaged', 'n': 2}
>>> doc.position(("n",))
(2, 4)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .errors import ContentError, Diagnostic

MAX_BYTES = 2_000_000
MAX_DEPTH = 64

PathKey = tuple[object, ...]

_INT = re.compile(r"^[-+]?[0-9]+$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_NULL = {"", "~", "null", "Null", "NULL"}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}


@dataclass(frozen=True)
class Scalar:
    """Where a scalar's text starts, and how it was written."""

    line: int  # 1-based line of the first character of the value's text
    col: int  # 1-based column of that character
    style: str  # "plain", "quoted", "literal" or "folded"
    indent: int = 0  # for block scalars: the indentation of the content lines
    # a plain or quoted scalar written over several lines is folded into one line;
    # segments say where each piece of the folded text starts: (offset, line, col)
    segments: tuple[tuple[int, int, int], ...] = ()


@dataclass
class Document:
    """A loaded YAML file: plain data plus positions."""

    path: str
    data: Any
    positions: dict[PathKey, tuple[int, int]] = field(default_factory=dict)
    key_positions: dict[PathKey, tuple[int, int]] = field(default_factory=dict)
    scalars: dict[PathKey, Scalar] = field(default_factory=dict)

    def position(self, path: PathKey) -> tuple[int, int]:
        """The position of the value at ``path``, or of its nearest parent."""
        p = tuple(path)
        while p:
            if p in self.positions:
                return self.positions[p]
            p = p[:-1]
        return self.positions.get((), (1, 1))

    def key_position(self, path: PathKey) -> tuple[int, int]:
        """The position of the key that holds ``path`` (for unknown keys)."""
        return self.key_positions.get(tuple(path)) or self.position(path)

    def diagnostic(self, path: PathKey, code: str, message: str, severity: str = "error") -> Diagnostic:
        line, col = self.position(path)
        return Diagnostic(self.path, line, col, code, message, severity)


class _Loader(yaml.SafeLoader):
    """A composer that refuses aliases and anchors."""

    def compose_node(self, parent: Node | None, index: object) -> Node | None:  # type: ignore[override]
        if self.check_event(AliasEvent):
            event = self.peek_event()
            raise _Refused(event.start_mark, "E102", "aliases (*name) are not allowed in content files")
        event = self.peek_event()
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise _Refused(event.start_mark, "E102", f"anchors (&{anchor}) are not allowed in content files")
        return super().compose_node(parent, index)  # type: ignore[no-any-return, arg-type]


class _Refused(Exception):
    def __init__(self, mark: Any, code: str, message: str) -> None:
        super().__init__(message)
        self.mark = mark
        self.code = code
        self.message = message


def load_file(path: Path | str, display: str | None = None) -> Document:
    """Load one YAML file from disk (see :func:`load_text`)."""
    p = Path(path)
    name = display or str(path)
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise ContentError([Diagnostic(name, 1, 1, "E100", f"cannot read the file: {exc.strerror}")]) from None
    if size > MAX_BYTES:
        raise ContentError([Diagnostic(name, 1, 1, "E103", f"file is {size} bytes; the limit is {MAX_BYTES}")])
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ContentError([Diagnostic(name, 1, 1, "E100", f"the file is not UTF-8 text ({exc.reason})")]) from None
    return load_text(text, name)


def load_text(text: str, path: str) -> Document:
    """Load YAML text; raise :class:`ContentError` with a position on failure."""
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise ContentError([Diagnostic(path, 1, 1, "E103", f"the text is larger than {MAX_BYTES} bytes")])
    loader = _Loader(text)
    try:
        node = _compose(text, loader)
    except _Refused as exc:
        raise ContentError([Diagnostic(path, exc.mark.line + 1, exc.mark.column + 1, exc.code, exc.message)]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = exc.problem or exc.context or "invalid YAML"
        if "depth" in problem:  # libyaml's nesting limit
            raise ContentError([Diagnostic(path, line, col, "E103", "the file is nested too deeply")]) from None
        raise ContentError([Diagnostic(path, line, col, "E100", f"YAML syntax: {problem}")]) from None
    except yaml.YAMLError as exc:
        raise ContentError([Diagnostic(path, 1, 1, "E100", f"YAML: {exc}")]) from None
    except RecursionError:
        raise ContentError([Diagnostic(path, 1, 1, "E103", "the file is nested too deeply")]) from None
    finally:
        loader.dispose()
    doc = Document(path, None)
    if node is None:
        doc.data = None
        return doc
    lines = text.splitlines()
    builder = _Builder(doc, lines)
    try:
        doc.data = builder.build(node, (), 0)
    except RecursionError:
        raise ContentError([Diagnostic(path, 1, 1, "E103", "the file is nested too deeply")]) from None
    if builder.diagnostics:
        raise ContentError(builder.diagnostics)
    return doc


def _compose(text: str, loader: _Loader) -> Any:
    """Compose the node tree, with libyaml when it is there (ten times faster)."""
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is None or not getattr(yaml, "__with_libyaml__", False):
        return loader.get_single_node()
    for event in yaml.parse(text, Loader=fast):
        if isinstance(event, AliasEvent):
            raise _Refused(event.start_mark, "E102", "aliases (*name) are not allowed in content files")
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise _Refused(event.start_mark, "E102", f"anchors (&{anchor}) are not allowed in content files")
    return yaml.compose(text, Loader=fast)


class _Builder:
    def __init__(self, doc: Document, lines: list[str]) -> None:
        self.doc = doc
        self.lines = lines
        self.diagnostics: list[Diagnostic] = []

    def pos(self, node: Node) -> tuple[int, int]:
        return node.start_mark.line + 1, node.start_mark.column + 1

    def build(self, node: Node, path: PathKey, depth: int) -> Any:
        if depth > MAX_DEPTH:
            line, col = self.pos(node)
            self.diagnostics.append(Diagnostic(self.doc.path, line, col, "E103", f"nesting deeper than {MAX_DEPTH}"))
            return None
        self.doc.positions[path] = self.pos(node)
        if isinstance(node, MappingNode):
            out: dict[str, Any] = {}
            for knode, vnode in node.value:
                if not isinstance(knode, ScalarNode):
                    line, col = self.pos(knode)
                    self.diagnostics.append(Diagnostic(self.doc.path, line, col, "E100", "mapping keys must be plain text"))
                    continue
                key = str(knode.value)  # keys are always text: `on:` stays "on"
                if key in out:
                    line, col = self.pos(knode)
                    first = self.doc.key_positions.get(path + (key,), (0, 0))[0]
                    self.diagnostics.append(
                        Diagnostic(self.doc.path, line, col, "E101", f"duplicate key '{key}' (first given on line {first})")
                    )
                    continue
                self.doc.key_positions[path + (key,)] = self.pos(knode)
                out[key] = self.build(vnode, path + (key,), depth + 1)
            return out
        if isinstance(node, SequenceNode):
            return [self.build(item, path + (i,), depth + 1) for i, item in enumerate(node.value)]
        assert isinstance(node, ScalarNode)
        return self.scalar(node, path)

    def scalar(self, node: ScalarNode, path: PathKey) -> Any:
        line, col = self.pos(node)
        style = node.style
        if style == "|" or style == ">":
            indent = self._block_indent(line)
            kind = "literal" if style == "|" else "folded"
            self.doc.scalars[path] = Scalar(line + 1, indent + 1, kind, indent)
            return node.value
        if style in ("'", '"'):
            self.doc.scalars[path] = Scalar(line, col + 1, "quoted", segments=self._segments(node, 1))
            return node.value
        self.doc.scalars[path] = Scalar(line, col, "plain", segments=self._segments(node, 0))
        if node.tag not in ("tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
                            "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "tag:yaml.org,2002:timestamp",
                            "tag:yaml.org,2002:value", "tag:yaml.org,2002:merge", "tag:yaml.org,2002:binary"):
            # an explicit tag such as !!python/object: refuse quietly as text
            return node.value
        return resolve_plain(node.value)

    def _segments(self, node: ScalarNode, quote: int) -> tuple[tuple[int, int, int], ...]:
        first, last = node.start_mark.line, node.end_mark.line
        if first == last:
            return ()
        out = []
        offset = 0
        for i in range(first, min(last, len(self.lines) - 1) + 1):
            raw = self.lines[i]
            if i == first:
                col = node.start_mark.column + quote
                text = raw[col:]
            else:
                stripped = raw.lstrip(" \t")
                col = len(raw) - len(stripped)
                text = stripped
            if not text.strip():
                continue
            out.append((offset, i + 1, col + 1))
            offset += len(text.rstrip()) + 1  # folded: one space between lines
        return tuple(out)

    def _block_indent(self, indicator_line: int) -> int:
        # indicator_line is 1-based; content starts on the next line
        for raw in self.lines[indicator_line:]:
            if raw.strip():
                return len(raw) - len(raw.lstrip(" "))
        return 0


def resolve_plain(text: str) -> Any:
    """Resolve a plain scalar with the YAML 1.2 core schema.

    >>> [resolve_plain(x) for x in ["true", "no", "3", "2024-01-01", "~", "1.5"]]
    [True, 'no', 3, '2024-01-01', None, 1.5]
    """
    if text in _NULL:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text) and any(ch.isdigit() for ch in text):
        return float(text)
    return text
