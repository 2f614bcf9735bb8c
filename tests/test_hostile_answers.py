"""Hostile answers, transcripts and terminal input: each is refused with the engine's own error and changes nothing.

* a skill with an active part and a view-as part: the part an action names is matched exactly;
* answers of the wrong type or out of range, to every kind of request: :class:`IllegalDecision`,
  never an AttributeError or a TypeError, and the same request is still pending;
* transcripts: a content fingerprint and the engine version; malformed fields are errors that name
  the decision; other content is refused unless forced;
* the terminal game: a refused choice is asked again; the end of input ends the game cleanly.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any, Optional

import pytest
from click.testing import CliRunner

from sgs_cli.main import main
from sgs_cli.terminal import HumanAgent
from sgs_dsl.loader import load_content
from sgs_runtime.agents import RandomAgent
from sgs_runtime.errors import GameError, IllegalDecision
from sgs_runtime.records.replay import (
    ContentMismatch,
    TranscriptError,
    TranscriptWarning,
    content_fingerprint,
    replay,
    transcript,
)
from sgs_runtime.resolution.game import Game, SeatSetup, TableSetup
from sgs_runtime.resolution.requests import (
    ArrangeRequest,
    CardsRequest,
    ConfirmRequest,
    OptionRequest,
    PlayAction,
    PlayersRequest,
    PlayRequest,
    RespondRequest,
    Response,
)
from sgs_runtime.resolution.use import make_play_request
from sgs_runtime.runs import invariants
from sgs_runtime.state.model import Card, Player
from sgs_runtime.state.seatview import ask_agent

ROOT = Path(__file__).resolve().parent.parent
CONTENT = load_content()
FIVE = ["caocao", "simayi", "xiahoudun", "guojia", "zhangfei"]
ROLES5 = ["lord", "loyalist", "traitor", "rebel", "rebel"]

TWIN_PACK = """\
pack: twin_pack
name: {zh: 双, en: Twin}
heroes:
  - id: twofold
    name: {zh: 双面, en: Twofold}
    kingdom: shu
    gender: male
    hp: 4
    skills: [twin]
skills:
  - id: twin
    name: {zh: 双, en: Twin}
    view_as:
      card: slash
      cards: {count: 1, from: [hand], filter: it.color == red}
    active:
      limit: 1
      do: |
        draw 1
"""


@pytest.fixture(scope="module")
def twin(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("twin") / "twin.yaml"
    path.write_text(TWIN_PACK, encoding="utf-8")
    return load_content(None, [path])


def table(content: Any, hands: dict[int, list[tuple[str, str, int]]], heroes: list[str] = FIVE,
          rules: str = "identity", phase: str = "play", pile: int = 20) -> Game:
    ids = iter(range(10_000))

    def card(kind: str, suit: str, rank: int) -> Card:
        return Card(next(ids), content.cards[kind], suit, rank)

    seats = [SeatSetup(h, r, hand=[card(*c) for c in hands.get(i, [])]) for i, (h, r) in enumerate(zip(heroes, ROLES5))]
    draw = [card("jink", "diamond", 2 + i % 9) for i in range(pile)]
    return Game(content, content.ruleset(rules), table=TableSetup(seats, draw, phase=phase), seed=1)


def fingerprint_of(g: Game) -> Any:
    """Everything a refused answer must leave as it was."""
    return (json.dumps(g.snapshot(), sort_keys=True), len(g.log), list(g.decisions), g.pending,
            [(c.id, id(c.zone)) for c in g.cards], g.steps, [dict(p.uses) for p in g.players])


def refused(g: Game, answer: Any, *fragments: str) -> str:
    """Answer ``answer``; it must be refused with IllegalDecision naming ``fragments``, changing nothing."""
    before = fingerprint_of(g)
    pending = g.pending
    with pytest.raises(IllegalDecision) as info:
        g.answer(answer)
    message = str(info.value)
    for f in fragments:
        assert f in message, (f, message)
    assert g.pending is pending
    assert fingerprint_of(g) == before
    assert invariants.check(g) == []
    return message


def finish(g: Game, req: Any, seed: int = 3) -> None:
    agents = [RandomAgent(seed * 7 + i) for i in range(len(g.players))]
    while req is not None:
        req = g.answer(agents[req.player.seat].decide(req, g))
    assert g.over


def a_finished_game(seed: int = 21, players: int = 4, rules: str = "identity") -> Game:
    g = Game(CONTENT, CONTENT.ruleset(rules), players=players, seed=seed)
    g.play([RandomAgent(i) for i in range(players)])
    return g


OTHER = a_finished_game(seed=999, players=10, rules="identity_all")  # its players and cards are not this game's


# ---------------------------------------------------------------- 1. an active part and a view-as part


def twin_game(twin: Any, hand: list[tuple[str, str, int]]) -> tuple[Game, PlayRequest]:
    g = table(twin, {0: hand}, heroes=["twofold", "simayi", "xiahoudun", "guojia", "zhangfei"])
    req = g.start()
    assert isinstance(req, PlayRequest) and req.player.seat == 0
    return g, req


def test_a_view_as_action_is_checked_against_the_view_as_part(twin: Any) -> None:
    g, req = twin_game(twin, [("jink", "spade", 3), ("jink", "heart", 3)])
    assert [(o.label, o.active) for o in req.options] == [("twin as slash", False), ("twin", True)]
    black, red = g.players[0].hand.cards
    target = g.players[1]
    # a black card for a red-only view-as: refused, whatever the active part would take
    refused(g, PlayAction(skill="twin", cards=[black], targets=[target], view_as=0), "twin: jink ♠3 cannot be chosen here")
    refused(g, PlayAction(skill="twin", view_as=0), "twin: choose 1 card(s), not 0")  # no longer the active part
    for bad in (1, 5, -2, 99):
        refused(g, PlayAction(skill="twin", cards=[red], targets=[target], view_as=bad),
                f"twin has no part with view_as {bad}: -1 for its active part; 0 for its view-as")
    refused(g, PlayAction(skill="twin", cards=[red], targets=[target], view_as=0, as_card="peach"),
            "twin cannot make a peach (it makes slash)")
    refused(g, PlayAction(skill="twin", cards=[red], view_as=-1), "twin takes no cards")
    refused(g, PlayAction(skill="twin", targets=[target], view_as=-1), "twin chooses no targets")
    assert g.decisions == []
    g.answer(PlayAction(skill="twin", cards=[red], targets=[target], view_as=0))
    used = [e for e in g.log if e["event"] == "use"]
    assert used[-1]["card"] == "slash[jink ♥3]" and used[-1]["targets"] == ["simayi"]


def test_the_active_part_is_view_as_minus_one(twin: Any) -> None:
    g, req = twin_game(twin, [("jink", "spade", 3)])
    n = len(g.players[0].hand)
    g.answer(PlayAction(skill="twin", view_as=-1))
    skill = [e for e in g.log if e["event"] == "skill"]
    assert skill and "as_card" not in skill[-1]  # the active part: no card made
    assert len(g.players[0].hand) == n + 1  # it drew one


def test_an_active_only_skill_is_named_by_view_as_0_or_minus_1() -> None:
    for view_as in (0, -1):
        g = table(CONTENT, {0: [("jink", "spade", 3), ("jink", "heart", 4)]},
                  heroes=["sunquan", "simayi", "xiahoudun", "guojia", "zhangfei"])
        req = g.start()
        assert isinstance(req, PlayRequest)
        c = g.players[0].hand.cards[0]
        refused(g, PlayAction(skill="zhiheng", cards=[c], view_as=1),
                "zhiheng has no part with view_as 1: 0 or -1 for its active part")
        refused(g, PlayAction(skill="zhiheng", cards=[c], targets=[g.players[1]], view_as=view_as),
                "zhiheng chooses no targets")
        g.answer(PlayAction(skill="zhiheng", cards=[c], view_as=view_as))
        assert c in g.discard_pile.cards


def test_the_terminal_sends_the_active_part_of_a_skill_with_both(twin: Any) -> None:
    g, req = twin_game(twin, [("jink", "heart", 3)])
    labels = [o.label for o in req.options]
    with CliRunner().isolation(input=f"{labels.index('twin') + 1}\n"):
        action = HumanAgent(0).decide(req, g.view_for(0))
    assert action.skill == "twin" and action.view_as == -1
    n = len(g.players[0].hand)
    g.answer(action)
    assert len(g.players[0].hand) == n + 1


# ---------------------------------------------------------------- 2. wrong types, every kind of request


def test_a_hero_choice_refuses_what_is_not_an_index() -> None:
    g = Game(CONTENT, CONTENT.ruleset("identity"), players=5, seed=9)
    req = g.start()
    assert isinstance(req, OptionRequest)
    for bad in (True, False, "0", 1.5, -1, len(req.options), None, [0], OTHER.players[0]):
        refused(g, bad, "must pick one of", f"by its index (0 to {len(req.options) - 1})", "not ")
    assert "not True (a bool)" in refused(g, True)
    assert "not '0' (a str)" in refused(g, "0")
    finish(g, g.answer(0))


def test_a_yes_or_no_refuses_what_is_not_a_bool() -> None:
    # caocao's Slash hits simayi, who has no Jink: 反馈 asks him yes or no
    g = table(CONTENT, {0: [("slash", "spade", 7), ("peach", "heart", 3)]})
    req = g.start()
    req = g.answer(PlayAction(card=g.players[0].hand.cards[0], targets=[g.players[1]]))
    while not isinstance(req, ConfirmRequest):
        req = g.answer(req.decline())
    for bad in (1, 0, "yes", [], None, 1.0):
        refused(g, bad, "must answer yes or no (True or False) to:")
    assert "not 1 (an int)" in refused(g, 1)
    assert g.answer(False) is not req and len(g.decisions) == 2


def discard_game() -> tuple[Game, CardsRequest]:
    hand = [("jink", "diamond", r) for r in range(2, 9)]  # 7 cards, 5 HP: discard 2
    g = table(CONTENT, {0: hand}, phase="discard")
    req = g.start()
    assert isinstance(req, CardsRequest) and req.min == req.max == 2, req
    return g, req


def test_a_card_choice_refuses_ids_duplicates_look_alikes_and_cards_not_offered() -> None:
    g, req = discard_game()
    a, b = req.candidates[:2]
    look_alike = next(c for c in OTHER.cards if c.id == a.id)  # the same id, another game's card
    not_offered = g.draw_pile.cards[0]
    refused(g, [a.id, b.id], f"{a.id} cannot be chosen for: discard 2", "(it was not offered)")
    refused(g, "ab", "must choose cards (a list of the offered cards)", "not 'ab' (a str)")
    refused(g, None, "must choose cards", "not None")
    refused(g, {a.id: a}, "must choose cards")
    refused(g, [a, a], "the same card was chosen twice")
    refused(g, [look_alike, b], f"{look_alike.label()} cannot be chosen for: discard 2", "(it was not offered)")
    refused(g, [a, not_offered], f"{not_offered.label()} cannot be chosen", "(it was not offered)")
    refused(g, [a], "choose between 2 and 2 cards for: discard 2")
    refused(g, [None, a], "None cannot be chosen")
    g.answer((a, b))  # a tuple of the offered cards is a list of them
    assert a in g.discard_pile.cards and b in g.discard_pile.cards


def test_a_player_choice_refuses_players_of_another_game_and_seats() -> None:
    g = a_finished_game()
    me = g.players[0]
    req = PlayersRequest(me, "choose a player", candidates=g.players[1:3], min=1, max=1)
    stranger = OTHER.players[1]  # seat 1, like a candidate, of another game
    for bad, text in (([stranger], f"{stranger.name} cannot be chosen for: choose a player (it was not offered)"),
                      ([1], "must be a list of players, but it holds 1 (an int)"),
                      ("ab", "must choose players (a list of the offered players)"),
                      ([g.players[1], g.players[1]], "the same player was chosen twice"),
                      ([g.players[0]], "cannot be chosen for: choose a player (it was not offered)"),
                      ([], "choose between 1 and 1 players")):
        with pytest.raises(IllegalDecision) as info:
            req.check(bad)
        assert text in str(info.value)
    req.check([g.players[2]])


def test_an_arrangement_refuses_strings_mappings_and_cards_placed_twice() -> None:
    g = a_finished_game()
    cards = g.draw_pile.cards[:3] or g.discard_pile.cards[:3]
    req = ArrangeRequest(g.players[0], "arrange the top 3 cards", cards=list(cards))
    stranger = OTHER.cards[cards[0].id]
    for bad, text in (("ab", "answer with (top cards, bottom cards): two lists of the offered cards, not 'ab'"),
                      ({"a": 1, "b": 2}, "two lists of the offered cards"),
                      (None, "two lists of the offered cards, not None"),
                      ((cards, [], []), "two lists of the offered cards"),
                      (("ab", "cd"), "the top cards must be a list of the offered cards, not 'ab'"),
                      ((cards, None), "the bottom cards must be a list"),
                      (([c.id for c in cards], []), "is not one of the cards to arrange"),
                      (([stranger, *cards[1:]], []), f"{stranger.label()} is not one of the cards to arrange"),
                      ((list(cards), list(cards[:1])), "a card was placed twice"),
                      ((cards[:2], []), "every offered card must be placed exactly once")):
        with pytest.raises(IllegalDecision) as info:
            req.check(bad)
        assert text in str(info.value), (bad, str(info.value))
    req.check((cards[:1], cards[1:]))


def test_a_play_action_with_fields_of_the_wrong_type_is_refused() -> None:
    g = table(CONTENT, {0: [("slash", "spade", 7), ("peach", "heart", 3)]})
    req = g.start()
    assert isinstance(req, PlayRequest)
    slash, peach = g.players[0].hand.cards
    target = g.players[1]
    cases = [
        (PlayAction(card=slash.id, targets=[target]), f"a PlayAction.card must be a card of the game or None, not {slash.id} (an int)"),
        (PlayAction(card=slash, targets=[1]), "a PlayAction.targets must be a list of players, but it holds 1 (an int)"),
        (PlayAction(card=slash, targets=None), "a PlayAction.targets must be a list of players, not None"),  # type: ignore[arg-type]
        (PlayAction(card=slash, targets=target), "a PlayAction.targets must be a list of players"),  # type: ignore[arg-type]
        (PlayAction(card=slash, cards="ab"), "a PlayAction.cards must be a list of cards of the game"),  # type: ignore[arg-type]
        (PlayAction(card=slash, cards=[slash.id]), "a PlayAction.cards must be a list of cards of the game, but it holds"),
        (PlayAction(card=slash, targets=[target], view_as="0"), "a PlayAction.view_as must be an index (an int), not '0'"),  # type: ignore[arg-type]
        (PlayAction(card=slash, targets=[target], view_as=True), "a PlayAction.view_as must be an index (an int), not True"),
        (PlayAction(card=slash, targets=[target], recast=1), "a PlayAction.recast must be True or False, not 1"),  # type: ignore[arg-type]
        (PlayAction(card=slash, targets=[target], as_card=5), "a PlayAction.as_card must be a card kind id"),  # type: ignore[arg-type]
        (PlayAction(skill=5), "a PlayAction.skill must be a skill id (a string) or None, not 5 (an int)"),  # type: ignore[arg-type]
        (PlayAction(card=slash, skill="jianxiong", targets=[target]), "names both a card (slash ♠7) and a skill (jianxiong)"),
        (PlayAction(), "a PlayAction must name a card or a skill (answer None to end the play phase)"),
        (PlayAction(card=slash, targets=[target], secondary=[g.players[2]]), "slash takes no further players"),
        (PlayAction(card=slash, cards=[peach], targets=[target]), "slash ♠7 is used by itself: it takes no further cards"),
        (PlayAction(card=slash, targets=[target], as_card="peach"), "it takes no further cards, no view_as and no as_card"),
        (PlayAction(card=slash, targets=[target], view_as=2), "slash ♠7 is used by itself"),
        (PlayAction(card=slash, targets=[OTHER.players[1]]), "(seat 1) is not a player of this game and cannot be chosen as a target"),
        (PlayAction(card=slash, targets=[target, target]), "slash needs 1 target(s), not 2"),
        (PlayAction(card=OTHER.cards[0], targets=[target]), "caocao cannot use"),
        (PlayAction(skill="no_such_skill"), "caocao has no skill 'no_such_skill' to use now"),
        (PlayAction(skill="jianxiong", recast=True), "only a hand card can be recast, not a skill"),
        (Response(card=slash), "answer a play request with a PlayAction or None, not"),
        ("slash", "answer a play request with a PlayAction or None, not 'slash' (a str)"),
        (42, "not 42 (an int)"),
    ]
    for bad, text in cases:
        refused(g, bad, text)
    assert g.decisions == []
    g.answer(PlayAction(card=slash, targets=[target]))


def test_a_response_with_fields_of_the_wrong_type_is_refused() -> None:
    g = table(CONTENT, {0: [("slash", "spade", 7)], 1: [("peach", "heart", 3), ("jink", "diamond", 2)]},
              heroes=["caocao", "xiahoudun", "zhangfei", "guojia", "liubei"])
    req = g.start()
    req = g.answer(PlayAction(card=g.players[0].hand.cards[0], targets=[g.players[1]]))
    while not isinstance(req, RespondRequest):
        req = g.answer(req.decline())
    peach, jink = g.players[1].hand.cards
    cases = [
        (Response(card=jink.id), f"a Response.card must be a card of the game or None, not {jink.id} (an int)"),
        (Response(card=jink, cards=[jink.id]), "a Response.cards must be a list of cards of the game"),
        (Response(card=jink, cards=[peach]), "jink ♦2 answers by itself: no further cards, no view_as and no as_card"),
        (Response(card=jink, view_as=3), "answers by itself"),
        (Response(card=jink, as_card="jink"), "answers by itself"),
        (Response(card=jink, skill="ganglie"), "names both a card (jink ♦2) and a skill (ganglie)"),
        (Response(), "a Response must name a card or a skill (answer None to decline)"),
        (Response(skill=3), "a Response.skill must be a skill id"),  # type: ignore[arg-type]
        (Response(card=peach), "xiahoudun cannot answer with peach ♥3 here"),
        (Response(card=next(c for c in OTHER.cards if c.base.id == "jink")), "xiahoudun cannot answer with jink"),
        (Response(skill="ganglie"), "ganglie has no view-as entry 0"),
        (PlayAction(card=jink), "answer a response window with a Response or None, not"),
        (True, "not True (a bool)"),
    ]
    for bad, text in cases:
        refused(g, bad, text)
    g.answer(Response(card=jink))
    assert jink in g.discard_pile.cards


def test_a_view_as_response_is_matched_exactly() -> None:
    # guanyu answers a duel's slash request through 武圣: the index and the kind must be its own
    g = table(CONTENT, {0: [("duel", "spade", 1)], 1: [("jink", "heart", 5), ("jink", "spade", 5)]},
              heroes=["caocao", "guanyu", "zhangfei", "guojia", "liubei"])
    req = g.start()
    req = g.answer(PlayAction(card=g.players[0].hand.cards[0], targets=[g.players[1]]))
    while not (isinstance(req, RespondRequest) and req.player.seat == 1):
        req = g.answer(req.decline())
    red, black = g.players[1].hand.cards
    refused(g, Response(skill="wusheng", cards=[red], view_as=1), "wusheng has no view-as entry 1 (view_as must be 0 to 0)")
    refused(g, Response(skill="wusheng", cards=[red], view_as=-1), "wusheng has no view-as entry -1")
    refused(g, Response(skill="wusheng", cards=[red], as_card="peach"), "wusheng cannot make a peach")
    refused(g, Response(skill="wusheng", cards=[black]), "wusheng: jink ♠5 cannot be chosen here")
    refused(g, Response(skill="wusheng", cards=[red, red]), "wusheng: choose 1 card(s), not 2")
    g.answer(Response(skill="wusheng", cards=[red]))
    assert [e for e in g.log if e["event"] == "respond"][-1]["card"] == "slash[jink ♥5]"


def test_a_view_as_over_several_names_makes_the_kind_it_was_checked_as() -> None:
    """蛊惑 without as_card makes its first kind (a Slash): it is checked as that, not as any offered kind."""
    g = table(CONTENT, {0: [("jink", "heart", 5)]}, heroes=["yuji", "simayi", "xiahoudun", "guojia", "zhangfei"],
              rules="identity_all")
    g.start()
    me = g.players[0]
    me.uses["slash"] = 1  # a Slash was used this phase: another is not allowed
    req = make_play_request(g, me)
    assert req is not None and not any(o.as_card == "slash" for o in req.options)
    g.pending = req
    refused(g, PlayAction(skill="guhuo", cards=[me.hand.cards[0]], targets=[g.players[1]]),
            "yuji cannot use guhuo as slash now (with no as_card, guhuo makes a slash: name the kind meant in as_card)")
    refused(g, PlayAction(skill="guhuo", cards=[me.hand.cards[0]], targets=[g.players[1]], as_card="slash"),
            "yuji cannot use guhuo as slash now")
    # a counter window: without as_card the answer would be a Slash, not a 无懈可击
    g = table(CONTENT, {0: [("dismantlement", "spade", 3)], 1: [("jink", "heart", 5)], 2: [("jink", "club", 9)]},
              heroes=["caocao", "yuji", "xiahoudun", "guojia", "zhangfei"], rules="identity_all")
    req = g.start()
    req = g.answer(PlayAction(card=g.players[0].hand.cards[0], targets=[g.players[2]]))
    while not (isinstance(req, RespondRequest) and req.player.seat == 1):
        req = g.answer(req.decline())
    card = g.players[1].hand.cards[0]
    refused(g, Response(skill="guhuo", cards=[card]), "yuji cannot answer with guhuo as slash here")
    g.answer(Response(skill="guhuo", cards=[card], as_card="nullification"))
    assert any(e["event"] == "use" and e.get("card", "").startswith("nullification[") for e in g.log)


def test_a_recast_is_a_hand_card_and_takes_nothing_else() -> None:
    g = table(CONTENT, {0: [("iron_chain", "club", 12)]}, rules="maneuvering")
    req = g.start()
    assert isinstance(req, PlayRequest)
    chain = g.players[0].hand.cards[0]
    refused(g, PlayAction(card=chain, recast=True, targets=[g.players[1]]), "a recast card has no targets")
    refused(g, PlayAction(card=chain, recast=True, secondary=[g.players[1]]), "a recast card has no targets")
    labels = [o.label for o in req.options]
    with CliRunner().isolation(input=f"{labels.index('recast ' + chain.label()) + 1}\n"):
        action = HumanAgent(0).decide(req, g.view_for(0))
    assert action.recast and action.card is chain  # the terminal recasts what its menu says
    g.answer(action)
    assert chain in g.discard_pile.cards


# ---------------------------------------------------------------- 3. transcripts


def test_a_transcript_carries_the_engine_version_and_a_content_fingerprint() -> None:
    record = transcript(a_finished_game())
    assert record["engine_version"] == version("sgs-engine")
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", record["content_fingerprint"])
    assert list(record)[:2] == ["engine_version", "content_fingerprint"]


def test_the_fingerprint_is_the_same_in_another_process_and_for_a_copy(tmp_path: Path) -> None:
    here = content_fingerprint(CONTENT)
    code = "from sgs_dsl.loader import load_content; from sgs_runtime.records.replay import content_fingerprint; " \
           "print(content_fingerprint(load_content()))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert other.stdout.strip() == here  # another process, another working folder
    copy_dir = tmp_path / "copy"
    for kind in ("cards", "heroes", "rules"):
        shutil.copytree(ROOT / kind, copy_dir / kind)
    assert content_fingerprint(load_content(copy_dir)) == here  # the same files, elsewhere
    crlf = tmp_path / "crlf"
    shutil.copytree(copy_dir, crlf)
    for f in (crlf / "heroes").glob("*.yaml"):
        f.write_bytes(f.read_bytes().replace(b"\n", b"\r\n"))
    assert content_fingerprint(load_content(crlf)) == here  # line endings do not count
    fresh = tmp_path / "changed"
    shutil.copytree(copy_dir, fresh)
    changed = fresh / "heroes" / "standard.yaml"
    changed.write_text(changed.read_text(encoding="utf-8").replace("hp: 4", "hp: 3", 1), encoding="utf-8")
    assert content_fingerprint(load_content(fresh)) != here  # one HP changed: other content


@pytest.fixture(scope="module")
def changed_content(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("changed")
    for kind in ("cards", "heroes", "rules"):
        shutil.copytree(ROOT / kind, root / kind)
    f = root / "heroes" / "standard.yaml"
    f.write_text(f.read_text(encoding="utf-8").replace("hp: 4", "hp: 3"), encoding="utf-8")
    return root


def test_a_transcript_is_refused_against_other_content_unless_forced(changed_content: Path, tmp_path: Path) -> None:
    record = transcript(a_finished_game())
    other = load_content(changed_content)
    with pytest.raises(ContentMismatch) as info:
        replay(other, record)
    assert "the transcript was played with other content than this one" in str(info.value)
    assert "pass --force to try anyway" in str(info.value)
    notes: list[str] = []
    with pytest.raises(GameError):  # forced: tried, and it does not fit
        replay(other, record, force=True, warn=notes.append)
    assert any("trying anyway (--force)" in n for n in notes)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", "--content", str(changed_content), str(path)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "the transcript was played with other content than this one" in result.output
    forced = CliRunner().invoke(main, ["replay", "--force", "--content", str(changed_content), str(path)])
    assert "trying anyway (--force)" in forced.output and "Traceback" not in forced.output
    same = CliRunner().invoke(main, ["replay", str(path)])
    assert same.exit_code == 0 and "warning" not in same.output


def test_an_old_transcript_without_a_fingerprint_replays_with_a_warning(tmp_path: Path) -> None:
    g = a_finished_game()
    record = transcript(g)
    del record["content_fingerprint"], record["engine_version"]
    with pytest.warns(TranscriptWarning, match="has no content fingerprint"):
        again = replay(CONTENT, record)
    assert again.log == g.log
    path = tmp_path / "old.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 0
    assert "warning:" in result.output and "has no content fingerprint" in result.output
    record["engine_version"] = "0.0.1"
    record["content_fingerprint"] = content_fingerprint(CONTENT)
    notes: list[str] = []
    replay(CONTENT, record, warn=notes.append)
    assert notes == [f"the transcript was saved by engine 0.0.1; this is engine {version('sgs-engine')}"]


def _first(record: dict[str, Any], kind: str) -> int:
    return next(i for i, d in enumerate(record["decisions"])
                if d["kind"] == kind and d["answer"] not in (None, [], False))


def _malformed() -> list[tuple[str, Any, str]]:
    """(name, how to break a transcript, what the error says); the decision's index is filled in."""
    return [
        ("target seat 99", lambda r, i: r["decisions"][i]["answer"].__setitem__("targets", [99]),
         "decision {i} (play of seat {s}): 'targets'[0] names seat 99, but the seats are 0 to 3"),
        ("target seat -1", lambda r, i: r["decisions"][i]["answer"].__setitem__("targets", [-1]),
         "decision {i} (play of seat {s}): 'targets'[0] names seat -1, but the seats are 0 to 3"),
        ("target seat true", lambda r, i: r["decisions"][i]["answer"].__setitem__("targets", [True]),
         "'targets'[0] must be a seat (an integer), not True"),
        ("card 9999", lambda r, i: r["decisions"][i]["answer"].__setitem__("card", 9999),
         "decision {i} (play of seat {s}): 'card' names card 9999, which this game does not have"),
        ("card '3'", lambda r, i: r["decisions"][i]["answer"].__setitem__("card", "3"),
         "'card' must be a card id (an integer), not '3'"),
        ("view_as '0'", lambda r, i: r["decisions"][i]["answer"].__setitem__("view_as", "0"),
         "decision {i} (play of seat {s}): 'view_as' must be an integer, not '0'"),
        ("view_as 7", lambda r, i: r["decisions"][i]["answer"].__setitem__("view_as", 7),
         "decision {i} (play of seat {s}) is refused by the game"),
        ("no targets", lambda r, i: r["decisions"][i]["answer"].pop("targets"),
         "decision {i} (play of seat {s}): a play answer has no 'targets'"),
        ("unknown answer field", lambda r, i: r["decisions"][i]["answer"].__setitem__("colour", 1),
         "decision {i} (play of seat {s}): a play answer has unknown field(s) 'colour'"),
        ("answer a list", lambda r, i: r["decisions"][i].__setitem__("answer", [1, 2]),
         "decision {i} (play of seat {s}): a play answer must be an object or null, not [1, 2]"),
        ("recast 1", lambda r, i: r["decisions"][i]["answer"].__setitem__("recast", 1),
         "'recast' must be true or false, not 1"),
        ("player 99", lambda r, i: r["decisions"][i].__setitem__("player", 99),
         "decision {i}: 'player' names seat 99, but the seats are 0 to 3"),
        ("player -1", lambda r, i: r["decisions"][i].__setitem__("player", -1),
         "decision {i}: 'player' names seat -1, but the seats are 0 to 3"),
        ("unknown kind", lambda r, i: r["decisions"][i].__setitem__("kind", "dance"),
         "decision {i}: 'kind' is 'dance', which is no kind of request (kinds: play, respond,"),
        ("no kind", lambda r, i: r["decisions"][i].pop("kind"), "decision {i}: it has no 'kind'"),
        ("decision a list", lambda r, i: r["decisions"].__setitem__(i, [0, "play"]),
         "decision {i}: a decision is an object {{player, kind, answer}}, not [0, 'play']"),
        ("hero index 99", lambda r, i: r["decisions"][0].__setitem__("answer", 99),
         "decision 0 (option of seat"),
        ("hero index true", lambda r, i: r["decisions"][0].__setitem__("answer", True),
         "the option chosen must be an index (an integer), not True"),
        ("unknown option", lambda r, i: r.__setitem__("options", {"bogus": 1}),
         "'options' sets 'bogus', which the rules 'identity' do not have"),
        ("option of the wrong type", lambda r, i: r.__setitem__("options", {"duel_damage_by_user": "yes"}),
         "'options': 'duel_damage_by_user' must be a bool like its default False, not 'yes'"),
        ("unknown role table", lambda r, i: r.__setitem__("options", {"role_table": "nope"}),
         "'options': the rules 'identity' have no role table 'nope'"),
        ("players '4'", lambda r, i: r.__setitem__("players", "4"), "'players' must be a number of players, not '4'"),
        ("players 99", lambda r, i: r.__setitem__("players", 99), "'players' is 99, but the rules 'identity' play 2 to 10"),
        ("seed 2.5", lambda r, i: r.__setitem__("seed", 2.5), "'seed' must be an integer, not 2.5"),
        ("unknown rules", lambda r, i: r.__setitem__("rules", "nope"), "'rules': unknown rules 'nope'"),
        ("decisions an object", lambda r, i: r.__setitem__("decisions", {}), "'decisions' must be a list, not {{}}"),
        ("no seed", lambda r, i: r.pop("seed"), "the transcript has no 'seed'"),
        ("unknown field", lambda r, i: r.__setitem__("colour", 1), "the transcript has unknown field(s) 'colour'"),
        ("fingerprint a number", lambda r, i: r.__setitem__("content_fingerprint", 5),
         "'content_fingerprint' must be a string, not 5"),
    ]


@pytest.mark.parametrize("name, spoil, text", _malformed(), ids=[m[0] for m in _malformed()])
def test_a_malformed_transcript_is_a_clear_error_naming_the_decision(name: str, spoil: Any, text: str,
                                                                     tmp_path: Path) -> None:
    record = transcript(a_finished_game())
    i = _first(record, "play")
    s = record["decisions"][i]["player"]
    bad = copy.deepcopy(record)
    spoil(bad, i)
    expected = text.format(i=i, s=s)
    with pytest.raises(GameError) as info:
        replay(CONTENT, bad)
    assert expected in str(info.value)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)  # a message, not an exception
    assert expected in result.output and "Traceback" not in result.output


def test_a_malformed_transcript_raises_transcript_error() -> None:
    record = transcript(a_finished_game())
    record["decisions"][0]["player"] = 99
    with pytest.raises(TranscriptError, match=r"^decision 0: 'player' names seat 99"):
        replay(CONTENT, record)
    for bad in ([1, 2], "x", None, 5):
        with pytest.raises(TranscriptError, match="a transcript is a JSON object"):
            replay(CONTENT, bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("text, says", [
    ("", "not JSON"), ("{", "not JSON"), ("[" * 100_000, "is not a game transcript"),
    ("[1, 2]", "a transcript is a JSON object"), ('{"rules": 1}', "the transcript has no 'players', 'seed', 'decisions'"),
])
def test_sgs_replay_of_files_that_are_not_transcripts(text: str, says: str, tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert says in result.output and "is not a game transcript" in result.output
    path.write_bytes(b"\xff\xfe{")  # UTF-16
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 1 and "must be UTF-8" in result.output
    path.write_bytes(b"{\xff}")  # not UTF-8 at all
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 1 and "UTF-8" in result.output and "Traceback" not in result.output


def test_sgs_play_save_writes_a_transcript_that_replays(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    result = CliRunner().invoke(main, ["play", "--players", "2", "--seed", "3", "--save", str(path)], input="\n" * 20000)
    assert result.exit_code == 0, result.output[-400:]
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["engine_version"] == version("sgs-engine")
    assert record["content_fingerprint"] == content_fingerprint(CONTENT)
    assert set(record) == {"engine_version", "content_fingerprint", "rules", "players", "seed", "options", "decisions",
                           "table"}
    assert record["table"] == {"seat": 0, "agents": "heuristic"}
    again = CliRunner().invoke(main, ["replay", str(path)])
    assert again.exit_code == 0 and "warning" not in again.output


# ---------------------------------------------------------------- 4. the terminal game


def _wusheng_game() -> tuple[Game, PlayRequest]:
    g = table(CONTENT, {0: [("jink", "spade", 3), ("jink", "heart", 3)]},
              heroes=["guanyu", "simayi", "xiahoudun", "guojia", "zhangfei"])
    req = g.start()
    assert isinstance(req, PlayRequest)
    return g, req


def test_the_terminal_refuses_a_card_the_skill_cannot_use_and_asks_again() -> None:
    g, req = _wusheng_game()
    labels = [o.label for o in req.options]
    pick = labels.index("wusheng as slash") + 1
    # the black jink first (the menu offers it, 武圣 cannot use it), then the red one, then a target
    with CliRunner().isolation(input=f"{pick}\n1\n2\n1\n") as streams:
        action = HumanAgent(0).decide(req, g.view_for(0))
        shown = streams[0].getvalue().decode()
    assert "not allowed: 闪 Dodge ♠3 cannot be chosen here" in shown
    assert action.cards == [g.players[0].hand.cards[1]]
    g.answer(action)


def test_the_terminal_goes_back_to_the_menu() -> None:
    g, req = _wusheng_game()
    labels = [o.label for o in req.options]
    pick = labels.index("wusheng as slash") + 1
    with CliRunner().isolation(input=f"{pick}\nb\n0\n") as streams:
        action = HumanAgent(0).decide(req, g.view_for(0))
        shown = streams[0].getvalue().decode()
    assert action is None and "back: to the first question" in shown


def test_a_refused_answer_in_the_terminal_game_is_asked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the menus let through, the game's refusal is told and the same request asked again."""
    original = HumanAgent.decide
    tried: list[str] = []

    def first_wrong(self: HumanAgent, req: Any, view: Any) -> Any:
        if isinstance(req, PlayRequest) and not tried:
            tried.append(req.prompt)
            return PlayAction(skill="no_such_skill")
        return original(self, req, view)

    monkeypatch.setattr(HumanAgent, "decide", first_wrong)
    result = CliRunner().invoke(main, ["play", "--players", "2", "--seed", "4"], input="\n" * 20000)
    assert tried and result.exit_code == 0, result.output[-400:]
    assert "not allowed: " in result.output and "has no skill 'no_such_skill' to use now" in result.output
    assert "you won" in result.output or "you lost" in result.output


@pytest.mark.parametrize("typed", ["", "\n" * 3, "abc\n99\n-5\n1.5\n\x00\n"])
def test_the_end_of_input_ends_the_terminal_game_cleanly(typed: str) -> None:
    result = CliRunner().invoke(main, ["play", "--players", "2", "--seed", "3"], input=typed)
    assert result.exit_code == 3, result.output[-400:]
    assert "game abandoned: you left it before the end" in result.output
    assert isinstance(result.exception, SystemExit)


def test_garbage_typed_at_the_terminal_is_asked_again() -> None:
    typed = "abc\n99\n-5\n1.5\nb\n" + "\n" * 20000
    result = CliRunner().invoke(main, ["play", "--players", "2", "--seed", "3"], input=typed)
    assert result.exit_code == 0, result.output[-400:]
    assert "you won" in result.output or "you lost" in result.output


def test_sgs_play_usage_errors_come_before_the_game(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["play", "--rules", "two_players", "--players", "4"])
    assert result.exit_code == 2 and "the rules 'two_players' play 2 to 2 players" in result.output
    result = CliRunner().invoke(main, ["play", "--save", str(tmp_path / "nowhere" / "g.json")])
    assert result.exit_code == 2 and "--save: the folder" in result.output and "does not exist" in result.output
    result = CliRunner().invoke(main, ["play", "--log", str(tmp_path / "nowhere" / "g.jsonl")])
    assert result.exit_code == 2 and "--log: the folder" in result.output


# ---------------------------------------------------------------- 5. hostile answers in whole games


def _hostile(req: Any, g: Game) -> list[Any]:
    """Answers no request may accept, built from what it offers."""
    out: list[Any] = [42, "x", 1.5, object(), {}, (1, 2, 3), [None], OTHER.players[0], PlayAction(), Response(), b"x"]
    if not req.optional:
        out.append(None)
    if isinstance(req, (CardsRequest, PlayersRequest)):
        cs = list(req.candidates)
        if cs:
            out += [[cs[0], cs[0]], [c.seat if isinstance(c, Player) else c.id for c in cs[:max(1, req.max)]]]
    if isinstance(req, PlayRequest):
        from sgs_runtime.resolution.legal import play_actions

        for a in play_actions(req, limit=50):
            if a.targets:
                out.append(PlayAction(**{**a.__dict__, "targets": [OTHER.players[t.seat] for t in a.targets]}))
                out.append(PlayAction(**{**a.__dict__, "targets": [*a.targets, a.targets[0]]}))
            if a.skill:
                out.append(PlayAction(**{**a.__dict__, "view_as": 7}))
                out.append(PlayAction(**{**a.__dict__, "as_card": "no_such_card"}))
                out.append(PlayAction(**{**a.__dict__, "recast": True}))
                if a.cards:
                    out.append(PlayAction(**{**a.__dict__, "cards": [*a.cards, a.cards[0]]}))
            if a.card is not None:
                out.append(PlayAction(**{**a.__dict__, "cards": [a.card]}))
    if isinstance(req, RespondRequest):
        for o in req.options:
            if o.card is not None:
                out.append(Response(card=o.card, cards=[o.card]))
            else:
                out.append(Response(skill=o.skill.id, view_as=9))
                out.append(Response(skill=o.skill.id, view_as=o.view_as, as_card="no_such_card"))
    return out


@pytest.mark.parametrize("rules, players, seed", [("identity_all", 5, 2), ("maneuvering_all", 4, 6), ("wind_revised", 5, 7)])
def test_whole_games_refuse_every_hostile_answer_and_go_on(rules: str, players: int, seed: int) -> None:
    g = Game(CONTENT, CONTENT.ruleset(rules), players=players, seed=seed)
    agents = [RandomAgent(seed * 7 + i) for i in range(players)]
    req: Optional[Any] = g.start()
    asked = 0
    while req is not None:
        if asked < 150:
            for bad in _hostile(req, g):
                if isinstance(bad, list) and not bad and getattr(req, "min", 1) == 0:
                    continue
                refused(g, bad)
        asked += 1
        req = g.answer(ask_agent(g, agents[req.player.seat], req))
    assert g.over and g.result is not None and g.result.limit is None
    again = replay(CONTENT, json.loads(json.dumps(transcript(g))))
    assert again.log == g.log


def test_sgs_replay_of_a_fifo_does_not_hang(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "game.json"
    os.mkfifo(fifo)
    result = CliRunner().invoke(main, ["replay", str(fifo)])
    assert result.exit_code == 1 and "not a regular file" in result.output
