"""The state cache: answers remembered for one state version, and the check that proves it right.

Quantities (distance, attack range, hand limit ...) and legal targets are remembered until the state
changes (statecache.py). These tests show what moves the version on, and that the check mode
(``Game.check_caches``, ``SGS_CHECK_CACHES=1``) catches a change that did not.
"""

from __future__ import annotations

import pytest

from sgs_dsl.loader import load_content
from sgs_runtime.agents import RandomAgent
from sgs_runtime.errors import GameError
from sgs_runtime.resolution.game import Game
from sgs_runtime.resolution.quantities import quantity
from sgs_runtime.runs.simulate import game_seed, play_one
from sgs_runtime.state.model import Card
from sgs_runtime.state.statecache import StateCache

CONTENT = load_content()
RULES = CONTENT.ruleset("identity")


def started(seed: int = 3) -> Game:
    g = Game(CONTENT, RULES, players=5, seed=seed)
    req = g.start()
    agents = [RandomAgent(seed + i) for i in range(5)]
    while req is not None and g.turn_number < 2:  # into the game: heroes chosen, cards dealt
        req = g.answer(agents[req.player.seat].decide(req, g))
    return g


def test_a_version_holds_its_answers_and_the_next_drops_them() -> None:
    cache = StateCache()
    cache.put(4, ("q", 1), 7, ())
    assert cache.get(4, ("q", 1)) == (7, ())
    assert cache.get(5, ("q", 1)) is None
    assert cache.entries == {}


def test_a_quantity_is_computed_once_per_version() -> None:
    g = started()
    p = g.players[0]
    first = quantity(g, "hand_limit", [p])
    assert quantity(g, "hand_limit", [p]) == first
    assert g.state_cache.version == g.version
    assert any(k[0] == "hand_limit" for k in g.state_cache.entries)


def test_every_log_record_and_touch_moves_the_version_on() -> None:
    g = started()
    v = g.version
    g.emit("narrate", text="nothing")
    assert g.version == v + 1
    g.touch()
    assert g.version == v + 2


def test_a_change_that_forgets_to_touch_is_caught_by_the_check() -> None:
    g = started()
    g.check_caches = True
    p = g.players[1]
    before = quantity(g, "hand_limit", [p])
    p.hp = max(0, p.hp - 1)  # changed behind the engine's back: no record, no touch
    with pytest.raises(GameError, match="cache check: hand_limit"):
        quantity(g, "hand_limit", [p])
    g.touch()
    assert quantity(g, "hand_limit", [p]) == max(0, before - 1)


def test_without_the_check_a_forgotten_touch_would_go_unnoticed() -> None:
    g = started()
    p = g.players[1]
    before = quantity(g, "hand_limit", [p])
    p.hp = max(0, p.hp - 1)
    assert quantity(g, "hand_limit", [p]) == before  # why every change must move the version on


@pytest.mark.parametrize("players", [2, 5, 8])
def test_whole_games_pass_the_cache_check(players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGS_CHECK_CACHES", "1")
    for i in range(6):
        s = play_one(CONTENT, "identity", players, game_seed(11, i), i, "heuristic" if i % 2 else "random")
        assert s.error is None, s.error


def test_a_skill_change_that_forgets_to_bump_is_caught_by_the_check() -> None:
    g = started()
    p = next(p for p in g.players if any(s.triggers for s in g.skillset.of(p)))
    skill = next(s for s in g.skillset.of(p) if s.triggers)
    g.skillset.verify(skill.triggers[0].timing)  # agrees while nothing changed
    p.lost.append((skill.id, None))  # lost behind the engine's back: no Game.bump
    with pytest.raises(GameError, match="cache check"):
        g.skillset.verify(skill.triggers[0].timing)
    g.bump()
    g.skillset.verify(skill.triggers[0].timing)


# ------------------------------------------------------------ the skill epoch


def test_a_distance_is_remembered_for_the_skill_epoch_and_the_hand_limit_for_one_version() -> None:
    g = started()
    a, b = g.players[0], g.players[2]
    distance = quantity(g, "distance", [a, b])
    limit = quantity(g, "hand_limit", [a])
    assert RULES.quantities["distance"].reads == frozenset()  # seats and horses only (sgs_dsl/epochs.py)
    assert RULES.quantities["in_attack_range"].reads == {"distance", "attack_range"}
    assert RULES.quantities["hand_limit"].reads is None  # it reads HP
    g.touch()  # the state changed, the skill sets did not
    assert g.epoch_cache.get(g.epoch, ("distance", a, b)) == (distance, [a, b])
    assert g.state_cache.get(g.version, ("hand_limit", a)) is None
    assert quantity(g, "distance", [a, b]) == distance and quantity(g, "hand_limit", [a]) == limit
    g.bump()  # equipment, a death, a skill: the epoch moves on
    assert g.epoch_cache.get(g.epoch, ("distance", a, b)) is None


def test_a_plain_base_is_given_as_it_is_until_a_modifier_of_it_is_in_force() -> None:
    g = started(4)  # (a deal with no 咆哮 or Crossbow in play)
    a = g.players[0]
    assert RULES.quantities["slash_uses"].fixed == 1 and RULES.quantities["slash_unbounded"].fixed is False
    assert RULES.quantities["distance"].fixed is None  # its base is worked out
    assert g.skillset.modifiers("slash_uses") == []
    assert quantity(g, "slash_uses", [a]) == 1
    assert not any(k[0] == "slash_uses" for k in (*g.state_cache.entries, *g.epoch_cache.entries))  # nothing kept
    g.skillset.gain(a, "paoxiao", None)  # 咆哮: slash_uses + inf for its owner
    assert quantity(g, "slash_uses", [a]) > 100
    assert quantity(g, "slash_uses", [g.players[1]]) == 1  # the modifier is its owner's only


def test_a_death_without_a_bump_is_caught_by_the_check_of_the_epoch() -> None:
    g = started()
    g.check_caches = True
    a, between, b = g.players[0], g.players[1], g.players[2]
    before = quantity(g, "distance", [a, b])
    between.alive = False  # behind the engine's back: no Game.bump, so the epoch stands
    g.touch()  # (a new state version: what is remembered for the epoch is compared all the same)
    with pytest.raises(GameError, match="cache check: distance"):
        quantity(g, "distance", [a, b])
    g.bump()
    assert quantity(g, "distance", [a, b]) == max(1, before - 1)  # seats 0 and 2 of five: 2 apart, then 1


def test_no_quantity_is_remembered_for_an_epoch_while_a_filter_skill_is_in_force() -> None:
    g = started()
    q = RULES.quantities["attack_range"]
    from sgs_runtime.resolution.quantities import epoch_stable

    assert epoch_stable(g, q) == (not g.card_view.filtering())
    assert not epoch_stable(g, RULES.quantities["hand_limit"])


# ------------------------------------------------------------ one player's equipment


def _run(gen: object) -> None:
    """Drive an engine generator that asks nobody anything (an equipment move with no trigger)."""
    for req in gen:  # type: ignore[attr-defined]
        raise AssertionError(f"asked {req!r}")


def _free_horse(g: Game) -> Card:
    return next(c for c in g.cards if c.kind.equip is not None and c.kind.equip.slot == "defensive_horse"
                and (c.zone is None or c.zone.name != "equip"))


def _free_weapon_with_a_trigger(g: Game) -> Card:
    """A weapon not equipped (in a pile or a hand) whose skill has a trigger."""
    return next(c for c in g.cards if c.kind.equip is not None and c.kind.equip.slot == "weapon"
                and c.zone is not None and c.zone.name != "equip"
                and any(CONTENT.skills[sid].triggers for sid in c.kind.equip.skills))


def test_an_equipment_move_finds_again_the_skills_of_its_player_only() -> None:
    from sgs_runtime.resolution.moves import equip
    from sgs_runtime.state.skillset import SkillSet

    g = started()
    if not g.skillset._separate:  # (a deal where some skill copies or grants: every set is found again)
        pytest.skip("this deal holds a skill that reaches other players")
    before = {p.seat: g.skillset.held(p) for p in g.players}
    a = g.players[1]
    _run(equip(g, a, _free_horse(g)))
    for p in g.players:
        fresh = [(h.skill.id, h.source) for h in SkillSet(g).held(p)]
        assert [(h.skill.id, h.source) for h in g.skillset.held(p)] == fresh
        assert (g.skillset.held(p) is before[p.seat]) == (p is not a)  # the others' sets were kept
    assert "defensive_horse" in [s.id for s in g.skillset.of(a)]



def test_an_equipment_with_no_trigger_keeps_the_index_of_who_waits_where_and_one_with_a_trigger_joins_it() -> None:
    """Who waits at each timing point is joined again only where a seat forgotten alone (its equipment)
    has changed its timing points: a horse changes none, a weapon with a trigger adds its own."""
    from sgs_runtime.resolution.moves import equip
    from sgs_runtime.state.skillset import SkillSet

    g = started()
    if not g.skillset._separate:
        pytest.skip("this deal holds a skill that reaches other players")
    timings = {t for p in g.players for s in g.skillset.of(p) for t in [tr.timing for tr in s.triggers]}
    g.skillset.owners_at("")  # (the index joined)
    index = g.skillset._owners
    a = g.players[1]
    _run(equip(g, a, _free_horse(g)))
    assert g.skillset.owners_at("") == frozenset() and g.skillset._owners is index  # kept, nothing joined
    weapon = _free_weapon_with_a_trigger(g)
    gen = equip(g, g.players[2], weapon)
    for _ in gen:  # (a weapon replaced may ask nothing either: none is equipped yet on this seat)
        raise AssertionError("asked")
    added = {tr.timing for sid in weapon.kind.equip.skills for tr in CONTENT.skills[sid].triggers}
    fresh = SkillSet(g)
    for t in timings | added:
        assert g.skillset.owners_at(t) == fresh.owners_at(t) and g.skillset.own_only_at(t) == fresh.own_only_at(t)
    assert all(2 in g.skillset.owners_at(t) for t in added)


# ------------------------------------------------------------ a card's word on its targets


def test_a_cards_word_on_a_target_is_remembered_for_the_epoch_and_shared_by_its_kind() -> None:
    from sgs_runtime.resolution.use import _eligible, admits, eligible

    g = started()
    if g.card_view.filtering():  # (a deal with a filter skill: nothing is remembered for an epoch)
        pytest.skip("a filter skill is in force in this deal")
    kind = CONTENT.cards["slash"]
    assert kind.use is not None
    spec = kind.use.targets
    assert spec.filter_reads == {"in_attack_range", "slash_unbounded"}  # epoch quantities only (sgs_dsl/epochs.py)
    snatch = CONTENT.cards["snatch"].use
    assert snatch is not None and snatch.targets.filter_reads is None  # it reads the target's cards
    first, second = [c for c in g.cards if c.base is kind][:2]
    a = g.players[0]
    for p in g.players:
        said = admits(g, a, p, first, spec)
        assert said is not None
        assert said == (p.alive and p is not a and bool(quantity(g, "in_attack_range", [a, p])))
        assert ("admits", a, p, kind.id) in g.epoch_cache.entries
        assert admits(g, a, p, second, spec) == said  # another Slash: the same entry
        assert eligible(g, a, p, first, spec) == _eligible(g, a, p, first, spec)
    delayed = next(c for c in g.cards if c.base.delayed is not None and c.base.use is not None)
    assert delayed.base.use is not None
    assert admits(g, a, a, delayed, delayed.base.use.targets) is None  # a judge area changes within an epoch


def test_a_wrong_word_on_a_target_is_caught_by_the_check_of_the_epoch() -> None:
    from sgs_runtime.resolution.use import admits

    g = started()
    if g.card_view.filtering():
        pytest.skip("a filter skill is in force in this deal")
    kind = CONTENT.cards["slash"]
    assert kind.use is not None
    card = next(c for c in g.cards if c.base is kind)
    a, b = g.players[0], g.players[1]
    truth = admits(g, a, b, card, kind.use.targets)
    assert truth is not None
    g.epoch_cache.put(g.epoch, ("admits", a, b, kind.id), not truth, ())  # as if the epoch had not moved on
    assert admits(g, a, b, card, kind.use.targets) is (not truth)  # believed, without the check
    g.check_caches = True
    with pytest.raises(GameError, match="cache check"):
        admits(g, a, b, card, kind.use.targets)


def test_a_seat_whose_new_set_reaches_others_while_the_index_is_joined_again_has_it_joined_whole(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Joining the index again for a seat forgotten alone finds that seat's set again; if that set now
    reaches other players (a grant, a copy), every set is forgotten on the way, and the index is then
    joined whole rather than patched at the seat's timing points."""
    from sgs_runtime.state.skillset import SkillSet

    g = started()
    if not g.skillset._separate:
        pytest.skip("this deal holds a skill that reaches other players")
    weapon = _free_weapon_with_a_trigger(g)
    granting = next(s for s in CONTENT.skills.values() if s.grants)
    for sid in weapon.kind.equip.skills:  # (the weapon's skill grants as well, for this test only)
        monkeypatch.setattr(CONTENT.skills[sid], "grants", granting.grants)
    g.skillset.owners_at("")  # (the index joined)
    holder = g.players[2]
    weapon.zone.remove(weapon)  # (put on by hand, then seat 2 alone forgotten: nothing asks in between)
    holder.equip.add(weapon)
    g.skillset.forget([holder.seat])
    assert g.skillset._before  # (the index kept, to be joined again at the seat's changes)
    asked = g.skillset.owners_at("")  # joining again finds the seat's set, which reaches others now
    assert asked == frozenset() and not g.skillset._separate
    fresh = SkillSet(g)
    everywhere = {tr.timing for p in g.players for s in fresh.of(p) for tr in s.triggers}
    assert everywhere
    for t in everywhere:
        assert g.skillset.owners_at(t) == fresh.owners_at(t) and g.skillset.own_only_at(t) == fresh.own_only_at(t)
