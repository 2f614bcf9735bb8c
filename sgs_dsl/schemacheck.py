"""A quick answer to "does this document pass its schema?", so that a valid file never needs jsonschema.

Checking a content file against its JSON schema with jsonschema (and importing
it) was a fifth of building the content without a cache. Nearly every file
passes, and for a file that passes nothing is reported, so all that is needed
then is a yes. :func:`passes` compiles each schema once into plain Python
checks of the keywords the schemas use (``type``, ``properties``,
``additionalProperties``, ``required``, ``items``, ``enum``, ``pattern``,
``minimum`` ...) and answers exactly as JSON Schema 2020-12 would. When it says
no, or cannot tell (a keyword it does not know, a value that is not JSON),
:func:`sgs_dsl.loader.schema_errors` asks jsonschema, which finds and words the
errors as before: the messages never come from here.

>>> passes("heroes", {"pack": "demo", "heroes": []})
True
>>> passes("heroes", {"pack": "demo", "heroes": [], "colour": "red"})
False
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Optional

__all__ = ["SCHEMA_DIR", "passes", "schema_files"]

SCHEMA_DIR = Path(__file__).with_name("schemas")

Check = Callable[[Any], bool]


class Unknown(Exception):
    """The schema has something this module does not check, or the value is not JSON: ask jsonschema."""


#: keywords that say nothing about validity
_NOTES = frozenset({"$schema", "$id", "$defs", "$comment", "title", "description", "examples", "default",
                    "markdownDescription", "deprecated"})

_JSON = (dict, list, str, int, float, bool, type(None))


def _is_type(name: str, x: Any) -> bool:
    if name == "object":
        return isinstance(x, dict)
    if name == "array":
        return isinstance(x, list)
    if name == "string":
        return isinstance(x, str)
    if name == "boolean":
        return isinstance(x, bool)
    if name == "null":
        return x is None
    if isinstance(x, bool):
        return False
    if name == "integer":
        return isinstance(x, int) or (isinstance(x, float) and x.is_integer())
    if name == "number":
        return isinstance(x, (int, float))
    raise Unknown(f"type {name!r}")


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


class _Compiler:
    """The checks of one set of schema files (by file name), each compiled once (references may loop)."""

    def __init__(self, files: dict[str, Any]) -> None:
        self.files = files
        self.made: dict[tuple[str, str], Check] = {}

    def ref(self, file: str, ref: str) -> Check:
        target, _, pointer = ref.partition("#")
        file = target or file
        key = (file, pointer)
        if key not in self.made:
            holder: list[Check] = []
            self.made[key] = lambda x: holder[0](x)  # a reference to itself, through the holder
            node = self.files.get(file)
            if node is None:
                raise Unknown(f"no schema {file!r}")
            for part in filter(None, pointer.split("/")):
                part = part.replace("~1", "/").replace("~0", "~")
                node = node[int(part)] if isinstance(node, list) else node[part]
            holder.append(self.schema(file, node))
        return self.made[key]

    def schema(self, file: str, s: Any) -> Check:
        if s is True:
            return lambda x: True
        if s is False:
            return lambda x: False
        if not isinstance(s, dict):
            raise Unknown("a schema that is neither an object nor a boolean")
        checks: list[Check] = []
        for k, v in s.items():
            if k in _NOTES:
                continue
            made = self.keyword(file, k, v, s)
            if made is not None:
                checks.append(made)
        if len(checks) == 1:
            return checks[0]
        return lambda x: all(c(x) for c in checks)

    def keyword(self, file: str, k: str, v: Any, s: dict[str, Any]) -> Optional[Check]:
        if k == "$ref":
            return self.ref(file, v)
        if k == "type":
            names = [v] if isinstance(v, str) else list(v)
            for n in names:
                _is_type(n, None)  # an unknown type name: Unknown now, not at the first value
            return lambda x: any(_is_type(n, x) for n in names)
        if k == "enum":
            if not all(isinstance(e, str) for e in v):
                raise Unknown("an enum of other values than texts")
            allowed = frozenset(v)
            return lambda x: isinstance(x, str) and x in allowed
        if k == "const":
            if not isinstance(v, str):
                raise Unknown("a const that is not a text")
            return lambda x: isinstance(x, str) and x == v
        if k == "pattern":
            rx = re.compile(v)
            return lambda x: not isinstance(x, str) or rx.search(x) is not None
        if k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            bound: Any = v
            cmp: Callable[[Any], bool] = {
                "minimum": lambda x: x >= bound, "maximum": lambda x: x <= bound,
                "exclusiveMinimum": lambda x: x > bound, "exclusiveMaximum": lambda x: x < bound}[k]
            return lambda x: not _number(x) or cmp(x)
        if k in ("minItems", "maxItems"):
            size = int(v)
            return (lambda x: not isinstance(x, list) or len(x) >= size) if k == "minItems" else \
                (lambda x: not isinstance(x, list) or len(x) <= size)
        if k in ("minProperties", "maxProperties"):
            size = int(v)
            return (lambda x: not isinstance(x, dict) or len(x) >= size) if k == "minProperties" else \
                (lambda x: not isinstance(x, dict) or len(x) <= size)
        if k in ("minLength", "maxLength"):
            size = int(v)
            return (lambda x: not isinstance(x, str) or len(x) >= size) if k == "minLength" else \
                (lambda x: not isinstance(x, str) or len(x) <= size)
        if k == "required":
            keys = list(v)
            return lambda x: not isinstance(x, dict) or all(r in x for r in keys)
        if k == "properties":
            props = {name: self.schema(file, sub) for name, sub in v.items()}
            return lambda x: not isinstance(x, dict) or all(c(x[n]) for n, c in props.items() if n in x)
        if k == "additionalProperties":
            if "patternProperties" in s:
                raise Unknown("patternProperties")
            known = frozenset(s.get("properties", {}))
            extra = self.schema(file, v)
            return lambda x: not isinstance(x, dict) or all(extra(val) for key, val in x.items() if key not in known)
        if k == "propertyNames":
            key_check = self.schema(file, v)
            return lambda x: not isinstance(x, dict) or all(key_check(key) for key in x)
        if k == "items":
            if "prefixItems" in s or not isinstance(v, (dict, bool)):
                raise Unknown("items with prefixItems")
            each = self.schema(file, v)
            return lambda x: not isinstance(x, list) or all(each(i) for i in x)
        if k in ("oneOf", "anyOf", "allOf"):
            subs = [self.schema(file, sub) for sub in v]
            if k == "oneOf":
                return lambda x: sum(1 for c in subs if c(x)) == 1
            if k == "anyOf":
                return lambda x: any(c(x) for c in subs)
            return lambda x: all(c(x) for c in subs)
        if k == "not":
            sub = self.schema(file, v)
            return lambda x: not sub(x)
        if k == "if":
            cond = self.schema(file, v)
            then = self.schema(file, s.get("then", True))
            other = self.schema(file, s.get("else", True))
            return lambda x: then(x) if cond(x) else other(x)
        if k in ("then", "else"):
            return None  # with 'if'
        raise Unknown(f"the keyword {k!r}")


@lru_cache(maxsize=1)
def schema_files() -> dict[str, Any]:
    """Every schema file (``*.schema.json`` of :data:`SCHEMA_DIR`), read, by file name."""
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(SCHEMA_DIR.glob("*.schema.json"))}


@lru_cache(maxsize=None)
def _check(kind: str) -> Optional[Check]:
    """The compiled check of ``kind``'s schema, or None when it cannot be compiled (jsonschema is asked)."""
    name = f"{kind}.schema.json"
    if name not in schema_files():
        return None
    try:
        return _Compiler(schema_files()).ref(name, "")
    except (Unknown, KeyError, IndexError, ValueError, TypeError, re.error):
        return None


def _json(x: Any, depth: int = 0) -> bool:
    """Whether ``x`` holds only JSON values (texts as keys), not deeper than the loader allows."""
    stack = [(x, depth)]
    while stack:
        v, d = stack.pop()
        if type(v) not in _JSON or d > 200:
            return False
        if isinstance(v, dict):
            if not all(isinstance(k, str) for k in v):
                return False
            stack.extend((c, d + 1) for c in v.values())
        elif isinstance(v, list):
            stack.extend((c, d + 1) for c in v)
    return True


def passes(kind: str, data: Any) -> bool:
    """True when ``data`` surely passes the schema of ``kind``; False when it does not or that cannot be told."""
    check = _check(kind)
    if check is None or not _json(data):
        return False
    try:
        return check(data)
    except (Unknown, RecursionError, TypeError):
        return False
