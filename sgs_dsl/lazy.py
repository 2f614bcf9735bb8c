"""Modules imported when first used: a warm start (content read back whole from the cache) never parses
or checks a snippet, so it need not pay for importing the parser, the syntax tree and the compiler.

>>> import sys
>>> m = lazy_module("sgs_dsl.errors")
>>> m.Diagnostic.__name__
'Diagnostic'
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

__all__ = ["lazy_module"]


def lazy_module(name: str) -> ModuleType:
    """Module ``name``: the module itself when it is already imported, else one that runs its code (imports
    it) when one of its attributes is first read (:class:`importlib.util.LazyLoader`)."""
    found = sys.modules.get(name)
    if found is not None:
        return found
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:  # pragma: no cover - a module of this package
        raise ImportError(f"no module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
