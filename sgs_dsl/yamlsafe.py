"""A safe YAML loader that keeps source positions.

PyYAML follows YAML 1.1, where ``on: damaged`` loads as ``{True: 'damaged'}``,
``no`` as False and ``2024-01-01`` as a date, and a duplicate key silently
wins. Content is loaded here instead:

* scalars resolve as in YAML 1.2's core schema: only ``true``/``false`` are
  booleans, ``null``/``~``/empty is null, decimal numbers are numbers,
  everything else (dates included) is a string;
* duplicate keys, anchors and aliases are errors (an alias bomb loads fast
  and explodes on the first walk);
* files over :data:`MAX_BYTES`, more than :data:`MAX_NODES` values and nesting
  deeper than :data:`MAX_DEPTH` are errors;
* only regular files are read (:func:`read_file`): a folder, FIFO, device or
  socket named ``x.yaml`` is an error, never a hang; at most ``MAX_BYTES + 1``
  bytes are read, whatever size the file claims to have;
* the text must be UTF-8 (a leading byte-order mark is dropped) and hold no
  character YAML forbids (NUL and other control characters): each is an
  error at its line and column;
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

import codecs
import os
import re
import stat
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import ContentError, Diagnostic

if TYPE_CHECKING:
    import yaml
    from yaml.nodes import Node, ScalarNode

# PyYAML is imported when a text is first loaded (not with this module): content read
# from the cache (sgs_dsl.cache) is never parsed again, and never needs it.


def __getattr__(name: str) -> Any:
    if name == "yaml":
        import yaml

        return yaml
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

MAX_BYTES = 2_000_000
MAX_DEPTH = 64
MAX_NODES = 100_000  # values (scalars, lists, mappings) in one file; the largest built-in file has under 1000

#: the endings of the names of content files (and rule cases)
SUFFIXES = (".yaml", ".yml")

# what YAML allows in a stream (YAML 1.2, 5.1): everything else is refused with its position
_NOT_PRINTABLE = "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]"  # compiled on first use
_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_CONTROL_NAMES = {0x00: "NUL", 0x07: "BEL", 0x08: "backspace", 0x0B: "vertical tab", 0x0C: "form feed",
                  0x1B: "escape", 0x7F: "DEL"}

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


@lru_cache(maxsize=1)
def _loader_class() -> type[yaml.SafeLoader]:
    import yaml
    from yaml.events import AliasEvent

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

    return _Loader


class _Refused(Exception):
    def __init__(self, mark: Any, code: str, message: str) -> None:
        super().__init__(message)
        self.mark = mark
        self.code = code
        self.message = message


def _file_kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _line_col(text: str, i: int) -> tuple[int, int]:
    """The 1-based line and column of ``text[i]``, with YAML's line breaks (CR LF, CR, LF, NEL, LS, PS)."""
    line, start = 1, 0
    for m in _BREAK.finditer(text, 0, i):
        line += 1
        start = m.end()
    return line, i - start + 1


def _refuse(name: str, code: str, message: str, line: int = 1, col: int = 1) -> ContentError:
    return ContentError([Diagnostic(name, line, col, code, message)])


def read_bytes(path: Path | str, display: str | None = None, limit: int | None = None) -> bytes:
    """The bytes of a regular file, read with a bound; :class:`ContentError` otherwise.

    Symbolic links are followed, but only a regular file is opened: a folder, FIFO,
    device or socket is refused (E105) before it is opened, and checked again on the
    open descriptor (opened without blocking), so nothing can hang or be read for ever.
    At most ``limit + 1`` bytes are read (default :data:`MAX_BYTES`): the size the file
    system reports is never trusted (``/proc`` files and devices report 0). A file that
    does not exist or cannot be opened is E100; one over the limit E103.
    """
    name = display or str(path)
    limit = MAX_BYTES if limit is None else limit
    raw = os.fspath(path)
    try:
        st = os.stat(raw)
    except FileNotFoundError:
        if os.path.islink(raw):
            try:
                target = os.readlink(raw)
            except OSError:
                target = "?"
            raise _refuse(name, "E100", f"cannot read the file: it is a symbolic link to '{target}', "
                                        "which does not exist") from None
        raise _refuse(name, "E100", "cannot read the file: No such file or directory") from None
    except OSError as exc:
        raise _refuse(name, "E100", f"cannot read the file: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL in the path itself
        raise _refuse(name, "E100", f"cannot read the file: {exc}") from None
    link = " (through a symbolic link)" if os.path.islink(raw) else ""
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(name, "E105", f"not a regular file but {_file_kind(st.st_mode)}{link}: "
                                    "only regular files are read as content")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(raw, flags)
    except OSError as exc:
        raise _refuse(name, "E100", f"cannot read the file: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)  # it may have been replaced since the check above
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(name, "E105", f"not a regular file but {_file_kind(st.st_mode)}{link}: "
                                        "only regular files are read as content")
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise _refuse(name, "E100", f"cannot read the file: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if total > limit:
        raise _refuse(name, "E103", f"the file is larger than {limit} bytes (the limit for a content file)")
    return b"".join(chunks)


def decode(data: bytes, name: str) -> str:
    """UTF-8 text from bytes; a leading byte-order mark is dropped; E100 with a position otherwise."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    for bom, enc in ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
                     (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16")):
        if data.startswith(bom):
            raise _refuse(name, "E100", f"the file is {enc} text (it starts with a {enc} byte-order mark); "
                                        "content files must be UTF-8")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = exc.start
        before = data[:start].decode("utf-8")  # what comes before the first bad byte is UTF-8
        line, col = _line_col(before, len(before))
        raise _refuse(name, "E100", f"the file is not UTF-8 text: byte 0x{data[start]:02x} cannot be decoded "
                                    f"({exc.reason})", line, col) from None


def read_file(path: Path | str, display: str | None = None) -> str:
    """The text of a content file: a bounded read of a regular file, decoded as UTF-8."""
    name = display or str(path)
    return decode(read_bytes(path, name), name)


def find_yaml_files(folder: Path | str) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Every entry named ``*.yaml`` or ``*.yml`` below ``folder``, and the folders that could not be read.

    Returns ``(paths, problems)``: ``paths`` in no particular order (callers sort them),
    whatever kind of file each is (:func:`read_file` refuses what is not a regular
    file, so that a folder or FIFO named ``x.yaml`` is reported, not skipped);
    ``problems`` pairs a folder with why it was not read: it cannot be listed
    (permissions), or it is a symbolic link to a folder already read (a loop).
    Symbolic links to folders are followed once.
    """
    found: list[Path] = []
    problems: list[tuple[Path, str]] = []
    seen: dict[tuple[int, int], Path] = {}
    stack = [Path(folder)]
    while stack:
        current = stack.pop()
        try:
            st = os.stat(current)
        except OSError as exc:
            problems.append((current, f"cannot read the folder: {exc.strerror or exc}; its files were not read"))
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen:
            problems.append((current, f"the same folder as {seen[key]}, reached again through a symbolic link "
                                      "(a loop, or a second link to it); its files are read once"))
            continue
        seen[key] = current
        try:
            with os.scandir(current) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            problems.append((current, f"cannot list the folder: {exc.strerror or exc}; its files were not read"))
            continue
        folders = []
        for entry in entries:
            child = current / entry.name
            if os.path.normcase(entry.name).endswith(SUFFIXES):
                found.append(child)
            try:
                is_dir = entry.is_dir()  # follows a symbolic link
            except OSError:
                is_dir = False
            if is_dir:
                folders.append(child)
        stack.extend(reversed(folders))  # depth first, in name order
    return found, problems


def load_file(path: Path | str, display: str | None = None) -> Document:
    """Load one YAML file from disk (see :func:`read_file` and :func:`load_text`)."""
    name = display or str(path)
    return load_text(read_file(path, name), name)


@lru_cache(maxsize=1)
def _not_printable() -> re.Pattern[str]:
    return re.compile(_NOT_PRINTABLE)  # a few milliseconds: not paid by a run that reads no YAML


def _bad_characters(text: str, path: str) -> ContentError | None:
    """E106 at the first character YAML does not allow (NUL, other control characters, lone surrogates)."""
    not_printable = _not_printable()
    m = not_printable.search(text)
    if m is None:
        return None
    i = m.start()
    line, col = _line_col(text, i)
    code = ord(text[i])
    what = f"U+{code:04X}"
    if code in _CONTROL_NAMES:
        what += f" ({_CONTROL_NAMES[code]})"
    kind = "a surrogate" if 0xD800 <= code <= 0xDFFF else "a control character"
    more = len(not_printable.findall(text, i + 1))
    tail = f" ({more} more such character(s) in the file)" if more else ""
    return _refuse(path, "E106", f"{kind} {what} is not allowed in a content file{tail}", line, col)


def load_text(text: str, path: str) -> Document:
    """Load YAML text; raise :class:`ContentError` with a position on failure."""
    if text.startswith("\ufeff"):  # a byte-order mark: not part of the text
        text = text[1:]
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise ContentError([Diagnostic(path, 1, 1, "E103", f"the text is larger than {MAX_BYTES} bytes")])
    bad = _bad_characters(text, path)
    if bad is not None:
        raise bad
    import yaml

    loader: yaml.SafeLoader | None = None
    try:
        loader = _loader_class()(text)
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
        if loader is not None:
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
    except _Refused as exc:
        raise ContentError([Diagnostic(path, exc.mark.line + 1, exc.mark.column + 1, exc.code, exc.message)]) from None
    if builder.diagnostics:
        raise ContentError(builder.diagnostics)
    return doc


#: more values than YAML can write in one character (at most 3: `?` is a mapping, its key and its value)
_VALUES_PER_CHARACTER = 4


def _compose(text: str, loader: yaml.SafeLoader) -> Any:
    """Compose the node tree, with libyaml when it is there (ten times faster)."""
    import yaml
    from yaml.events import AliasEvent, MappingStartEvent, ScalarEvent, SequenceStartEvent

    fast = getattr(yaml, "CSafeLoader", None)
    if fast is None or not getattr(yaml, "__with_libyaml__", False):
        return loader.get_single_node()  # the builder counts the values
    if "&" not in text and "*" not in text and len(text) * _VALUES_PER_CHARACTER < MAX_NODES:
        # no anchor, no alias, and too short to hold more than MAX_NODES values: nothing to refuse
        return yaml.compose(text, Loader=fast)
    values = 0
    for event in yaml.parse(text, Loader=fast):
        if isinstance(event, (ScalarEvent, SequenceStartEvent, MappingStartEvent)):
            values += 1
            if values > MAX_NODES:
                raise _Refused(event.start_mark, "E103", f"the file holds more than {MAX_NODES} values")
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
        self.values = 0
        from yaml.nodes import MappingNode, ScalarNode, SequenceNode

        self._mapping, self._sequence, self._scalar = MappingNode, SequenceNode, ScalarNode

    def pos(self, node: Node) -> tuple[int, int]:
        return node.start_mark.line + 1, node.start_mark.column + 1

    def build(self, node: Node, path: PathKey, depth: int) -> Any:
        if depth > MAX_DEPTH:
            line, col = self.pos(node)
            self.diagnostics.append(Diagnostic(self.doc.path, line, col, "E103", f"nesting deeper than {MAX_DEPTH}"))
            return None
        self.values += 1
        if self.values > MAX_NODES:
            raise _Refused(node.start_mark, "E103", f"the file holds more than {MAX_NODES} values")
        self.doc.positions[path] = self.pos(node)
        if isinstance(node, self._mapping):
            out: dict[str, Any] = {}
            for knode, vnode in node.value:
                if not isinstance(knode, self._scalar):
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
        if isinstance(node, self._sequence):
            return [self.build(item, path + (i,), depth + 1) for i, item in enumerate(node.value)]
        assert isinstance(node, self._scalar)
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
    try:
        if _INT.match(text):
            return int(text)
        if _FLOAT.match(text) and any(ch.isdigit() for ch in text):
            return float(text)
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits): it stays text
        return text
    return text
