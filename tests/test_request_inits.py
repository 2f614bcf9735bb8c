"""The play and response options (sgs_runtime/resolution/requests.py) are plain classes with their
``__init__`` written out: they take every field by position and by name, with the defaults they
document, and compare and show themselves field by field, as the dataclasses they replace did."""

from __future__ import annotations

import copy
import pickle

import pytest

from sgs_runtime.resolution.requests import PlayOption, RespondOption

DEFAULTS = {
    PlayOption: {"card": None, "skill": None, "view_as": 0, "active": False, "as_card": None, "recast": False,
                 "further": 0},
    RespondOption: {"card": None, "skill": None, "view_as": 0, "as_card": None},
}


@pytest.mark.parametrize("cls", [PlayOption, RespondOption], ids=lambda c: c.__name__)
def test_fields_by_name_and_by_position_with_their_defaults(cls: type) -> None:
    assert cls.FIELDS == ("label", *DEFAULTS[cls])
    given = {"label": "a label", "view_as": 3, "active": True, "as_card": "slash", "recast": True, "further": 2}
    values = {name: given.get(name) for name in cls.FIELDS}  # (a card and a skill: none; the rest not the default)
    for made in (cls(**values), cls(*values.values())):
        assert all(getattr(made, name) == value for name, value in values.items())
    bare = cls("a label")
    assert bare.label == "a label" and all(getattr(bare, k) == v for k, v in DEFAULTS[cls].items())


@pytest.mark.parametrize("cls", [PlayOption, RespondOption], ids=lambda c: c.__name__)
def test_compared_shown_copied_and_pickled_by_their_fields(cls: type) -> None:
    a, b = cls("slash", view_as=2), cls("slash", view_as=2)
    assert a == b and a is not b and a != cls("slash", view_as=1) and a != "slash"
    assert repr(a).startswith(f"{cls.__name__}(label='slash', ") and "view_as=2" in repr(a)
    assert copy.copy(a) == a and copy.deepcopy(a) == a and pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(TypeError):
        hash(a)  # (compared by value: not hashed, as before)
