"""The docs a designer follows: the tutorial runs word for word, the site builds, the
language reference matches the runtime's vocabulary.

* docs/tutorial/add-a-hero.md: its ``sh`` code blocks are the tutorial's commands, run in
  order in an empty folder; a ``text`` block right after one shows lines its output must
  hold; a code block after a line ``File: `my_pack/...` `` is a file the reader writes — it
  must be the file of docs/tutorial/my_pack/, which is copied in at that point.
* mkdocs.yml: ``mkdocs build --strict`` (skipped when mkdocs is not installed).
* docs/language.md: every attribute, method, function, global, timing point and statement
  of the runtime and the grammar is in it, and everything its tables list exists.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sgs_dsl.compiler import GLOBALS, KEYED
from sgs_dsl.lark_parser import grammar_parser
from sgs_runtime.resolution.vocabulary import (
    CARD_ATTRS,
    COMPREHENSIONS,
    FUNCTIONS,
    JUDGE_ATTRS,
    LIST_ATTRS,
    PLAYER_ATTRS,
    PLAYER_METHODS,
)
from sgs_runtime.state.events import TIMINGS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
TUTORIAL = DOCS / "tutorial" / "add-a-hero.md"
TUTORIAL_FILES = DOCS / "tutorial"  # the page's `File: my_pack/...` paths are relative to this folder
LANGUAGE = DOCS / "language.md"

FILE_LINE = re.compile(r"^File: `(?P<path>[^`]+)`$")


# ------------------------------------------------------------------ reading Markdown


@dataclass
class Block:
    info: str  # the fence's info string: sh, text, yaml ... ("" for none)
    text: str  # the lines between the fences, each ending in a newline
    line: int  # the line of the opening fence, from 1
    label: str  # the last non-blank line before the block


def code_blocks(markdown: str) -> list[Block]:
    """The fenced code blocks of a page, in order."""
    blocks: list[Block] = []
    lines = markdown.splitlines(keepends=True)
    i, last = 0, ""
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if not m:
            if lines[i].strip():
                last = lines[i].strip()
            i += 1
            continue
        start, body = i, []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        blocks.append(Block(m.group(1), "".join(body), start + 1, last))
        last, i = "", i + 1
    return blocks


def section(markdown: str, heading: str) -> str:
    """The text under a heading (``### 3.6 Functions``) up to the next heading of its level or above."""
    level = len(heading) - len(heading.lstrip("#"))
    lines = markdown.splitlines()
    start = lines.index(heading)
    end = next((i for i in range(start + 1, len(lines))
                if re.match(rf"^#{{1,{level}}} ", lines[i]) and not _in_fence(lines, i)), len(lines))
    return "\n".join(lines[start + 1:end])


def _in_fence(lines: list[str], i: int) -> bool:
    return sum(1 for line in lines[:i] if line.startswith("```")) % 2 == 1


def table_first_cells(text: str) -> list[str]:
    """The first cell of every row of the Markdown tables in ``text`` (header rows left out)."""
    cells, rows = [], text.splitlines()
    for n, row in enumerate(rows):
        if not row.startswith("|") or re.match(r"^\|[-| :]+\|$", row):
            continue
        if n + 1 < len(rows) and re.match(r"^\|[-| :]+\|$", rows[n + 1]):
            continue  # a header row
        cells.append(re.split(r"(?<!\\)\|", row)[1])
    return cells


def code_spans(text: str) -> list[str]:
    """The inline code of ``text``, its code blocks left out."""
    return re.findall(r"`([^`\n]+)`", re.sub(r"^```.*?^```[^\n]*$", "", text, flags=re.S | re.M))


# ------------------------------------------------------------------ the tutorial


def tutorial_blocks() -> list[Block]:
    return code_blocks(TUTORIAL.read_text(encoding="utf-8"))


def file_blocks() -> list[tuple[str, Block]]:
    return [(m.group("path"), b) for b in tutorial_blocks() if (m := FILE_LINE.match(b.label))]


def command(line: str) -> list[str]:
    """A command of the page as a process: `sgs` and `python` are this interpreter's."""
    argv = shlex.split(line)
    if argv[0] == "sgs":
        return [sys.executable, "-m", "sgs_cli.main", *argv[1:]]
    if argv[0] == "python":
        return [sys.executable, *argv[1:]]
    raise AssertionError(f"the tutorial runs only sgs and python, not {argv[0]!r}: {line}")


def run(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGS_") or k == "SGS_CACHE_DIR"}
    env["PYTHONIOENCODING"] = "utf-8"
    return subprocess.run(command(line), cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def commands_of(block: Block) -> list[str]:
    return [line.strip() for line in block.text.splitlines() if line.strip() and not line.strip().startswith("#")]


def test_the_page_shows_each_tutorial_file_as_it_is_in_the_repository() -> None:
    shown = file_blocks()
    assert shown, "the tutorial shows no file (a line `File: `my_pack/...`` before a code block)"
    for path, block in shown:
        repo_file = TUTORIAL_FILES / path
        assert repo_file.is_file(), f"{TUTORIAL.name}:{block.line}: {path} is not in docs/tutorial/"
        assert block.text == repo_file.read_text(encoding="utf-8"), (
            f"{TUTORIAL.name}:{block.line}: the block differs from docs/tutorial/{path}")
    # and every file of the tutorial's pack is on the page
    in_repo = {p.relative_to(TUTORIAL_FILES).as_posix() for p in (TUTORIAL_FILES / "my_pack").rglob("*")
               if p.is_file()}
    assert in_repo == {path for path, _ in shown}


def test_the_tutorial_runs_word_for_word(tmp_path: Path) -> None:
    """Every `sh` block, in order, in an empty folder (no checkout, no sgs.yaml): each command succeeds
    and prints the lines of the `text` block that follows it; the reader's files are copied in where
    the page shows them."""
    work = tmp_path / "designer"
    work.mkdir()
    ran, output = 0, None
    for block in tutorial_blocks():
        m = FILE_LINE.match(block.label)
        if m:
            target = work / m.group("path")
            assert target.parent.is_dir(), f"{TUTORIAL.name}:{block.line}: {target.parent.name}/ is not there yet"
            shutil.copyfile(TUTORIAL_FILES / m.group("path"), target)
        elif block.info == "sh":
            output = ""
            for line in commands_of(block):
                result = run(line, work)
                assert result.returncode == 0, (
                    f"{TUTORIAL.name}:{block.line}: `{line}` exited {result.returncode}\n"
                    f"{result.stdout}\n{result.stderr}")
                output += result.stdout + result.stderr
                ran += 1
            continue
        elif block.info == "text" and output is not None:
            got = [line.strip() for line in output.splitlines()]
            for want in block.text.splitlines():
                assert want.strip() in got, f"{TUTORIAL.name}:{block.line}: no line {want!r} in\n{output}"
        output = None
    assert ran >= 7, f"only {ran} commands ran: are the tutorial's blocks marked `sh`?"
    # what the page says the commands made
    assert (work / "my_pack" / ".sgs" / "schemas" / "heroes.schema.json").is_file()
    assert sorted(p.name for p in (work / "my_pack" / "cases").iterdir()) == [
        "shoucheng_draws.yaml", "shoucheng_holds_back.yaml"]


def test_the_tutorials_mistakes_are_reported_as_the_page_says(tmp_path: Path) -> None:
    """The misspelt timing and the skill drawing one card too few, as the page describes them."""
    shutil.copytree(TUTORIAL_FILES / "my_pack", tmp_path / "my_pack")
    hero = tmp_path / "my_pack" / "heroes" / "wen_ping.yaml"
    good = hero.read_text(encoding="utf-8")

    shown = next(b for b in tutorial_blocks() if "E303" in b.text)
    hero.write_text(good.replace("on: damaged ", "on: damagd  "), encoding="utf-8")
    result = run("sgs validate --strict my_pack", tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == shown.text.splitlines()

    hero.write_text(good.replace("draw 2", "draw 1"), encoding="utf-8")
    result = run("sgs scenario run --pack my_pack my_pack/cases", tmp_path)
    assert result.returncode == 1
    fail = [line for line in result.stdout.splitlines() if line.startswith("FAIL ")]
    assert len(fail) == 1 and "shoucheng_draws.yaml" in fail[0]
    assert "hand" in fail[0] and "'event': 'draw'" in fail[0]
    assert "1 passed, 1 failed" in result.stdout


# ------------------------------------------------------------------ the site


def test_the_docs_site_builds_strictly(tmp_path: Path) -> None:
    missing = [m for m in ("mkdocs", "pymdownx") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not installed: pip install -e '.[docs]' to build the docs site")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                             str(ROOT / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "tutorial" / "add-a-hero" / "index.html").is_file()


def test_every_page_of_the_docs_is_in_the_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in DOCS.rglob("*.md"):
        assert f": {page.relative_to(DOCS).as_posix()}" in nav, f"{page} is not in mkdocs.yml's nav"


# ------------------------------------------------------------------ the language reference


def language() -> str:
    return LANGUAGE.read_text(encoding="utf-8")


def rulesets() -> list[Any]:
    from sgs_dsl.loader import load_content

    return list(load_content().rulesets.values())


def slots() -> set[str]:
    """The equipment slots of the built-in rules (`P.weapon` ...): player attributes too."""
    return {s for rules in rulesets() for s in rules.slots}


def names_in(cells: list[str], pattern: str) -> set[str]:
    return {m for cell in cells for span in code_spans(cell) for m in re.findall(pattern, span)}


def attributes_section(heading: str) -> str:
    return section(section(language(), "### 3.4 Attributes"), heading)


ATTRIBUTE_TABLES = {
    "#### Players": PLAYER_ATTRS,
    "#### Cards": CARD_ATTRS,
    "#### Judge results (`judge`)": JUDGE_ATTRS,
    "#### Lists": LIST_ATTRS,
}


@pytest.mark.parametrize("heading", list(ATTRIBUTE_TABLES))
def test_the_attribute_tables_list_the_runtimes_attributes(heading: str) -> None:
    table = ATTRIBUTE_TABLES[heading]
    cells = table_first_cells(attributes_section(heading))
    documented = names_in(cells, r"^([a-z_]+)$")
    extra = slots() if heading == "#### Players" else set()  # `weapon`, `armor`, ...
    assert documented - set(table) - extra == set(), f"{heading} lists attributes the runtime does not have"
    undocumented = {name for name in table if name not in documented and f"`{name}`" not in language()
                    and not re.search(rf"`[^`]*\.{name}\b[^`]*`", language())}
    assert undocumented == set(), f"attributes missing from docs/language.md ({heading})"


def test_the_methods_table_lists_the_runtimes_player_methods() -> None:
    cells = table_first_cells(section(language(), "### 3.5 Player methods"))
    assert names_in(cells, r"^p\.([a-z_]+)\(") == set(PLAYER_METHODS)


def test_the_functions_table_lists_the_runtimes_functions() -> None:
    text = section(language(), "### 3.6 Functions")
    cells = table_first_cells(text)
    called = names_in(cells, r"(?:^|[\s,])([a-z_]+)\(")
    quantities = {q for rules in rulesets() for q in rules.quantities}  # the row `a quantity: distance(A, B)`
    known = set(FUNCTIONS) | set(COMPREHENSIONS) | set(KEYED)
    assert called - quantities - known == set(), "docs/language.md 3.6 lists functions that do not exist"
    assert known - called == set(), "functions missing from docs/language.md 3.6"


def test_the_globals_table_lists_the_compilers_globals() -> None:
    cells = table_first_cells(section(language(), "### 3.8 Globals"))
    assert names_in(cells, r"^([a-z_]+)$") == set(GLOBALS)


def test_the_timing_table_lists_the_runtimes_timing_points() -> None:
    cells = table_first_cells(section(language(), "### 4.1 Timing points"))
    assert names_in(cells, r"^([a-z_]+)$") == set(TIMINGS)


def test_the_events_table_names_only_fields_events_have() -> None:
    from sgs_runtime.state import events
    fields = {cls.kind: set(cls.FIELDS) for cls in vars(events).values()
              if isinstance(cls, type) and issubclass(cls, events.Event) and cls is not events.Event}
    for kind, (_timings, named, _changeable) in _event_rows().items():
        if kind not in fields:
            continue
        assert named and named <= fields[kind], f"4.2 {kind}: {sorted(named - fields[kind])}"


def _event_rows() -> dict[str, tuple[set[str], set[str], set[str]]]:
    """The rows of 4.2: event kind -> (its timings, its fields, its fields marked changeable)."""
    rows = {}
    for row in section(language(), "### 4.2 Events and their fields").splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
        if len(cells) != 3 or not re.fullmatch(r"[a-z_]+", cells[0]):
            continue
        # the field names: the code spans of the third cell that are not inside parentheses
        outside = re.sub(r"\([^()]*(?:\([^()]*\)[^()]*)*\)", "", cells[2])
        named = {s for s in code_spans(outside) if re.fullmatch(r"[a-z_]+", s)}
        changeable = set(re.findall(r"`([a-z_]+)` \(\*\*changeable\*\*", cells[2]))
        rows[cells[0]] = (set(code_spans(cells[1])), named, changeable)
    return rows


def test_the_events_table_lists_every_event_with_all_its_fields_and_timings() -> None:
    from sgs_runtime.state import events
    rows = _event_rows()
    for cls in vars(events).values():
        if not (isinstance(cls, type) and issubclass(cls, events.Event)) or cls is events.Event:
            continue
        assert cls.kind in rows, f"4.2 has no row for the '{cls.kind}' event"
        timings, named, changeable = rows[cls.kind]
        assert named == set(cls.FIELDS), f"4.2 {cls.kind}: missing {sorted(set(cls.FIELDS) - named)}"
        if cls is not events.SignalEvent:  # a signal's timings are the content's own names
            own = {t.name for t in events.TIMINGS.values() if t.event is cls}
            assert timings == own, f"4.2 {cls.kind}: timings {sorted(timings ^ own)}"
        mutable = set(getattr(cls, "MUTABLE", ()))
        assert changeable == mutable, f"4.2 {cls.kind}: changeable {sorted(changeable ^ mutable)}"


# statements: the words each statement of the grammar starts with


def _words(terminal: str) -> list[str] | None:
    """The words of a keyword terminal: 'damage'; /(?:draws|draw)\\b/ -> draws, draw; else None."""
    t = next(t for t in grammar_parser().terminals if t.name == terminal)
    if t.pattern.type == "str":
        return [t.pattern.value] if re.fullmatch(r"[a-z_]+", t.pattern.value) else None
    m = re.fullmatch(r"\(\?:([a-z_|]+)\)\\b", t.pattern.value)
    return m.group(1).split("|") if m else None


STATEMENT_RULES = ("action", "if_stmt", "elif_clause", "else_clause", "for_stmt", "repeat_stmt", "choose_block",
                   "let_stmt", "control_stmt")


def grammar_statements() -> dict[str, set[str]]:
    """Each statement's leading keywords ('check victory', 'look at top'), as written in the bare and the
    third-person form, keyed by the bare form."""
    rules = grammar_parser().rules
    names, todo = set(), list(STATEMENT_RULES)
    while todo:  # `action` is a list of rules, one per statement
        name = todo.pop()
        names.add(name)
        for r in rules:
            if r.origin.name == name == "action":
                todo.extend(s.name for s in r.expansion if not s.is_term and s.name not in names)
    out: dict[str, set[str]] = {}
    for r in rules:
        if r.origin.name not in names or r.origin.name == "action":
            continue
        forms: list[list[str]] = [[]]
        for sym in r.expansion:
            if not sym.is_term:
                if sym.name == "subject" and not forms[0]:
                    continue
                break
            words = _words(sym.name)
            if words is None:
                break
            forms = [f + [w] for f in forms for w in words]
        if forms[0]:
            phrases = {" ".join(f) for f in forms}
            out.setdefault(min(phrases, key=len), set()).update(phrases)
    return out


def statement_code() -> str:
    """The code of section 2 of docs/language.md: its code spans and code blocks."""
    text = section(language(), "## 2. Statements")
    return "\n".join(code_spans(text) + [b.text for b in code_blocks(text)])


def test_every_statement_of_the_grammar_is_in_the_reference() -> None:
    statements = grammar_statements()
    assert {"draw", "check victory", "look at top", "if", "let", "stop"} <= set(statements)
    code = statement_code()
    missing = sorted(bare for bare, forms in statements.items()
                     if not any(re.search(rf"(?<![\w.]){re.escape(f)}(?!\w)", code) for f in forms))
    assert missing == [], f"statements of the grammar missing from docs/language.md section 2: {missing}"


def test_every_statement_of_the_reference_is_in_the_grammar() -> None:
    phrases = {p for forms in grammar_statements().values() for p in forms}
    cells = table_first_cells(section(language(), "### 2.1 Statements at a glance"))
    assert len(cells) > 40
    for cell in cells:
        for span in code_spans(cell.replace("\\|", "|")):
            span = re.sub(r"^\[P\]\s*", "", span)
            if not re.match(r"[a-z]", span) or re.match(r"^[a-z_]+\.", span):
                continue  # an assignment (`event.FIELD = EXPR`, `P.hp = EXPR`) or its operators (`+=`)
            m = re.match(r"[a-z_]+(?: [a-z_]+)*", span)
            assert m, span
            words = m.group(0)
            assert any(p == words or p.startswith(words + " ") or words.startswith(p + " ") for p in phrases), (
                f"2.1: `{span}` is not a statement of the grammar")
