"""The compiled build's parts that can be checked without compiling (.ci/run compiles and plays it:
``python tools/compiled.py check``)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def compiled() -> ModuleType:
    return _tool("_sgs_tools_compiled", ROOT / "tools" / "compiled.py")


def test_every_compiled_module_is_a_runtime_module_that_imports(compiled: ModuleType) -> None:
    names = compiled.compiled_names(ROOT)
    assert len(names) == len(set(names)) >= 20
    for name in names:
        assert name.startswith("sgs_runtime."), name
        assert (ROOT / (name.replace(".", "/") + ".py")).is_file(), name
        importlib.import_module(name)


def test_the_modules_people_extend_stay_interpreted(compiled: ModuleType) -> None:
    names = set(compiled.compiled_names(ROOT))
    # Agent is extended by every agent (the terminal's, the browser's, the search bot)
    assert "sgs_runtime.agents" not in names


def _class_marks(path: Path) -> dict[str, set[str]]:
    """Each class of a module and the ``mypyc_attr`` options its decorators set."""
    out: dict[str, set[str]] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef):
            out[node.name] = {f"{kw.arg}={ast.literal_eval(kw.value)}" for d in node.decorator_list
                              if isinstance(d, ast.Call) and getattr(d.func, "id", "") == "mypyc_attr"
                              for kw in d.keywords}
    return out


def test_compiled_records_can_be_copied_and_kept(compiled: ModuleType) -> None:
    names = set(compiled.compiled_names(ROOT))
    # the content is pickled for a warm start, events and requests are copied for a seat's view: a
    # compiled class is copied only when marked so; the content itself keeps caches in its __dict__,
    # and frozen classes cannot be unpickled compiled, so those stay plain classes
    plain = {"Content", "Text", "Source", "PlayAction", "Response"}
    for module in ("sgs_runtime.state.definitions", "sgs_runtime.state.events", "sgs_runtime.resolution.requests"):
        if module not in names:
            continue
        for cls, marks in _class_marks(ROOT / (module.replace(".", "/") + ".py")).items():
            if cls in plain:
                assert "native_class=False" in marks, (module, cls)
            else:
                assert "serializable=True" in marks or "native_class=False" in marks, (module, cls)


def test_the_tree_copy_takes_what_git_sees(compiled: ModuleType) -> None:
    files = compiled._tree_files(ROOT)
    assert "setup.py" in files and "tools/build_backend.py" in files and "sgs_runtime/resolution/use.py" in files
    assert not any(f.endswith((".so", ".pyc")) for f in files)


def test_a_report_is_compared_without_its_timings(compiled: ModuleType) -> None:
    a = {"games": 3, "seconds": 1.5, "by_players": {"5": {"games_per_s": 9.0, "wins": [1, 2]}}}
    b = {"games": 3, "seconds": 2.5, "by_players": {"5": {"games_per_s": 4.0, "wins": [1, 2]}}}
    assert compiled._strip(a) == compiled._strip(b)
    assert compiled._strip(a) != compiled._strip({**b, "games": 4})


@pytest.fixture()
def backend(monkeypatch: pytest.MonkeyPatch) -> Any:
    """tools/build_backend.py over a stand-in for setuptools' backend, which records SGS_COMPILE."""
    module = _tool("_sgs_build_backend", ROOT / "tools" / "build_backend.py")
    calls: list[str] = []

    def build_editable(wheel_directory: str, config_settings: Any = None, metadata_directory: Any = None) -> str:
        calls.append(module.os.environ.get("SGS_COMPILE", ""))
        return "the wheel"

    monkeypatch.setattr(module._setuptools, "get_requires_for_build_wheel", lambda config_settings=None: ["wheel"])
    monkeypatch.setattr(module._setuptools, "build_editable", build_editable)
    module.calls = calls
    return module


def test_the_backend_asks_for_mypyc_only_when_compiling(backend: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SGS_COMPILE", raising=False)
    assert backend.get_requires_for_build_wheel() == ["wheel"]
    monkeypatch.setenv("SGS_COMPILE", "1")
    assert backend.get_requires_for_build_wheel() == ["wheel", "mypy==2.4.1"]


def test_an_editable_install_is_always_pure(backend: Any, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SGS_COMPILE", "1")
    assert backend.build_editable("dist") == "the wheel"
    assert backend.calls == [""]  # setuptools built it without SGS_COMPILE
    assert "ignored for an editable install" in capsys.readouterr().err


def test_the_pure_build_needs_no_mypy(monkeypatch: pytest.MonkeyPatch) -> None:
    """``sgs_runtime.native.mypyc_attr`` does nothing where mypy_extensions is missing."""
    monkeypatch.setitem(sys.modules, "mypy_extensions", None)  # an import of it fails
    native = _tool("_sgs_native_without_mypy", ROOT / "sgs_runtime" / "native.py")

    @native.mypyc_attr(allow_interpreted_subclasses=True)
    class Example:
        pass

    assert Example.__name__ == "Example"
