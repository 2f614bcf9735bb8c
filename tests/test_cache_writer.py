"""Cache entries written behind (sgs_dsl.cache.write_behind): by a forked writer, complete, atomic.

Each check that forks runs in a fresh Python process, which waits for the writer by reading a pipe
it shares with it until the end (the writer holds the pipe's other end until it exits).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT

from sgs_dsl import cache as C

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="the writer is a forked process")

#: run first in each process: a pipe whose end the writer inherits, and a record of where entries went
PRELUDE = """
import os, sys
import sgs_dsl.cache as C
r, w = os.pipe()
went = []
real = C._fork_writer
def spy():
    where = real()
    if where != "writer":
        went.append(where)
    return where
C._fork_writer = spy
def writer_done():
    os.close(w)
    assert os.read(r, 1) == b""  # the end of the pipe: every writer has exited
"""

HEAVY = "import sys; print(sorted(m for m in ('lark', 'yaml', 'jsonschema') if m in sys.modules))"


def run(code: str, cache_dir: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "SGS_NO_CACHE"}
    env["SGS_CACHE_DIR"] = str(cache_dir)
    out = subprocess.run([sys.executable, "-c", PRELUDE + code], capture_output=True, text=True, env=env, cwd=ROOT,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@needs_fork
def test_a_build_written_behind_is_complete_and_read_back_by_the_next_run(tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    code = """
from sgs_dsl.loader import build
with C.write_behind():
    content, diags = build()
    assert diags == [] and content.heroes
writer_done()
print(went)
"""
    assert run(code, cache_dir) == "['handed over']"  # one writer, forked at the end of the build
    assert len(list((cache_dir / "built_content").glob("*.pickle"))) == 1
    assert not list(cache_dir.glob("*/.tmp-*"))
    # the next run reads the whole content back: it parses nothing, reads no YAML
    warm = "from sgs_dsl.loader import build\nc, d = build()\nassert d == [] and c.heroes\n" + HEAVY
    assert run(warm, cache_dir) == "[]"


@needs_fork
def test_the_command_leaves_its_writes_behind_and_the_next_command_finds_them(tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    code = """
from sgs_cli.main import main
try:
    main(["validate"], standalone_mode=False)
except SystemExit as exc:
    assert not exc.code, exc.code
writer_done()
print(went)
"""
    # the built content at the end of the build, then the warnings at the end of the command
    assert run(code, cache_dir).splitlines()[-1] == "['handed over', 'handed over']"
    again = """
from sgs_cli.main import main
try:
    main(["validate"], standalone_mode=False)
except SystemExit as exc:
    assert not exc.code, exc.code
""" + HEAVY
    assert run(again, cache_dir).splitlines()[-1] == "[]"


@needs_fork
def test_a_writer_that_dies_before_its_entry_is_in_place_leaves_none(tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    code = f"""
k = C.key("demo")
os.replace = lambda *args: os._exit(9)  # the writer dies with the entry written to its temporary file
with C.write_behind():
    C.Cache({str(cache_dir)!r}).put("demo", k, "value")
writer_done()
print(went)
"""
    assert run(code, cache_dir) == "['handed over']"
    found = sorted(p.name for p in (cache_dir / "demo").iterdir())
    assert len(found) == 1 and found[0].startswith(".tmp-")  # the temporary file, never read
    cache = C.Cache(cache_dir)
    assert cache.get("demo", C.key("demo")) is None
    assert cache.put("demo", C.key("demo"), "value") and cache.get("demo", C.key("demo")) == "value"
    # the temporary file is not counted as an entry, and goes once it is older than any write could be
    left = cache_dir / "demo" / found[0]
    assert left.exists()
    old = time.time() - C.STALE_TMP - 60
    os.utime(left, (old, old))
    assert cache.put("demo", C.key("other"), "value 2")
    assert not left.exists() and len(list((cache_dir / "demo").iterdir())) == 2


@needs_fork
def test_a_writer_killed_while_making_its_entry_leaves_none(tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    pid_file = tmp_path / "writer.pid"
    code = f"""
import time
def make():
    open({str(pid_file)!r}, "w").write(str(os.getpid()))
    time.sleep(600)  # killed meanwhile
    return "value"
with C.write_behind():
    C.Cache({str(cache_dir)!r}).put_made("demo", C.key("demo"), make)
print(went)
"""
    assert run(code, cache_dir) == "['handed over']"  # this process has ended; its writer makes the value
    for _ in range(6000):  # until the writer has started (bounded: it starts at once)
        if pid_file.exists() and pid_file.read_text():
            break
        time.sleep(0.01)
    pid = int(pid_file.read_text())
    assert pid != os.getpid()
    os.kill(pid, signal.SIGKILL)
    cache = C.Cache(cache_dir)
    assert cache.get("demo", C.key("demo")) is None
    assert not (cache_dir / "demo").exists() or not any((cache_dir / "demo").glob("*.pickle"))


def test_without_fork_the_entries_are_written_on_leaving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "fork", raising=False)
    cache = C.Cache(tmp_path)
    made: list[str] = []

    def make() -> str:
        made.append("made")
        return "value"

    with C.write_behind():
        assert cache.put("demo", C.key("a"), 1)
        assert cache.put_made("demo", C.key("b"), make)
        assert cache.get("demo", C.key("a")) is None and made == []  # waiting
        with C.write_behind():  # an inner one leaves the writing to the outer one
            assert cache.put("demo", C.key("c"), 3)
        assert cache.get("demo", C.key("c")) is None
    assert [cache.get("demo", C.key(n)) for n in "abc"] == [1, "value", 3] and made == ["made"]
    assert cache.put("demo", C.key("d"), 4) and cache.get("demo", C.key("d")) == 4  # at once again


def test_while_other_threads_run_the_entries_are_written_here(tmp_path: Path) -> None:
    import threading

    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        cache = C.Cache(tmp_path)
        with C.write_behind():
            cache.put("demo", C.key("a"), 1)
            assert C.flush() is False  # written here, not by a writer
            assert cache.get("demo", C.key("a")) == 1
    finally:
        stop.set()
        other.join()


def test_a_value_that_cannot_be_made_is_left_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "fork", raising=False)
    cache = C.Cache(tmp_path)

    def broken() -> str:
        raise RuntimeError("cannot be made")

    with C.write_behind():
        cache.put_made("demo", C.key("a"), broken)
        cache.put_made("demo", C.key("b"), lambda: None)
        cache.put("demo", C.key("c"), 3)
    assert [cache.get("demo", C.key(n)) for n in "abc"] == [None, None, 3]


@needs_fork
def test_a_process_forked_meanwhile_writes_its_entries_at_once(tmp_path: Path) -> None:
    """A worker or a search bot's copy of a game, forked while writes are left behind, never reaches the
    flush of its parent: it writes what it puts when it puts it."""
    cache_dir = tmp_path / "cache"
    code = f"""
with C.write_behind():
    pid = os.fork()
    if pid == 0:
        cache = C.Cache({str(cache_dir)!r})
        ok = cache.put("demo", C.key("child"), "from the child") and cache.get("demo", C.key("child")) is not None
        os._exit(0 if ok else 3)
    _, status = os.waitpid(pid, 0)
    print(os.WEXITSTATUS(status))
    print(C.Cache({str(cache_dir)!r}).get("demo", C.key("child")))
"""
    assert run(code, cache_dir).splitlines() == ["0", "from the child"]
