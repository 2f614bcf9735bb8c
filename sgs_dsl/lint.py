"""Warnings about content that loads but is probably not what its author meant.

:func:`lint_content` reads the built :class:`~sgs_runtime.state.definitions.Content`, the
documents it was built from (for positions) and the syntax trees of their snippets.
Each warning is a :class:`~sgs_dsl.errors.Diagnostic` of severity ``warning``:

=====  ================================================================================
W401   a hero without skills
W402   a skill that no hero, card, rules file or other skill refers to (by id or alias:
       a hero's or an equipment's skills, a rules file's ``player_skills`` or
       ``skill_overrides``, a grant, or any name in another skill's effects such as
       ``gain skill``)
W403   a rules option that no expression reads (``option(NAME)``) and the engine does
       not read either (``role_table``)
W404   an option of a ``choose`` block whose condition is always false (a constant, or
       ``X and not X``): it is never offered
=====  ================================================================================

``sgs validate`` prints them; ``--strict`` makes them fail the run. Nothing here runs a
game: every check is a walk over the files and their syntax trees.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Optional, Sequence

from sgs_runtime.state.definitions import Content

from .errors import Diagnostic
from .lazy import lazy_module
from .yamlsafe import Document, PathKey

if TYPE_CHECKING:
    from . import ast as A
else:  # the syntax tree's classes: needed to lint, not to find kept warnings (lint_stamp)
    A = lazy_module("sgs_dsl.ast")

__all__ = ["lint_content", "ENGINE_OPTIONS"]


def _engine_options() -> frozenset[str]:
    """The rules options the engine itself reads (not through ``option(NAME)``)."""
    from sgs_runtime.resolution.turn import ROLE_TABLE_OPTION

    return frozenset({ROLE_TABLE_OPTION})


ENGINE_OPTIONS = _engine_options()


def lint_stamp() -> str:
    """What the warnings depend on besides the content's files: this module, the compiler (which
    makes the content they read) and the options the engine itself reads."""
    from .cache import key

    here = Path(__file__).parent
    return key(*[(here / n).read_bytes() for n in ("lint.py", "compiler.py", "codegen.py")],
               " ".join(sorted(ENGINE_OPTIONS)))


_UNKNOWN = object()  # a value that cannot be known without playing


def lint_content(content: Content, docs: Sequence[Any], trees: Mapping[tuple[str, PathKey], Any]) -> list[Diagnostic]:
    """Every warning about ``content``.

    ``docs``: the content's documents (or objects with a ``doc`` attribute holding one),
    ``trees``: the snippets' syntax trees keyed by (file, path in the file).
    """
    documents = [d if isinstance(d, Document) else d.doc for d in docs]
    flat = {k: _flatten(tree) for k, tree in trees.items() if tree is not None}  # one walk per tree
    out: list[Diagnostic] = []
    out.extend(_heroes_without_skills(documents))
    out.extend(_unreferenced_skills(content, documents, flat))
    out.extend(_unread_options(documents, flat))
    out.extend(_unreachable_choices(documents, flat))
    return out


#: a syntax tree walked once: its nodes in pre-order, and every text it holds
Flat = tuple[list[Any], list[str]]
_FIELDS: dict[type, tuple[str, ...]] = {}


def _flatten(tree: Any) -> Flat:
    """The nodes (expressions, statements, options of ``choose``) of a syntax tree in pre-order, and
    its texts: names, texts, skill ids of statements (``gain skill X``)."""
    nodes: list[Any] = []
    texts: list[str] = []
    stack: list[tuple[Any, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > 200:  # trees are at most 100 levels deep (E201); never walk without end
            continue
        if isinstance(node, str):
            texts.append(node)
        elif isinstance(node, (list, tuple)):
            stack.extend((v, depth + 1) for v in reversed(node))
        elif dataclasses.is_dataclass(node) and not isinstance(node, type):
            nodes.append(node)
            names = _FIELDS.get(type(node))
            if names is None:
                names = _FIELDS[type(node)] = tuple(f.name for f in dataclasses.fields(node))
            stack.extend((getattr(node, n), depth + 1) for n in reversed(names))
    return nodes, texts


def _warn(doc: Document, where: tuple[int, int], code: str, message: str, length: int = 0) -> Diagnostic:
    line, col = where
    return Diagnostic(doc.path, line, col, code, message, "warning",
                      end_line=line if length else 0, end_col=col + length if length else 0)


# ------------------------------------------------------------ W401


def _heroes_without_skills(docs: Iterable[Document]) -> Iterator[Diagnostic]:
    for doc in docs:
        if not isinstance(doc.data, dict) or "heroes" not in doc.data or "pack" not in doc.data:
            continue
        for i, h in enumerate(doc.data.get("heroes") or []):
            if isinstance(h, dict) and not h.get("skills"):
                hid = str(h.get("id", i))
                path: PathKey = ("heroes", i, "skills") if "skills" in h else ("heroes", i, "id")
                yield _warn(doc, doc.key_position(path), "W401",
                            f"hero '{hid}' has no skills (give it some in 'skills', or remove the hero)",
                            len("skills") if "skills" in h else 0)


# ------------------------------------------------------------ W402


def _skill_defs(doc: Document) -> Iterator[tuple[int, dict[str, Any]]]:
    if isinstance(doc.data, dict):
        for i, raw in enumerate(doc.data.get("skills") or []):
            if isinstance(raw, dict) and isinstance(raw.get("id"), str):
                yield i, raw


def _owner(doc: Document, path: PathKey) -> Optional[str]:
    """The id of the skill whose definition holds ``path``, if any."""
    if len(path) >= 2 and path[0] == "skills" and isinstance(path[1], int) and isinstance(doc.data, dict):
        skills = doc.data.get("skills") or []
        if 0 <= path[1] < len(skills) and isinstance(skills[path[1]], dict):
            sid = skills[path[1]].get("id")
            return sid if isinstance(sid, str) else None
    return None


def _strings(node: Any, path: PathKey) -> Iterator[tuple[str, PathKey]]:
    """Every text value in a YAML document (and the keys of ``skill_overrides``), with its path."""
    if isinstance(node, str):
        yield node, path
    elif isinstance(node, dict):
        for k, v in node.items():
            if path[-1:] == ("skill_overrides",) and isinstance(k, str):
                yield k, path + (k,)
            yield from _strings(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _strings(v, path + (i,))


def _unreferenced_skills(content: Content, docs: Sequence[Document],
                         trees: Mapping[tuple[str, PathKey], Flat]) -> Iterator[Diagnostic]:
    by_path = {d.path: d for d in docs}
    # name -> the skills (None: not a skill) whose definitions mention it
    refs: dict[str, set[Optional[str]]] = {}
    for doc in docs:
        for text, path in _strings(doc.data, ()):
            if len(path) in (3, 4) and path[0] == "skills" and path[2] in ("id", "aliases"):
                continue  # the skill's own id and aliases
            refs.setdefault(text, set()).add(_owner(doc, path))
    for (file, path), (_nodes, texts) in trees.items():
        holder = by_path.get(file)
        if holder is None:
            continue
        owner = _owner(holder, path)
        for text in texts:
            refs.setdefault(text, set()).add(owner)
    for doc in docs:
        for i, raw in _skill_defs(doc):
            sid = raw["id"]
            sk = content.skills.get(sid)
            if sk is None or sk.source.file != doc.path:
                continue  # a duplicate (an error of its own)
            names = {sid, *[a for a in raw.get("aliases") or [] if isinstance(a, str)]}
            if any(refs.get(n, set()) - {sid} for n in names):
                continue
            yield _warn(doc, doc.position(("skills", i, "id")), "W402",
                        f"skill '{sid}' is not used: no hero, card, rules file or other skill refers to it",
                        len(sid))


# ------------------------------------------------------------ W403


def _option_reads(trees: Mapping[tuple[str, PathKey], Flat]) -> set[str]:
    out: set[str] = set()
    for nodes, _texts in trees.values():
        for node in nodes:
            if (isinstance(node, A.Call) and isinstance(node.func, A.Name) and node.func.id == "option"
                    and len(node.args) == 1 and isinstance(node.args[0], A.Name)):
                out.add(node.args[0].id)
    return out


def _unread_options(docs: Sequence[Document], trees: Mapping[tuple[str, PathKey], Flat]) -> Iterator[Diagnostic]:
    read = _option_reads(trees) | ENGINE_OPTIONS
    for doc in docs:
        if not isinstance(doc.data, dict) or "id" not in doc.data:
            continue
        options = doc.data.get("options")
        if not isinstance(options, dict):
            continue
        for name in options:
            if isinstance(name, str) and name not in read:
                yield _warn(doc, doc.key_position(("options", name)), "W403",
                            f"rules option '{name}' is never read: no effect or condition tests option({name})",
                            len(name))


# ------------------------------------------------------------ W404


def _same(a: Any, b: Any) -> bool:
    """Whether two expressions are written alike (positions aside)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)
                   if not f.name.endswith("pos"))
    return bool(a == b)


def _value(e: Any) -> Any:
    """The value of an expression when it is known without playing, else ``_UNKNOWN``."""
    if isinstance(e, A.Const):
        return e.value
    if isinstance(e, (A.Num, A.Str)):
        return e.value
    if isinstance(e, A.Not):
        v = _value(e.operand)
        return _UNKNOWN if v is _UNKNOWN else not v
    if isinstance(e, A.BoolOp):
        left, right = _value(e.left), _value(e.right)
        if e.op == "and":
            if (left is not _UNKNOWN and not left) or (right is not _UNKNOWN and not right):
                return False
            if _contradicts(e.left, e.right):
                return False
            return True if left is not _UNKNOWN and right is not _UNKNOWN else _UNKNOWN
        if e.op == "or":
            if (left is not _UNKNOWN and left) or (right is not _UNKNOWN and right):
                return True
            return False if left is not _UNKNOWN and right is not _UNKNOWN else _UNKNOWN
    if isinstance(e, A.Compare) and e.op in ("==", "!=", "<", "<=", ">", ">="):
        left, right = _value(e.left), _value(e.right)
        if left is _UNKNOWN or right is _UNKNOWN or type(left) is not type(right):
            return _UNKNOWN
        try:
            return {"==": left == right, "!=": left != right, "<": left < right, "<=": left <= right,
                    ">": left > right, ">=": left >= right}[e.op]
        except TypeError:
            return _UNKNOWN
    return _UNKNOWN


def _contradicts(a: Any, b: Any) -> bool:
    """``X and not X`` (either way round)."""
    return ((isinstance(b, A.Not) and _same(a, b.operand)) or (isinstance(a, A.Not) and _same(b, a.operand)))


def _unreachable_choices(docs: Sequence[Document], trees: Mapping[tuple[str, PathKey], Flat]) -> Iterator[Diagnostic]:
    by_path = {d.path: d for d in docs}
    for (file, _path), (nodes, _texts) in trees.items():
        doc = by_path.get(file)
        if doc is None:
            continue
        for node in nodes:
            if not isinstance(node, A.ChooseBlock):
                continue
            for opt in node.options:
                if opt.cond is not None and _value(opt.cond) is False:
                    yield _warn(doc, opt.pos, "W404",
                                f"choose option '{opt.label}' is never offered: its condition is always false")
