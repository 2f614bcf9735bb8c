"""Built content kept whole between runs: what checking and compiling a tree derived, read back at once.

A warm start (:mod:`sgs_dsl.cache`) still had to type every snippet again and
rebuild every definition, since what the checker makes (the definitions, the
units of generated code, the diagnostics) was not kept. This module keeps it:
:func:`dumps` turns a built :class:`~sgs_runtime.state.definitions.Content` and
its diagnostics into bytes, :func:`loads` gives them back, equal in every field.

Two kinds of objects need care:

* a compiled snippet is a function made from a :class:`~sgs_dsl.codegen.Unit`: it is
  kept as its unit (file, globals, source and spans) and its name, and loaded again
  from them (:func:`sgs_dsl.codegen.revive`; compiled when first called, from the
  code cache when that has it);
* the constants the generated code reads (the runtime's attribute readers, operations,
  marker objects ...) belong to the engine's modules, and some cannot be pickled at
  all (lambdas in the vocabulary's tables) or must stay the very object (markers
  compared with ``is``): each is kept as its *place* in a module of the engine (the
  module, a global's name, then keys, indexes or attribute names) and found there
  again. Tuples, dicts, lists and sets are kept by value (pickle does not ask about
  them); a snippet whose constants include one of the engine's own dicts, lists or
  sets is refused, since a copy of it would not see the engine change it. The places are only valid for the same code, which is why the key of a
  kept content hashes the engine's source (:func:`code_stamp`).

Anything that cannot be kept makes :func:`dumps` return None (the content is then
simply built every time); anything that cannot be read back makes :func:`loads`
return None (a miss).
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import sys
from functools import lru_cache
from importlib import import_module
from types import FunctionType, ModuleType
from typing import Any, Optional

from .codegen import revive, unit_of

__all__ = ["code_stamp", "dumps", "loads"]

#: a place in a module: the module's name, then a global's name, then keys, indexes and attribute names
Place = tuple[Any, ...]

#: objects whose value is all there is to them: kept by value, never by place
_ATOMS = (str, bytes, int, float, complex, bool, type(None))
#: how deep the places below a module's global are looked for
_DEPTH = 4
#: the packages whose source shapes a built content (its definitions, checks, generated code and constants)
_PACKAGES = ("sgs_dsl", "sgs_runtime")


@lru_cache(maxsize=None)
def code_stamp() -> str:
    """A hash of the engine's code that a kept content depends on: every ``.py`` file of :data:`_PACKAGES`,
    the grammar and the schemas, by name and bytes (and the Python version)."""
    h = hashlib.sha256(sys.version.encode())
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for package in _PACKAGES:
        found: list[str] = []
        for folder, dirs, files in os.walk(os.path.join(top, package)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            found += (os.path.join(folder, f) for f in files if f.endswith((".py", ".lark", ".json")))
        for path in sorted(found):
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                data = b"?"
            name = os.path.relpath(path, top).replace(os.sep, "/").encode()
            h.update(len(name).to_bytes(8, "little") + name + len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def _constant_modules() -> list[ModuleType]:
    """The modules the compiler takes constants from: itself and every module of the engine it imports from."""
    from . import compiler

    names = {compiler.__name__}
    for value in vars(compiler).values():
        name = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", None)
        if isinstance(name, str) and name.split(".")[0] in _PACKAGES:
            names.add(name)
    return [sys.modules[n] for n in sorted(names) if n in sys.modules]


def _places() -> tuple[dict[int, Place], set[int]]:
    """Every object reachable from the globals of :func:`_constant_modules` (through dicts with text keys,
    lists, tuples and the attributes of the engine's own objects), by id, with its place; and the ids of
    the mutable containers among them (dicts, lists, sets), which pickle keeps by value."""
    found: dict[int, Place] = {}
    containers: set[int] = set()

    def visit(obj: Any, place: Place, depth: int) -> None:
        if isinstance(obj, _ATOMS) or id(obj) in found:
            return
        if isinstance(obj, (dict, list, set)):
            containers.add(id(obj))
        elif not isinstance(obj, (tuple, frozenset)):  # an empty one is shared by everything: kept by value
            found[id(obj)] = place
        if depth >= _DEPTH or isinstance(obj, (type, ModuleType, FunctionType)):
            return
        if isinstance(obj, dict):
            for k, v in list(obj.items()):
                if isinstance(k, (str, int)):
                    visit(v, (*place, ("key", k)), depth + 1)
        elif isinstance(obj, (list, tuple)):
            for i, v in enumerate(obj):
                visit(v, (*place, ("index", i)), depth + 1)
        elif type(obj).__module__.split(".")[0] in _PACKAGES and hasattr(obj, "__dict__"):
            for k, v in list(vars(obj).items()):
                visit(v, (*place, ("attr", k)), depth + 1)

    for module in _constant_modules():
        for name, value in list(vars(module).items()):
            if isinstance(value, ModuleType) or name.startswith("__"):
                continue
            if isinstance(value, (type, FunctionType)) and getattr(value, "__module__", None) != module.__name__:
                continue  # imported from elsewhere: its own module names it
            visit(value, (module.__name__, name), 1)
    return found, containers


def _find(place: Place) -> Any:
    """The object at ``place`` (raises when there is none: the content is then built again).

    >>> from sgs_dsl import compiler
    >>> _find(("sgs_dsl.compiler", "GLOBALS", ("key", "inf"))) is compiler.GLOBALS["inf"]
    True
    """
    obj: Any = import_module(place[0])
    obj = getattr(obj, place[1])
    for how, k in place[2:]:
        obj = obj[k] if how in ("key", "index") else getattr(obj, k)
    return obj


class _Pickler(pickle.Pickler):
    """Snippet functions as their unit and name; the engine's own objects as their place."""

    def __init__(self, file: io.BytesIO, places: dict[int, Place], containers: set[int]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.places = places
        self.containers = containers

    def reducer_override(self, obj: Any) -> Any:
        # not asked for texts, numbers, dicts, lists, tuples and sets (pickle's own fast path): kept by value
        place = self.places.get(id(obj))
        if place is not None:
            return _find, (place,)
        unit = unit_of(obj)
        if unit is not None:
            if any(id(v) in self.containers for v in unit.globals.values()):
                raise pickle.PicklingError("a snippet reads a table of the engine itself, which a copy would not be")
            return revive, (unit, obj.__name__)
        return NotImplemented


def dumps(value: Any) -> Optional[bytes]:
    """``value`` (a built content and its diagnostics) as bytes, or None when some part of it cannot be kept."""
    out = io.BytesIO()
    try:
        _Pickler(out, *_places()).dump(value)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError, ValueError):
        return None
    return out.getvalue()


def loads(data: bytes) -> Optional[Any]:
    """What :func:`dumps` kept, or None when it cannot be read back (a place or a class that has gone)."""
    try:
        return pickle.loads(data)
    except Exception:  # whatever the bytes hold, a miss: the content is built again
        return None
