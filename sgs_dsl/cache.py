"""A cache, kept between runs, of content loading's pure and expensive steps.

Loading content reads YAML, checks every file against its JSON schema and parses
every effect snippet with Lark. Each of these depends on nothing but the file's
bytes and the engine's own code, so their results are kept in a user cache folder
and reused while neither changes:

* ``$SGS_CACHE_DIR`` when set, else ``$XDG_CACHE_HOME/sgs-engine``, else
  ``~/.cache/sgs-engine``;
* ``SGS_NO_CACHE=1`` (or any value but ``0`` and the empty text) turns it off:
  nothing is read or written.

The cache is a set of entries, each found by a *kind* (a short word naming what it
holds, a folder of its own) and a *key* (a hash of everything the value depends on,
:func:`key`). Entries are written atomically (a temporary file, then
``os.replace``), so a reader never sees half an entry. Every entry carries a
checksum of its bytes: one that is unreadable, truncated, altered, or written by
another version of the format is a miss (and is written again by the next run
that computes the value), never an error. Deleting the folder is always safe.

The values are pickled: only entries in the user's own cache folder, in files the
user owns, are read (the same trust as Python's own ``__pycache__``).

Writing can be left to another process (:func:`write_behind`, which the ``sgs`` command
uses): entries put meanwhile wait in the process, and :func:`flush` hands them to a
forked writer, which makes and writes them while the command goes on (where the system
cannot fork, or other threads run, they are written in the process as before). The
writer works as :meth:`Cache.put` does, so a writer killed half way leaves no entry,
only perhaps a temporary file that no reader opens.

The loader keeps the kinds ``content_file`` (one file), ``built_content`` (a whole tree
built, :mod:`sgs_dsl.snapshot`) and ``lint_warnings`` (sgs_dsl.loader); compiled snippets
are kept under ``code`` (:class:`CodeStore`). Another kind is added by choosing its word
and what its key hashes.

>>> import tempfile
>>> c = Cache(Path(tempfile.mkdtemp()))
>>> c.put("demo", key("a", b"b"), {"x": 1})
True
>>> c.get("demo", key("a", b"b"))
{'x': 1}
>>> c.get("demo", key("another")) is None
True
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, MutableMapping
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

#: the first bytes of an entry: the format, then a checksum of what follows
MAGIC = b"SGSC1\n"
_DIGEST = 16  # bytes of blake2b
#: entries of one kind kept at most; past this the oldest are removed when one is written, a tenth of
#: them at once (a full cache then lists its entries by age once every hundred writes, not at each one)
MAX_ENTRIES = 1000

__all__ = ["Cache", "CodeStore", "MAX_ENTRIES", "cache_dir", "default_cache", "disabled", "engine_stamp", "flush", "key",
           "write_behind"]


def disabled() -> bool:
    """``SGS_NO_CACHE`` is set (to anything but ``0`` or nothing)."""
    return os.environ.get("SGS_NO_CACHE", "").strip() not in ("", "0")


def cache_dir() -> Path:
    """Where the cache lives (whether or not it exists yet)."""
    given = os.environ.get("SGS_CACHE_DIR")
    if given:
        return Path(given)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg) / "sgs-engine"
    return Path.home() / ".cache" / "sgs-engine"


def key(*parts: str | bytes) -> str:
    """A hash of ``parts`` (texts and bytes, each length-prefixed so that no two lists collide)."""
    h = hashlib.sha256()
    for p in parts:
        b = p.encode("utf-8", "surrogatepass") if isinstance(p, str) else p
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


class Cache:
    """Entries by (kind, key) in one folder: :meth:`get` and :meth:`put`, never raising."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.hits = 0
        self.misses = 0
        self.writes = 0

    def _path(self, kind: str, k: str) -> Path:
        return Path(self._file(kind, k))

    def _file(self, kind: str, k: str) -> str:
        """The file of an entry, as a text (a read makes no :class:`Path`)."""
        if not kind.isidentifier() or not k.isalnum():
            raise ValueError(f"a cache kind is a word and a key is hexadecimal, not {kind!r}, {k!r}")
        return os.path.join(os.fspath(self.root), kind, k + ".pickle")

    def get(self, kind: str, k: str) -> Optional[Any]:
        """The value stored under (kind, key), or None when there is none that can be trusted."""
        value = self._read(self._file(kind, k))
        if value is None:
            self.misses += 1
        else:
            self.hits += 1
        return value

    def _read(self, path: str | Path) -> Optional[Any]:
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if hasattr(os, "getuid") and st.st_uid != os.getuid():
                return None  # someone else's file: not unpickled
            data = b""
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                data += chunk
        except OSError:
            return None
        finally:
            os.close(fd)
        head = len(MAGIC) + _DIGEST
        if len(data) <= head or not data.startswith(MAGIC):
            return None
        body = data[head:]
        if hashlib.blake2b(body, digest_size=_DIGEST).digest() != data[len(MAGIC):head]:
            return None
        try:
            return pickle.loads(body)
        except Exception:  # a class that has moved or gone: a miss like any other
            return None

    def put(self, kind: str, k: str, value: Any, keep: Optional[int] = None) -> bool:
        """Store ``value`` (never None); False when it could not be written (the cache is best effort).

        ``keep``: how many entries of the kind are kept at most (default :data:`MAX_ENTRIES`; less for
        large entries). While writes are left behind (:func:`write_behind`) the entry waits for
        :func:`flush` and True is returned."""
        return self._put(self._path(kind, k), lambda: value, keep, none_too=True)

    def put_made(self, kind: str, k: str, make: Callable[[], Any], keep: Optional[int] = None) -> bool:
        """Store what ``make()`` returns (nothing when it returns None), as :meth:`put` does.

        While writes are left behind (:func:`write_behind`), ``make`` is called by the writer, not now:
        the work of making the value (pickling a whole content ...) is the writer's too."""
        return self._put(self._path(kind, k), make, keep, none_too=False)

    def _put(self, path: Path, make: Callable[[], Any], keep: Optional[int], none_too: bool) -> bool:
        job = (self, path, make, MAX_ENTRIES if keep is None else keep, none_too)
        if _behind is not None:
            _behind.append(job)
            return True
        return _run_one(job)

    def _write(self, path: Path, value: Any, keep: int) -> bool:
        """Write one entry atomically (a temporary file, then ``os.replace``); False when it cannot be."""
        try:
            body = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            return False
        data = MAGIC + hashlib.blake2b(body, digest_size=_DIGEST).digest() + body
        tmp = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".pickle", dir=path.parent)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
            tmp = None
        except OSError:
            return False
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
        self.writes += 1
        self._prune(path.parent, keep)
        return True

    def _prune(self, folder: Path, keep: int) -> None:
        """Keep at most ``keep`` entries in a kind's folder: the least recently written go, down to nine
        tenths of ``keep`` (sorting the entries by age costs a look at each file; a cache whose entries in
        use outnumber ``keep`` would pay it at every write). A temporary file older than
        :data:`STALE_TMP` seconds was left by a writer that was killed: it goes too."""
        try:
            with os.scandir(folder) as it:
                found = [e for e in it if e.name.endswith(".pickle")]
            entries = [e for e in found if not e.name.startswith(".tmp-")]
            old = time.time() - STALE_TMP
            for e in found:
                if e.name.startswith(".tmp-"):
                    try:
                        if e.stat().st_mtime < old:
                            os.unlink(e.path)
                    except OSError:  # (another writer's, just moved into place)
                        pass
            if len(entries) <= keep:
                return
            entries.sort(key=lambda e: e.stat().st_mtime_ns)
            for e in entries[:len(entries) - (keep - keep // 10)]:
                os.unlink(e.path)
        except OSError:
            pass


#: seconds after which a temporary file of a write is taken as left by a killed writer (a write takes far less)
STALE_TMP = 3600.0

#: an entry to write: the cache, the entry's file, what makes the value, how many of its kind are kept, and
#: whether a None made is stored too (:meth:`Cache.put`) or means "nothing to store" (:meth:`Cache.put_made`)
_Job = tuple[Cache, Path, Callable[[], Any], int, bool]
#: the entries waiting for :func:`flush` while writes are left behind (None: every entry is written when put)
_behind: Optional[list[_Job]] = None


@contextmanager
def write_behind() -> Iterator[None]:
    """Within: entries put in any cache wait, and are written by :func:`flush` (called on leaving too).

    For a command that only needs to go on: :func:`flush` lets a forked process make and write
    them. A library call (:func:`sgs_dsl.loader.build`) writes at once unless its caller asks this,
    so that what it stored is there when it returns."""
    global _behind
    if _behind is not None:  # already behind: the outer one flushes
        yield
        return
    _behind = []
    try:
        yield
    finally:
        flush()
        _behind = None


def _forked_child() -> None:
    """In a process forked from this one (a worker, a search bot's copy of a game): entries are written
    when put again, since the child never reaches the :func:`flush` of its parent's :func:`write_behind`."""
    global _behind
    _behind = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked_child)


def flush() -> bool:
    """Write the entries waiting (:func:`write_behind`): in a forked writer where the system can fork
    and no other thread runs (True), else here, before returning (False; also when none wait)."""
    if not _behind:
        return False
    jobs = list(_behind)
    _behind.clear()
    where = _fork_writer()
    if where == "writer":
        try:
            _run(jobs)
        finally:
            os._exit(0)
    if where == "here":
        _run(jobs)
    return where == "handed over"


def _run(jobs: list[_Job]) -> None:
    """Make and write each entry."""
    for job in jobs:
        _run_one(job)


def _run_one(job: _Job) -> bool:
    """Make and write one entry; False when it is not written (a value that cannot be made, or None from
    :meth:`Cache.put_made`'s maker, is left out)."""
    cache, path, make, keep, none_too = job
    try:
        value = make()
    except Exception:
        return False
    if value is None and not none_too:
        return False
    return cache._write(path, value, keep)


def _fork_writer() -> str:
    """Fork a writer: "writer" in it (which must end with ``os._exit``); here, "handed over" when it
    runs, "here" when none could be forked (no ``os.fork``, other threads running, a failure).

    The writer is a grandchild (the child forks it and ends at once, and is waited for here), so
    that no process is left for this one to reap; it does not hold this process's standard streams
    (a caller reading them to their end does not wait for it) and works at a lower priority."""
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return "here"
    try:
        child = os.fork()
    except OSError:
        return "here"
    if child == 0:
        try:
            writer = os.fork()
        except BaseException:
            os._exit(1)  # no writer: the entries are written here
        if writer != 0:
            os._exit(0)  # the writer runs
        try:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            os.nice(5)
        except OSError:  # a writer that keeps the streams or its priority writes all the same
            pass
        import gc

        gc.disable()  # a collection would touch (and so copy) every page of this process's memory
        return "writer"
    try:
        _, status = os.waitpid(child, 0)
    except OSError:
        return "here"
    return "handed over" if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else "here"


def default_cache() -> Optional[Cache]:
    """The user's cache (:func:`cache_dir`), or None when ``SGS_NO_CACHE`` turns it off."""
    if disabled():
        return None
    return Cache(cache_dir())


def _module_file(name: str) -> Optional[str]:
    """The file of a module, found without importing it."""
    from importlib.util import find_spec

    try:
        spec = find_spec(name)
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None else None


@lru_cache(maxsize=None)
def engine_stamp(*libraries: str) -> str:
    """A hash of the engine's code that shapes what is cached, and of the versions of ``libraries``.

    The grammar, the parser, the syntax tree's classes, the YAML reader, the loader
    and the quick schema check (which check files against their schemas) and the
    schemas are read in full (they are small). A change of the compiler does not count
    here: what it makes is kept under :func:`sgs_dsl.snapshot.code_stamp`, which hashes
    all of the engine. A library is identified by where its top module lies and that
    file's size and time of change, so that nothing is imported to tell its version.
    """
    here = Path(__file__).parent
    parts: list[str | bytes] = [MAGIC, sys.version]
    mine = [here / n for n in ("grammar.lark", "parser.py", "lark_parser.py", "ast.py", "yamlsafe.py", "loader.py",
                               "schemacheck.py", "cache.py")]
    mine += sorted((here / "schemas").glob("*.json"))
    for p in mine:
        try:
            parts += [p.name, p.read_bytes()]
        except OSError:
            parts += [p.name, b"?"]
    for lib in libraries:
        origin = _module_file(lib)
        try:
            st = os.stat(origin) if origin else None
        except OSError:
            st = None
        parts += [lib, f"{origin}:{st.st_size}:{st.st_mtime_ns}" if st else "?"]
    return key(*parts)


class CodeStore(MutableMapping[str, bytes]):
    """Compiled snippet code (``marshal`` bytes) in a :class:`Cache`, under the kind ``code``.

    A code object only suits the Python that made it, so the key given (the unit's own hash,
    :meth:`sgs_dsl.codegen.Unit.key`) is hashed again with the interpreter's bytecode magic number.

    >>> import tempfile
    >>> store = CodeStore(Cache(Path(tempfile.mkdtemp())))
    >>> store["ab12"] = b"code"
    >>> store["ab12"], "cd34" in store
    (b'code', False)
    """

    def __init__(self, cache: Cache) -> None:
        self.cache = cache

    @staticmethod
    def _key(k: str) -> str:
        return key(_magic(), k)

    def __getitem__(self, k: str) -> bytes:
        got = self.cache.get(CODE, self._key(k))
        if not isinstance(got, bytes):
            raise KeyError(k)
        return got

    def __setitem__(self, k: str, value: bytes) -> None:
        self.cache.put(CODE, self._key(k), value)

    def __delitem__(self, k: str) -> None:
        try:
            os.unlink(self.cache._path(CODE, self._key(k)))
        except OSError:
            raise KeyError(k) from None

    def __iter__(self) -> Iterator[str]:
        return iter(())  # the keys are hashes: nothing to list

    def __len__(self) -> int:
        return 0


#: the cache's kind for compiled snippets
CODE = "code"


@lru_cache(maxsize=None)
def _magic() -> bytes:
    """The interpreter's bytecode magic number (what a code object suits)."""
    from importlib.util import MAGIC_NUMBER

    return MAGIC_NUMBER
