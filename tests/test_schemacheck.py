"""The quick schema check (sgs_dsl/schemacheck.py) answers as jsonschema does: a file passes exactly
when jsonschema finds no error in it, so that skipping jsonschema for the files that pass changes nothing."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgs_dsl.loader import _guess_kind, _validators
from sgs_dsl.schemacheck import passes
from sgs_dsl.yamlsafe import load_file


def documents() -> list[tuple[str, str, Any]]:
    """(name, kind, data) of every content file, fixture and rule case that the YAML reader accepts."""
    out = []
    for path in sorted([*ROOT.glob("cards/**/*.yaml"), *ROOT.glob("heroes/**/*.yaml"), *ROOT.glob("rules/**/*.yaml"),
                        *FIXTURES.glob("**/*.yaml"), *(ROOT / "tests" / "scenarios").glob("**/*.yaml")]):
        try:
            doc = load_file(path)
        except Exception:
            continue
        kind = _guess_kind(doc.data) if isinstance(doc.data, dict) else None
        if "scenarios" in path.parts:
            kind = "scenario"
        if kind is not None:
            out.append((str(path.relative_to(ROOT)), kind, doc.data))
    return out


DOCS = documents()


def jsonschema_passes(kind: str, data: Any) -> bool:
    return next(iter(_validators()[kind].iter_errors(data)), None) is None


def test_there_are_documents_of_every_kind_and_some_fail() -> None:
    assert {k for _, k, _ in DOCS} == {"cards", "heroes", "rules", "scenario"}
    assert len(DOCS) > 100
    assert any(not jsonschema_passes(k, d) for _, k, d in DOCS)


@pytest.mark.parametrize("name,kind,data", DOCS, ids=[n for n, _, _ in DOCS])
def test_the_answer_is_jsonschema_s(name: str, kind: str, data: Any) -> None:
    assert passes(kind, data) == jsonschema_passes(kind, data)


def _paths(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(data, dict):
        for k, v in data.items():
            out += _paths(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += _paths(v, (*path, i))
    return out


#: what a mutation puts in place of a value: values of every JSON type, and texts the schemas name
REPLACEMENTS = st.one_of(st.none(), st.booleans(), st.integers(-3, 12), st.floats(allow_nan=False, width=32),
                         st.sampled_from(["", "x", "slash", "hand", "me", "1 per turn", "slash ♠A", "2", "Bad Id"]),
                         st.just([]), st.just({}), st.just([1, "a"]), st.just({"id": "x"}))

VALID = [(n, k, d) for n, k, d in DOCS if jsonschema_passes(k, d) and k != "scenario"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_answer_is_jsonschema_s_for_changed_documents(data: st.DataObject) -> None:
    name, kind, doc = data.draw(st.sampled_from(VALID))
    doc = copy.deepcopy(doc)
    for _ in range(data.draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        how = data.draw(st.sampled_from(["replace", "delete", "add"]))
        if how == "delete":
            del parent[path[-1]]
        elif how == "add" and isinstance(parent, dict):
            key = data.draw(st.sampled_from(["extra", "id", "name", "hp", "when"]))
            parent[key] = copy.deepcopy(data.draw(REPLACEMENTS))
        else:
            parent[path[-1]] = copy.deepcopy(data.draw(REPLACEMENTS))
    assert passes(kind, doc) == jsonschema_passes(kind, doc), name


def test_what_is_not_json_is_left_to_jsonschema() -> None:
    assert not passes("heroes", {"pack": "demo", "heroes": (1, 2)})
    assert not passes("no such kind", {})


def test_a_valid_content_tree_is_never_given_to_jsonschema(monkeypatch: pytest.MonkeyPatch) -> None:
    from sgs_dsl import loader

    def refuse() -> Any:
        raise AssertionError("jsonschema was asked")

    monkeypatch.setattr(loader, "_validators", refuse)
    content, diags = loader.build(cache=False)
    assert diags == [] and content.heroes


def test_a_document_that_fails_is_worded_by_jsonschema(tmp_path: Path) -> None:
    from sgs_dsl.loader import build

    path = FIXTURES / "invalid" / "unknown_key.yaml"
    diags = build(None, [path], cache=False)[1]
    assert diags and all(d.file.endswith("unknown_key.yaml") for d in diags)
