"""The runtime's public face: a few names, imported when first used, and its example runs."""

from __future__ import annotations

import doctest
import subprocess
import sys

import sgs_runtime


def test_every_public_name_resolves() -> None:
    for name in sgs_runtime.__all__:
        assert getattr(sgs_runtime, name) is not None, name


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        sgs_runtime.NoSuchThing  # noqa: B018
    except AttributeError as exc:
        assert "no attribute 'NoSuchThing'" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("no error")


def test_the_package_example_runs() -> None:
    failures, tried = doctest.testmod(sgs_runtime, verbose=False)
    assert tried > 0 and failures == 0


def test_importing_the_package_imports_no_game_module() -> None:
    code = "import sys, sgs_runtime; print(sorted(m for m in sys.modules if m.startswith('sgs_runtime.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
