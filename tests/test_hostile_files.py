"""Hostile files and hostile rule cases: each ends in one clear error at its file:line:col, never a traceback,
a hang or a memory blow-up.

Content files are read with a bounded read of regular files only (sgs_dsl.yamlsafe.read_bytes): folders, FIFOs,
devices and sockets named ``x.yaml`` are E105, characters YAML forbids are E106 at their position, bytes that are
not UTF-8 are E100 at theirs. Rule cases are checked against the content before they are played
(sgs_dsl.scenarios.check_case), and a bad case never stops a folder run.

Special files (FIFOs, sockets, symbolic links) are made in tmp_path at test time.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import stat
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from conftest import DIAGNOSTIC_LINE, PASSING_CASE, TESTS, copy_builtin_tree, run_cli, same_file

from sgs_dsl import yamlsafe
from sgs_dsl.errors import ContentError, Diagnostic
from sgs_dsl.loader import build, check_content
from sgs_dsl.scenarios import run_file, run_path
from sgs_dsl.yamlsafe import MAX_NODES, find_yaml_files, load_file, load_text, read_file

POSIX = os.name == "posix"
needs_posix = pytest.mark.skipif(not POSIX, reason="FIFOs, sockets, devices and symbolic links")


# ---------------------------------------------------------------------- helpers


@contextlib.contextmanager
def deadline(seconds: int = 20) -> Iterator[None]:
    """Fail (instead of hanging for ever) if the block takes longer than ``seconds``."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def expired(*_: Any) -> None:
        raise AssertionError(f"still running after {seconds} s: the file was not refused before it was read")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def one_error(fn: Callable[[], Any]) -> Diagnostic:
    with deadline():
        with pytest.raises(ContentError) as info:
            fn()
    assert len(info.value.diagnostics) == 1, info.value.diagnostics
    return info.value.diagnostics[0]


def no_traceback(result: Any) -> None:
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


def diagnostics(output: str) -> list[tuple[str, int, int, str, str]]:
    out = []
    for line in output.splitlines():
        m = DIAGNOSTIC_LINE.match(line)
        if m:
            out.append((m["file"], int(m["line"]), int(m["col"]), m["code"], m["message"]))
    return out


def mkfifo(path: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    os.mkfifo(path)
    return path


def mksocket(path: Path) -> Path:
    if not hasattr(socket, "AF_UNIX"):
        pytest.skip("no Unix sockets here")
    if len(str(path)) > 100:
        pytest.skip("the path is too long for a Unix socket")
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()
    return path


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A folder that a user without privileges can reach (pytest's tmp_path is private to its owner)."""
    import tempfile

    d = Path(tempfile.mkdtemp(prefix="sgs_hostile_"))
    d.chmod(0o755)
    try:
        yield d
    finally:
        for sub in d.rglob("*"):
            with contextlib.suppress(OSError):
                sub.chmod(0o700)
        shutil.rmtree(d, ignore_errors=True)


def unprivileged(fn: Callable[[], str]) -> str:
    """Run ``fn`` as a user without privileges (root reads any file, whatever its mode); return what it returns."""
    if not POSIX:
        pytest.skip("file modes")
    if os.geteuid() != 0:
        return fn()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop root, run, send back the answer
        try:
            os.close(r)
            os.setgid(65534)
            os.setuid(65534)
            os.write(w, fn().encode("utf-8", "replace"))
        except BaseException as exc:  # noqa: BLE001 - whatever happens must reach the parent
            os.write(w, f"child failed: {exc!r}".encode())
        finally:
            os._exit(0)
    os.close(w)
    chunks = []
    while chunk := os.read(r, 65536):
        chunks.append(chunk)
    os.close(r)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode("utf-8")


HERO_PACK = """\
pack: hostile
heroes:
  - id: hostile_hero
    name: {zh: 敌, en: Hostile}
    kingdom: wei
    gender: male
    hp: 4
    skills: []
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the built-in content tree, clean (checked in test_a_copy_of_the_builtin_tree_is_clean)."""
    return copy_builtin_tree(tmp_path / "tree")


def validate_tree(root: Path) -> tuple[Any, list[tuple[str, int, int, str, str]]]:
    with deadline():
        result = run_cli("validate", "--content", str(root))
    no_traceback(result)
    return result, diagnostics(result.output)


def only(diags: list[tuple[str, int, int, str, str]], expected: Path, line: int, col: int, code: str) -> str:
    """The one diagnostic reported; it is at ``expected``:line:col with ``code``. Returns its message."""
    assert len(diags) == 1, diags
    file, l, c, cd, message = diags[0]
    assert os.path.abspath(file) == os.path.abspath(expected) or same_file(file, expected), (file, expected)
    assert (l, c, cd) == (line, col, code), diags[0]
    return message


def test_a_copy_of_the_builtin_tree_is_clean(tree: Path) -> None:
    result, diags = validate_tree(tree)
    assert result.exit_code == 0 and diags == [], result.output


# ---------------------------------------------------------------------- 1. special files (yamlsafe)


@needs_posix
def test_symlink_to_a_device_is_refused_not_read(tmp_path: Path) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    link = tmp_path / "zero.yaml"
    link.symlink_to("/dev/zero")
    d = one_error(lambda: load_file(link, "zero.yaml"))
    assert (d.file, d.line, d.col, d.code) == ("zero.yaml", 1, 1, "E105")
    assert "character device" in d.message and "symbolic link" in d.message


@needs_posix
def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = mkfifo(tmp_path / "x.yaml")
    d = one_error(lambda: load_file(fifo, "x.yaml"))
    assert (d.line, d.col, d.code) == (1, 1, "E105")
    assert "FIFO" in d.message


def test_folder_named_yaml_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").mkdir()
    d = one_error(lambda: load_file(tmp_path / "x.yaml", "x.yaml"))
    assert (d.line, d.col, d.code) == (1, 1, "E105")
    assert "a folder" in d.message


@needs_posix
def test_socket_is_refused(tmp_path: Path) -> None:
    sock = mksocket(tmp_path / "s.yaml")
    d = one_error(lambda: load_file(sock, "s.yaml"))
    assert (d.line, d.col, d.code) == (1, 1, "E105")
    assert "socket" in d.message


@needs_posix
def test_fifo_swapped_in_after_the_check_is_refused_on_the_open_file(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    fifo = mkfifo(tmp_path / "x.yaml")
    real_stat = os.stat
    regular = real_stat(__file__)
    # the first look says "a regular file"; then the FIFO is opened (without blocking) and looked at again
    monkeypatch.setattr(yamlsafe.os, "stat",
                        lambda p, *a, **k: regular if str(p) == str(fifo) else real_stat(p, *a, **k))
    d = one_error(lambda: load_file(fifo, "x.yaml"))
    assert (d.line, d.col, d.code) == (1, 1, "E105")


@needs_posix
def test_broken_symlink(tmp_path: Path) -> None:
    link = tmp_path / "gone.yaml"
    link.symlink_to(tmp_path / "nowhere.yaml")
    d = one_error(lambda: load_file(link, "gone.yaml"))
    assert (d.line, d.col, d.code) == (1, 1, "E100")
    assert "does not exist" in d.message


@needs_posix
def test_symlink_loop(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    d = one_error(lambda: load_file(tmp_path / "a.yaml", "a.yaml"))
    assert (d.line, d.col, d.code) == (1, 1, "E100")


def test_unreadable_file(open_dir: Path) -> None:
    f = open_dir / "locked.yaml"
    f.write_text("a: 1\n", encoding="utf-8")
    f.chmod(0)
    try:
        def attempt() -> str:
            try:
                load_file(f, "locked.yaml")
                return "read"
            except ContentError as exc:
                return exc.diagnostics[0].text()

        assert unprivileged(attempt) == "locked.yaml:1:1: E100 cannot read the file: Permission denied"
    finally:
        f.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_unreadable_file_reported_by_validate(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tree / "heroes" / "standard.yaml"
    real_open = os.open

    def refuse(path: Any, flags: int, *args: Any) -> int:
        if str(path) == str(target):
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args)

    monkeypatch.setattr(yamlsafe.os, "open", refuse)
    # its heroes are missing now, so the rules that use the pack say so; the file itself is reported first
    result = run_cli("validate", "--content", str(tree))
    no_traceback(result)
    assert result.exit_code == 1
    first = diagnostics(result.output)
    mine = [d for d in first if same_file(d[0], target)]
    assert [(d[1], d[2], d[3]) for d in mine] == [(1, 1, "E100")]
    assert "Permission denied" in mine[0][4]


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
def test_the_reported_size_is_not_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    # /proc files are regular files that report a size of 0 whatever they hold
    assert os.stat("/proc/self/maps").st_size == 0
    monkeypatch.setattr(yamlsafe, "MAX_BYTES", 64)
    d = one_error(lambda: load_file("/proc/self/maps", "maps.yaml"))
    assert (d.file, d.line, d.col, d.code) == ("maps.yaml", 1, 1, "E103")
    assert "64" in d.message


def test_the_read_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"a: " + b"x" * 10_000 + b"\n")
    seen: list[int] = []
    real_read = os.read

    def counting(fd: int, n: int) -> bytes:
        seen.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(yamlsafe, "MAX_BYTES", 100)
    monkeypatch.setattr(yamlsafe.os, "read", counting)
    d = one_error(lambda: load_file(big, "big.yaml"))
    assert d.code == "E103"
    assert sum(seen) <= 101  # never more than the limit and one byte


# ---------------------------------------------------------------------- 1. characters and encodings


@pytest.mark.parametrize("char, name", [("\x00", "NUL"), ("\x07", "BEL"), ("\x1b", "escape"), ("\x7f", "DEL"),
                                        ("\x0b", "vertical tab"), ("\x0c", "form feed"), ("\x01", None)])
def test_control_character_at_its_position(tmp_path: Path, char: str, name: str | None) -> None:
    f = tmp_path / "c.yaml"
    f.write_bytes(f"pack: x\nheroes:\n  - id: a{char}b\n".encode())
    d = one_error(lambda: load_file(f, "c.yaml"))
    assert (d.file, d.line, d.col, d.code) == ("c.yaml", 3, 10, "E106")
    assert f"U+{ord(char):04X}" in d.message
    if name:
        assert name in d.message


def test_control_characters_are_counted() -> None:
    d = one_error(lambda: load_text("a: 1\n\x00\x00\x00\n", "n.yaml"))
    assert (d.line, d.col, d.code) == (2, 1, "E106")
    assert "2 more" in d.message


def test_tab_and_carriage_return_are_allowed() -> None:
    assert load_text("a: 'x\ty'\r\nb: 2\r\n", "x.yaml").data == {"a": "x\ty", "b": 2}


def test_lone_surrogate_in_text() -> None:
    d = one_error(lambda: load_text("a: 1\nb: \ud800\n", "s.yaml"))
    assert (d.line, d.col, d.code) == (2, 4, "E106")


def test_not_utf8_at_its_position(tmp_path: Path) -> None:
    f = tmp_path / "latin1.yaml"
    f.write_bytes("pack: x\nname: 'caf\xe9'\n".encode("latin-1"))
    d = one_error(lambda: load_file(f, "latin1.yaml"))
    assert (d.file, d.line, d.col, d.code) == ("latin1.yaml", 2, 11, "E100")
    assert "0xe9" in d.message


def test_not_utf8_after_wide_characters(tmp_path: Path) -> None:
    f = tmp_path / "mixed.yaml"
    f.write_bytes("name: 张飞".encode() + b"\xff\n")
    d = one_error(lambda: load_file(f, "mixed.yaml"))
    assert (d.line, d.col, d.code) == (1, 9, "E100")  # columns count characters, not bytes


def test_utf8_bom_is_dropped_and_positions_hold(tmp_path: Path) -> None:
    f = tmp_path / "bom.yaml"
    f.write_bytes(b"\xef\xbb\xbfpack: x\nhp: four\n")
    doc = load_file(f, "bom.yaml")
    assert doc.data == {"pack": "x", "hp": "four"}
    assert doc.key_position(("pack",)) == (1, 1)
    assert doc.position(("hp",)) == (2, 5)


def test_bom_in_text() -> None:
    assert load_text("\ufeffa: 1\n", "x.yaml").position(("a",)) == (1, 4)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_utf16_and_utf32_are_refused(tmp_path: Path, encoding: str) -> None:
    f = tmp_path / "wide.yaml"
    f.write_bytes("pack: x\n".encode(encoding))  # with its byte-order mark
    d = one_error(lambda: load_file(f, "wide.yaml"))
    assert (d.line, d.col, d.code) == (1, 1, "E100")
    assert encoding.upper() in d.message and "UTF-8" in d.message


def test_enormous_single_line_over_the_limit(tmp_path: Path) -> None:
    f = tmp_path / "line.yaml"
    f.write_bytes(b"a: " + b"x" * (yamlsafe.MAX_BYTES + 1))  # no line break at all
    d = one_error(lambda: load_file(f, "line.yaml"))
    assert (d.line, d.col, d.code) == (1, 1, "E103")


def test_sparse_file_far_over_the_limit(tmp_path: Path) -> None:
    f = tmp_path / "sparse.yaml"
    with f.open("wb") as out:
        out.truncate(50 * yamlsafe.MAX_BYTES)  # 100 MB of NULs that take no room on the disk
    d = one_error(lambda: load_file(f, "sparse.yaml"))
    assert (d.line, d.col, d.code) == (1, 1, "E103")


@pytest.mark.parametrize("text, line, col", [
    ("a: 1\r\nb: \x00\n", 2, 4),  # CR LF is one line break
    ("a: 1\rb: 2\r\x00", 3, 1),  # so is a lone CR
    ("a: '\u2028x\x01'\n", 2, 2),  # and a line separator, as YAML counts them
])
def test_positions_count_lines_as_yaml_does(text: str, line: int, col: int) -> None:
    d = one_error(lambda: load_text(text, "x.yaml"))
    assert (d.line, d.col, d.code) == (line, col, "E106")


def test_too_many_values_on_one_line() -> None:
    text = "a: [" + "1," * MAX_NODES + "1]\n"
    d = one_error(lambda: load_text(text, "many.yaml"))
    assert d.code == "E103" and d.line == 1
    assert str(MAX_NODES) in d.message


def test_too_many_values_without_libyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlsafe.yaml, "__with_libyaml__", False)
    text = "a: [" + "1," * MAX_NODES + "1]\n"
    d = one_error(lambda: load_text(text, "many.yaml"))
    assert d.code == "E103" and d.line == 1


def test_a_number_too_long_to_convert_stays_text_and_the_schema_says_where(tmp_path: Path) -> None:
    f = tmp_path / "pack.yaml"
    f.write_text(HERO_PACK.replace("hp: 4", "hp: " + "9" * 5000), encoding="utf-8")
    diags = check_content(None, [f])
    assert [(d.line, d.col, d.code) for d in diags] == [(7, 9, "E111")], diags


# ---------------------------------------------------------------------- 1. through the loader and the command


@needs_posix
@pytest.mark.parametrize("kind", ["zero", "fifo", "folder", "socket", "nul", "latin1", "broken", "empty_link_loop"])
def test_validate_content_tree_with_a_hostile_file(tree: Path, kind: str) -> None:
    target = tree / "heroes" / "x.yaml"
    expected = (1, 1, "E105")
    if kind == "zero":
        if not Path("/dev/zero").exists():
            pytest.skip("no /dev/zero")
        target.symlink_to("/dev/zero")
    elif kind == "fifo":
        mkfifo(target)
    elif kind == "folder":
        target.mkdir()
        (target / "inner.yaml").write_text(HERO_PACK, encoding="utf-8")  # files below it are still read
    elif kind == "socket":
        target = mksocket(tree / "heroes" / "s.yaml")
    elif kind == "nul":
        target.write_bytes(HERO_PACK.replace("hp: 4", "hp: 4\x00").encode())
        expected = (7, 10, "E106")
    elif kind == "latin1":
        target.write_bytes(HERO_PACK.replace("Hostile", "Hostil\xe9").encode("utf-8").replace(b"\xc3\xa9", b"\xe9"))
        expected = (4, 29, "E100")
    elif kind == "broken":
        target.symlink_to(tree / "nowhere.yaml")
        expected = (1, 1, "E100")
    elif kind == "empty_link_loop":
        target.symlink_to(target)
        expected = (1, 1, "E100")
    result, diags = validate_tree(tree)
    assert result.exit_code == 1, result.output
    only(diags, target, *expected)
    assert result.output.strip().splitlines()[-1] == "1 error(s)"


@needs_posix
def test_validate_paths_given_on_the_command_line(tmp_path: Path) -> None:
    fifo = mkfifo(tmp_path / "f.yaml")
    folder = tmp_path / "d.yaml"
    folder.mkdir()
    nul = tmp_path / "n.yaml"
    nul.write_bytes(b"pack: x\n\x00\n")
    paths = [fifo, folder, nul]
    if Path("/dev/zero").exists():
        paths.append(Path("/dev/zero"))
    with deadline():
        result = run_cli("validate", *map(str, paths))
    no_traceback(result)
    assert result.exit_code == 1
    got = {Path(d[0]).name: d[1:4] for d in diagnostics(result.output)}
    assert got["f.yaml"] == (1, 1, "E105")
    assert got["d.yaml"] == (1, 1, "E105")  # a folder with no content files in it
    assert got["n.yaml"] == (2, 1, "E106")
    if Path("/dev/zero").exists():
        assert got["zero"] == (1, 1, "E105")


@needs_posix
def test_folder_of_packs_with_hostile_entries(tmp_path: Path) -> None:
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "good.yaml").write_text(HERO_PACK, encoding="utf-8")
    mkfifo(packs / "pipe.yml")
    (packs / "sub.yaml").mkdir()
    with deadline():
        diags = check_content(None, [packs])
    assert sorted((Path(d.file).name, d.line, d.col, d.code) for d in diags) == [
        ("pipe.yml", 1, 1, "E105"), ("sub.yaml", 1, 1, "E105")]


def _deny_listing(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Make ``folder`` one that cannot be listed (as without read permission), for the loader's scandir."""
    real_scandir = os.scandir

    def scandir(path: Any = ".") -> Any:
        if str(path) == str(folder):
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(yamlsafe.os, "scandir", scandir)


def test_unlistable_folder_in_a_tree(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sub = tree / "heroes" / "more"
    sub.mkdir()
    (sub / "x.yaml").write_text(HERO_PACK, encoding="utf-8")
    _deny_listing(monkeypatch, sub)
    result, diags = validate_tree(tree)
    assert result.exit_code == 1
    message = only(diags, sub, 1, 1, "E105")
    assert "cannot list the folder" in message and "Permission denied" in message


def test_unlistable_folder_for_real(open_dir: Path) -> None:
    sub = open_dir / "packs" / "locked"
    sub.mkdir(parents=True)
    sub.parent.chmod(0o755)
    (sub / "x.yaml").write_text(HERO_PACK, encoding="utf-8")
    sub.chmod(0)
    try:
        def attempt() -> str:
            files, problems = find_yaml_files(open_dir / "packs")
            return repr(([f.name for f in files], [(p.name, why.split(":")[0]) for p, why in problems]))

        assert unprivileged(attempt) == repr(([], [("locked", "cannot list the folder")]))
    finally:
        sub.chmod(stat.S_IRWXU)


@needs_posix
def test_folder_link_loop_is_reported_once(tree: Path) -> None:
    loop = tree / "heroes" / "loop"
    loop.symlink_to(tree / "heroes", target_is_directory=True)
    result, diags = validate_tree(tree)
    assert result.exit_code == 1
    message = only(diags, loop, 1, 1, "E105")
    assert "symbolic link" in message


@needs_posix
def test_linked_pack_folder_is_read(tree: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.yaml").write_text(HERO_PACK, encoding="utf-8")
    (tree / "heroes" / "linked").symlink_to(elsewhere, target_is_directory=True)
    content, diags = build(tree)
    assert diags == []
    assert "hostile_hero" in content.heroes


def test_kind_folder_that_is_a_file(tree: Path) -> None:
    shutil.rmtree(tree / "rules")
    (tree / "rules").write_text("id: x\n", encoding="utf-8")
    _, diags = build(tree)
    mine = [d for d in diags if same_file(d.file, tree / "rules")]
    assert [(d.line, d.col, d.code) for d in mine] == [(1, 1, "E105")]


def test_content_folder_with_no_kind_folders(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    _, diags = build(tmp_path / "empty")
    assert [(d.line, d.col, d.code) for d in diags] == [(1, 1, "E105")]


@needs_posix
@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses file names that are not UTF-8")
def test_file_name_that_is_not_utf8_is_shown_escaped(tree: Path) -> None:
    name = os.fsdecode(b"bad\xffname.yaml")
    target = tree / "heroes" / name
    target.write_bytes(b"pack: x\n\x00\n")
    result, diags = validate_tree(tree)
    assert result.exit_code == 1
    assert len(diags) == 1
    file, line, col, code, _ = diags[0]
    assert (line, col, code) == (2, 1, "E106")
    assert file.endswith("bad\\xffname.yaml") and file.isprintable()


@needs_posix
def test_scenario_run_with_content_tree_holding_a_fifo(tree: Path) -> None:
    mkfifo(tree / "cards" / "x.yaml")
    with deadline():
        result = run_cli("scenario", "run", "--content", str(tree), str(TESTS / "scenarios" / "cards"))
    no_traceback(result)
    assert result.exit_code == 1
    assert [d[1:4] for d in diagnostics(result.output)] == [(1, 1, "E105")]


# ---------------------------------------------------------------------- 1. rule-case files


def fail_lines(result: Any) -> dict[str, str]:
    lines = result.stdout.splitlines()
    return {ln.split(":", 1)[0].removeprefix("FAIL "): ln for ln in lines if ln.startswith("FAIL ")}


@needs_posix
def test_scenario_run_folder_with_special_files(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(PASSING_CASE, encoding="utf-8")
    mkfifo(tmp_path / "fifo.yaml")
    (tmp_path / "folder.yaml").mkdir()
    (tmp_path / "nul.yaml").write_bytes(PASSING_CASE.replace("role: rebel", "role: rebel\x00").encode())
    if Path("/dev/zero").exists():
        (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    with deadline():
        result = run_cli("scenario", "run", str(tmp_path))
    no_traceback(result)
    assert result.exit_code == 1
    bad = 4 if Path("/dev/zero").exists() else 3
    assert result.stdout.strip().splitlines()[-1] == f"1 passed, {bad} failed"
    fails = fail_lines(result)
    assert re.search(r"fifo\.yaml:1:1: E105 ", next(v for k, v in fails.items() if k.endswith("fifo.yaml")))
    assert re.search(r"folder\.yaml:1:1: E105 ", next(v for k, v in fails.items() if k.endswith("folder.yaml")))
    assert re.search(r"nul\.yaml:7:16: E106 ", next(v for k, v in fails.items() if k.endswith("nul.yaml")))


@needs_posix
def test_scenario_run_single_fifo(tmp_path: Path) -> None:
    fifo = mkfifo(tmp_path / "case.yaml")
    with deadline():
        result = run_cli("scenario", "run", str(fifo))
    no_traceback(result)
    assert result.exit_code == 1
    assert result.stdout.strip().splitlines()[-1] == "0 passed, 1 failed"
    assert "case.yaml:1:1: E105 " in result.stdout


def test_scenario_folder_that_cannot_be_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "good.yaml").write_text(PASSING_CASE, encoding="utf-8")
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "hidden.yaml").write_text(PASSING_CASE, encoding="utf-8")
    _deny_listing(monkeypatch, locked)
    result = run_cli("scenario", "run", str(tmp_path))
    no_traceback(result)
    assert result.stdout.strip().splitlines()[-1] == "1 passed, 1 failed"
    assert re.search(r"locked:1:1: E105 cannot list the folder: Permission denied", result.stdout)


# ---------------------------------------------------------------------- 2. rule cases


def case_file(tmp_path: Path, text: str, name: str = "case.yaml") -> Path:
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    return f


def reasons(content: Any, path: Path) -> list[tuple[int, int, str, str]]:
    """The diagnostics of a failed case: (line, col, code, message)."""
    result = run_file(content, path)
    assert not result.passed
    out = []
    for part in result.reason.split("; "):
        m = DIAGNOSTIC_LINE.match(part)
        assert m, result.reason
        assert same_file(m["file"], path)
        out.append((int(m["line"]), int(m["col"]), m["code"], m["message"]))
    return out


def test_the_base_case_passes(content: Any, tmp_path: Path) -> None:
    assert run_file(content, case_file(tmp_path, PASSING_CASE)).passed


REINCARNATION = TESTS / "scenarios" / "house_rules" / "reincarnation_qun_takes_first_hero.yaml"


def test_unknown_unused_hero_fails_the_case_not_the_run(content: Any, tmp_path: Path) -> None:
    text = REINCARNATION.read_text(encoding="utf-8")
    assert "unused_heroes: [liubei]" in text  # 转世 draws from it: an unknown id was a KeyError mid-game
    bad = case_file(tmp_path, text.replace("unused_heroes: [liubei]", "unused_heroes: [guojai, liubei]"), "a_bad.yaml")
    line = text.splitlines().index("unused_heroes: [liubei]") + 1
    assert reasons(content, bad) == [(line, 17, "E300", "unknown hero 'guojai' (did you mean 'guojia'?)")]
    case_file(tmp_path, text, "b_good.yaml")
    results = run_path(content, [tmp_path])
    assert [(Path(r.file).name, r.passed) for r in results] == [("a_bad.yaml", False), ("b_good.yaml", True)]
    result = run_cli("scenario", "run", str(tmp_path))
    no_traceback(result)
    assert result.stdout.strip().splitlines()[-1] == "1 passed, 1 failed"


@pytest.mark.parametrize("old, new, line, col, code, message", [
    ("role: rebel", "role: emperor", 7, 11, "E300",
     "unknown role 'emperor' (the roles of rules 'identity': lord, loyalist, rebel, traitor)"),
    ("role: rebel", "role: rebell", 7, 11, "E300",
     "unknown role 'rebell' (did you mean 'rebel'?) (the roles of rules 'identity': lord, loyalist, rebel, traitor)"),
    ("phase: play", "phase: lunch", 10, 8, "E300",
     "unknown phase 'lunch' (the phases of rules 'identity': start, judge, draw, play, discard, finish)"),
    ("phase: play", "phase: paly", 10, 8, "E300",
     "unknown phase 'paly' (did you mean 'play'?) (the phases of rules 'identity': start, judge, draw, play, "
     "discard, finish)"),
    ("stop: {after_phase: play}", "stop: {after_phase: lunch}", 14, 21, "E300",
     "unknown phase 'lunch' (the phases of rules 'identity': start, judge, draw, play, discard, finish)"),
    ("role: rebel", "role: rebel\n    hp: 9\n    max_hp: 4", 8, 9, "E330", "hp 9 is above max_hp 4"),
    ("role: rebel", "role: rebel\n    hp: 5", 8, 9, "E330",
     "hp 5 is above max_hp 4 (the hero's, with the rules' bonus)"),
    ("role: rebel", "role: rebel\n    hp: 0", 8, 9, "E330", None),
    ("role: rebel", "role: rebel\n    hp: -2", 8, 9, "E330", None),
    ("hero: guanyu", "hero: zhangfei", 6, 11, "E310",
     "'zhangfei' already sits at seat 0 (line 3): seats are named by their heroes, so each seat needs a hero of "
     "its own"),
    ("hero: guanyu", "hero: guanyuu", 6, 11, "E300", "unknown hero 'guanyuu' (did you mean 'guanyu'?)"),
    ("turn: zhangfei", "turn: zhangfie", 9, 7, "E300",
     "no seat is 'zhangfie' (did you mean 'zhangfei'?) (seats: zhangfei, guanyu)"),
    ("turn: zhangfei", "turn: 2", 9, 7, "E300", "there is no seat 2 (the seats are 0 to 1)"),
    ("hand: [ex_nihilo H7]", "hand: [ex_nihlio H7]", 5, 12, "E300",
     "unknown card 'ex_nihlio' (did you mean 'ex_nihilo'?)"),
    ("draw_pile: [slash S7,", "draw_pile: [slahs S7,", 8, 13, "E300", "unknown card 'slahs' (did you mean 'slash'?)"),
    ("  - zhangfei: end", "  - zhangfie: end", 13, 5, "E300",
     "no seat is 'zhangfie' (did you mean 'zhangfei'?) (seats: zhangfei, guanyu)"),
    ("zhangfei: {use: ex_nihilo H7}", "zhangfei: {use: ex_nihlio H7}", 12, 21, "E300",
     "unknown card 'ex_nihlio' (did you mean 'ex_nihilo'?)"),
    ("  zhangfei: {hand:", "  zhangfie: {hand:", 16, 3, "E300", None),
    ("role: lord\n", "role: lord\n    equip: [slash S9]\n", 5, 13, "E301", "'slash' is not an equipment card"),
    ("role: lord\n", "role: lord\n    marks: {drunkk: 1}\n", 5, 13, "E300",
     "unknown mark 'drunkk' (did you mean 'drunk'?)"),
    ("role: lord\n", "role: lord\n    piles: {bqu: [jink D2]}\n", 5, 13, "E300",
     "unknown pile 'bqu' (did you mean 'buqu'?)"),
    ("name: Ex Nihilo draws two\n", "name: Ex Nihilo draws two\nrules: identiy\n", 2, 8, "E300",
     "unknown rules 'identiy' (did you mean 'identity'?)"),
    ("name: Ex Nihilo draws two\n", "name: Ex Nihilo draws two\noptions: {duel_damage_by_usr: true}\n", 2, 11, "E300",
     "unknown option 'duel_damage_by_usr' of rules 'identity' (did you mean 'duel_damage_by_user'?)"),
    ("name: Ex Nihilo draws two\n", "name: Ex Nihilo draws two\noptions: {duel_damage_by_user: 1}\n", 2, 32, "E111",
     "options.duel_damage_by_user must be true or false, not 1"),
    ("name: Ex Nihilo draws two\n", "name: Ex Nihilo draws two\nwinners: [lrod]\n", 2, 11, "E300", None),
    ("  - zhangfei: end", "  - zhangfei: {invoke: paoxiaoo}", 13, 24, "E300",
     "unknown skill 'paoxiaoo' (did you mean 'paoxiao'?)"),
    ("  - zhangfei: end", "  - zhangfei: {refuse: {use: slahs S8}}", 13, 30, "E300",
     "unknown card 'slahs' (did you mean 'slash'?)"),
    ("stop: {after_phase: play}", "stop: {}", 14, 7, "E113", None),
    ("stop: {after_phase: play}", "stop: {after_phase: play, turns: 1}", 14, 7, "E113", None),
    ("role: lord\n", "role: lord\n    marks: {drunk: -1}\n", 5, 20, "E113", None),
    ("  zhangfei: {hand: [slash S7, jink D2]}", "  zhangfei: {count: 2}", 16, 14, "E110",
     "'count' is not checked for a seat (it may give hp, max_hp, alive, role, chained, hand, equip, judge, "
     "hand_count, piles, contains)"),
    ("  zhangfei: {hand: [slash S7, jink D2]}", "  draw_pile: {hand_count: 1}", 16, 15, "E110",
     "'hand_count' is not checked for the pile draw_pile (it may give cards, contains, count, top)"),
    ("hero: guanyu", 'hero: "guan\\nyu"', 6, 11, "E300", "unknown hero 'guan\\nyu' (did you mean 'guanyu'?)"),
])
def test_bad_rule_case(content: Any, tmp_path: Path, old: str, new: str, line: int, col: int, code: str,
                       message: str | None) -> None:
    assert old in PASSING_CASE
    got = reasons(content, case_file(tmp_path, PASSING_CASE.replace(old, new, 1)))
    assert len(got) == 1, got
    assert got[0][:3] == (line, col, code), got
    if message is not None:
        assert got[0][3] == message


def test_more_seats_than_the_rules_play(content: Any, tmp_path: Path) -> None:
    heroes = ["zhangfei", "guanyu", "liubei", "caocao", "simayi", "xiahoudun", "zhangliao", "xuchu", "guojia",
              "zhenji", "zhugeliang"]
    seats = "".join(f"  - {{hero: {h}, role: rebel}}\n" for h in heroes)
    got = reasons(content, case_file(tmp_path, f"name: too many\nseats:\n{seats}"))
    assert got == [(3, 3, "E330", "11 seats, but the rules 'identity' play 2 to 10 players")]


def test_two_weapons_in_one_seat(content: Any, tmp_path: Path) -> None:
    text = PASSING_CASE.replace("role: lord\n", "role: lord\n    equip: [crossbow CA, blade SQ]\n")
    got = reasons(content, case_file(tmp_path, text))
    assert [g[:3] for g in got] == [(5, 26, "E310")]


def test_dead_seat_may_have_no_hp(content: Any, tmp_path: Path) -> None:
    text = PASSING_CASE.replace("role: rebel", "role: rebel\n    hp: 0\n    alive: false")
    assert run_file(content, case_file(tmp_path, text)).passed


def test_a_hero_that_acts_on_its_own_dying_may_sit_below_one_hp(content: Any, tmp_path: Path) -> None:
    # 不屈: the hero stays alive below 1 HP (tests/scenarios/wind/buqu_*.yaml); nothing else may
    text = PASSING_CASE.replace("hero: guanyu\n    role: rebel",
                                "hero: zhoutai\n    role: rebel\n    hp: -1\n    piles: {buqu: [jink D5, jink D6]}")
    assert run_file(content, case_file(tmp_path, text)).passed


def test_a_hero_of_a_pack_the_rules_do_not_choose_from_may_sit(content: Any, tmp_path: Path) -> None:
    # the identity rules choose heroes from the standard pack; a rule case may seat any loaded hero
    assert content.heroes["xiahouyuan"].pack not in content.ruleset("identity").hero_packs
    text = PASSING_CASE.replace("hero: guanyu", "hero: xiahouyuan").replace("zhangfei: {hand: [slash S7, jink D2]}",
                                                                             "zhangfei: {hand: [slash S7, jink D2]}")
    assert run_file(content, case_file(tmp_path, text)).passed


def test_a_hero_that_is_not_loaded(content: Any, tmp_path: Path) -> None:
    text = PASSING_CASE.replace("hero: guanyu", "hero: not_loaded_anywhere")
    got = reasons(content, case_file(tmp_path, text))
    assert got == [(6, 11, "E300", "unknown hero 'not_loaded_anywhere'")]


WRONG_TYPES = """\
name: 5
source: [a]
rules: 3
options: [x]
seed: seven
seats: {a: 1}
draw_pile: slash S7
discard_pile: [5]
unused_heroes: guojia
turn: [0]
phase: 3
decisions: {a: b}
stop: 7
expect: true
state: [1]
winners: lord
events: {a: 1}
absent: [1]
"""


def test_wrong_types_in_every_field(content: Any, tmp_path: Path) -> None:
    got = reasons(content, case_file(tmp_path, WRONG_TYPES))
    keys = [ln.split(":")[0] for ln in WRONG_TYPES.splitlines()]
    assert [(g[0], g[2]) for g in got] == [(i + 1, "E111") for i in range(len(keys))], got
    for (line, _col, _code, message), key in zip(got, keys):
        assert message.startswith(key), (line, message)


SEAT_WRONG_TYPES = """\
name: seats with wrong types
seats:
  - hero: 1
    role: [lord]
    hp: "4"
    max_hp: 0
    alive: "yes"
    hand: slash S7
    equip: [1]
    judge: {a: 1}
    marks: {drunk: "1"}
    piles: [buqu]
    chained: 1
  - 7
"""


def test_wrong_types_in_every_seat_field(content: Any, tmp_path: Path) -> None:
    got = reasons(content, case_file(tmp_path, SEAT_WRONG_TYPES))
    assert [(g[0], g[2]) for g in got] == [(3, "E111"), (4, "E111"), (5, "E111"), (6, "E113"), (7, "E111"),
                                           (8, "E111"), (9, "E111"), (10, "E111"), (11, "E111"), (12, "E111"),
                                           (13, "E111"), (14, "E111")]


@pytest.mark.parametrize("text, line, col, code", [
    ("", 1, 1, "E111"),
    ("- a\n- b\n", 1, 1, "E111"),
    ("just text\n", 1, 1, "E111"),
    ("name: x\nseats: []\n", 2, 8, "E113"),
])
def test_case_that_is_not_a_mapping_or_has_no_seats(content: Any, tmp_path: Path, text: str, line: int, col: int,
                                                    code: str) -> None:
    got = reasons(content, case_file(tmp_path, text))
    assert got[0][:3] == (line, col, code), got


def test_a_bug_in_the_engine_fails_one_case_and_the_run_goes_on(content: Any, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from sgs_runtime.resolution.game import Game

    real_start = Game.start

    def start(self: Game) -> Any:
        if self.seed == 13:
            raise KeyError("boom")
        return real_start(self)

    monkeypatch.setattr(Game, "start", start)
    case_file(tmp_path, PASSING_CASE.replace("name: Ex Nihilo draws two\n", "name: a bug\nseed: 13\n"), "a.yaml")
    case_file(tmp_path, PASSING_CASE, "b.yaml")
    results = run_path(content, [tmp_path])
    assert [r.passed for r in results] == [False, True]
    assert results[0].reason.startswith("internal error (a bug in the engine, not in the case): KeyError: 'boom'")


# ---------------------------------------------------------------------- 3. usage messages in the loader


def rules_file(tmp_path: Path, cards: str, heroes: str) -> Path:
    f = tmp_path / "rules.yaml"
    f.write_text(f"id: hostile_rules\nextends: identity\ncards: [{cards}]\nheroes: [{heroes}]\n", encoding="utf-8")
    return f


def test_empty_card_pack_is_not_an_unknown_pack(tmp_path: Path) -> None:
    (tmp_path / "empty.yaml").write_text("pack: empty\ncards: []\n", encoding="utf-8")
    diags = check_content(None, [tmp_path / "empty.yaml", rules_file(tmp_path, "standard, empty", "standard")])
    assert [(Path(d.file).name, d.line, d.col, d.code) for d in diags] == [("rules.yaml", 3, 19, "E113")]
    assert "unknown" not in diags[0].message
    assert re.fullmatch(r"the card pack 'empty' has no cards \(.*empty\.yaml:2\): it adds no card to the deck",
                        diags[0].message), diags[0].message


def test_empty_hero_pack(tmp_path: Path) -> None:
    (tmp_path / "nobody.yaml").write_text("pack: nobody\nheroes: []\n", encoding="utf-8")
    diags = check_content(None, [tmp_path / "nobody.yaml", rules_file(tmp_path, "standard", "nobody")])
    assert [(Path(d.file).name, d.line, d.col, d.code) for d in diags] == [("rules.yaml", 4, 10, "E113")]
    assert diags[0].message.startswith("the hero pack 'nobody' has no heroes")


def test_unknown_hero_pack_is_spelt_right(tmp_path: Path) -> None:
    diags = check_content(None, [rules_file(tmp_path, "standard", "wnd")])
    assert [(d.line, d.col, d.code, d.message) for d in diags] == [
        (4, 10, "E300", "unknown hero pack 'wnd' (did you mean 'wind'?)")]
    assert not any("heroe " in d.message for d in diags)


def test_unknown_card_pack(tmp_path: Path) -> None:
    diags = check_content(None, [rules_file(tmp_path, "standrd", "standard")])
    assert [(d.line, d.col, d.code, d.message) for d in diags] == [
        (3, 9, "E300", "unknown card pack 'standrd' (did you mean 'standard'?)")]


def test_pack_of_the_other_kind(tmp_path: Path) -> None:
    diags = check_content(None, [rules_file(tmp_path, "wind", "maneuvering")])
    assert [(d.line, d.col, d.code) for d in diags] == [(3, 9, "E300"), (4, 10, "E300")]
    assert diags[0].message.startswith("'wind' is a hero pack, not a card pack (card packs: ")
    assert diags[1].message.startswith("'maneuvering' is a card pack, not a hero pack (hero packs: ")


def test_read_file_is_the_one_reader(tmp_path: Path) -> None:
    f = tmp_path / "ok.yaml"
    f.write_bytes(b"\xef\xbb\xbfa: 1\n")
    assert read_file(f) == "a: 1\n"
