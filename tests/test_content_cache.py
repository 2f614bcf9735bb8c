"""The content cache (sgs_dsl/cache.py): the same Content and diagnostics with it as without it.

Every test here keeps the cache in its own temporary folder (SGS_CACHE_DIR), never the user's.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, ROOT, copy_builtin_tree

from sgs_dsl import cache as C
from sgs_dsl.loader import FILE_ENTRY, Loader, _display, build, check_content, default_content_dir
from sgs_dsl.parser import walk


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "sgs-cache"
    monkeypatch.setenv("SGS_CACHE_DIR", str(folder))
    monkeypatch.delenv("SGS_NO_CACHE", raising=False)
    return folder


def entries(folder: Path) -> list[Path]:
    kind = folder / FILE_ENTRY
    return sorted(kind.glob("*.pickle")) if kind.is_dir() else []


def summary(obj: Any, seen: set[int] | None = None) -> Any:
    """A comparable picture of built content: every field of every definition, functions by name."""
    seen = set() if seen is None else seen
    if isinstance(obj, (str, int, float, bool, type(None))):
        return obj
    if callable(obj) and not dataclasses.is_dataclass(obj):
        return f"<function {getattr(obj, '__qualname__', type(obj).__name__)}>"
    if id(obj) in seen:
        return f"<again {type(obj).__name__}>"
    seen.add(id(obj))
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return (type(obj).__name__, {f.name: summary(getattr(obj, f.name), seen) for f in dataclasses.fields(obj)})
    if isinstance(obj, dict):
        return {str(k): summary(v, seen) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [summary(v, seen) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted(map(str, obj))
    return type(obj).__name__


def loaded(root: Path | None = None, extra: list[Path] | None = None, cache: Any = None) -> Loader:
    """A loader that has read and compiled a tree (to look at its syntax trees)."""
    loader = Loader(cache)
    loader.add_tree(root or default_content_dir())
    for p in extra or []:
        loader.add_path(p)
    loader.run()
    loader.save_cache()
    return loader


@dataclasses.dataclass
class Reference:
    """The built-in content built once without any cache, and a cache filled once."""

    content: Any
    picture: Any  # summary(content)
    asts: dict[Any, Any]
    filled: Path  # a cache folder holding the built-in content's entries


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Reference:
    plain = loaded()
    content, diags = build(cache=False)
    assert diags == []
    filled = tmp_path_factory.mktemp("filled") / "cache"
    build(cache=C.Cache(filled))
    return Reference(content, summary(content), plain._asts, filled)


@pytest.fixture
def warm(reference: Reference, cache_dir: Path) -> Path:
    """This test's cache folder, holding the built-in content's entries."""
    shutil.copytree(reference.filled, cache_dir)
    return cache_dir


def test_the_builtin_content_is_the_same_with_and_without_the_cache(reference: Reference, cache_dir: Path) -> None:
    assert not cache_dir.exists()
    cold, cold_diags = build()
    assert len(entries(cache_dir)) == len(reference.content.files)
    warm, warm_diags = build()
    assert cold_diags == warm_diags == []
    assert reference.picture == summary(cold) == summary(warm)


def test_the_syntax_trees_are_the_same_with_and_without_the_cache(reference: Reference, cache_dir: Path) -> None:
    cold = loaded(cache=C.Cache(cache_dir))
    warm_cache = C.Cache(cache_dir)
    warm = loaded(cache=warm_cache)
    assert warm_cache.hits == len(reference.content.files) and warm_cache.misses == 0 and warm_cache.writes == 0
    assert reference.asts == cold._asts == warm._asts
    assert sum(t is not None for t in warm._asts.values()) > 300


def test_what_is_stored_is_the_parser_s_result_whatever_is_done_to_it_later(reference: Reference,
                                                                            cache_dir: Path) -> None:
    cold = Loader(C.Cache(cache_dir))
    cold.add_tree(default_content_dir())
    cold.run()
    for tree in cold._asts.values():  # a later step that changes the trees it is given
        for node in walk(tree):
            if hasattr(node, "pos"):
                node.pos = (0, 0)
    cold.save_cache()
    assert loaded(cache=C.Cache(cache_dir))._asts == reference.asts


def test_a_game_plays_the_same_with_cached_content(reference: Reference, warm: Path) -> None:
    from sgs_runtime.runs.simulate import play_one

    cached, _ = build()
    a = play_one(reference.content, "identity", 5, seed=7)
    b = play_one(cached, "identity", 5, seed=7)
    assert a.error is None and dataclasses.asdict(a) == dataclasses.asdict(b)


INVALID = FIXTURES / "invalid"
#: one mistake of each step: YAML, the schema, the snippets' syntax, the compiler
ONE_OF_EACH = ["alias.yaml", "unknown_key.yaml", "effect_syntax_error.yaml", "folded_effect.yaml",
               "misspelt_card_in_effect.yaml"]


@pytest.mark.parametrize("name", ONE_OF_EACH)
def test_diagnostics_are_the_same_with_and_without_the_cache(name: str, warm: Path) -> None:
    path = INVALID / name
    plain = build(None, [path], cache=False)[1]
    first = check_content(None, [path])  # the fixture read, checked and parsed (the built-in packs are cached)
    again = check_content(None, [path])  # the fixture too, as far as it got the first time
    assert plain, "the fixture has a mistake"
    assert plain == first == again


def test_every_invalid_fixture_together_reports_the_same_with_and_without_the_cache(warm: Path) -> None:
    paths = sorted(INVALID.glob("*.yaml"))
    plain = build(None, paths, cache=False)[1]
    assert len({d.file for d in plain}) == len(paths)
    assert check_content(None, paths) == plain
    assert check_content(None, paths) == plain


def test_a_file_with_a_syntax_error_reports_it_every_time(tmp_path: Path, warm: Path) -> None:
    root = copy_builtin_tree(tmp_path / "content")
    f = root / "heroes" / "standard.yaml"
    text = f.read_text(encoding="utf-8")
    broken = text.replace("draw 2", "draw 2 +", 1)
    assert broken != text
    f.write_text(broken, encoding="utf-8")
    plain = build(root, cache=False)[1]
    assert [d.code for d in plain] == ["E200"]
    assert build(root)[1] == plain
    assert build(root)[1] == plain  # the file's other snippets came from the cache; this one is parsed again


def test_an_edited_file_is_read_again(tmp_path: Path, warm: Path) -> None:
    root = copy_builtin_tree(tmp_path / "content")  # the same bytes: the files are in the cache
    first, diags = build(root)
    assert diags == []
    before = set(entries(warm))
    f = root / "heroes" / "standard.yaml"
    text = f.read_text(encoding="utf-8")
    # a mistake the schema finds, then one the compiler finds, then a fixed file with another hp
    f.write_text(text.replace("gender: male", "gender: mael", 1), encoding="utf-8")
    assert build(root)[1] == build(root, cache=False)[1] != []
    f.write_text(text.replace("draw 2", "draw 2 + jnk", 1), encoding="utf-8")
    assert build(root)[1] == build(root, cache=False)[1] != []
    f.write_text(text.replace("hp: 4", "hp: 7", 1), encoding="utf-8")
    edited, diags = build(root)
    assert diags == []
    assert summary(edited) == summary(build(root, cache=False)[0]) != summary(first)
    assert len(set(entries(warm)) - before) == 2  # the file compiled twice, each its own entry


def test_a_file_moved_elsewhere_is_named_where_it_is(tmp_path: Path, warm: Path) -> None:
    pack = FIXTURES / "invalid" / "unknown_skill.yaml"
    first = build(None, [pack])[1]
    moved = tmp_path / "elsewhere.yaml"
    shutil.copy(pack, moved)
    again = build(None, [moved])[1]  # the same bytes: a cached entry, but the messages name the new file
    assert [(d.line, d.col, d.code, d.message) for d in again] == [(d.line, d.col, d.code, d.message) for d in first]
    assert {d.file for d in again} == {_display(moved)}
    assert again == build(None, [moved], cache=False)[1]


CORRUPTIONS = {
    "empty": lambda data: b"",
    "truncated": lambda data: data[: len(data) // 2],
    "garbage": lambda data: os.urandom(len(data)),
    "one byte changed": lambda data: data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:],
    "another format": lambda data: b"SGSC0\n" + data[6:],
}


def test_a_corrupt_cache_is_ignored_and_written_again(reference: Reference, warm: Path) -> None:
    files = entries(warm)
    assert len(files) > len(CORRUPTIONS)
    hows = sorted(CORRUPTIONS)
    for i, p in enumerate(files):  # each file spoilt in one of the ways
        p.write_bytes(CORRUPTIONS[hows[i % len(hows)]](p.read_bytes()))
    again, diags = build()
    assert diags == [] and summary(again) == reference.picture
    cache = C.Cache(warm)
    assert all(cache.get(FILE_ENTRY, p.stem) is not None for p in files)  # each was written again


def test_a_trusted_entry_of_the_wrong_shape_is_ignored(reference: Reference, warm: Path) -> None:
    cache = C.Cache(warm)
    files = entries(warm)
    for i, p in enumerate(files):  # well-formed entries (checksums right) holding the wrong things
        wrong: Any = [None, {"key": p.stem}, {"key": p.stem, "kind": "cards", "doc": b"nonsense", "trees": {}},
                      {"key": "0" * 64, "kind": "cards", "doc": b"", "trees": {}}][i % 4]
        assert cache.put(FILE_ENTRY, p.stem, wrong)
    again, diags = build()
    assert diags == [] and summary(again) == reference.picture


def test_an_unreadable_syntax_tree_is_parsed_again(reference: Reference, warm: Path) -> None:
    cache = C.Cache(warm)
    for p in entries(warm):
        value = cache.get(FILE_ENTRY, p.stem)
        assert value is not None
        value["trees"] = {k: b"not a pickle" for k in value["trees"]}
        cache.put(FILE_ENTRY, p.stem, value)
    assert loaded(cache=C.Cache(warm))._asts == reference.asts


def test_sgs_no_cache_reads_and_writes_nothing(reference: Reference, cache_dir: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGS_NO_CACHE", "1")
    assert C.disabled() and C.default_cache() is None
    content, diags = build()
    assert diags == [] and not cache_dir.exists() and summary(content) == reference.picture
    monkeypatch.setenv("SGS_NO_CACHE", "0")
    assert not C.disabled() and C.default_cache() is not None
    shutil.copytree(reference.filled, cache_dir)
    monkeypatch.setenv("SGS_NO_CACHE", "yes")
    for p in entries(cache_dir):
        p.write_bytes(b"corrupt")  # not even looked at (a read would write it again)
    assert summary(build()[0]) == reference.picture
    assert all(p.read_bytes() == b"corrupt" for p in entries(cache_dir))


def test_where_the_cache_lives(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SGS_CACHE_DIR", str(tmp_path / "a"))
    assert C.cache_dir() == tmp_path / "a"
    monkeypatch.delenv("SGS_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert C.cache_dir() == tmp_path / "xdg" / "sgs-engine"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert C.cache_dir() == tmp_path / "home" / ".cache" / "sgs-engine"


def test_a_cache_that_cannot_be_written_changes_nothing(reference: Reference, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("SGS_CACHE_DIR", str(blocker / "cache"))
    content, diags = build()
    assert diags == [] and summary(content) == reference.picture
    assert not C.Cache(blocker / "cache").put("demo", C.key("x"), 1)


def test_get_and_put_by_kind_and_key(cache_dir: Path) -> None:
    cache = C.Cache(cache_dir)
    k = C.key("snippet text", b"\x00bytes")
    assert k != C.key("snippet tex", b"t\x00bytes")  # parts are kept apart
    assert cache.get("code", k) is None
    assert cache.put("code", k, {"a": (1, 2)}) and cache.get("code", k) == {"a": (1, 2)}
    assert cache.get("other_kind", k) is None  # each kind is its own folder
    assert not list((cache_dir / "code").glob(".tmp-*"))  # written through a temporary file, then renamed
    with pytest.raises(ValueError):
        cache.put("../up", k, 1)
    with pytest.raises(ValueError):
        cache.get("code", "../../etc")


def _put_aged(cache: C.Cache, cache_dir: Path, n: int) -> list[str]:
    """Write ``n`` entries of the kind ``demo``, each written a second after the one before; their keys."""
    keys = [C.key(str(i)) for i in range(n)]
    for i, k in enumerate(keys):
        cache.put("demo", k, i)
        os.utime(cache_dir / "demo" / f"{k}.pickle", ns=(i * 10**9, i * 10**9))
    return keys


def test_old_entries_are_removed(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(C, "MAX_ENTRIES", 3)
    cache = C.Cache(cache_dir)
    keys = _put_aged(cache, cache_dir, 6)
    assert sorted(p.stem for p in (cache_dir / "demo").glob("*.pickle")) == sorted(keys[-3:])


def test_a_full_cache_removes_a_tenth_at_once(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(C, "MAX_ENTRIES", 20)
    cache = C.Cache(cache_dir)
    keys = _put_aged(cache, cache_dir, 21)
    # the 21st write found 21 entries: the oldest three went at once (down to 18), so the next two
    # writes remove nothing
    assert sorted(p.stem for p in (cache_dir / "demo").glob("*.pickle")) == sorted(keys[3:])
    cache.put("demo", C.key("more"), 0)
    cache.put("demo", C.key("and more"), 0)
    assert len(list((cache_dir / "demo").glob("*.pickle"))) == 20


def test_the_stamp_changes_with_the_grammar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = C.engine_stamp("lark")
    assert C.engine_stamp("lark") == first != C.engine_stamp("lark", "yaml")
    fake = tmp_path / "sgs_dsl"
    fake.mkdir()
    for name in ("grammar.lark", "parser.py", "ast.py", "cache.py"):
        shutil.copy(ROOT / "sgs_dsl" / name, fake / name)
    monkeypatch.setattr(C, "__file__", str(fake / "cache.py"))
    C.engine_stamp.cache_clear()
    try:
        copy = C.engine_stamp("lark")
        (fake / "grammar.lark").write_text((fake / "grammar.lark").read_text() + "\n// changed\n")
        C.engine_stamp.cache_clear()
        assert C.engine_stamp("lark") != copy
    finally:
        C.engine_stamp.cache_clear()


def run(code: str, cache_dir: Path, **env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "SGS_NO_CACHE"}
    environ.update(SGS_CACHE_DIR=str(cache_dir), **env)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environ, cwd=ROOT,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


HEAVY = ("lark", "jsonschema", "yaml", "matplotlib", "dask", "rich", "numpy")
LOADED = f"import sys; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"


def test_the_command_imports_nothing_heavy(cache_dir: Path) -> None:
    assert run("import sgs_cli.main; " + LOADED, cache_dir) == "[]"


def test_a_warm_start_needs_neither_lark_nor_jsonschema_nor_yaml(cache_dir: Path) -> None:
    code = "from sgs_dsl.loader import check_content; assert check_content() == []; " + LOADED
    # cold: everything is read and parsed; the files all pass their schemas, which needs no jsonschema
    assert run(code, cache_dir) == "['lark', 'yaml']"
    assert run(code, cache_dir) == "[]"  # warm
    assert run(code, cache_dir, SGS_NO_CACHE="1") == "['lark', 'yaml']"


def test_warnings_are_kept_and_found_again_only_for_the_same_files(tmp_path: Path, warm: Path) -> None:
    from sgs_dsl.loader import LINT_ENTRY

    root = copy_builtin_tree(tmp_path / "content")
    f = root / "heroes" / "standard.yaml"
    text = f.read_text(encoding="utf-8")
    # a hero without skills: warning W401
    f.write_text(text.replace("skills: [ganglie]", "skills: []", 1), encoding="utf-8")
    fresh = build(root, lint=True, cache=False)[1]
    assert any(d.code == "W401" for d in fresh)
    assert build(root, lint=True)[1] == fresh  # computed, then kept
    kept = sorted((warm / LINT_ENTRY).glob("*.pickle"))
    assert len(kept) == 1
    assert build(root, lint=True)[1] == fresh  # found again
    assert sorted((warm / LINT_ENTRY).glob("*.pickle")) == kept
    f.write_text(text, encoding="utf-8")  # the skill is back: the warning goes
    again = build(root, lint=True)[1]
    assert again == build(root, lint=True, cache=False)[1]
    assert not any(d.code == "W401" and "standard.yaml" in d.path for d in again)


# ---------------------------------------------------------------- the whole tree built (sgs_dsl/snapshot.py)


def built(folder: Path) -> list[Path]:
    from sgs_dsl.loader import CONTENT_ENTRY

    kind = folder / CONTENT_ENTRY
    return sorted(kind.glob("*.pickle")) if kind.is_dir() else []


def counting() -> tuple[C.Cache, Any]:
    """The user's cache, counting reads, and the loader's built-content kind."""
    from sgs_dsl.loader import CONTENT_ENTRY

    return C.Cache(C.cache_dir()), CONTENT_ENTRY


def test_a_warm_build_reads_the_content_back_whole(reference: Reference, warm: Path) -> None:
    assert len(built(warm)) == 1  # the fixture's cache holds the built-in content, built
    cache, _ = counting()
    content, diags = build(cache=cache)
    assert diags == [] and summary(content) == reference.picture
    assert cache.writes == 0  # nothing was built, so nothing new was kept
    assert content.env == reference.content.env


def test_games_play_the_same_with_content_read_back_whole(reference: Reference, warm: Path) -> None:
    from sgs_runtime.runs.simulate import play_one

    kept, _ = build()
    for players, seed in ((2, 1), (5, 7), (8, 3)):
        a = play_one(reference.content, "identity", players, seed=seed, agents="heuristic")
        b = play_one(kept, "identity", players, seed=seed, agents="heuristic")
        assert a.error is None and dataclasses.asdict(a) == dataclasses.asdict(b)


def test_snippets_read_back_compile_with_the_content_s_positions(warm: Path) -> None:
    from sgs_dsl import codegen

    kept, _ = build()
    trigger = next(t for s in kept.skills.values() for t in s.triggers)
    fn: Any = trigger.body
    assert codegen.unit_of(fn) is not None
    codegen.compile_pending()
    assert fn.__code__.co_filename == trigger.source.file and fn.__code__.co_firstlineno > 1


def test_a_deleted_cache_is_built_again(reference: Reference, warm: Path) -> None:
    shutil.rmtree(warm)
    first, diags = build()
    assert diags == [] and summary(first) == reference.picture and len(built(warm)) == 1
    second, _ = build()
    assert summary(second) == reference.picture


def test_a_changed_file_builds_the_tree_again(tmp_path: Path, warm: Path) -> None:
    root = copy_builtin_tree(tmp_path / "content")
    first, _ = build(root)
    assert len(built(warm)) == 2  # the same bytes in another place: built again, kept apart
    f = root / "heroes" / "standard.yaml"
    f.write_text(f.read_text(encoding="utf-8").replace("hp: 4", "hp: 7", 1), encoding="utf-8")
    edited, diags = build(root)
    assert diags == [] and len(built(warm)) == 3
    assert summary(edited) == summary(build(root, cache=False)[0]) != summary(first)
    assert summary(build(root)[0]) == summary(edited)  # and read back


def test_a_compiler_s_diagnostics_are_kept_with_the_content(warm: Path) -> None:
    path = INVALID / "misspelt_card_in_effect.yaml"
    plain = build(None, [path], cache=False)[1]
    assert [d.code for d in plain] == ["E300"]
    before = len(built(warm))
    assert build(None, [path])[1] == plain
    assert len(built(warm)) == before + 1
    assert build(None, [path])[1] == plain  # read back with the content


def test_another_engine_code_builds_again(reference: Reference, warm: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sgs_dsl import snapshot

    monkeypatch.setattr(snapshot, "code_stamp", lambda: "another engine")
    cache, _ = counting()
    content, _ = build(cache=cache)
    assert summary(content) == reference.picture
    assert len(built(warm)) == 2 and cache.writes == 1  # the old entry is not used; a new one is kept


def test_the_code_stamp_changes_with_the_compiler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sgs_dsl import snapshot

    fake = tmp_path / "tree"
    for package in ("sgs_dsl", "sgs_runtime"):
        shutil.copytree(ROOT / package, fake / package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(snapshot, "__file__", str(fake / "sgs_dsl" / "snapshot.py"))
    snapshot.code_stamp.cache_clear()
    try:
        copy = snapshot.code_stamp()
        assert snapshot.code_stamp() == copy
        for changed in ("sgs_dsl/compiler.py", "sgs_runtime/resolution/vocabulary.py", "sgs_dsl/grammar.lark"):
            f = fake / changed
            f.write_bytes(f.read_bytes() + b"\n# changed\n")
            snapshot.code_stamp.cache_clear()
            assert snapshot.code_stamp() != copy
            copy = snapshot.code_stamp()
    finally:
        snapshot.code_stamp.cache_clear()


@pytest.mark.parametrize("how", sorted(CORRUPTIONS))
def test_a_spoilt_built_content_is_ignored_and_kept_again(how: str, reference: Reference, warm: Path) -> None:
    [entry] = built(warm)
    entry.write_bytes(CORRUPTIONS[how](entry.read_bytes()))
    content, diags = build()
    assert diags == [] and summary(content) == reference.picture
    assert C.Cache(warm).get(counting()[1], entry.stem) is not None  # written again


@pytest.mark.parametrize("wrong", [None, b"not a pickle", (1, 2), "text"])
def test_a_built_entry_of_the_wrong_shape_is_ignored(wrong: Any, reference: Reference, warm: Path) -> None:
    [entry] = built(warm)
    cache, kind = counting()
    assert cache.put(kind, entry.stem, wrong if wrong is not None else {"content": 1})
    content, diags = build()
    assert diags == [] and summary(content) == reference.picture


def test_a_cached_document_that_cannot_be_read_reads_every_file_again(reference: Reference, warm: Path) -> None:
    for entry in built(warm):
        entry.unlink()  # the tree must be built, from the files' entries
    cache = C.Cache(warm)
    for p in entries(warm):
        value = cache.get(FILE_ENTRY, p.stem)
        value["doc"] = b"not a document"
        cache.put(FILE_ENTRY, p.stem, value)
    content, diags = build()
    assert diags == [] and summary(content) == reference.picture


def test_warnings_are_right_when_only_the_content_is_kept(tmp_path: Path, warm: Path) -> None:
    from sgs_dsl.loader import LINT_ENTRY

    root = copy_builtin_tree(tmp_path / "content")
    f = root / "heroes" / "standard.yaml"
    f.write_text(f.read_text(encoding="utf-8").replace("skills: [ganglie]", "skills: []", 1), encoding="utf-8")
    fresh = build(root, lint=True, cache=False)[1]
    assert any(d.code == "W401" for d in fresh)
    assert build(root, lint=True)[1] == fresh
    shutil.rmtree(warm / LINT_ENTRY)  # the built content is kept, its warnings are not
    assert build(root, lint=True)[1] == fresh
    assert build(root, lint=True)[1] == fresh


def test_an_overlaid_file_is_never_read_back_whole(tmp_path: Path, warm: Path) -> None:
    root = copy_builtin_tree(tmp_path / "content")
    f = root / "heroes" / "standard.yaml"
    text = f.read_text(encoding="utf-8")
    overlay = {os.path.abspath(f): text.replace("hp: 4", "hp: 7", 1)}
    before = built(warm)
    content, diags = build(root, overlay=overlay)
    assert diags == [] and built(warm) == before
    assert summary(content) == summary(build(root, overlay=overlay, cache=False)[0])


def test_a_warm_start_imports_neither_the_parser_nor_the_syntax_tree(cache_dir: Path) -> None:
    code = ("from sgs_dsl.loader import check_content; assert check_content() == []; import sys; "
            "print(sorted(m for m in ('lark', 'sgs_dsl.lark_parser', 'sgs_dsl.ast') "
            "if m in sys.modules and type(sys.modules[m]).__name__ == 'module'))")
    assert run(code, cache_dir) != "[]"  # cold: everything is parsed
    assert run(code, cache_dir) == "[]"  # warm: the content is read back whole


def test_only_the_latest_built_trees_are_kept(tmp_path: Path, warm: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sgs_dsl import loader

    monkeypatch.setattr(loader, "BUILT_KEPT", 2)
    root = copy_builtin_tree(tmp_path / "content")
    f = root / "heroes" / "standard.yaml"
    text = f.read_text(encoding="utf-8")
    for hp in (5, 6, 7):  # each edit builds (and keeps) another tree
        f.write_text(text.replace("hp: 4", f"hp: {hp}", 1), encoding="utf-8")
        assert build(root)[1] == []
    assert len(built(warm)) == 2
    assert len(entries(warm)) > 2  # the files' own entries are many more
