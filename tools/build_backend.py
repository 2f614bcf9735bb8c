"""The build backend: setuptools', asking for mypyc when ``SGS_COMPILE=1`` (setup.py).

An editable install is always pure Python: a compiled module next to its source would
shadow every later edit of that source.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Optional

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (the whole PEP 517 interface)

_MYPYC = "mypy==2.4.1"  # the mypyc the compiled build is checked with (.ci/run)


def compiling() -> bool:
    """Whether ``SGS_COMPILE`` asks for the compiled build (setup.py asks this too)."""
    return os.environ.get("SGS_COMPILE", "").lower() in ("1", "true", "yes")


def get_requires_for_build_wheel(config_settings: Optional[dict[str, Any]] = None) -> list[str]:
    extra = [_MYPYC] if compiling() else []
    return list(_setuptools.get_requires_for_build_wheel(config_settings)) + extra


def build_editable(wheel_directory: str, config_settings: Optional[dict[str, Any]] = None,
                   metadata_directory: Optional[str] = None) -> str:
    if compiling():
        print("SGS_COMPILE is ignored for an editable install: it stays pure Python "
              "(a compiled module would shadow later edits of its source)", file=sys.stderr)
        os.environ.pop("SGS_COMPILE", None)
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
