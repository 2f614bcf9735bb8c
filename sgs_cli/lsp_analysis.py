"""What the language server (``sgs lsp``, :mod:`sgs_cli.lsp`) knows of a content file, without the protocol.

* :func:`check_document`: the diagnostics of a document's text — the text held by the
  editor, not the file on disk — checked as ``sgs validate`` checks it, together with the
  built-in content and the document's pack (:func:`document_context`).
* :func:`completions`: what may be written at a place: card, hero and skill ids of the
  loaded content, timing points after ``on:``, values a key's schema allows, and inside
  an effect snippet the statement words of the grammar, the runtime's attributes,
  methods, functions and globals and the content's names.
* :func:`hover`: the name (zh / en) and text of the card, hero or skill whose id is at a place,
  or what a timing point, attribute or function is.

Positions here are 0-based lines and columns counted in code points (Python string
indices); :mod:`sgs_cli.lsp` converts them to and from the client's units (UTF-16).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Optional

from sgs_dsl.errors import ContentError, Diagnostic

#: the folder of a pack's rule cases (docs/designers.md): a file in it is a rule case
CASES_FOLDER = "cases"


@dataclass
class Context:
    """Where a document belongs: what to load with it, as ``sgs validate`` would.

    ``paths`` are checked with the base (the document's own pack), ``packs`` are added on top
    (the other packs of the nearest ``sgs.yaml``); ``builtin`` is set when the document is a file of
    the built-in content itself (its text then stands for that file); ``tree`` is a content tree of
    its own that the document is in (one with a default rules file, as ``--content DIR`` reads it):
    it is the base instead of the built-in content.
    """

    paths: list[Path] = field(default_factory=list)
    packs: list[Path] = field(default_factory=list)
    builtin: bool = False
    tree: Optional[Path] = None
    problems: list[str] = field(default_factory=list)  # what was wrong in the config file


@dataclass
class Checked:
    """One check of a document: its diagnostics and the content it was checked with."""

    diagnostics: list[Diagnostic]
    content: Any  # sgs_runtime.state.definitions.Content, loaded with the document (None: not loaded)
    kind: str  # "content", "case" or "" (a YAML file that is neither: not checked)


def _within(path: Path, folder: Path) -> bool:
    try:
        return path.is_relative_to(folder)
    except ValueError:
        return False


def _find_config(start: Path) -> Optional[Path]:
    """The nearest ``sgs.yaml`` in ``start`` or a folder above it."""
    from sgs_dsl.loader import find_config

    for folder in (start, *start.parents):
        config = find_config(folder)
        if config is not None:
            return config
    return None


def pack_root(path: Path) -> Path:
    """The pack a document belongs to: the folder above ``cards/``, ``heroes/``, ``rules/`` or ``cases/``
    when it is in one of those, else its own folder."""
    from sgs_dsl.loader import KINDS

    folder = path.parent
    return folder.parent if folder.name in (*KINDS, CASES_FOLDER) else folder


def document_context(path: Path) -> Context:
    """What a document at ``path`` (absolute) is checked with: the built-in content, the packs of the
    nearest ``sgs.yaml`` and the document's own pack (:func:`pack_root`)."""
    from sgs_dsl.loader import KINDS, config_packs, default_content_dir

    builtin = default_content_dir().resolve()
    root = pack_root(path)
    if root == builtin or any(_within(path, builtin / k) for k in KINDS):
        return Context(builtin=True)
    ctx = Context()
    config = _find_config(path.parent)
    if config is not None:
        packs, diags = config_packs(config)
        ctx.problems = [d.text() for d in diags]
        ctx.packs = [p.resolve() for p in packs if p.resolve() != root]
    if is_content_tree(root):
        ctx.tree = root
    elif root.is_dir():
        ctx.paths = _pack_paths(root)
    return ctx


_DEFAULT_RULES = re.compile(r"^default:\s*true\s*(#.*)?$", re.MULTILINE)


def is_content_tree(root: Path) -> bool:
    """Whether ``root`` is a content tree of its own (a copy of the built-in content, or a game made from
    scratch), not a pack on top of the built-in content: its ``rules/`` holds a rules file marked
    ``default: true``, as only the base content's may be."""
    rules = root / "rules"
    if not rules.is_dir():
        return False
    for f in sorted(rules.glob("*.y*ml")):
        try:
            if _DEFAULT_RULES.search(f.read_text(encoding="utf-8", errors="replace")):
                return True
        except OSError:
            continue
    return False


#: a pack folder -> what its files were (name, time, size) and its content paths (see :func:`_pack_paths`)
_SPLITS: dict[Path, tuple[tuple[tuple[str, int, int], ...], list[Path]]] = {}


def _pack_paths(root: Path) -> list[Path]:
    """The content paths of a pack folder, its rule cases left out (as ``sgs validate ROOT`` splits it).

    Telling a case from a content file reads each file: that is remembered while no file of the
    folder changes on disk (a folder of many rule cases is checked again and again as one is edited).
    """
    from sgs_dsl.yamlsafe import find_yaml_files

    from .main import _split_cases

    files, _ = find_yaml_files(root)
    stamp = []
    for f in sorted(files):
        try:
            st = f.stat()
        except OSError:
            continue
        stamp.append((str(f), st.st_mtime_ns, st.st_size))
    known = _SPLITS.get(root)
    if known is not None and known[0] == tuple(stamp):
        return list(known[1])
    paths = [p.resolve() for p in _split_cases(root)[0]]
    _SPLITS[root] = (tuple(stamp), paths)
    return list(paths)


def _loaded_with(path: Path, paths: Iterable[Path]) -> bool:
    """Whether loading ``paths`` would read the file ``path`` if it is on disk (which then stands for it)."""
    from sgs_dsl.loader import KINDS

    for p in paths:
        if p == path or (path.parent.name in KINDS and path.parent.parent == p):
            return True  # the file itself, or one of a tree's cards/, heroes/, rules/ (there or to come)
        if p.is_dir():
            kinds = [p / k for k in KINDS if (p / k).is_dir()]
            if any(_within(path, k) for k in kinds) if kinds else path.parent == p:
                return True
    return False


def _document_kind(path: Path, text: str) -> str:
    """"content", "case" or "" for a YAML file that is neither (a workflow, mkdocs.yml ...)."""
    from sgs_dsl.loader import KINDS, _guess_kind
    from sgs_dsl.yamlsafe import load_text

    from .main import _is_rule_case_data

    folder = path.parent.name
    try:
        data = load_text(text, str(path)).data
    except ContentError:
        data = None
    if data is not None:
        if _is_rule_case_data(data):
            return "case"
        if _guess_kind(data) is not None:
            return "content"
    if folder in KINDS:
        return "content"
    if folder == CASES_FOLDER:
        return "case"
    return "content" if data is None and path.suffix in (".yaml", ".yml") and path.name != "sgs.yaml" else ""


def check_document(path: Path, text: str, others: Optional[dict[str, str]] = None) -> Checked:
    """The diagnostics of a document (``path`` absolute, ``text`` as the editor holds it), only those in it.

    A content file is loaded in place of its file on disk, with its pack and the built-in
    content, errors and (when there is none) warnings; a rule case is checked against the
    content of its pack (its schema, names and table, as ``sgs validate`` does, without playing it).
    ``others``: the texts of the other documents open in the editor, by absolute path, read
    instead of their files where the content holds them.
    """
    from sgs_dsl.loader import build

    from .main import _check_case_file

    path = Path(os.path.abspath(path))
    kind = _document_kind(path, text)
    if not kind:
        return Checked([], None, "")
    ctx = document_context(path)
    paths = [p for p in ctx.paths if p != path]
    overlay: dict[str, str] = dict(others or {})
    overlay.pop(str(path), None)
    # the other open documents of the pack that are not on disk yet (new, unsaved): no folder lists them
    paths += [Path(p) for p in overlay if not Path(p).exists() and _loaded_with(Path(p), ctx.paths)
              and _document_kind(Path(p), overlay[p]) == "content"]
    if kind == "content":
        overlay[str(path)] = text
        in_tree = ctx.tree is not None and any(_within(path, ctx.tree / k) for k in ("cards", "heroes", "rules"))
        if not (path.is_file() and (ctx.builtin or in_tree or _loaded_with(path, paths))):
            paths.insert(0, path)
    # the warnings are of content files: a rule case has none
    content, diags = build(ctx.tree, paths, lint=kind == "content", packs=ctx.packs, overlay=overlay)
    if kind == "case":
        diags = list(diags) + _check_case_file(content, path, text)
    mine = [d for d in diags if _same_file(d.file, path)]
    if ctx.problems and not mine:
        mine.append(Diagnostic(str(path), 1, 1, "E105", "the config file sgs.yaml of this folder has errors, so "
                                                         "its packs were not loaded: " + "; ".join(ctx.problems),
                               severity="warning"))
    return Checked(sorted(set(mine)), content, kind)


def _same_file(name: str, path: Path) -> bool:
    return Path(os.path.abspath(name)) == path or Path(name).resolve() == path.resolve()


# ---------------------------------------------------------------------- what the schemas and the runtime say


@lru_cache(maxsize=2)
def schema_keys(case: bool = False) -> tuple[frozenset[str], frozenset[str], dict[str, tuple[str, ...]]]:
    """From the JSON Schemas (of content files, or of rule cases): the keys whose values are expressions,
    those whose values are statement blocks, and the values each key's enum allows."""
    from sgs_dsl.loader import SCHEMA_DIR

    exprs: set[str] = set()
    blocks: set[str] = set()
    enums: dict[str, set[str]] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, sub in (node.get("properties") or {}).items():
                if isinstance(sub, dict):
                    ref = str(sub.get("$ref", ""))
                    alts = [str(a.get("$ref", "")) for a in sub.get("anyOf") or sub.get("oneOf") or []
                            if isinstance(a, dict)]
                    if ref.endswith("/expr") or any(a.endswith("/expr") for a in alts):
                        exprs.add(key)
                    if ref.endswith("/block") or any(a.endswith("/block") for a in alts):
                        blocks.add(key)
                    values, items = sub.get("enum"), sub.get("items")
                    if values is None and isinstance(items, dict):
                        values = items.get("enum")
                    if isinstance(values, list):
                        enums.setdefault(key, set()).update(str(v) for v in values if isinstance(v, str))
            for sub in node.values():
                walk(sub)
        elif isinstance(node, list):
            for sub in node:
                walk(sub)

    for f in sorted(SCHEMA_DIR.glob("*.schema.json")):
        if (f.name == "scenario.schema.json") != case:
            continue
        walk(json.loads(f.read_text(encoding="utf-8")))
    return frozenset(exprs), frozenset(blocks), {k: tuple(sorted(v)) for k, v in enums.items()}


@dataclass(frozen=True)
class Item:
    """A completion: what is written (``label``), what it is (``kind``), a detail and its documentation."""

    label: str
    kind: str  # card, hero, skill, timing, attribute, method, field, function, global, statement, name, value
    detail: str = ""
    doc: str = ""
    rank: int = 1  # 0 first: what the place asks for most


def _vocabulary() -> list[Item]:
    """The runtime's attributes, methods, functions and globals, with what each is."""
    from sgs_dsl.compiler import GLOBALS, KEYED
    from sgs_runtime.resolution import vocabulary as V
    items: list[Item] = []
    for table, what in ((V.PLAYER_ATTRS, "player"), (V.CARD_ATTRS, "card"), (V.LIST_ATTRS, "list"),
                        (V.JUDGE_ATTRS, "judge result")):
        for name, attr in table.items():
            items.append(Item(name, "attribute", f"{what} attribute", str(attr[-1])))
    for name, method in V.PLAYER_METHODS.items():
        items.append(Item(name, "method", "player method", str(method[-1])))
    return items + [Item(n, "function", "function", str(fn[-1])) for n, fn in V.FUNCTIONS.items()] \
        + [Item(n, "function", "function over a list") for n in (*V.COMPREHENSIONS, *KEYED)] \
        + [Item(n, "global", "global") for n in GLOBALS]


def _functions() -> list[Item]:
    return [i for i in _vocabulary() if i.kind in ("function", "global")]


def _members() -> list[Item]:
    return [i for i in _vocabulary() if i.kind in ("attribute", "method")]


def _timings(content: Any) -> list[Item]:
    from sgs_runtime.state.events import TIMINGS

    items = [Item(name, "timing", f"timing point ({t.event.kind})" if hasattr(t.event, "kind") else "timing point",
                  t.doc, rank=0) for name, t in TIMINGS.items()]
    signals = sorted(content.env.signals) if content is not None else []
    return items + [Item(s, "timing", "signal (declared by the content)", rank=0) for s in signals]


def _event_fields(timing: Optional[str]) -> list[Item]:
    from sgs_runtime.resolution.vocabulary import EVENT_COMMON
    from sgs_runtime.state import events

    classes = [events.TIMINGS[timing].event] if timing in events.TIMINGS else [
        c for c in vars(events).values() if isinstance(c, type) and issubclass(c, events.Event)]
    names: dict[str, str] = {}
    for cls in classes:
        for name, kind in getattr(cls, "FIELDS", {}).items():
            names.setdefault(name, f"event field ({kind})")
    items = [Item(n, "field", d, rank=0) for n, d in sorted(names.items())]
    return items + [Item(n, "field", "event field", str(spec[-1]), rank=0) for n, spec in EVENT_COMMON.items()]


def _text(t: Any) -> tuple[str, str]:
    return (str(getattr(t, "zh", "") or ""), str(getattr(t, "en", "") or ""))


def _ids(content: Any, first: str = "card") -> list[Item]:
    """The card, hero and skill ids of the content; those of ``first`` first."""
    if content is None:
        return []
    items: list[Item] = []
    for kind, table in (("card", content.cards), ("hero", content.heroes), ("skill", content.skills)):
        for cid, obj in sorted(table.items()):
            zh, en = _text(obj.name)
            items.append(Item(cid, kind, f"{kind} {zh} {en}".strip(), _describe(kind, obj),
                              rank=0 if kind == first else 1))
    return items


def _names(content: Any) -> list[Item]:
    """Every name the content declares that a snippet may use (cards, skills, marks, phases, suits ...)."""
    if content is None:
        return []
    out = _ids(content)
    seen = {i.label for i in out}
    for name, cats in sorted(content.env.symbols.items()):
        if name not in seen:
            out.append(Item(name, "name", " / ".join(sorted(cats))))
    return out + [Item(m, "name", "mark") for m in sorted(content.env.marks - seen)]


# ---------------------------------------------------------------------- where the cursor is

_KEY_LINE = re.compile(r"^(?P<indent>\s*)(?:-\s+)?(?P<key>[A-Za-z_][\w]*)\s*:(?:\s+|$)(?P<value>.*)$")
_BLOCK_HEADER = re.compile(r"^\s*(?:-\s+)?(?P<key>[A-Za-z_][\w]*)\s*:\s*[|>][-+0-9]*\s*(?:#.*)?$")
_LAST_KEY = re.compile(r"(?:^|[\s{,])(?P<key>[A-Za-z_][\w]*)\s*:(?=\s|$)")
_WORD = re.compile(r"[A-Za-z_][\w]*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block_of(lines: list[str], row: int, col: int) -> Optional[tuple[str, int]]:
    """The key of the literal block that line ``row`` is in (and the header's row), or None."""
    here = lines[row]
    limit = _indent(here) if here.strip() else min(col, len(here))
    for r in range(row - 1, -1, -1):
        line = lines[r]
        if not line.strip():
            continue
        ind = _indent(line)
        if ind >= limit:
            continue
        m = _BLOCK_HEADER.match(line)
        if m:
            return m.group("key"), r
        if line.lstrip().startswith("- ") or (_KEY_LINE.match(line) and not line.rstrip().endswith(":")):
            return None  # a YAML line holding this one: not in a block
        limit = ind
    return None


def _timing_above(lines: list[str], row: int) -> Optional[str]:
    """The timing of the trigger a line belongs to: the nearest ``on:`` above it within its skill."""
    for r in range(row, -1, -1):
        m = re.match(r"^\s*(?:-\s+)?on\s*:\s*([a-z_][\w]*)", lines[r])
        if m:
            return m.group(1)
        if re.match(r"^\s*-\s+id\s*:", lines[r]):
            return None  # the start of the skill (or card): no trigger above within it
    return None


def _list_parent(lines: list[str], row: int) -> Optional[str]:
    """The key of a block list item (``  - slash``): the nearest less indented ``key:`` above."""
    ind = _indent(lines[row])
    for r in range(row - 1, -1, -1):
        line = lines[r]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if _indent(line) > ind or (_indent(line) == ind and line.lstrip().startswith("-")):
            continue  # an item before this one, or what it holds
        m = _KEY_LINE.match(line)
        return m.group("key") if m and not m.group("value").strip() else None
    return None


#: the kind of id a key names first (completion offers every id, these first)
_FIRST_KIND = {"skills": "skill", "skill": "skill", "invoke": "skill", "refuse": "skill",
               "hero": "hero", "heroes": "hero", "turn": "hero", "targets": "hero"}


def word_at(line: str, col: int) -> tuple[int, int]:
    """The start and end of the id (letters, digits, ``_``) at column ``col`` of ``line``."""
    start = col
    while start > 0 and (line[start - 1].isalnum() or line[start - 1] == "_") and line[start - 1].isascii():
        start -= 1
    end = col
    while end < len(line) and (line[end].isalnum() or line[end] == "_") and line[end].isascii():
        end += 1
    return start, end


def completions(text: str, row: int, col: int, content: Any, case: bool = False) -> tuple[int, list[Item]]:
    """What may be written at ``row``, ``col`` (0-based, code points) of a content file (or of a rule
    ``case``): the column where the word being written starts, and the items, best first."""
    lines = text.split("\n")
    if row >= len(lines):
        return col, []
    line = lines[row].rstrip("\r")
    col = min(col, len(line))
    before = line[:col]
    m = _WORD.search(before)
    start = col - len(m.group(0)) if m else col
    exprs, blocks, enums = schema_keys(case)

    block = _block_of(lines, row, col)
    if block is not None and block[0] in blocks:
        return start, _snippet_items(lines, row, before[:start], content, statement=True)
    key: Optional[str] = None
    m_key = _KEY_LINE.match(before)
    if m_key is not None:
        key = m_key.group("key")
        if m_key.group("value").lstrip().startswith("{"):  # a flow mapping: the last key in it
            inner = list(_LAST_KEY.finditer(m_key.group("value")))
            key = inner[-1].group("key") if inner else key
    if key is None and re.match(r"^\s*-\s+", before):
        key = _list_parent(lines, row)
    if key is None:
        return start, []  # a key is being written: the YAML extension and the schemas help there
    if key in exprs or key in blocks:
        return start, _snippet_items(lines, row, before[:start], content, statement=key in blocks)
    if key == "on":
        return start, _timings(content)
    # the values a key allows: its schema's enum, or the names the content declares of that kind
    # (kingdom: wei, shu ...; phase, suit, role ...)
    values = list(enums.get(key, ()))
    if content is not None:
        values += sorted(n for n in content.env.names_in(key) if n not in values)
    if values:
        return start, [Item(v, "value", f"a value of '{key}'", rank=0) for v in values] + _ids(content)
    return start, _ids(content, _FIRST_KIND.get(key, "card"))


def _snippet_items(lines: list[str], row: int, before: str, content: Any, statement: bool) -> list[Item]:
    """What may be written inside an effect snippet, after ``before`` (the line up to the word)."""
    from sgs_dsl.lark_parser import statement_words

    if before.endswith("."):
        owner = _WORD.search(before[:-1])
        if owner is not None and owner.group(0) == "event":
            return _event_fields(_timing_above(lines, row))
        return _members()
    # a statement begins here: at the start of a line of the block, or right after the block's key
    at_start = statement and re.fullmatch(r"\s*(?:-\s+)?(?:[A-Za-z_]\w*\s*:\s*)?", before) is not None
    words = [Item(w, "statement", "statement", rank=0) for w in statement_words()] if at_start else []
    return words + _names(content) + _functions()


# ---------------------------------------------------------------------- hover


def _describe(kind: str, obj: Any) -> str:
    """A card's, hero's or skill's names and text, as Markdown."""
    zh, en = _text(obj.name)
    head = f"**{zh}** {en}".strip() + f" — {kind} `{obj.id}`"
    parts = [head]
    if kind == "hero":
        parts.append(f"{obj.kingdom}, {obj.gender}, {obj.hp} HP; skills: " + ", ".join(f"`{s}`" for s in obj.skills))
    elif kind == "card":
        parts.append(f"{obj.type} card" + (f" of the pack {obj.pack}" if obj.pack else ""))
    text = getattr(obj, "text", None)
    if text is not None:
        tzh, ten = _text(text)
        parts.extend(t for t in (tzh, ten) if t)
    src: Any = getattr(obj, "source", None)
    if src is not None and src.file:
        parts.append(f"*{src.file}:{src.line}*")
    return "\n\n".join(parts)


def _word(text: str, row: int, col: int) -> tuple[str, int, int, str]:
    """The line ``row`` of ``text``, and the id at ``col`` in it: (line, start, end, the id or '')."""
    lines = text.split("\n")
    line = lines[row].rstrip("\r") if row < len(lines) else ""
    start, end = word_at(line, min(col, len(line)))
    return line, start, end, line[start:end]


def _defined(content: Any, word: str) -> Optional[tuple[str, Any]]:
    """The card, hero or skill an id (or an alias) names: (its kind, it), or None."""
    if content is None or not word:
        return None
    canon = content.aliases.get(word, word)
    for kind, table in (("card", content.cards), ("hero", content.heroes), ("skill", content.skills)):
        if canon in table:
            return kind, table[canon]
    return None


def definition(text: str, row: int, col: int, content: Any) -> Optional[tuple[Path, int, int]]:
    """Where the card, hero or skill whose id is at ``row``, ``col`` is defined: (file, line, col), 0-based."""
    found = _defined(content, _word(text, row, col)[3])
    if found is None or not found[1].source.file:
        return None
    src = found[1].source
    return Path(os.path.abspath(src.file)), max(src.line - 1, 0), max(src.col - 1, 0)


def hover(text: str, row: int, col: int, content: Any) -> Optional[tuple[int, int, str]]:
    """What the id at ``row``, ``col`` is: (start, end, Markdown), or None for nothing known."""
    line, start, end, word = _word(text, row, col)
    if not word:
        return None
    found = _defined(content, word)
    if found is not None:
        return start, end, _describe(*found)
    from sgs_runtime.state.events import TIMINGS

    if word in TIMINGS and re.search(r"\bon\s*:\s*$", line[:start]):
        return start, end, f"timing point `{word}`: {TIMINGS[word].doc}"
    if start > 0 and line[start - 1] == ".":
        for item in _members():
            if item.label == word:
                return start, end, f"{item.detail} `{word}`: {item.doc}"
    for item in _functions():
        if item.label == word and end < len(line) and line[end] == "(":
            return start, end, f"{item.detail} `{word}`" + (f": {item.doc}" if item.doc else "")
    return None
