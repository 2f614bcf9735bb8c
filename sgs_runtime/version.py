"""The engine's version: one constant, which the package's metadata takes its version from
(pyproject.toml, ``[tool.setuptools.dynamic]``), so that telling it costs no look-up of installed packages.

>>> engine_version() == VERSION
True
"""

from __future__ import annotations

__all__ = ["VERSION", "engine_version"]

#: the version of sgs-engine (pyproject.toml reads it from here)
VERSION = "0.1.0"


def engine_version() -> str:
    """The engine's version (:data:`VERSION`): what transcripts, reports and SARIF logs name."""
    return VERSION
