"""A modifier's owner guard: ``if: a == me and ...`` is not asked for the modifiers of other players.

Every quantity modifier in the built-in content names its owner in its condition
(the -1 horse: ``a == me and b != me``). The loader reads which parameter that is
(:attr:`Modifier.owner`), and the quantity skips another player's modifier without
calling its condition, whose answer would be no. These tests show what is read, and
that games play the same with the guard as without it.
"""

from __future__ import annotations

import doctest

import pytest

import sgs_dsl.ast as A
import sgs_dsl.loader as loader
from sgs_dsl.loader import _owner_param, load_content
from sgs_runtime.runs.simulate import game_seed, play_one

CONTENT = load_content()


def _name(n: str) -> A.Name:
    return A.Name((1, 1), n)


def _eq(a: str, b: str, op: str = "==") -> A.Compare:
    return A.Compare((1, 1), op, _name(a), _name(b))


def test_the_doctests_of_the_guard_pass() -> None:
    for module in (A, loader):
        failures, _tried = doctest.testmod(module, verbose=False)
        assert failures == 0


@pytest.mark.parametrize("cond, params, owner", [
    (_eq("a", "me"), ("a", "b"), "a"),
    (_eq("me", "b"), ("a", "b"), "b"),
    (A.BoolOp((1, 1), "and", _eq("b", "me", "!="), _eq("b", "me")), ("a", "b"), "b"),
    (A.BoolOp((1, 1), "or", _eq("a", "me"), _eq("b", "me")), ("a", "b"), None),  # either may hold
    (A.Not((1, 1), _eq("a", "me")), ("a", "b"), None),
    (_eq("a", "me", "!="), ("a", "b"), None),
    (_eq("x", "me"), ("a", "b"), None),  # not a parameter of the quantity
    (_eq("a", "me"), ("a", "me"), None),  # a parameter named me: me is not the owner there
    (None, ("a", "b"), None),
])
def test_the_owner_is_read_from_the_condition(cond: A.Expr, params: tuple[str, ...], owner: str) -> None:
    assert _owner_param(cond, params) == owner


def test_the_built_in_modifiers_name_their_owners() -> None:
    owners = {(s.id, m.quantity): m.owner for s in CONTENT.skills.values() for m in s.modifiers}
    assert owners[("offensive_horse", "distance")] == "a"
    assert owners[("defensive_horse", "distance")] == "b"
    assert owners[("crossbow_skill", "slash_uses")] == "p"
    assert all(owner is not None for owner in owners.values())


@pytest.mark.parametrize("agents", ["random", "heuristic"])
def test_games_play_the_same_without_the_guard(agents: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seeds = [game_seed(41, i) for i in range(12)]

    def results() -> list[object]:
        out = []
        for i, s in enumerate(seeds):
            got = play_one(CONTENT, "identity", 5, s, i, agents)
            out.append((got.winners, got.turns, got.events, got.stats, got.error))
        return out

    guarded = results()
    for skill in CONTENT.skills.values():
        for m in skill.modifiers:
            monkeypatch.setattr(m, "owner", None)
    assert results() == guarded
