"""The presentation model (sgs_runtime/records/present.py): plain data from one seat's view, prompts in words,
JSON answers turned into the requests' answers."""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgs_runtime.records import present as P
from sgs_runtime.resolution.game import Game
from sgs_runtime.resolution.requests import ConfirmRequest, Request, RespondRequest
from sgs_runtime.state.model import Card
from sgs_runtime.state.seatview import SeatView
from sgs_runtime.state.visibility import mask_request, unmask_answer


def default_data(model_step: dict[str, Any], turn: int) -> Any:
    """The stated default of a step, or a pick when it states none (the first choices)."""
    if model_step["default"] is not None:
        return model_step["default"]
    if model_step["multi"]:
        return [c["value"] for c in model_step["choices"][:max(model_step["min"], 1)]]
    if model_step["none_label"] and turn % 3:
        return None
    return model_step["choices"][0]["value"]


def drive(game: Game, limit: int = 4000) -> Iterator[tuple[Request, SeatView, dict[str, Any]]]:
    """Play ``game`` to its end through present's models only, yielding each request with its view and answer."""
    req = game.start()
    n = 0
    while req is not None and n < limit:
        n += 1
        seat = req.player.seat
        view = game.view_for(seat)
        masked = mask_request(req, seat)
        data: dict[str, Any] = {}
        while True:
            model = P.request_model(masked, view, data)
            json.dumps(model)  # plain data
            step = model["step"]
            if step is None:
                break
            data = P.give(data, step, default_data(step, n))
        yield masked, view, data
        try:
            answer = P.answer_from(masked, view, data)
        except P.AnswerError:  # a pick the game refuses (not the stated default): decline instead
            answer = masked.decline()
        req = game.answer(unmask_answer(masked, answer))


@pytest.fixture(scope="module")
def played(content: Any) -> list[tuple[Request, dict[str, Any], dict[str, Any], Any]]:
    """Requests of a few games, each with its model, the default answer and what it made, taken when asked."""
    out = []
    for seed in (1, 2):
        game = Game(content, content.ruleset("identity"), players=5, seed=seed)
        for req, view, data in drive(game):
            try:
                answer: Any = P.answer_from(req, view, data)
            except P.AnswerError as exc:
                answer = exc
            out.append((req, P.request_model(req, view), data, answer))
        assert game.result is not None
    return out


KINDS = ("option", "play", "respond", "cards", "confirm", "players")


@pytest.fixture(scope="module")
def waiting(content: Any) -> dict[str, tuple[Request, SeatView]]:
    """For each request kind, a game waiting at a request of that kind (to try answers on)."""
    out: dict[str, tuple[Request, SeatView]] = {}
    for seed in range(1, 8):
        game = Game(content, content.ruleset("identity"), players=5, seed=seed)
        for req, view, _data in drive(game):
            if req.kind in KINDS and req.kind not in out and (req.kind != "play" or len(req.options) > 1):
                out[req.kind] = (req, view)
                break
        if len(out) == len(KINDS) or seed > 4 and len(out) == len(KINDS) - 1:
            break
    return out


def test_table_model_is_plain_data_of_one_seat(content: Any) -> None:
    game = Game(content, content.ruleset("identity"), players=5, seed=3)
    req = game.start()
    while req is not None and game.current is None:  # through the hero choice
        req = game.answer(0)
    view = game.view_for(2)
    model = P.table_model(view)
    text = json.dumps(model, ensure_ascii=False)
    assert model["seat"] == 2 and model["role"]["id"] == game.players[2].role
    assert model["role"]["name"]["zh"]
    assert len(model["seats"]) == 5 and model["draw_pile"] == len(game.draw_pile)
    for p, seat in zip(game.players, model["seats"]):
        assert seat["hero"]["name"]["zh"] == p.hero.name.zh and seat["hero"]["name"]["en"] == p.hero.name.en
        assert seat["hp"] == p.hp and seat["max_hp"] == p.max_hp and seat["hand_count"] == len(p.hand)
        assert seat["kingdom"] == p.kingdom
        if p.seat == 2:
            assert seat["distance"] is None and seat["me"]
        else:
            assert isinstance(seat["distance"], int) and seat["distance"] >= 1
            assert isinstance(seat["in_range"], bool)
        # roles: mine, and the revealed ones (the lord); never a hidden one
        if p.seat != 2 and not p.role_revealed:
            assert seat["role"] is None
    assert any(s["role"] and s["role"]["id"] == "lord" for s in model["seats"])
    assert [c["id"] for c in model["hand"]] == [c.id for c in game.players[2].hand.cards]
    card = model["hand"][0]
    assert {"id", "name", "suit", "rank", "color", "text", "label"} <= set(card)
    assert card["name"]["zh"] and card["text"]["en"]
    # fair play: another seat's hand is only a count
    others = {c.id for p in game.players if p.seat != 2 for c in p.hand.cards}
    assert not others & {c["id"] for c in model["hand"]}
    for p in game.players:
        if p.seat != 2:
            for c in p.hand.cards:
                assert c.label() not in text and P.card_name(c) not in text or any(
                    P.card_name(c) == P.card_name(m) for m in game.players[2].hand.cards)


def test_seat_distances_match_the_rules(content: Any) -> None:
    game = Game(content, content.ruleset("identity"), players=5, seed=4)
    req = game.start()
    while req is not None and game.current is None:
        req = game.answer(0)
    from sgs_runtime.resolution.quantities import quantity

    model = P.table_model(game.view_for(0))
    me = game.players[0]
    for p, seat in zip(game.players[1:], model["seats"][1:]):
        assert seat["distance"] == quantity(game, "distance", [me, p])
        assert seat["in_range"] == bool(quantity(game, "in_attack_range", [me, p]))


def test_card_and_skill_models_have_names_and_texts(content: Any) -> None:
    kind = content.cards["slash"]
    m = P.card_model(Card(5, kind, "heart", 12))
    assert m["name"] == {"zh": kind.name.zh, "en": kind.name.en} and m["color"] == "red"
    assert m["suit_sign"] == "♥" and m["rank_text"] == "Q" and m["text"]["en"] == kind.text.en
    assert "♥Q" in m["label"] and kind.name.zh in m["label"]
    s = P.skill_model(content.skills["guanxing"])
    assert s["name"]["zh"] == content.skills["guanxing"].name.zh and s["text"]["zh"]
    json.dumps([m, s])


def test_hero_choice_shows_hp_kingdom_and_skills(played: list[Any]) -> None:
    heroes = [(r, m) for r, m, _d, _a in played if r.kind == "option" and getattr(r, "purpose", "") == "hero"]
    assert len(heroes) == 10
    for _req, model in heroes:
        for choice in model["step"]["choices"]:
            hero = choice["hero"]
            assert hero["hp"] >= 1 and hero["kingdom"] and hero["skills"]
            assert all(s["text"]["zh"] for s in hero["skills"])
            assert f"{hero['hp']} HP" in choice["label"] and hero["kingdom"] in choice["label"]
        assert model["step"]["default_text"].startswith("take ")


def test_response_prompts_are_sentences_with_the_default_stated(played: list[Any]) -> None:
    dodges = [(r, m) for r, m, _d, _a in played
              if isinstance(r, RespondRequest) and r.against is not None and r.against.kind.id == "slash"
              and r.pattern == "jink"]
    assert dodges
    for req, model in dodges:
        assert re.fullmatch(r"(Use|Play) a Dodge \(闪\) against (your|\S+'s) Slash \(杀\)\?", model["prompt"])
        assert model["step"]["default"] is None
        assert model["step"]["default_text"] == f"do not {req.mode} one: the Slash takes effect"
    prompts = [m["prompt"] for _r, m, _d, _a in played]
    assert not any("numbers" in p or "(0-0" in p or "between 1 and 1" in p for p in prompts)


def test_play_phase_steps_and_undo(waiting: dict[str, Any]) -> None:
    req, view = waiting["play"]
    checked = 0
    for i in range(len(req.options)):
        data = {"option": i}
        model = P.request_model(req, view, data)
        assert model["can_undo"]
        assert P.undo(data) == {}
        back = P.request_model(req, view, P.undo(data))
        assert back["step"]["field"] == "option" and not back["can_undo"]
        assert back["step"]["none_label"] == "end the play phase"
        if model["step"] is not None and model["step"]["field"] == "targets":
            checked += 1
            seats = [c["value"] for c in model["step"]["choices"]]
            full = P.give(data, model["step"], seats[:model["step"]["min"]])
            assert P.undo(full) == data
    assert req.options


def test_two_parts_of_a_skill_are_told_apart(content: Any) -> None:
    game = Game(content, content.ruleset("identity"), players=5, seed=1)
    req = game.start()
    view = game.view_for(0)
    skill = content.skills["shensu"]
    prompts = {P.request_model(ConfirmRequest(game.players[0], "?", skill=skill.id, part=t.label), view)["prompt"]
               for t in skill.triggers}
    assert len(prompts) == 2
    assert all(p.startswith(f"Invoke {skill.name.zh} {skill.name.en} — ") for p in prompts)
    assert req is not None


def test_answers_are_those_of_the_requests(played: list[Any]) -> None:
    kinds = set()
    for req, _m, data, answer in played:
        if isinstance(answer, P.AnswerError):
            continue
        kinds.add(req.kind)
        if req.kind == "confirm":
            assert answer is data["yes"]
        elif req.kind == "cards":
            assert [c.id for c in answer] == data["cards"]
        elif req.kind == "players":
            assert [p.seat for p in answer] == data["players"]
        elif req.kind == "option":
            assert answer == data["option"]
        elif req.kind == "arrange":
            assert [c.id for c in answer[0]] == data["top"]
        elif data.get("option") is None:
            assert answer is None
    assert {"confirm", "cards", "play", "respond", "option"} <= kinds


def test_invalid_answers_raise_answer_error(waiting: dict[str, Any]) -> None:
    bad = [None, [], "yes", {"option": 999}, {"option": True}, {"cards": "x"}, {"cards": [10**9]},
           {"players": [99]}, {"yes": 1}, {"top": [-999]}, {"option": -1}, {"option": "0"}]
    assert set(KINDS) - {"players"} <= set(waiting)
    for req, view in waiting.values():
        for data in bad:
            with pytest.raises(P.AnswerError):
                P.answer_from(req, view, data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=st.integers(0, 10**6), data=st.recursive(
    st.none() | st.booleans() | st.integers(-5, 50) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["yes", "option", "cards", "players", "targets", "secondary", "top", "bottom", "x"]),
        inner, max_size=4),
    max_leaves=10))
def test_any_json_answer_is_an_answer_or_an_answer_error(waiting: dict[str, Any], index: int, data: Any) -> None:
    req, view = list(waiting.values())[index % len(waiting)]
    try:
        P.request_model(req, view, data if isinstance(data, dict) else None)
        P.answer_from(req, view, data)
    except P.AnswerError:
        pass


def test_the_judge_area_shows_a_card_lying_as_a_delayed_trick(content: Any) -> None:
    from sgs_runtime.resolution.game import SeatSetup, TableSetup

    diamond = Card(1, content.cards["jink"], "diamond", 7)
    seats = [SeatSetup(h, r, hand=[diamond] if i == 0 else []) for i, (h, r) in enumerate(zip(
        ["daqiao", "simayi", "xiahoudun", "guojia", "zhangfei"], ["lord", "loyalist", "traitor", "rebel", "rebel"]))]
    draw = [Card(10 + i, content.cards["slash"], "spade", 2 + i % 9) for i in range(20)]
    game = Game(content, content.ruleset("identity"), table=TableSetup(seats, draw, phase="play"), seed=1)
    req = game.start()
    view = game.view_for(0)
    model = P.request_model(req, view)
    guose = next(c for c in model["step"]["choices"] if c.get("skill", {}).get("id") == "guose")
    data = P.give({}, model["step"], guose["value"])
    step = P.request_model(req, view, data)["step"]
    assert step["field"] == "cards" and [c["value"] for c in step["choices"]] == [diamond.id]
    data = P.give(data, step, [diamond.id])
    step = P.request_model(req, view, data)["step"]
    assert step["field"] == "targets"
    data = P.give(data, step, [3])
    game.answer(P.answer_from(req, view, data))
    judge = P.table_model(game.view_for(2))["seats"][3]["judge"]
    assert len(judge) == 1 and judge[0]["kind"] == "indulgence" and judge[0]["id"] == diamond.id
    assert judge[0]["printed"]["kind"] == "jink" and judge[0]["suit"] == "diamond"
    assert "乐不思蜀" in judge[0]["label"] and "闪" in judge[0]["label"]


def test_an_order_of_skills_is_told_by_their_names(content: Any) -> None:
    from sgs_runtime.resolution.requests import OrderRequest

    game = Game(content, content.ruleset("identity"), players=5, seed=1)
    game.start()
    view = game.view_for(0)
    shensu = content.skills["shensu"]
    req = OrderRequest(game.players[0], "which fires first at phase_start?",
                       options=["guanxing", shensu.triggers[1].label])
    step = P.request_model(req, view)["step"]
    labels = [c["label"] for c in step["choices"]]
    guanxing = content.skills["guanxing"]
    assert labels[0] == f"{guanxing.name.zh} {guanxing.name.en}"
    assert labels[1].startswith(f"{shensu.name.zh} {shensu.name.en} — ") and "shensu" not in labels[1]
    assert step["prompt"] == "Several of your skills take effect now: which first?"
    assert P.answer_from(req, view, {"option": 1}) == 1
