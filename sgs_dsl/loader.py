"""Load a content tree: YAML -> schema check -> parse -> check -> compile.

>>> content = load_content()                      # the built-in content
>>> len(content.rulesets) >= 1
True

A content tree has ``cards/``, ``heroes/`` and ``rules/`` folders of YAML
files. Every problem found is a :class:`Diagnostic` with ``file:line:col``;
:func:`load_content` raises :class:`ContentError` with all of them, and
:func:`check_content` returns them (for ``sgs validate``). A file with schema errors is
still checked, without the objects those errors are in (:func:`schema_valid_part`), so
that one run reports every problem of the file.

The steps that depend on nothing but a file's bytes (reading its YAML, checking it
against its schema, parsing its snippets) are kept between runs in the user's cache
(:mod:`sgs_dsl.cache`; ``SGS_NO_CACHE=1`` turns it off): the Content and the
diagnostics are the same with or without it. A whole tree built (its Content and the
diagnostics of checking it) is kept as well, keyed by every file's entry and place and by
the engine's code (:mod:`sgs_dsl.snapshot`), so that a warm start checks no snippet again.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import pickle
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Optional, Sequence

from sgs_runtime.resolution.vocabulary import SYMBOLS
from sgs_runtime.state import definitions as D
from sgs_runtime.state.events import TIMINGS, SignalEvent
from sgs_runtime.state.model import SIGN_SUIT, SUITS, TEXT_RANK

from .cache import Cache, default_cache, engine_stamp, flush
from .cache import key as cache_key
from .env import Env
from .errors import ContentError, Diagnostic, did_you_mean
from .lazy import lazy_module
from .schemacheck import SCHEMA_DIR, passes, schema_files  # noqa: F401  (SCHEMA_DIR: sgs schema, the language server)
from .yamlsafe import Document, PathKey, decode, find_yaml_files, load_text, read_bytes

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

    from . import ast as A
    from . import compiler as C
    from . import epochs as E
    from . import parser as P
else:  # imported when first used: a content read back whole from the cache needs none of them
    A, C, E, P = (lazy_module(f"sgs_dsl.{name}") for name in ("ast", "compiler", "epochs", "parser"))

KINDS = ("cards", "heroes", "rules")


def default_content_dir() -> Path:
    """The content shipped with the package (cards/, heroes/, rules/)."""
    from sgs_content import content_root

    return content_root()


@lru_cache(maxsize=1)
def _validators() -> dict[str, Draft202012Validator]:
    # imported here: a run whose files are all known valid (the cache) never needs jsonschema
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    registry: Registry[Any] = Registry()
    schemas = schema_files()
    for name, data in schemas.items():
        registry = registry.with_resource(name, Resource.from_contents(data, default_specification=DRAFT202012))
    return {kind: Draft202012Validator(schemas[f"{kind}.schema.json"], registry=registry)
            for kind in ("cards", "heroes", "rules", "scenario") if f"{kind}.schema.json" in schemas}


def schema_errors(doc: Document, kind: str) -> list[Diagnostic]:
    """Check a document against its schema; map errors to positions.

    A document that surely passes (:func:`sgs_dsl.schemacheck.passes`, nearly every file) is not given to
    jsonschema, which finds and words the errors of the others."""
    if passes(kind, doc.data):
        return []
    validator = _validators()[kind]
    out: list[Diagnostic] = []
    seen: set[tuple[PathKey, str]] = set()
    for err in sorted(validator.iter_errors(doc.data), key=lambda e: list(map(str, e.absolute_path))):
        for d in _schema_diagnostics(doc, err):
            key = ((d.line, d.col), d.code)
            if key in seen:  # type: ignore[comparison-overlap]
                continue
            seen.add(key)  # type: ignore[arg-type]
            out.append(d)
    return out


def _where(path: PathKey) -> str:
    """A schema path in words: ``seats.1.hand``; a rule case's decision by its number and seat,
    ``decision 2 (guanyu)``, ``decision 2 (guanyu).use``."""
    if not path:
        return "the file"
    if len(path) >= 3 and path[0] == "decisions" and isinstance(path[1], int):
        rest = ".".join(map(str, path[3:]))
        return f"decision {path[1] + 1} ({path[2]})" + (f".{rest}" if rest else "")
    return ".".join(map(str, path))


def _schema_diagnostics(doc: Document, err: Any) -> list[Diagnostic]:
    path = tuple(err.absolute_path)
    if err.validator == "additionalProperties":
        allowed = list(err.schema.get("properties", {}))
        inst = err.instance if isinstance(err.instance, dict) else {}
        out = []
        for key in inst:
            if key in allowed or _matches_pattern(err.schema, key):
                continue
            line, col = doc.key_position(path + (key,))
            where = f" in {_where(path)}" if path else ""
            hint = did_you_mean(key, allowed)
            if not hint and len(path) == 3 and path[0] == "decisions":  # say what a decision may be
                hint = f" (a decision is pass, end, yes, no or one of: {', '.join(allowed)})"
            out.append(Diagnostic(doc.path, line, col, "E110", f"unknown key '{key}'{where}{hint}"))
        return out
    if err.validator in ("oneOf", "anyOf") and err.context:
        # the branch the value was meant for: not one whose type or fixed values it does not have at all
        fitting = [e for e in err.context
                   if not (e.validator in ("type", "enum") and len(e.absolute_path) == len(path))]
        best = max(fitting or err.context, key=lambda e: len(e.absolute_path))
        return _schema_diagnostics(doc, best)
    line, col = doc.position(path)
    where = _where(path)
    if err.validator == "type":
        want = err.validator_value
        want = " or ".join(want) if isinstance(want, list) else want
        return [Diagnostic(doc.path, line, col, "E111", f"{where} must be {_article(want)}, not {_kind(err.instance)}")]
    if err.validator == "required":
        missing = re.findall(r"'([^']+)' is a required property", err.message)
        name = missing[0] if missing else "a key"
        return [Diagnostic(doc.path, line, col, "E112", f"missing key '{name}' in {where}")]
    if err.validator == "enum":
        options = ", ".join(map(str, err.validator_value))
        return [Diagnostic(doc.path, line, col, "E113",
                           f"{where} must be one of: {options}{did_you_mean(str(err.instance), map(str, err.validator_value))}")]
    return [Diagnostic(doc.path, line, col, "E113", f"{where}: {err.message}")]


#: how many rounds of taking out what the schema refuses (:func:`schema_valid_part`) before a file is given up
PRUNE_ROUNDS = 32


def schema_valid_part(doc: Document, kind: str) -> Optional[tuple[Document, set[str], dict[str, set[str]]]]:
    """The document without the parts its schema refuses, so that the file's other checks can run.

    An unknown key is taken out (nothing reads it); any other schema error takes out the object
    it is in: the item of a top-level list (a card, a hero, a skill, a phase, a deck line) or the
    entry of a top-level mapping (a role, a mark), or a top-level key. The rest is checked again,
    until it passes. A list item keeps its place, so that every position stays that of the file.

    Returns the part that passes, the top-level keys something was taken from, and the names that
    what was taken out declared, by category (``card``, ``hero``, ``skill``, ``kingdom``, ``phase``,
    ``role``, ``mark``, ``option``). None when nothing of the file can be kept (a required top-level key is wrong).
    """
    validator = _validators()[kind]
    keys: set[str] = set()
    names: dict[str, set[str]] = {}
    for _ in range(PRUNE_ROUNDS):
        targets: set[PathKey] = set()
        for err in validator.iter_errors(doc.data):
            targets.update(_refused_parts(err))
        if not targets:
            return doc, keys, names
        if () in targets:
            return None
        for t in targets:
            keys.add(str(t[0]))
            category = _DECLARING.get(str(t[0]))
            if len(t) == 2 and category is not None:
                _names_of(category, t[1], _get(doc.data, t), names)
        doc = _without(doc, targets)
    return None


def _refused_parts(err: Any) -> set[PathKey]:
    """The paths that one schema error takes out (see :func:`schema_valid_part`)."""
    path: PathKey = tuple(err.absolute_path)
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        allowed = err.schema.get("properties", {}) if isinstance(err.schema, dict) else {}
        keys = {path + (k,) for k in err.instance if k not in allowed
                and not (isinstance(k, str) and _matches_pattern(err.schema, k))}
        if keys:
            return keys
    return {path[:2]}


#: the top-level keys whose items (or entries) declare names, and the category of those names
_DECLARING = {"cards": "card", "heroes": "hero", "skills": "skill", "phases": "phase", "roles": "role",
              "marks": "mark", "options": "option"}


def _names_of(category: str, key: Any, item: Any, out: dict[str, set[str]]) -> None:
    """Add the names an item taken out declared (its id, aliases and kingdoms), or an entry's own key."""
    if isinstance(key, str):
        out.setdefault(category, set()).add(key)
        return
    if not isinstance(item, dict):
        return
    for field_, cat in (("id", category), ("aliases", category), ("kingdom", "kingdom"), ("kingdoms", "kingdom")):
        value = item.get(field_)
        for n in value if isinstance(value, list) else [value]:
            if isinstance(n, str):
                out.setdefault(cat, set()).add(n)


def _without(doc: Document, paths: set[PathKey]) -> Document:
    """A copy of ``doc`` without the values at ``paths``; the items after one taken out of a list move up."""
    moved: dict[PathKey, PathKey] = {}  # old path -> new path, of everything kept

    def rec(node: Any, old: PathKey, new: PathKey) -> Any:
        moved[old] = new
        if isinstance(node, dict):
            return {k: rec(v, old + (k,), new + (k,)) for k, v in node.items() if old + (k,) not in paths}
        if isinstance(node, list):
            out: list[Any] = []
            for i, v in enumerate(node):
                if old + (i,) not in paths:
                    out.append(rec(v, old + (i,), new + (len(out),)))
            return out
        return node

    data = rec(doc.data, (), ())

    def remap(table: dict[PathKey, Any]) -> dict[PathKey, Any]:
        return {moved[p]: v for p, v in table.items() if p in moved}

    return Document(doc.path, data, remap(doc.positions), remap(doc.key_positions), remap(doc.scalars))


def _matches_pattern(schema: dict[str, Any], key: str) -> bool:
    return any(re.search(p, key) for p in schema.get("patternProperties", {}))


def _article(t: str) -> str:
    return {"object": "a mapping", "array": "a list", "string": "a text", "integer": "a whole number",
            "number": "a number", "boolean": "true or false"}.get(t, t)


def _kind(v: Any) -> str:
    if isinstance(v, bool):
        return "true/false"
    if isinstance(v, dict):
        return "a mapping"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, str):
        return "a text"
    if isinstance(v, (int, float)):
        return "a number"
    if v is None:
        return "empty"
    return type(v).__name__


def _get(data: Any, path: PathKey) -> Any:
    for k in path:
        if isinstance(data, dict):
            data = data.get(k)  # type: ignore[call-overload]
        elif isinstance(data, list) and isinstance(k, int) and k < len(data):
            data = data[k]
        else:
            return None
    return data


def _text(raw: Any) -> D.Text:
    if isinstance(raw, dict):
        return D.Text(str(raw.get("zh", "")), str(raw.get("en", "")))
    return D.Text("", "")


def _fixed(base: Any, minimum: Optional[int]) -> Optional[int | bool]:
    """A quantity's value while no modifier is in force, when its base is a plain number or truth value
    (clamped to its minimum as a computed one is); None when the base must be worked out.

    >>> from sgs_dsl import ast as T
    >>> _fixed(T.Num((1, 1), 1), None), _fixed(T.Num((1, 1), 0), 1), _fixed(T.Const((1, 1), False), None)
    (1, 1, False)
    >>> _fixed(T.Const((1, 1), None), None) is None, _fixed(T.Name((1, 1), "p"), None) is None
    (True, True)
    """
    if isinstance(base, A.Const) and isinstance(base.value, bool):
        return base.value
    if isinstance(base, A.Num) and isinstance(base.value, int):
        return base.value if minimum is None or base.value >= minimum else minimum
    return None


def _owner_param(cond: Any, params: Sequence[str]) -> Optional[str]:
    """The parameter of a quantity that a modifier's condition requires to be the modifier's owner: one
    side of an ``==`` with ``me`` among the parts the condition joins with ``and`` (``if: a == me and b != me``:
    ``a``); None when there is none, or when a parameter is itself named ``me``.

    >>> from sgs_dsl import ast as T
    >>> a, b, me = (T.Name((1, c), n) for c, n in ((1, "a"), (1, "b"), (6, "me")))
    >>> cond = T.BoolOp((1, 1), "and", T.Compare((1, 1), "==", a, me), T.Compare((1, 13), "!=", b, me))
    >>> _owner_param(cond, ["a", "b"]), _owner_param(cond.right, ["a", "b"]), _owner_param(cond, ["a", "me"])
    ('a', None, None)
    """
    if not isinstance(cond, A.Expr) or "me" in params:
        return None
    for part in A.conjuncts(cond):
        if isinstance(part, A.Compare) and part.op == "==" and isinstance(part.left, A.Name) \
                and isinstance(part.right, A.Name):
            left, right = part.left.id, part.right.id
            other = right if left == "me" else left if right == "me" else None
            if other in params:
                return other
    return None


class _File:
    """One content file: its kind, its document and where it came from (``origin``: "" the base tree, else
    the PATHs checked with it or a --pack folder).

    A file found in the cache keeps its document pickled until it is first needed (a content found whole
    in the cache, :mod:`sgs_dsl.snapshot`, never needs it); :meth:`Loader.read_documents` reads them all.
    """

    __slots__ = ("kind", "origin", "path", "_doc", "_blob")

    def __init__(self, kind: str, doc: Optional[Document], origin: str = "", blob: bytes = b"",
                 path: str = "") -> None:
        self.kind = kind
        self.origin = origin
        self._doc = doc
        self._blob = blob
        self.path = doc.path if doc is not None else path

    @property
    def doc(self) -> Document:
        if self._doc is None:
            doc = pickle.loads(self._blob)
            if not isinstance(doc, Document):
                raise TypeError(f"the cache holds no document for {self.path}")
            doc.path = self.path
            self._doc, self._blob = doc, b""
        return self._doc


@dataclass
class _RulesPart:
    """One rules file, compiled; merged with what it extends."""

    doc: Document
    raw: dict[str, Any]
    fields: dict[str, Any] = field(default_factory=dict)


#: words a view-as may name instead of card ids: every such kind of the game's deck
VIEW_AS_GROUPS = ("basic", "trick")

#: the cache's kind for one content file: its YAML document (known to pass its schema) and the
#: syntax trees of its snippets, keyed by the file's bytes and :func:`_stamp`
FILE_ENTRY = "content_file"
LINT_ENTRY = "lint_warnings"  # the warnings of a whole tree (Loader.warnings)
#: the cache's kind for a whole tree built: its Content and the diagnostics of checking it (sgs_dsl.snapshot),
#: keyed by every file's entry and place (Loader.tree_key) and the engine's code (snapshot.code_stamp)
CONTENT_ENTRY = "built_content"
#: built trees kept at most (each is a few hundred KiB; every edit of a file makes a new one)
BUILT_KEPT = 16

#: a snippet inside a file: (parsed as a block, its text, and where it starts: line, col, block, segments)
SnippetKey = tuple[bool, str, int, int, bool, tuple[tuple[int, int, int], ...]]


def _stamp() -> str:
    """What a cached file's entry depends on besides its bytes: the engine's parsing code and libraries."""
    return engine_stamp("yaml", "lark", "jsonschema", "referencing")


def _limits() -> str:
    """The limits that loading and parsing enforce (read now: they can be changed while running)."""
    from . import parser, yamlsafe

    return f"{yamlsafe.MAX_BYTES} {yamlsafe.MAX_DEPTH} {yamlsafe.MAX_NODES} {parser.MAX_NESTING}"


@dataclass
class _Entry:
    """What is known of one content file, as it goes to (or came from) the cache.

    ``trees`` holds each snippet's syntax tree pickled as soon as it is parsed, so
    that what is stored is the parser's result, whatever later steps do to the tree.
    """

    key: str
    kind: str
    doc: bytes
    trees: dict[SnippetKey, bytes] = field(default_factory=dict)
    dirty: bool = True  # something is not yet stored

    def value(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "doc": self.doc, "trees": self.trees}

    @classmethod
    def from_value(cls, k: str, value: Any) -> Optional["_Entry"]:
        """An entry read back, or None if it is not one (the cache never trusts what it reads)."""
        if not (isinstance(value, dict) and value.get("key") == k and value.get("kind") in KINDS
                and isinstance(value.get("doc"), bytes) and isinstance(value.get("trees"), dict)):
            return None
        return cls(k, value["kind"], value["doc"], value["trees"], dirty=False)


class Loader:
    """Builds :class:`~sgs_runtime.state.definitions.Content` from files."""

    def __init__(self, cache: Optional[Cache] = None, lazy: bool = True) -> None:
        self.cache = cache
        self.lazy = lazy  # a document found in the cache is unpickled when first needed (_File.doc)
        self._entries: dict[str, _Entry] = {}  # display name -> what the cache has (or will have) of the file
        self.files: list[_File] = []
        self.diags: list[Diagnostic] = []
        self.env = Env()
        self.content = D.Content()
        self._asts: dict[tuple[str, PathKey], Any] = {}
        self.pack_quantities: dict[str, D.Quantity] = {}
        self._families: list[tuple[Document, PathKey, dict[str, Any]]] = []  # kinds with 'is:'
        self._quantity_calls: dict[str, list[tuple[Document, PathKey, set[str]]]] = {}  # quantity -> its base's calls
        self.origin = ""  # the origin of the files added now (see _File.origin)
        # what schema errors took out of files (schema_valid_part): by category, the names declared there
        # (card, hero, skill ids ...), which stay known, so that a reference to one is not reported as
        # unknown on top of the schema error; and by file, the top-level keys something was taken from
        self.refused: dict[str, set[str]] = {}
        self.refused_keys: dict[str, set[str]] = {}
        # texts that stand for files, by their absolute path: read instead of the file (an editor's unsaved
        # buffer, sgs lsp); a path given here need not exist on disk
        self.overlay: dict[str, str] = {}

    # ------------------------------------------------------------ input

    def add_tree(self, root: Path, display_root: Optional[Path] = None) -> None:
        try:
            with os.scandir(root):
                pass
        except OSError as exc:
            self.diags.append(Diagnostic(_display(root), 1, 1, "E105", f"cannot list the content folder: "
                                                                       f"{exc.strerror or exc}"))
            return
        present = 0
        for kind in KINDS:
            folder = root / kind
            if folder.is_dir():
                present += 1
                self._add_folder(folder, kind)
            elif os.path.lexists(folder):
                self.diags.append(Diagnostic(_display(folder), 1, 1, "E105",
                                             f"'{kind}' in a content tree must be a folder of YAML files"))
        if not present:
            self.diags.append(Diagnostic(_display(root), 1, 1, "E105", "the content folder has none of the "
                                                                       "folders cards/, heroes/, rules/"))

    def _add_folder(self, folder: Path, kind: Optional[str]) -> int:
        """Add every *.yaml (then *.yml) file below ``folder``; report folders that cannot be read (E105)."""
        paths, problems = find_yaml_files(folder)
        for where, why in problems:
            self.diags.append(Diagnostic(_display(where), 1, 1, "E105", why))
        ordered = (sorted(p for p in paths if p.name.endswith(".yaml"))
                   + sorted(p for p in paths if not p.name.endswith(".yaml")))
        for path in ordered:
            self.add_file(path, kind, _display(path))
        return len(ordered) + len(problems)

    def add_path(self, path: Path) -> None:
        if path.is_dir():
            if any((path / k).is_dir() for k in KINDS):
                self.add_tree(path, path.parent)
            elif not self._add_folder(path, None):
                self.diags.append(Diagnostic(_display(path), 1, 1, "E105",
                                             "no content files (*.yaml, *.yml) in this folder"))
        else:
            self.add_file(path, None, _display(path))

    _added: frozenset[str] = frozenset()  # the files given so far (each is read once)

    def add_file(self, path: Path, kind: Optional[str], display: str) -> None:
        if display in self._added or any(f.path == display for f in self.files):
            return
        self._added = self._added | {display}
        try:
            text = self.overlay.get(os.path.abspath(path)) if self.overlay else None
            data = text.encode("utf-8") if text is not None else read_bytes(path, display)
            # an overlaid text changes as it is typed: it is never cached
            entry_key = cache_key(_stamp(), _limits(), kind or "", data) if self.cache is not None and text is None else ""
            if entry_key and self._add_cached(entry_key, kind, display):
                return
            doc = load_text(decode(data, display), display)
        except ContentError as exc:
            self.diags.extend(exc.diagnostics)
            return
        if kind is None:
            kind = _guess_kind(doc.data)
        if kind is None:
            self.diags.append(Diagnostic(display, 1, 1, "E113",
                                         "cannot tell what this file is: a card pack has 'pack' and 'cards', "
                                         "a hero pack 'pack' and 'heroes', a rules file 'id' and 'phases' or 'extends'"))
            return
        if not isinstance(doc.data, dict):
            self.diags.append(Diagnostic(display, 1, 1, "E111", "the file must be a mapping of keys"))
            return
        errs = schema_errors(doc, kind)
        self.diags.extend(errs)
        if errs:
            # the rest of the file is still checked (declarations, references, snippets); it is not cached
            part = schema_valid_part(doc, kind)
            if part is not None:
                for category, names in part[2].items():
                    self.refused.setdefault(category, set()).update(names)
                self.refused_keys[display] = part[1]
                self.files.append(_File(kind, part[0], self.origin))
            return
        if entry_key:
            self._entries[display] = _Entry(entry_key, kind, pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL))
        self.files.append(_File(kind, doc, self.origin))

    def add_pack(self, folder: Path) -> None:
        """Add a pack: a folder with cards/, heroes/, rules/ (or loose content files) on top of the content.

        Its card and hero pack ids may not be those of the content below it (E310).
        """
        self.origin = _display(folder)
        try:
            self.add_path(folder)
        finally:
            self.origin = ""

    def _add_cached(self, entry_key: str, kind: Optional[str], display: str) -> bool:
        """Add the file from the cache, if it holds it (read, known to pass its schema); False otherwise."""
        if self.cache is None:
            return False
        entry = _Entry.from_value(entry_key, self.cache.get(FILE_ENTRY, entry_key))
        if entry is None or (kind is not None and entry.kind != kind):
            return False
        if self.lazy:
            self._entries[display] = entry
            self.files.append(_File(entry.kind, None, self.origin, blob=entry.doc, path=display))
            return True
        try:
            doc = pickle.loads(entry.doc)
        except Exception:
            return False
        if not isinstance(doc, Document):
            return False
        doc.path = display
        self._entries[display] = entry
        self.files.append(_File(entry.kind, doc, self.origin))
        return True

    def read_documents(self) -> bool:
        """Unpickle every document still kept as the cache gave it; False when one cannot be read."""
        try:
            for f in self.files:
                f.doc  # noqa: B018 - reading it unpickles it
        except Exception:
            return False
        return True

    def tree_key(self) -> str:
        """The key of what is built from the files added (every file's entry key and place, and the
        engine's code), or "" when that is not known: no cache, a file not in the cache (an overlay,
        schema errors) or problems found while reading."""
        places = self._places()
        if places is None or self.diags:
            return ""
        from .snapshot import code_stamp

        return cache_key(code_stamp(), _limits(), *places)

    def _places(self) -> Optional[list[str]]:
        """Every file added, in order: its name, origin and cache entry key; None when some file has no
        entry (no cache, an overlay, schema errors)."""
        if self.cache is None or not all(f.path in self._entries for f in self.files):
            return None
        return [p for f in self.files for p in (f.path, f.origin, self._entries[f.path].key)]

    def cached_build(self, k: str) -> Optional[tuple[D.Content, list[Diagnostic]]]:
        """The Content and diagnostics kept under ``k`` (:meth:`tree_key`), or None."""
        from .snapshot import loads

        blob = self.cache.get(CONTENT_ENTRY, k) if self.cache is not None and k else None
        got = loads(blob) if isinstance(blob, bytes) else None
        if not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], D.Content)
                and isinstance(got[1], list) and all(isinstance(d, Diagnostic) for d in got[1])):
            return None
        return got[0], got[1]

    def keep_build(self, k: str, content: D.Content, diags: list[Diagnostic]) -> None:
        """Keep what was built under ``k`` (nothing when it cannot be kept)."""
        from .snapshot import dumps

        if self.cache is None or not k:
            return
        # made by the writer when writes are left behind (sgs_dsl.cache.write_behind), which forks before
        # anything more is done to the content
        self.cache.put_made(CONTENT_ENTRY, k, lambda: dumps((content, diags)), keep=BUILT_KEPT)

    def _kept_warnings(self) -> tuple[str, Optional[list[Diagnostic]]]:
        """The key of the warnings of the files added ("" without one), and the warnings the cache keeps there."""
        from .lint import lint_stamp

        places = self._places()
        if places is None or self.cache is None:
            return "", None
        k = cache_key(_stamp(), lint_stamp(), *places)
        found = self.cache.get(LINT_ENTRY, k)
        if isinstance(found, list) and all(isinstance(d, Diagnostic) for d in found):
            return k, found
        return k, None

    def warnings(self, content: D.Content) -> list[Diagnostic]:
        """The warnings of :mod:`sgs_dsl.lint` for the content loaded; kept in the cache, by the bytes
        of every file (and its place), since they depend on the whole tree."""
        from .lint import lint_content

        k, found = self._kept_warnings()
        if found is not None:
            return found
        out = lint_content(content, self.files, self._asts)
        if k and self.cache is not None:
            self.cache.put(LINT_ENTRY, k, out)
        return out

    def save_cache(self) -> None:
        """Store what was learnt of each file that is not in the cache yet (nothing when there is no cache)."""
        if self.cache is None:
            return
        for entry in self._entries.values():
            if entry.dirty and self.cache.put(FILE_ENTRY, entry.key, entry.value()):
                entry.dirty = False

    # ------------------------------------------------------------ snippets

    def _origin(self, doc: Document, path: PathKey, block: bool) -> Optional[tuple[str, P.Origin]]:
        value = _get(doc.data, path)
        if value is None:
            return None
        if isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = str(value)
        sc = doc.scalars.get(path)
        if sc is None:
            line, col = doc.position(path)
            return text, P.Origin(doc.path, line, col)
        if sc.style == "folded":
            line, col = doc.position(path)  # the '>' indicator
            self.diags.append(Diagnostic(doc.path, line, col, "E104",
                                         "an effect must be a literal block (|), not a folded one (>), so that "
                                         "its lines stay lines"))
            return None
        return text, P.Origin(doc.path, sc.line, sc.col, block=(sc.style == "literal"), segments=sc.segments)

    def parse(self, doc: Document, path: PathKey, block: bool) -> Any:
        key = (doc.path, path)
        if key in self._asts:
            return self._asts[key]
        got = self._origin(doc, path, block)
        if got is None:
            self._asts[key] = None
            return None
        text, origin = got
        entry = self._entries.get(doc.path)
        skey: SnippetKey = (block, text, origin.line, origin.col, origin.block, origin.segments)
        tree = _unpickle(entry.trees.get(skey)) if entry is not None else None
        if tree is None:
            try:
                tree = P.parse_block(text, origin) if block else P.parse_expression(text, origin)
            except P.SyntaxProblem as exc:  # not cached: parsed (and reported) again each time
                self.diags.append(exc.diagnostic)
                tree = None
            else:
                if entry is not None:
                    entry.trees[skey] = pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL)
                    entry.dirty = True
        self._asts[key] = tree
        return tree

    def expr(self, doc: Document, path: PathKey, scope: C.Scope, timing_unknown: bool = False) -> Optional[D.ExprFn]:
        tree = self.parse(doc, path, block=False)
        if tree is None:
            return None
        comp = C.Compiler(self.env, doc.path)
        comp.timing_unknown = timing_unknown
        fn = comp.condition(tree, scope)
        self.diags.extend(comp.diagnostics)
        return fn

    def block(self, doc: Document, path: PathKey, scope: C.Scope, timing_unknown: bool = False) -> Optional[D.BlockFn]:
        tree = self.parse(doc, path, block=True)
        if tree is None:
            return None
        comp = C.Compiler(self.env, doc.path)
        comp.timing_unknown = timing_unknown
        fn = comp.block(tree, scope)
        self.diags.extend(comp.diagnostics)
        return fn

    def err(self, doc: Document, path: PathKey, code: str, message: str, key: bool = False) -> None:
        line, col = doc.key_position(path) if key else doc.position(path)
        self.diags.append(Diagnostic(doc.path, line, col, code, message))

    # ------------------------------------------------------------ declarations

    def declare(self) -> None:
        env = self.env
        for cat, names in SYMBOLS.items():
            env.add(cat, names)
        env.add("gender", ["male", "female"])
        seen: dict[str, tuple[str, Document, PathKey]] = {}

        def unique(kind: str, ident: str, doc: Document, path: PathKey) -> bool:
            if ident in seen:
                first = seen[ident]
                self.err(doc, path, "E310", f"duplicate id '{ident}' (already a {first[0]} in "
                                            f"{first[1].path}:{first[1].position(first[2])[0]})")
                return False
            seen[ident] = (kind, doc, path)
            return True

        self.check_pack_ids()
        for f in self.files:
            d, doc = f.doc.data, f.doc
            if f.kind == "cards":
                for i, card in enumerate(d.get("cards", [])):
                    if unique("card", card["id"], doc, ("cards", i, "id")):
                        env.add("card", [card["id"]])
                        for a in card.get("aliases", []):
                            env.aliases[a] = card["id"]
            if f.kind == "heroes":
                for i, hero in enumerate(d.get("heroes", [])):
                    if unique("hero", hero["id"], doc, ("heroes", i, "id")):
                        env.add("hero", [hero["id"]])
                        env.add("kingdom", [hero["kingdom"], *hero.get("kingdoms", [])])
                        for a in hero.get("aliases", []):
                            env.aliases[a] = hero["id"]
            if f.kind in ("cards", "heroes"):
                for i, sk in enumerate(d.get("skills", [])):
                    if unique("skill", sk["id"], doc, ("skills", i, "id")):
                        env.add("skill", [sk["id"]])
                        for a in sk.get("aliases", []):
                            env.aliases[a] = sk["id"]
                        for mname, mdef in (sk.get("marks") or {}).items():
                            self._mark(mname, mdef)
                        for pname, pdef in (sk.get("piles") or {}).items():
                            self._pile(pname, pdef)
                for mname, mdef in (d.get("marks") or {}).items():
                    self._mark(mname, mdef)
                for qname, q in (d.get("quantities") or {}).items():
                    env.quantities[qname] = tuple(q.get("params", []))
            if f.kind == "rules":
                if not unique("rules file", d["id"], doc, ("id",)):
                    continue
                for i, sk in enumerate(d.get("skills", []) or []):
                    if unique("skill", sk["id"], doc, ("skills", i, "id")):
                        env.add("skill", [sk["id"]])
                        for mname, mdef in (sk.get("marks") or {}).items():
                            self._mark(mname, mdef)
                for ph in d.get("phases", []) or []:
                    env.add("phase", [ph["id"]])
                for r in (d.get("roles") or {}):
                    env.add("role", [r])
                env.slots.update(d.get("slots", []) or [])
                env.options.update((d.get("options") or {}).keys())
                for mname, mdef in (d.get("marks") or {}).items():
                    self._mark(mname, mdef)
                for qname, q in (d.get("quantities") or {}).items():
                    env.quantities[qname] = tuple(q.get("params", []))
        env.add("slot", sorted(env.slots))
        for category in ("card", "hero", "skill", "kingdom", "phase", "role"):
            env.add(category, sorted(self.refused.get(category, ())))
        env.marks.update(self.refused.get("mark", ()))
        env.options.update(self.refused.get("option", ()))
        self.content.aliases = dict(env.aliases)
        # signals: names sent by 'signal X' anywhere
        for f in self.files:
            for path in _snippet_paths(f.kind, f.doc.data):
                tree = self.parse(f.doc, path, block=True) if path[-1] in _BLOCK_KEYS else None
                if tree and "signal" in str(_get(f.doc.data, path)):  # only the word makes a Signal node
                    for node in P.walk(tree):
                        if isinstance(node, A.Signal):
                            env.signals.add(node.name)
                            self.content.signals[node.name] = "user"

    def check_pack_ids(self) -> None:
        """A card or hero pack id belongs to one place: the base content, the PATHs checked, or one --pack folder (E310).

        Files of one place may share a pack id (a pack split over files); a pack that
        reuses an id of the content below it, or of another pack, is refused.
        """
        first: dict[tuple[str, str], _File] = {}
        for f in self.files:
            if f.kind not in ("cards", "heroes"):
                continue
            pid = f.doc.data["pack"]
            seen = first.setdefault((f.kind, pid), f)
            if seen.origin != f.origin:
                where = ("the content below it" if not seen.origin else seen.origin if seen.origin == "the files checked"
                         else f"the pack {seen.origin}")
                self.err(f.doc, ("pack",), "E310",
                         f"duplicate {'card' if f.kind == 'cards' else 'hero'} pack id '{pid}' (already a pack of "
                         f"{where}, {seen.doc.path}:{seen.doc.position(('pack',))[0]}): give the pack an id of its own")

    def _mark(self, name: str, mdef: Any) -> None:
        mdef = mdef or {}
        self.env.marks.add(name)
        self.content.marks[name] = D.MarkDef(name, mdef.get("reset", "never"), bool(mdef.get("visible", False)))

    def _pile(self, name: str, pdef: Any) -> None:
        pdef = pdef or {}
        self.env.add("pile", [name])
        self.content.piles[name] = D.PileDef(name, _text(pdef.get("name")), pdef.get("face", "up"))

    # ------------------------------------------------------------ compile

    def run(self) -> D.Content:
        self.declare()
        for f in self.files:
            self.content.files.append(f.doc.path)
            if f.kind == "cards":
                self.compile_cards(f.doc)
            elif f.kind == "heroes":
                self.compile_heroes(f.doc)
        self.resolve_families()
        rules = [f for f in self.files if f.kind == "rules"]
        for f in rules:
            for i, raw in enumerate(f.doc.data.get("skills", []) or []):
                sk = self.compile_skill(f.doc, ("skills", i), raw, f.doc.data["id"])
                self.content.skills.setdefault(sk.id, sk)
        self.compile_rules([f.doc for f in rules])
        self.check_quantity_cycles()
        self.check_references()
        self.content.env = self.env
        return self.content

    def source(self, doc: Document, path: PathKey) -> D.Source:
        line, col = doc.position(path)
        return D.Source(doc.path, line, col)

    def compile_cards(self, doc: Document) -> None:
        d = doc.data
        pack = d["pack"]
        for qname in (d.get("quantities") or {}):
            self._quantity_into(self.pack_quantities, doc, ("quantities", qname))
        for i, raw in enumerate(d.get("cards", [])):
            kind = self.compile_card(doc, ("cards", i), raw, pack)
            if kind is not None:
                self.content.cards.setdefault(kind.id, kind)
        for i, raw in enumerate(d.get("skills", [])):
            sk = self.compile_skill(doc, ("skills", i), raw, pack)
            self.content.skills.setdefault(sk.id, sk)
        for i, raw in enumerate(d.get("triggers", []) or []):
            tr = self.compile_trigger(doc, ("triggers", i), raw, None)
            if tr is not None:
                self.content.pack_triggers.append(tr)
        deck = self.compile_deck(doc, d)
        if deck is not None:
            self.content.decks.setdefault(pack, []).extend(deck)

    def _quantity_into(self, target: dict[str, D.Quantity], doc: Document, path: PathKey) -> None:
        raw = _get(doc.data, path)
        name = str(path[-1])
        params = tuple(raw.get("params", []))
        scope = C.Scope({p: "any" for p in params})
        base = self.expr(doc, path + ("base",), scope)
        if base is not None:
            tree = self.parse(doc, path + ("base",), block=False)
            reads = E.epoch_reads(tree, self.env.quantities.keys(), self.env.slots)
            target[name] = D.Quantity(name, params, base, raw.get("min"), reads, _fixed(tree, raw.get("min")))
            calls = {n.func.id for n in P.walk(tree) if isinstance(n, A.Call) and isinstance(n.func, A.Name)
                     and n.func.id in self.env.quantities} if tree is not None else set()
            self._quantity_calls.setdefault(name, []).append((doc, path, calls))

    def check_quantity_cycles(self) -> None:
        """A quantity whose base needs itself (directly or through others) can never be computed: E312."""
        graph = {name: set().union(*(c for _, _, c in defs)) for name, defs in self._quantity_calls.items()}
        reported: set[str] = set()
        for start in sorted(graph):
            # depth-first, without recursion: is `start` reachable from itself?
            stack: list[tuple[str, list[str]]] = [(n, [start, n]) for n in sorted(graph[start])]
            seen: set[str] = set()
            while stack:
                node, trail = stack.pop()
                if node == start:
                    if start not in reported:
                        reported.update(trail)
                        doc, path, _ = self._quantity_calls[start][0]
                        self.err(doc, path + ("base",), "E312", f"quantity '{start}' is defined in terms of itself: "
                                                               f"{' -> '.join(trail)}")
                    break
                if node in seen or node not in graph:
                    continue
                seen.add(node)
                stack.extend((n, trail + [n]) for n in sorted(graph[node]))

    def compile_ai(self, doc: Document, path: PathKey, raw: Optional[dict[str, Any]]) -> D.AiHints:
        if not raw:
            return D.AiHints()
        return D.AiHints(raw.get("intent"), raw.get("targets"), float(raw.get("value", 5)),
                         float(raw.get("priority", 0)),
                         self.expr(doc, path + ("when",), C.Scope({"me": "player", "card": "card"})),
                         self.expr(doc, path + ("accept",), C.Scope({"me": "player", "event": "any"})),
                         self.expr(doc, path + ("aim",), C.Scope({"me": "player", "target": "player"})),
                         bool(raw.get("mutual", False)))

    def compile_card(self, doc: Document, path: PathKey, raw: dict[str, Any], pack: str) -> Optional[D.CardKind]:
        cid = raw["id"]
        parent = raw.get("is")
        if parent is not None:
            # a kind of another card: type, use, delayed, equip and ai come from it unless given
            # (resolved once every pack is compiled: the parent may be in another pack)
            self._families.append((doc, path, raw))
        elif "type" not in raw:
            self.err(doc, path, "E112", f"card '{cid}' needs a 'type' (basic, trick, equip) or an 'is' to inherit one")
        raw_type = raw.get("type", "basic")
        kind = D.CardKind(cid, _text(raw.get("name")), raw_type, _text(raw.get("text")), self.source(doc, path),
                          tuple(raw.get("aliases", [])), pack=pack, ai=self.compile_ai(doc, path + ("ai",), raw.get("ai")),
                          parent=self.env.aliases.get(parent, parent) if parent else None,
                          nature=raw.get("nature", "normal"), recast=bool(raw.get("recast", False)))
        if "type" not in raw:
            raw = dict(raw, type=raw_type)
        use_raw = raw.get("use")
        if use_raw is None and raw["type"] == "equip":
            kind.use = D.UseSpec(in_play=True, targets=D.TargetSpec(mode="self", min=1))
        elif use_raw is not None:
            kind.use = self.compile_use(doc, path + ("use",), use_raw, raw)
        if raw.get("delayed") is not None:
            scope = C.Scope({"me": "player", "target": "player", "card": "card"})
            effect = self.block(doc, path + ("delayed", "effect"), scope.child())
            countered = self.block(doc, path + ("delayed", "countered"), scope.child())
            first = self.expr(doc, path + ("delayed", "counter_first"), C.Scope({"me": "player", "card": "card"}))
            if effect is not None:
                kind.delayed = D.DelayedSpec(effect, countered, first)
        if raw.get("equip") is not None:
            eq = raw["equip"]
            if self.env.slots and eq["slot"] not in self.env.slots:
                self.err(doc, path + ("equip", "slot"), "E300",
                         f"unknown equipment slot '{eq['slot']}'{did_you_mean(eq['slot'], self.env.slots)}")
            kind.equip = D.EquipSpec(eq["slot"], eq.get("range"), tuple(eq.get("skills", [])))
        if raw["type"] == "equip" and raw.get("equip") is None:
            self.err(doc, path + ("type",), "E112", f"equipment '{cid}' needs an 'equip' block with its slot")
        return kind

    def resolve_families(self) -> None:
        """``is: slash``: each kind's family, and what it inherits from the kind it is."""
        cards = self.content.cards
        for doc, path, raw in self._families:
            kind = cards.get(raw["id"])
            if kind is None or kind.parent is None:
                continue
            chain = [kind.id]
            cur: Optional[D.CardKind] = kind
            while cur is not None and cur.parent is not None:
                up: str = cur.parent
                if up not in cards:
                    if up not in self.refused.get("card", ()):  # else: its schema error is reported
                        known = [*cards, *sorted(self.refused.get("card", ()))]
                        self.err(doc, path + ("is",), "E300", f"unknown card '{up}'{did_you_mean(up, known)}")
                    cur = None
                    break
                if up in chain:
                    self.err(doc, path + ("is",), "E311", f"card '{kind.id}' is a kind of itself: "
                                                          + " -> ".join([*chain, up]))
                    cur = None
                    break
                chain.append(up)
                cur = cards[up]
            if cur is None:
                continue
            kind.family = frozenset(chain)
        # inherit, parents first (a grandchild inherits what its parent inherited)
        done: set[str] = set()

        def inherit(kind: D.CardKind, raw: dict[str, Any]) -> None:
            if kind.id in done or kind.parent is None or kind.parent not in cards or len(kind.family) < 2:
                return
            done.add(kind.id)
            parent = cards[kind.parent]
            praw = raws.get(parent.id)
            if praw is not None:
                inherit(parent, praw)
            if "type" not in raw:
                kind.type = parent.type
            if kind.use is None and parent.use is not None:
                # the same use, counted in the parent's group (a thunder Slash is one of your Slashes)
                kind.use = dataclasses.replace(parent.use, limit_group=parent.use.limit_group or parent.id)
            if kind.delayed is None:
                kind.delayed = parent.delayed
            if kind.equip is None:
                kind.equip = parent.equip
            if "ai" not in raw:
                kind.ai = parent.ai
            if "nature" not in raw:
                kind.nature = parent.nature
            if "recast" not in raw:
                kind.recast = parent.recast

        raws = {raw["id"]: raw for _, _, raw in self._families}
        for _, _, raw in self._families:
            kind = cards.get(raw["id"])
            if kind is not None:
                inherit(kind, raw)

    def compile_use(self, doc: Document, path: PathKey, raw: dict[str, Any], card: dict[str, Any]) -> D.UseSpec:
        base = {"me": "player", "card": "card"}
        spec = D.UseSpec(in_play=bool(raw.get("in_play", False)))
        spec.condition = self.expr(doc, path + ("if",), C.Scope(dict(base)))
        spec.limit = self.expr(doc, path + ("limit",), C.Scope(dict(base)))
        if spec.limit is not None:
            spec.limit_call = self._quantity_call(self.parse(doc, path + ("limit",), block=False))
        spec.limit_group = raw.get("limit_group", "")
        if "targets" in raw:
            spec.targets = self.compile_targets(doc, path + ("targets",), raw["targets"], base)
        elif card["type"] == "equip":
            spec.targets = D.TargetSpec(mode="self", min=1)
        else:
            spec.targets = D.TargetSpec(mode="none", min=0)
        if "rescue" in raw:
            spec.rescue = self.expr(doc, path + ("rescue",), C.Scope({"me": "player", "target": "player"}))
        spec.counters = tuple(raw.get("counters", []))
        spec.nullifiable = bool(raw.get("nullifiable", True))
        spec.affects = self.expr(doc, path + ("affects",), C.Scope(dict(base, target="player")))
        use_vars = dict(base, use="any", targets="players")
        spec.prepare = self.block(doc, path + ("prepare",), C.Scope(dict(use_vars)))
        prepared = self._bound_by(doc, path + ("prepare",))
        effect_vars = dict(use_vars, target="player", **{n: "any" for n in prepared})
        for sec in spec.targets.then:  # a further player exists per target: in the effect only
            effect_vars[sec.name] = "player"
        spec.effect = self.block(doc, path + ("effect",), C.Scope(effect_vars))
        spec.finish = self.block(doc, path + ("finish",), C.Scope(dict(use_vars, **{n: "any" for n in prepared})))
        return spec

    def _bound_by(self, doc: Document, path: PathKey) -> list[str]:
        tree = self._asts.get((doc.path, path))
        names: list[str] = []
        if tree:
            for node in P.walk(tree):
                name = getattr(node, "as_name", None) or (node.name if isinstance(node, A.Let) else None)
                if name and name not in names:
                    names.append(name)
        return names

    def _quantity_call(self, tree: Any) -> Optional[D.QuantityCall]:
        """``tree`` as a :class:`QuantityCall` when it is one quantity asked of ``me`` and ``card`` (the
        variables of a use's limit and of its targets' most), else None."""
        got = C.quantity_call(self.env, tree, ("me", "card"))
        return D.QuantityCall(*got) if got is not None else None

    def compile_targets(self, doc: Document, path: PathKey, raw: dict[str, Any], base: dict[str, str]) -> D.TargetSpec:
        mode = raw.get("mode", "choose")
        spec = D.TargetSpec(mode=mode, min=int(raw.get("min", 1 if mode == "choose" else 0)))
        spec.max = self.expr(doc, path + ("max",), C.Scope(dict(base)))
        if spec.max is not None and set(base) == {"me", "card"}:
            spec.max_call = self._quantity_call(self.parse(doc, path + ("max",), block=False))
        spec.filter = self.expr(doc, path + ("filter",), C.Scope(dict(base, target="player")))
        spec.filter_reads = E.epoch_reads(self.parse(doc, path + ("filter",), block=False),
                                          self.env.quantities.keys(), self.env.slots)
        spec.respect_prohibitions = bool(raw.get("prohibitions", True))
        spec.dead = bool(raw.get("dead", False))
        spec.valid = self.expr(doc, path + ("valid",), C.Scope(dict(base, targets="players")))
        for i, sec in enumerate(raw.get("then", []) or []):
            flt = self.expr(doc, path + ("then", i, "filter"),
                            C.Scope(dict(base, target="player", **{sec["name"]: "player"})))
            spec.then.append(D.SecondaryTarget(sec["name"], flt))
        return spec

    def compile_heroes(self, doc: Document) -> None:
        d = doc.data
        pack = d["pack"]
        ids = []
        for i, raw in enumerate(d.get("heroes", [])):
            kingdoms = (raw["kingdom"], *[k for k in raw.get("kingdoms", []) if k != raw["kingdom"]])
            hero = D.Hero(raw["id"], _text(raw.get("name")), raw["kingdom"], raw["gender"], int(raw["hp"]),
                          tuple(self.env.aliases.get(s, s) for s in raw.get("skills", [])),
                          self.source(doc, ("heroes", i)), pack, tuple(raw.get("aliases", [])), kingdoms,
                          bool(raw.get("can_be_lord", True)), self.compile_ai(doc, ("heroes", i, "ai"), raw.get("ai")))
            if hero.id not in self.content.heroes:
                self.content.heroes[hero.id] = hero
                ids.append(hero.id)
        self.content.hero_packs.setdefault(pack, []).extend(ids)
        for i, raw in enumerate(d.get("skills", [])):
            sk = self.compile_skill(doc, ("skills", i), raw, pack)
            self.content.skills.setdefault(sk.id, sk)

    def compile_skill(self, doc: Document, path: PathKey, raw: dict[str, Any], pack: str) -> D.Skill:
        sk = D.Skill(raw["id"], _text(raw.get("name")), _text(raw.get("text")), self.source(doc, path),
                     locked=bool(raw.get("locked", False)), lord=bool(raw.get("lord", False)),
                     while_dying=bool(raw.get("while_dying", False)), pack=pack,
                     aliases=tuple(raw.get("aliases", [])), ai=self.compile_ai(doc, path + ("ai",), raw.get("ai")))
        triggers: list[tuple[PathKey, dict[str, Any]]] = []
        if "trigger" in raw:
            triggers.append((path + ("trigger",), raw["trigger"]))
        for i, t in enumerate(raw.get("triggers", []) or []):
            triggers.append((path + ("triggers", i), t))
        for tpath, traw in triggers:
            tr = self.compile_trigger(doc, tpath, traw, sk)
            if tr is not None:
                sk.triggers.append(tr)
        vas = raw.get("view_as")
        if vas is not None:
            items = [(path + ("view_as",), vas)] if isinstance(vas, dict) else [
                (path + ("view_as", i), v) for i, v in enumerate(vas)]
            for vpath, vraw in items:
                va = self.compile_view_as(doc, vpath, vraw)
                if va is not None:
                    va.skill = sk
                    sk.view_as.append(va)
        if raw.get("active") is not None:
            sk.active = self.compile_active(doc, path + ("active",), raw["active"])
        for i, st in enumerate(raw.get("static", []) or []):
            self.compile_static(doc, path + ("static", i), st, sk)
        grants = raw.get("grants")
        if grants is not None:
            items = [(path + ("grants",), grants)] if isinstance(grants, dict) else [
                (path + ("grants", i), g) for i, g in enumerate(grants)]
            for gpath, graw in items:
                given = str(graw["skill"])
                sid = self.env.aliases.get(given, given)
                if "skill" not in self.env.symbols.get(sid, set()):
                    self.err(doc, gpath + ("skill",), "E300",
                             f"unknown skill '{graw['skill']}'{did_you_mean(graw['skill'], self.env.names_in('skill'))}")
                cond = self.expr(doc, gpath + ("to",), C.Scope({"me": "player", "it": "player"}))
                sk.grants.append(D.Grant(sid, cond))
        if raw.get("copies") is not None:
            src = self.expr(doc, path + ("copies", "from"), C.Scope({"me": "player"}))
            if src is not None:
                sk.copies = D.Copy(src, bool(raw["copies"].get("lord_only", True)))
        if raw.get("invalidates") is not None:
            sk.invalidates = D.Invalidation(self.expr(doc, path + ("invalidates", "if"), C.Scope({"me": "player"})))
        flts = raw.get("filter")
        if flts is not None:
            items = [(path + ("filter",), flts)] if isinstance(flts, dict) else [
                (path + ("filter", i), f) for i, f in enumerate(flts)]
            for fpath, fraw in items:
                sk.filters.append(self.compile_filter(doc, fpath, fraw))
        return sk

    def compile_filter(self, doc: Document, path: PathKey, raw: dict[str, Any]) -> D.Filter:
        """A filter skill's part: how the owner's cards are seen (``suit: heart``, ``name: slash``)."""
        if "suit" not in raw and "name" not in raw:
            self.err(doc, path, "E112", "a filter says what the cards are seen as: 'suit', 'name' or both")
        name = self._card_ref(doc, path + ("name",), raw["name"]) if raw.get("name") else None
        cond = self.expr(doc, path + ("if",), C.Scope({"me": "player", "it": "card"}))
        zones = frozenset(raw["zones"]) if raw.get("zones") else None
        return D.Filter(zones, cond, raw.get("suit"), name)

    def compile_trigger(self, doc: Document, path: PathKey, raw: dict[str, Any],
                        skill: Optional[D.Skill]) -> Optional[D.Trigger]:
        timing = raw["on"]
        if timing in TIMINGS:
            cls = TIMINGS[timing].event
        elif timing in self.env.signals:
            cls = SignalEvent
        else:
            self.err(doc, path + ("on",), "E303", f"unknown timing '{timing}'"
                                                  f"{did_you_mean(timing, list(TIMINGS) + sorted(self.env.signals))}")
            # the rest of the trigger is still checked, against an event of no known type: names,
            # statements and attributes that no event has; what depends on the timing is not
            unknown = C.Scope({"me": "player", "event": "any"})
            self.expr(doc, path + ("if",), unknown.child(), timing_unknown=True)
            self.block(doc, path + ("do",), unknown.child(), timing_unknown=True)
            return None
        scope = C.Scope({"me": "player", "event": C.event_type_name(cls)}, event=cls, timing=timing)
        cond = self.expr(doc, path + ("if",), scope.child())
        body = self.block(doc, path + ("do",), scope.child())
        if body is None:
            return None
        limit = None
        if raw.get("limit"):
            n, _, scope_name = raw["limit"].split()
            limit = D.Limit(int(n), scope_name)
        locked = skill.locked if skill is not None else True
        optional = bool(raw.get("optional", not locked))
        if_text = " ".join(str(raw["if"]).split()) if raw.get("if") is not None else ""
        return D.Trigger(timing, raw.get("who", "me"), cond, optional, raw.get("per"), limit, body, skill,
                         self.source(doc, path), raw.get("label", ""), if_text=if_text,
                         if_source=self.source(doc, path + ("if",)) if if_text else None)

    def _card_ref(self, doc: Document, path: PathKey, cid: str) -> str:
        canon = self.env.aliases.get(cid, cid)
        if "card" not in self.env.symbols.get(canon, set()):
            self.err(doc, path, "E300", f"unknown card '{cid}'{did_you_mean(cid, self.env.names_in('card'))}")
        return canon

    def compile_choice(self, doc: Document, path: PathKey, raw: dict[str, Any]) -> D.CardChoice:
        if "count" in raw:
            lo, hi = int(raw["count"]), int(raw["count"])
        else:
            lo = int(raw.get("min", 1))
            hi = raw.get("max", lo) if "max" in raw else lo
        scope = C.Scope({"me": "player", "it": "card", "chosen": "cards"})
        flt = self.expr(doc, path + ("filter",), scope)
        return D.CardChoice(lo, None if hi is None else int(hi), tuple(raw.get("from", ["hand"])), flt)

    def compile_view_as(self, doc: Document, path: PathKey, raw: dict[str, Any]) -> Optional[D.ViewAs]:
        names: list[str] = []
        for i, n in enumerate(raw.get("names") or []):
            names.append(n if n in VIEW_AS_GROUPS else self._card_ref(doc, path + ("names", i), n))
        cid = self._card_ref(doc, path + ("card",), raw["card"]) if raw.get("card") else ""
        if not cid:
            cid = next((n for n in names if n not in VIEW_AS_GROUPS), "")
        choice = self.compile_choice(doc, path + ("cards",), raw["cards"])
        cond = self.expr(doc, path + ("if",), C.Scope({"me": "player", "against": "card"}))
        limit = None
        if raw.get("limit"):
            n_, _, scope_name = raw["limit"].split()
            limit = D.Limit(int(n_), scope_name)
        return D.ViewAs(cid, choice, frozenset(raw.get("modes", ["use", "play"])), cond,
                        names=tuple(names), limit=limit, face_down=bool(raw.get("face_down", False)))

    def compile_active(self, doc: Document, path: PathKey, raw: dict[str, Any]) -> Optional[D.ActiveSpec]:
        as_card = self._card_ref(doc, path + ("targets_as",), raw["targets_as"]) if raw.get("targets_as") else None
        cards = self.compile_choice(doc, path + ("cards",), raw["cards"]) if raw.get("cards") else None
        targets = None
        base = {"me": "player", "card": "card"}
        if raw.get("targets") is not None:
            targets = self.compile_targets(doc, path + ("targets",), raw["targets"], base)
        cond = self.expr(doc, path + ("if",), C.Scope({"me": "player"}))
        scope = C.Scope({"me": "player", "cards": "cards", "targets": "players", "target": "player"})
        body = self.block(doc, path + ("do",), scope)
        if body is None:
            return None
        return D.ActiveSpec(raw.get("limit"), cond, cards, targets, body, as_card)

    def compile_static(self, doc: Document, path: PathKey, raw: dict[str, Any], sk: D.Skill) -> None:
        if "modify" in raw:
            q = raw["modify"]
            if q not in self.env.quantities:
                self.err(doc, path + ("modify",), "E300",
                         f"unknown quantity '{q}'{did_you_mean(q, self.env.quantities)}")
                return
            if ("add" in raw) == ("set" in raw):
                self.err(doc, path, "E113", "a 'modify' needs exactly one of 'add' or 'set'")
                return
            params = self.env.quantities[q]
            scope = C.Scope({"me": "player", **{p: "any" for p in params}})
            cond = self.expr(doc, path + ("if",), scope.child())
            add = self.expr(doc, path + ("add",), scope.child())
            st = self.expr(doc, path + ("set",), scope.child())
            tree = self.parse(doc, path + ("if",), block=False)  # (the tree expr read)
            owner = _owner_param(tree, params)
            names, slots = self.env.quantities.keys(), self.env.slots
            reads = E.join_reads(*(E.epoch_reads(t, names, slots) for t in
                                 (tree, *(self.parse(doc, path + (k,), block=False) for k in ("add", "set") if k in raw))))
            sk.modifiers.append(D.Modifier(q, cond, add, st, owner, reads))
        elif "forbid" in raw:
            scope = C.Scope({"me": "player", "user": "player", "card": "card"})
            sk.prohibitions.append(D.Prohibition(raw["forbid"], self.expr(doc, path + ("if",), scope)))
        elif "immune" in raw:
            if "if" in raw or "add" in raw or "set" in raw:
                self.err(doc, path, "E306", "'immune' takes no 'if', 'add' or 'set': it always holds")
            sk.immune = sk.immune | {raw["immune"]}
        else:
            self.err(doc, path, "E112", "a static entry needs 'modify', 'forbid' or 'immune'")

    def compile_deck(self, doc: Document, d: dict[str, Any]) -> Optional[list[D.DeckCard]]:
        out = []
        for i, item in enumerate(d.get("deck", []) or []):
            name, cell = item.split()
            canon = self._card_ref(doc, ("deck", i), name)
            suit = SIGN_SUIT[cell[0]] if cell[0] in SIGN_SUIT else SIGN_SUIT[cell[:1]]
            rank_text = cell[1:]
            rank = TEXT_RANK.get(rank_text) or int(rank_text)
            out.append(D.DeckCard(canon, suit, rank, doc.position(("deck", i))[0]))
        if not self.refused_keys.get(doc.path, set()) & {"deck", "deck_counts", "suit_counts", "unique_cells"}:
            self.lint_deck(doc, d, out)  # else the deck is not all there: its counts would be wrong too
        return out

    def lint_deck(self, doc: Document, d: dict[str, Any], deck: list[D.DeckCard]) -> None:
        counts = d.get("deck_counts") or {}
        for name, want in counts.items():
            have = sum(1 for c in deck if c.kind == self.env.aliases.get(name, name))
            if have != want:
                self.err(doc, ("deck_counts", name), "E320",
                         f"the deck holds {have} '{name}' card(s), but deck_counts declares {want}")
        for name in {c.kind for c in deck}:
            if counts and name not in counts:
                line = next(c.line for c in deck if c.kind == name)
                self.diags.append(Diagnostic(doc.path, line, 1, "E320",
                                             f"'{name}' is in the deck but not in deck_counts"))
        suits = d.get("suit_counts") or {}
        for suit, want in suits.items():
            have = sum(1 for c in deck if c.suit == suit)
            if have != want:
                self.err(doc, ("suit_counts", suit), "E320",
                         f"the deck holds {have} {suit} card(s), but suit_counts declares {want}")
        if d.get("unique_cells"):
            seen: dict[tuple[str, int], int] = {}
            for c in deck:
                key = (c.suit, c.rank)
                if key in seen:
                    self.diags.append(Diagnostic(doc.path, c.line, 1, "E320",
                                                 f"{c.kind}: {c.suit} {c.rank} is already taken on line {seen[key]}"))
                else:
                    seen[key] = c.line
            for suit in SUITS:
                for rank in range(1, 14):
                    if (suit, rank) not in seen and deck:
                        self.err(doc, ("deck",), "E320", f"no card is {suit} {rank} (unique_cells)")

    # ------------------------------------------------------------ rules

    def compile_rules(self, docs: list[Document]) -> None:
        by_id = {d.data["id"]: d for d in docs}
        parts: dict[str, _RulesPart] = {}
        for rid, doc in by_id.items():
            parts[rid] = self.compile_rules_part(doc)
        for rid, doc in by_id.items():
            chain: list[str] = []
            cur: Optional[str] = rid
            while cur is not None:
                if cur in chain:
                    self.err(doc, ("extends",), "E310",
                             f"rules '{rid}' extend themselves: {' -> '.join([*chain, cur])} (a cycle of 'extends')")
                    chain = []
                    break
                if cur not in parts:
                    self.err(by_id[chain[-1]], ("extends",), "E300",
                             f"unknown rules '{cur}' to extend{did_you_mean(cur, parts)}")
                    chain = []
                    break
                chain.append(cur)
                cur = parts[cur].raw.get("extends")
            if chain:
                rs = self.merge_rules([parts[c] for c in reversed(chain)])
                if rs is not None:
                    self.content.rulesets[rid] = rs
        defaults = [d for d in docs if d.data.get("default") is True]
        for extra in defaults[1:]:
            self.err(extra, ("default",), "E310",
                     f"rules '{extra.data['id']}' and '{defaults[0].data['id']}' are both marked default")
        if defaults:
            self.content.default_rules = defaults[0].data["id"]

    def compile_rules_part(self, doc: Document) -> _RulesPart:
        d = doc.data
        part = _RulesPart(doc, d)
        f = part.fields
        quantities: dict[str, D.Quantity] = {}
        for qname in (d.get("quantities") or {}):
            self._quantity_into(quantities, doc, ("quantities", qname))
        f["quantities"] = quantities
        if "phases" in d:
            phases = []
            for i, ph in enumerate(d["phases"]):
                scope = C.Scope({"me": "player", "event": "event:phase"}, event=TIMINGS["phase_start"].event,
                              timing="phase_start", phase_id=ph["id"])
                body = self.block(doc, ("phases", i, "do"), scope)
                phases.append(D.PhaseDef(ph["id"], _text(ph.get("name")), body))
            f["phases"] = phases
        if "dying" in d:
            scope = C.Scope({"me": "player", "event": "event:dying"}, event=TIMINGS["dying"].event, timing="dying")
            f["dying"] = self.block(doc, ("dying",), scope)
        for i, raw in enumerate(d.get("triggers", []) or []):
            for key in ("who", "optional", "per", "limit"):
                if key in raw:
                    self.err(doc, ("triggers", i, key), "E306",
                             f"'{key}' is not used by a rules trigger: it fires for every event at its timing, "
                             "with 'me' the event's subject", key=True)
        if "triggers" in d:
            f["triggers"] = [t for i, raw in enumerate(d["triggers"])
                             if (t := self.compile_trigger(doc, ("triggers", i), raw, None)) is not None]
        if "victory" in d:
            rules = []
            for i, v in enumerate(d["victory"]):
                cond = self.expr(doc, ("victory", i, "if"), C.Scope({"me": "player"}))
                winners = self.expr(doc, ("victory", i, "winners"), C.Scope({"me": "player"}))
                if cond is not None and winners is not None:
                    rules.append(D.VictoryRule(cond, winners, v.get("label", "")))
            f["victory"] = rules
        if "roles" in d:
            roles = {}
            for rid, r in d["roles"].items():
                r = r or {}
                bonus = self.expr(doc, ("roles", rid, "bonus_hp"), C.Scope({})) if "bonus_hp" in r else None
                roles[rid] = D.RoleDef(rid, _text(r.get("name")), bool(r.get("revealed", False)),
                                       bool(r.get("first", False)), bool(r.get("lord_skills", False)), bonus,
                                       r.get("side", "lord" if r.get("lord_skills") else "alone"))
            f["roles"] = roles
        self.check_pack_refs(doc)
        return part

    def check_pack_refs(self, doc: Document) -> None:
        """The packs a rules file names under ``cards:`` and ``heroes:`` exist, are of that kind, and are not empty."""
        declared: dict[str, dict[str, list[Document]]] = {"cards": {}, "heroes": {}}  # kind -> pack -> its files
        for f in self.files:
            if f.kind in declared:
                declared[f.kind].setdefault(f.doc.data["pack"], []).append(f.doc)
        word = {"cards": "card", "heroes": "hero"}
        for key, other, field_ in (("cards", "heroes", "cards"), ("heroes", "cards", "heroes"),
                                   ("cards", "heroes", "add_cards"), ("heroes", "cards", "add_heroes")):
            for i, pack in enumerate(doc.data.get(field_, []) or []):
                files = declared[key].get(pack)
                if files is None:
                    known = sorted(declared[key])
                    if pack in declared[other]:
                        self.err(doc, (field_, i), "E300", f"'{pack}' is a {word[other]} pack, not a {word[key]} pack "
                                                        f"({word[key]} packs: {', '.join(known) or 'none'})")
                    else:
                        self.err(doc, (field_, i), "E300", f"unknown {word[key]} pack '{pack}'{did_you_mean(pack, known)}")
                elif not any(f.data.get(key) for f in files):
                    where = ", ".join(f"{f.path}:{f.position((key,))[0]}" for f in files)
                    what = ("it adds no card to the deck" if key == "cards"
                            else "there is no hero to choose from it")
                    self.err(doc, (field_, i), "E113", f"the {word[key]} pack '{pack}' has no {key} ({where}): {what}")

    def merge_rules(self, chain: list[_RulesPart]) -> Optional[D.Ruleset]:
        top = chain[-1]
        raw: dict[str, Any] = {}
        fields: dict[str, Any] = {}
        quantities: dict[str, D.Quantity] = dict(self.pack_quantities)
        options: dict[str, Any] = {}
        roles: dict[str, D.RoleDef] = {}
        tables: dict[int, list[str]] = {}
        triggers: list[D.Trigger] = []
        runtime: dict[str, Any] = {}
        overrides: dict[str, Optional[str]] = {}
        variants: dict[str, dict[int, list[str]]] = {}
        # lists a rules file may replace (heroes: [...]) or extend (add_heroes: [...]) over what it extends
        lists: dict[str, list[str]] = {key: [] for key in _EXTENSIBLE}
        for part in chain:
            for key in _EXTENSIBLE:
                if key in part.raw:
                    lists[key] = list(part.raw[key] or [])
                lists[key] += [x for x in part.raw.get("add_" + key) or [] if x not in lists[key]]
            overrides.update(part.raw.get("skill_overrides") or {})
            for vname, table in (part.raw.get("role_table_variants") or {}).items():
                variants[vname] = {int(n): list(roles) for n, roles in table.items()}
            for k, v in part.raw.items():
                raw[k] = v
            for k, v in part.fields.items():
                if k == "quantities":
                    quantities.update(v)
                elif k == "roles":
                    roles.update(v)
                elif k == "triggers":
                    labels = {t.label for t in v if t.label}
                    triggers = [t for t in triggers if not (t.label and t.label in labels)] + list(v)
                else:
                    fields[k] = v
            options.update(part.raw.get("options") or {})
            runtime.update(part.raw.get("runtime") or {})
            for n, table in (part.raw.get("role_tables") or {}).items():
                tables[int(n)] = list(table)
        doc = top.doc
        for n, table in tables.items():
            for r in table:
                if r not in roles and r not in self.refused.get("role", ()):
                    self.err(doc, ("id",), "E300", f"role table for {n} players names unknown role '{r}'")
        if "phases" not in fields:
            if not any(self.refused_keys.get(p.doc.path, set()) & {"phases", "extends"} for p in chain):
                self.err(doc, ("id",), "E112", f"rules '{raw['id']}' have no phases (give them or extend rules "
                                               "that do)")  # else their schema error is reported
            return None
        sel = raw.get("selection") or {}
        selection = D.Selection(sel.get("first"), int(sel.get("first_random", 2)), int(sel.get("choices", 3)),
                                {int(k): int(v) for k, v in (sel.get("choices_by_players") or {}).items()})
        players = raw.get("players") or {}
        return D.Ruleset(
            id=top.raw["id"], name=_text(top.raw.get("name")), source=self.source(doc, ()),
            extends=top.raw.get("extends"),
            players_min=int(players.get("min", 2)), players_max=int(players.get("max", 10)),
            options=options, roles=roles, role_tables=tables, phases=fields["phases"],
            start_hand=int(raw.get("start_hand", 4)), dying=fields.get("dying"), triggers=triggers,
            victory=fields.get("victory", []), quantities=quantities, slots=tuple(raw.get("slots", [])),
            card_packs=tuple(lists["cards"]), hero_packs=tuple(lists["heroes"]),
            selection=selection, skills=bool(raw.get("hero_skills", True)), uniform_hp=raw.get("uniform_hp"),
            removed_ranks=tuple(raw.get("removed_ranks", [])), text=_text(top.raw.get("text")), runtime=runtime,
            skill_overrides=overrides, player_skills=tuple(lists["player_skills"]),
            role_table_variants=variants)

    # ------------------------------------------------------------ references

    def check_references(self) -> None:
        skills = dict.fromkeys([*self.content.skills, *sorted(self.refused.get("skill", ()))])
        for f in self.files:
            d, doc = f.doc.data, f.doc
            if f.kind == "rules":
                for key, sid in (d.get("skill_overrides") or {}).items():
                    for name, where in ((key, ("skill_overrides",)), (sid, ("skill_overrides", key))):
                        if name is not None and name not in skills:
                            self.err(doc, where, "E300", f"unknown skill '{name}'{did_you_mean(name, skills)}")
                for key in ("player_skills", "add_player_skills"):
                    for j, sid in enumerate(d.get(key, []) or []):
                        if sid not in skills:
                            self.err(doc, (key, j), "E300", f"unknown skill '{sid}'{did_you_mean(sid, skills)}")
            if f.kind == "heroes":
                for i, h in enumerate(d.get("heroes", [])):
                    for j, sid in enumerate(h.get("skills", [])):
                        if self.env.aliases.get(sid, sid) not in skills:
                            self.err(doc, ("heroes", i, "skills", j), "E300",
                                     f"unknown skill '{sid}'{did_you_mean(sid, skills)}")
            if f.kind == "cards":
                for i, c in enumerate(d.get("cards", [])):
                    for j, sid in enumerate((c.get("equip") or {}).get("skills", [])):
                        if sid not in skills:
                            self.err(doc, ("cards", i, "equip", "skills", j), "E300",
                                     f"unknown skill '{sid}'{did_you_mean(sid, skills)}")


#: the lists of a rules file that one extending it may lengthen with ``add_KEY`` (add_heroes: [my_pack])
_EXTENSIBLE = ("cards", "heroes", "player_skills")

_BLOCK_KEYS = {"do", "effect", "prepare", "finish", "countered", "dying"}


def _snippet_paths(kind: str, data: Any) -> Iterable[PathKey]:
    """Paths of every effect block in a file (to find signals before compiling)."""
    def rec(node: Any, path: PathKey) -> Iterable[PathKey]:
        if isinstance(node, dict):
            for k, v in node.items():
                if k in _BLOCK_KEYS and isinstance(v, str):
                    yield path + (k,)
                else:
                    yield from rec(v, path + (k,))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from rec(v, path + (i,))

    return rec(data, ())


def _unpickle(blob: Optional[bytes]) -> Any:
    """A cached syntax tree, or None when there is none (or it cannot be read)."""
    if blob is None:
        return None
    try:
        return pickle.loads(blob)
    except Exception:
        return None


def _guess_kind(data: Any) -> Optional[str]:
    if not isinstance(data, dict):
        return None
    if "pack" in data and "cards" in data:
        return "cards"
    if "pack" in data and "heroes" in data:
        return "heroes"
    if "id" in data and ("phases" in data or "extends" in data):
        return "rules"
    return None


def _display(path: Path, root: Optional[Path] = None) -> str:
    """How a file is named in messages: relative to the working folder when below it.

    A name that is not valid in the file system's encoding, or holds control
    characters, is shown with escapes, so that every message stays one printable line.
    """
    try:
        rel = os.path.relpath(path)
        name = rel if not rel.startswith("..") else str(path.resolve())
    except (ValueError, OSError, RuntimeError):  # another drive; a folder that has gone; a link to itself
        name = os.path.abspath(path)
    if name.isprintable():
        return name
    name = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in name)


def build(content_dir: Optional[Path] = None, extra: Iterable[Path] = (), display_root: Optional[Path] = None,
          include_builtin: bool = True, cache: Cache | bool | None = None,
          lint: bool = False, packs: Iterable[Path] = (),
          overlay: Optional[dict[str, str]] = None) -> tuple[D.Content, list[Diagnostic]]:
    """Load and compile content: the Content and every problem found.

    ``content_dir`` (default: the built-in tree) is the base; ``extra`` paths are checked
    with it (``sgs validate PATH``); ``packs`` are folders added on top of it (``--pack``),
    each with cards/, heroes/, rules/ or loose content files, whose pack ids must be their own.

    ``cache``: False for none, a :class:`~sgs_dsl.cache.Cache`, or by default (None or
    True) the user's (:mod:`sgs_dsl.cache`), unless ``SGS_NO_CACHE`` is set. The
    Content and the diagnostics are the same with or without it. ``lint``: add the
    warnings of :mod:`sgs_dsl.lint` when there is no error. ``overlay``: texts read instead of
    the files at those absolute paths (unsaved editor buffers, which need not exist on disk).
    """
    # building makes tens of thousands of objects that all live on: the cyclic collector, run
    # again and again meanwhile, would only P.walk them (a third of the time), so it waits until the end
    collecting = gc.isenabled()
    gc.disable()
    try:
        loader = Loader(cache if isinstance(cache, Cache) else default_cache() if cache is not False else None)
        loader.overlay = dict(overlay or {})
        return _build(loader, content_dir, extra, display_root, include_builtin, lint, packs)
    finally:
        if collecting:
            gc.enable()


def _build(loader: Loader, content_dir: Optional[Path], extra: Iterable[Path], display_root: Optional[Path],
           include_builtin: bool, lint: bool = False, packs: Iterable[Path] = ()) -> tuple[D.Content, list[Diagnostic]]:
    root = Path(content_dir) if content_dir is not None else (default_content_dir() if include_builtin else None)
    if root is not None:
        if not root.is_dir():
            if os.path.lexists(root):
                return D.Content(), [Diagnostic(str(root), 1, 1, "E105", "the content folder is not a folder")]
            return D.Content(), [Diagnostic(str(root), 1, 1, "E100", "the content folder does not exist")]
        loader.add_tree(root, display_root if display_root is not None else root.parent)
    loader.origin = "the files checked"  # the PATHs of `sgs validate PATH`: one place, above the base
    for p in extra:
        loader.add_path(Path(p))
    loader.origin = ""
    for p in packs:
        if not Path(p).is_dir():
            loader.diags.append(Diagnostic(_display(Path(p)), 1, 1, "E105", "a pack must be a folder (with cards/, "
                                                                             "heroes/, rules/ or content files)"))
            continue
        loader.add_pack(Path(p))
    if any(d.code in ("E100",) and d.line == 1 and "does not exist" in d.message for d in loader.diags):
        content = D.Content()
    else:
        k = loader.tree_key()
        got = loader.cached_build(k) if k else None
        if got is not None and lint and not any(d.severity == "error" for d in got[1]) \
                and loader._kept_warnings()[1] is None:
            got = None  # the warnings are not kept: they need the syntax trees, so the content is built
        if got is not None:
            content = loader.content = got[0]
            loader.diags.extend(got[1])
        else:
            if not loader.read_documents():  # a cached document that cannot be read: every file read again
                again = Loader(loader.cache, lazy=False)
                again.overlay = loader.overlay
                return _build(again, content_dir, extra, display_root, include_builtin, lint, packs)
            content = loader.run()
            loader.keep_build(k, content, list(loader.diags))
    loader.save_cache()
    flush()  # when writes are left behind: what was built is written while the caller goes on
    if lint and not any(d.severity == "error" for d in loader.diags):
        return content, loader.diags + loader.warnings(content)
    return content, loader.diags


def check_content(content_dir: Optional[Path] = None, extra: Iterable[Path] = (),
                  lint: bool = False) -> list[Diagnostic]:
    """Every problem found in a content tree (and extra packs checked with it); ``lint``: warnings too."""
    _, diags = build(content_dir, extra, lint=lint)
    return diags


_CACHE: dict[str, D.Content] = {}

#: how :func:`content_spec` marks a base and its packs written as one text
_SPEC_PREFIX = "sgs-content+packs:"


def content_spec(content_dir: Optional[Path | str], packs: Iterable[Path | str] = ()) -> Optional[str]:
    """One text naming a base tree and the packs on top of it, for :func:`load_content` in another process.

    Without packs it is the base folder itself (None for the built-in content), as before.
    """
    pack_list = [str(Path(p).resolve()) for p in packs]
    if not pack_list:
        return str(content_dir) if content_dir is not None else None
    base = str(Path(content_dir).resolve()) if content_dir is not None else None
    return _SPEC_PREFIX + json.dumps({"content": base, "packs": pack_list})


def _parse_spec(spec: str) -> tuple[Optional[str], list[Path]]:
    data = json.loads(spec[len(_SPEC_PREFIX):])
    return data["content"], [Path(p) for p in data["packs"]]


def load_content(content_dir: Optional[Path | str] = None, extra: Iterable[Path] = (),
                 packs: Iterable[Path] = ()) -> D.Content:
    """Load and compile content; raise :class:`ContentError` listing every problem.

    ``packs``: folders added on top of the base (``--pack``); ``content_dir`` may also be a
    text made by :func:`content_spec` (how a worker process is told of the packs).

    Content loaded without ``extra`` or ``packs`` is kept for the process and given again to the
    next call for the same folder; when it is first loaded, every object then alive is moved out of
    the cyclic collector's way (:func:`gc.freeze`: an object of that time that later becomes garbage in
    a reference cycle is not collected).
    """
    packs = list(packs)
    if isinstance(content_dir, str) and content_dir.startswith(_SPEC_PREFIX):
        content_dir, more = _parse_spec(content_dir)
        packs += more
    key = str(Path(content_dir).resolve()) if content_dir is not None else "<builtin>"
    extra = list(extra)
    if not extra and not packs and key in _CACHE:
        return _CACHE[key]
    content, diags = build(Path(content_dir) if content_dir is not None else None, extra, packs=packs)
    if not [d for d in diags if d.severity == "error"]:
        from sgs_runtime.records.replay import content_fingerprint

        content_fingerprint(content)  # now, while the files' names still resolve from this folder
    errors = [d for d in diags if d.severity == "error"]
    if errors:
        raise ContentError(sorted(errors))
    if not extra and not packs:
        _CACHE[key] = content
        # kept for the life of the process: its tens of thousands of objects are moved out of the cyclic
        # collector's way (``gc.freeze``), which would otherwise walk them again in every full collection
        # of a long run (about 2% of a game's work); ``sgs`` does the same for content with packs
        gc.freeze()
    return content



#: the file in the working folder that lists the packs to load when no ``--pack`` is given
CONFIG_FILE = "sgs.yaml"
_CONFIG_KEYS = ("packs",)


def find_config(folder: Optional[Path] = None) -> Optional[Path]:
    """The config file of ``folder`` (default: the working folder), if there is one."""
    path = (folder if folder is not None else Path.cwd()) / CONFIG_FILE
    return path if os.path.lexists(path) else None


def config_packs(path: Path) -> tuple[list[Path], list[Diagnostic]]:
    """The pack folders a config file lists (relative to its folder), and what is wrong in it.

    The file is a mapping with ``packs:``, a list of folders::

        packs:
          - my_pack
          - ../shared/more_heroes
    """
    from .yamlsafe import load_file

    display = _display(path)
    try:
        doc = load_file(path, display)
    except ContentError as exc:
        return [], list(exc.diagnostics)
    except OSError as exc:
        return [], [Diagnostic(display, 1, 1, "E105", f"cannot read the config file: {exc.strerror or exc}")]
    if not isinstance(doc.data, dict):
        return [], [doc.diagnostic((), "E111", f"the config file must be a mapping with 'packs:', "
                                               f"not {_kind(doc.data)}")]
    diags: list[Diagnostic] = []
    for key in doc.data:
        if key not in _CONFIG_KEYS:
            line, col = doc.key_position((key,))
            diags.append(Diagnostic(display, line, col, "E110",
                                    f"unknown key '{key}' in the config file{did_you_mean(str(key), _CONFIG_KEYS)}"))
    raw = doc.data.get("packs")
    if raw is None:
        if "packs" not in doc.data:
            diags.append(doc.diagnostic((), "E112", "missing key 'packs' in the config file (a list of pack folders)"))
        return [], diags
    if not isinstance(raw, list):
        return [], diags + [doc.diagnostic(("packs",), "E111", f"packs must be a list of folders, not {_kind(raw)}")]
    out: list[Path] = []
    for i, item in enumerate(raw):
        if not isinstance(item, str) or not item:
            diags.append(doc.diagnostic(("packs", i), "E111", f"packs.{i} must be a folder name, not {_kind(item)}"))
            continue
        folder = path.parent / item
        if not folder.is_dir():
            why = "is not a folder" if os.path.lexists(folder) else "does not exist"
            diags.append(doc.diagnostic(("packs", i), "E105", f"the pack folder '{item}' {why} "
                                                              f"(paths are relative to {display})"))
            continue
        out.append(folder)
    return out, diags
