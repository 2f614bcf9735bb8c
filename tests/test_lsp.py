"""``sgs lsp`` through the protocol: the server runs as a subprocess and a small client speaks
JSON-RPC to it over stdio (Content-Length framing), as an editor does.

The pack is the tutorial's (docs/tutorial/my_pack), copied, with a hero whose skill names a
misspelt card (``slahs``) in an effect snippet, after Chinese text and an emoji on the same
line: the diagnostic must come at the name's line and column, 0-based and in UTF-16 units.
"""

from __future__ import annotations

import importlib.util
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACK = ROOT / "docs" / "tutorial" / "my_pack"

NO_PYGLS = "pygls is not installed: pip install -e '.[lsp]' to test sgs lsp through the protocol"

#: a wait that only ends a hung server (no timing is asserted)
WAIT = 120.0

MISSPELT_LINE = '          "🀄摸两张牌" if me.can_use(slahs):'


class Client:
    """A language client over a subprocess's stdin and stdout."""

    def __init__(self, cwd: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SGS_") or k == "SGS_CACHE_DIR"}
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen([sys.executable, "-m", "sgs_cli.main", "lsp"], cwd=cwd, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages: queue.Queue[Optional[dict[str, Any]]] = queue.Queue()
        self.notifications: list[dict[str, Any]] = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        out = self.proc.stdout
        while True:
            headers: dict[str, str] = {}
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode("ascii").partition(":")
                headers[name.strip().lower()] = value.strip()
            body = out.read(int(headers["content-length"]))
            self.messages.put(json.loads(body.decode("utf-8")))

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        body = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False).encode("utf-8")
        self.proc.stdin.write(f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"method": method, "params": params})

    def _next(self) -> dict[str, Any]:
        msg = self.messages.get(timeout=WAIT)
        if msg is None:
            assert self.proc.stderr is not None
            raise AssertionError("the server stopped: " + self.proc.stderr.read().decode("utf-8", "replace"))
        if "id" in msg and "method" in msg:  # a request of the server (registrations ...): answered empty
            self.send({"id": msg["id"], "result": None})
        return msg

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        rid = self.next_id
        self.send({"id": rid, "method": method, "params": params})
        while True:
            msg = self._next()
            if msg.get("id") == rid and "method" not in msg:
                assert "error" not in msg, msg
                return msg.get("result")
            if "method" in msg and "id" not in msg:
                self.notifications.append(msg)

    def wait_for(self, method: str, where: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first notification ``method`` (seen or to come) whose params satisfy ``where``."""
        for i, msg in enumerate(self.notifications):
            if msg["method"] == method and where(msg["params"]):
                del self.notifications[: i + 1]
                return msg["params"]
        while True:
            msg = self._next()
            if msg.get("method") == method and "id" not in msg and where(msg["params"]):
                return msg["params"]

    def close(self) -> int:
        try:
            self.request("shutdown", {})
            self.notify("exit", {})
            return self.proc.wait(timeout=WAIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture()
def pack(tmp_path: Path) -> Path:
    shutil.copytree(PACK, tmp_path / "my_pack")
    return tmp_path / "my_pack"


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[Client]:
    if importlib.util.find_spec("pygls") is None:
        pytest.skip(NO_PYGLS)
    c = Client(tmp_path)
    result = c.request("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(),
                                      "capabilities": {"general": {"positionEncodings": ["utf-16"]}}})
    assert result["capabilities"]["completionProvider"] is not None
    assert result["capabilities"]["hoverProvider"]
    c.notify("initialized", {})
    yield c
    assert c.close() == 0


def misspelt_hero(pack: Path) -> str:
    """The tutorial's hero with a skill that offers a choice named in Chinese, under a misspelt card."""
    text = (pack / "heroes" / "wen_ping.yaml").read_text(encoding="utf-8")
    assert "        draw 2\n" in text
    return text.replace("        draw 2\n", "        choose:\n" + MISSPELT_LINE + "\n            draw 2\n"
                                           '          "不摸":\n            pass\n')


def open_doc(client: Client, path: Path, text: str) -> dict[str, Any]:
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                            "text": text}})
    return client.wait_for("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)


def position_of(text: str, needle: str) -> tuple[int, int]:
    """0-based line and UTF-16 column of ``needle`` in ``text``."""
    for n, line in enumerate(text.split("\n")):
        if needle in line:
            before = line[: line.index(needle)]
            return n, len(before.encode("utf-16-le")) // 2
    raise AssertionError(f"{needle!r} not in the text")


def test_a_misspelt_card_gets_a_diagnostic_at_its_position_and_a_fix_clears_it(client: Client, pack: Path) -> None:
    hero = pack / "heroes" / "wen_ping.yaml"
    text = misspelt_hero(pack)  # the editor's text: the file on disk is still the good one
    published = open_doc(client, hero, text)
    errors = [d for d in published["diagnostics"] if d["severity"] == 1]
    assert len(errors) == 1, published
    d = errors[0]
    assert d["code"] == "E300" and d["source"] == "sgs"
    assert "unknown card name 'slahs'" in d["message"] and "did you mean 'slash'?" in d["message"]
    line, col = position_of(text, "slahs")
    # 🀄 is two UTF-16 units: the column counted in code points would be one less
    assert MISSPELT_LINE.index("slahs") == col - 1
    assert d["range"]["start"] == {"line": line, "character": col}
    assert d["range"]["end"] == {"line": line, "character": col + len("slahs")}

    fixed = text.replace("slahs", "slash")
    client.notify("textDocument/didChange", {"textDocument": {"uri": hero.as_uri(), "version": 2},
                                             "contentChanges": [{"text": fixed}]})
    published = client.wait_for("textDocument/publishDiagnostics",
                                lambda p: p["uri"] == hero.as_uri() and p.get("version") == 2)
    assert [d for d in published["diagnostics"] if d["severity"] == 1] == []


def test_an_error_in_the_yaml_and_a_warning_keep_their_place_and_severity(client: Client, pack: Path) -> None:
    hero = pack / "heroes" / "wen_ping.yaml"
    good = hero.read_text(encoding="utf-8")
    text = good.replace("on: damaged ", "on: damagd  ")
    published = open_doc(client, hero, text)
    (d,) = published["diagnostics"]
    assert d["code"] == "E303" and "did you mean 'damaged'?" in d["message"] and d["severity"] == 1
    line, col = position_of(text, "damagd")
    assert d["range"]["start"] == {"line": line, "character": col}

    # a skill that no hero has: a warning (W402), not an error
    orphan = good.replace("    skills: [shoucheng]", "    skills: []")
    client.notify("textDocument/didChange", {"textDocument": {"uri": hero.as_uri(), "version": 2},
                                             "contentChanges": [{"text": orphan}]})
    published = client.wait_for("textDocument/publishDiagnostics",
                                lambda p: p["uri"] == hero.as_uri() and p.get("version") == 2)
    codes = {d["code"]: d["severity"] for d in published["diagnostics"]}
    assert codes.get("W402") == 2 and codes.get("W401") == 2 and 1 not in codes.values(), published


def test_a_rule_case_is_checked_against_its_packs_content(client: Client, pack: Path) -> None:
    case = pack / "cases" / "shoucheng_draws.yaml"
    text = case.read_text(encoding="utf-8").replace("{invoke: shoucheng}", "{invoke: shouchen}")
    published = open_doc(client, case, text)
    assert published["diagnostics"], published
    assert any("shoucheng" in d["message"] for d in published["diagnostics"]), published
    line, _ = position_of(text, "shouchen}")
    assert any(d["range"]["start"]["line"] == line for d in published["diagnostics"]), published


def labels(result: Any) -> list[str]:
    items = result["items"] if isinstance(result, dict) else result
    return [i["label"] for i in items]


def ask(client: Client, method: str, path: Path, line: int, character: int) -> Any:
    """A request about a place of a document (completion, hover, definition)."""
    return client.request(method, {"textDocument": {"uri": path.as_uri()},
                                   "position": {"line": line, "character": character}})


def complete(client: Client, path: Path, line: int, character: int) -> list[str]:
    return labels(ask(client, "textDocument/completion", path, line, character))


def test_completion_offers_ids_timings_attributes_and_statements(client: Client, pack: Path) -> None:
    hero = pack / "heroes" / "wen_ping.yaml"
    text = misspelt_hero(pack)
    open_doc(client, hero, text)

    # inside the effect snippet, at the misspelt card: card ids of the content
    line, col = position_of(text, "slahs")
    got = complete(client, hero, line, col + 3)
    assert "slash" in got and "jink" in got and "peach" in got
    # after `on:` the timing points of the runtime, and the trigger's own first
    line, col = position_of(text, "damaged")
    got = complete(client, hero, line, col + 3)
    assert got[0] != "slash" and {"damaged", "turn_start", "phase_start"} <= set(got)
    # at a key that names skills: the pack's skill and the built-in ones
    line, col = position_of(text, "shoucheng]")
    got = complete(client, hero, line, col + 2)
    assert got[0] == "shoucheng" or got.index("shoucheng") < got.index("slash")
    assert "ganglie" in got
    # after `me.`: player attributes; at the start of a statement: the grammar's statements
    line, col = position_of(text, "me.hand")
    got = complete(client, hero, line, col + 3)
    assert {"hand", "hp", "max_hp"} <= set(got)
    line, col = position_of(text, "draw 2")
    got = complete(client, hero, line, col)
    assert {"draw", "damage", "if", "let", "choose"} <= set(got)


def open_right_hero(client: Client, pack: Path) -> tuple[Path, str]:
    """The hero of :func:`misspelt_hero` with the card spelt right, opened: its path and text."""
    hero = pack / "heroes" / "wen_ping.yaml"
    text = misspelt_hero(pack).replace("slahs", "slash")
    open_doc(client, hero, text)
    return hero, text


def test_hover_on_an_id_tells_its_names_and_text(client: Client, pack: Path) -> None:
    hero, text = open_right_hero(client, pack)
    line, col = position_of(text, "slash")
    result = ask(client, "textDocument/hover", hero, line, col + 2)
    value = result["contents"]["value"]
    assert "杀" in value and "Slash" in value and "攻击范围" in value
    assert result["range"]["start"] == {"line": line, "character": col}
    # the pack's own skill, with its text
    line, col = position_of(text, "shoucheng]")
    result = ask(client, "textDocument/hover", hero, line, col)
    assert "守城" in result["contents"]["value"] and "draw two cards" in result["contents"]["value"]
    # a hero of the built-in content, in a rule case
    case = pack / "cases" / "shoucheng_draws.yaml"
    ctext = case.read_text(encoding="utf-8")
    open_doc(client, case, ctext)
    line, col = position_of(ctext, "zhangfei")
    result = ask(client, "textDocument/hover", case, line, col + 1)
    assert "张飞" in result["contents"]["value"] and "paoxiao" in result["contents"]["value"]


def test_definition_of_an_id_is_where_the_content_defines_it(client: Client, pack: Path) -> None:
    from sgs_dsl.loader import default_content_dir

    hero, text = open_right_hero(client, pack)
    line, col = position_of(text, "slash")
    result = ask(client, "textDocument/definition", hero, line, col + 1)
    cards = (default_content_dir() / "cards" / "standard.yaml").resolve()
    assert Path(result["uri"].removeprefix("file://")).resolve() == cards
    at = result["range"]["start"]["line"]
    assert cards.read_text(encoding="utf-8").split("\n")[at].strip() == "- id: slash"
    # the pack's own skill: in the document itself
    line, col = position_of(text, "shoucheng]")
    result = ask(client, "textDocument/definition", hero, line, col)
    assert result["uri"] == hero.as_uri()
    line, col = position_of(text, "id: shoucheng")
    assert result["range"]["start"] == {"line": line, "character": col}


def test_the_other_open_documents_are_read_as_the_editor_holds_them(client: Client, pack: Path) -> None:
    """A card pack written in the editor and not saved yet: the hero that names its card is checked with it."""
    cards = pack / "cards" / "arrows.yaml"
    card_text = ("pack: my_cards\nname: {zh: 箭, en: Arrows}\ncards:\n  - id: fire_arrow\n"
                 "    name: {zh: 火箭, en: Fire Arrow}\n    type: basic\n    text: {zh: 火箭。, en: An arrow.}\n"
                 "deck:\n  - fire_arrow S2\n")
    hero = pack / "heroes" / "wen_ping.yaml"
    text = misspelt_hero(pack).replace("slahs", "fire_arrow")
    published = open_doc(client, hero, text)
    (unknown,) = published["diagnostics"]
    assert unknown["message"].startswith("unknown card name 'fire_arrow'"), published
    published = open_doc(client, cards, card_text)
    assert [d for d in published["diagnostics"] if d["severity"] == 1] == [], published
    assert not cards.exists()
    client.notify("textDocument/didChange", {"textDocument": {"uri": hero.as_uri(), "version": 2},
                                             "contentChanges": [{"text": text + "\n"}]})
    published = client.wait_for("textDocument/publishDiagnostics",
                                lambda p: p["uri"] == hero.as_uri() and p.get("version") == 2)
    assert [d for d in published["diagnostics"] if d["severity"] == 1] == [], published


def test_without_pygls_sgs_lsp_says_how_to_install_it(tmp_path: Path) -> None:
    """A Python where pygls cannot be imported (a stand-in module path hides it)."""
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(
        "import importlib.abc, sys\n"
        "class Hide(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('pygls', 'lsprotocol'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Hide())\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(hide), str(ROOT)]))
    result = subprocess.run([sys.executable, "-m", "sgs_cli.main", "lsp"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=WAIT, stdin=subprocess.DEVNULL)
    assert result.returncode == 1
    assert "pip install 'sgs-engine[lsp]'" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_cli_does_not_import_pygls_unless_sgs_lsp_runs() -> None:
    code = "import sys, sgs_cli.main; print(any(m.split('.')[0] in ('pygls', 'lsprotocol') for m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=WAIT,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert result.stdout.strip() == "False", result.stderr


# ------------------------------------------------------------------ what a document is checked with


def test_the_packs_of_sgs_yaml_are_loaded_with_the_document(tmp_path: Path) -> None:
    """A hero of one pack gives a skill of another pack that sgs.yaml lists: known there, unknown alone."""
    from sgs_cli.lsp_analysis import check_document

    shutil.copytree(PACK, tmp_path / "my_pack")
    other = tmp_path / "other_pack" / "heroes"
    other.mkdir(parents=True)
    hero = other / "guest.yaml"
    text = ("pack: other_pack\nheroes:\n  - id: guest\n    name: {zh: 客, en: Guest}\n    kingdom: wei\n"
            "    gender: male\n    hp: 4\n    skills: [shoucheng]\n")
    alone = check_document(hero, text)
    assert [(d.line, d.col, d.code) for d in alone.diagnostics] == [(8, 14, "E300")]
    (tmp_path / "sgs.yaml").write_text("packs:\n  - my_pack\n  - other_pack\n", encoding="utf-8")
    together = check_document(hero, text)
    assert [d for d in together.diagnostics if d.severity == "error"] == []
    assert "guest" in together.content.heroes and "wen_ping" in together.content.heroes
    assert not hero.exists()  # checked from the editor's text alone: never written


def test_a_built_in_file_is_checked_in_place_of_itself() -> None:
    from sgs_cli.lsp_analysis import check_document
    from sgs_dsl.loader import default_content_dir

    path = default_content_dir() / "heroes" / "standard.yaml"
    text = path.read_text(encoding="utf-8")
    assert check_document(path, text).diagnostics == []
    checked = check_document(path, text.replace("skills: [ganglie]", "skills: [gangle]"))
    assert [(d.code, d.message) for d in checked.diagnostics] == [
        ("E300", "unknown skill 'gangle' (did you mean 'ganglie'?)")]


def test_a_content_tree_of_its_own_is_checked_as_the_base(tmp_path: Path) -> None:
    """A copy of the built-in content (what `sgs validate --content DIR` reads) is no pack on top of it:
    its files are checked as the content itself, not as duplicates of the built-in ids."""
    from conftest import copy_builtin_tree

    from sgs_cli.lsp_analysis import check_document, is_content_tree

    tree = copy_builtin_tree(tmp_path / "my_game")
    assert is_content_tree(tree) and not is_content_tree(PACK)
    path = tree / "heroes" / "standard.yaml"
    text = path.read_text(encoding="utf-8")
    clean = check_document(path, text)
    assert clean.diagnostics == [] and clean.content.files and all(str(tree) in f for f in clean.content.files)
    checked = check_document(path, text.replace("skills: [ganglie]", "skills: [gangle]"))
    assert [(d.code, d.message) for d in checked.diagnostics] == [
        ("E300", "unknown skill 'gangle' (did you mean 'ganglie'?)")]


def test_yaml_that_is_no_content_file_is_left_alone(tmp_path: Path) -> None:
    from sgs_cli.lsp_analysis import check_document

    workflow = tmp_path / ".github" / "workflows" / "ci.yaml"
    checked = check_document(workflow, "on: [push]\njobs: {build: {runs-on: ubuntu-latest}}\n")
    assert checked.kind == "" and checked.diagnostics == []
