"""The card model: families, natures, filters and damage values, as content authors meet them.

Each test writes a small pack beside the built-in content and checks what `sgs validate`
says (file:line:col, code), or plays a tiny table.
"""

from __future__ import annotations

from pathlib import Path

from sgs_dsl.loader import check_content, load_content
from sgs_runtime.resolution.game import Game, SeatSetup, TableSetup
from sgs_runtime.state.model import Card

PACK = """# a test pack
pack: model_test
name: {{zh: 测试, en: Model test}}
cards:
{cards}
skills:
{skills}
"""


def diags(tmp_path: Path, cards: str = "  []", skills: str = "  []") -> list[tuple[int, str, str]]:
    text = PACK.format(cards=cards, skills=skills).replace("cards:\n  []", "cards: []").replace(
        "skills:\n  []", "skills: []")
    path = tmp_path / "model_pack.yaml"
    path.write_text(text, encoding="utf-8")
    return [(d.line, d.code, d.message) for d in check_content(None, [path]) if d.file.endswith("model_pack.yaml")]


def test_a_family_member_inherits_type_and_use(tmp_path: Path) -> None:
    path = tmp_path / "model_pack.yaml"
    path.write_text(PACK.format(cards="""  - id: ember_slash
    name: {zh: 余烬杀, en: Ember Slash}
    is: slash
    nature: fire""", skills="  []").replace("skills:\n  []", "skills: []"), encoding="utf-8")
    content = load_content(None, [path])
    kind = content.cards["ember_slash"]
    assert kind.type == "basic" and kind.nature == "fire" and kind.is_a("slash") and not kind.is_a("jink")
    assert kind.use is not None and kind.use.limit_group == "slash"
    assert content.cards["slash"].nature == "normal"


def test_an_unknown_parent_is_an_error_at_its_line(tmp_path: Path) -> None:
    got = diags(tmp_path, cards="""  - id: ember_slash
    name: {zh: 余烬杀, en: Ember Slash}
    is: slahs""")
    assert [(line, code) for line, code, _ in got] == [(7, "E300")]
    assert "slash" in got[0][2]  # did you mean


def test_a_family_cycle_is_reported(tmp_path: Path) -> None:
    got = diags(tmp_path, cards="""  - id: spark
    name: {zh: 火花, en: Spark}
    is: ember
  - id: ember
    name: {zh: 余烬, en: Ember}
    is: spark""")
    assert {code for _, code, _ in got} == {"E311"}


def test_a_card_needs_a_type_or_a_family(tmp_path: Path) -> None:
    got = diags(tmp_path, cards="""  - id: spark
    name: {zh: 火花, en: Spark}""")
    assert [code for _, code, _ in got] == ["E112"]


def test_a_filter_says_what_cards_are_seen_as(tmp_path: Path) -> None:
    got = diags(tmp_path, skills="""  - id: blur
    name: {zh: 模糊, en: Blur}
    filter: {if: it.suit == spade}""")
    assert [code for _, code, _ in got] == ["E112"]


def test_type_errors_of_the_new_words(tmp_path: Path) -> None:
    got = diags(tmp_path, skills="""  - id: odd
    name: {zh: 怪, en: Odd}
    trigger:
      on: damaged
      if: me is slash
      do: |
        damage event.source 1 nature 3
        damage me like me""")
    assert [(line, code) for line, code, _ in got] == [(10, "E301"), (12, "E301"), (13, "E301")]


def test_several_kinds_may_answer_one_request(tmp_path: Path) -> None:
    assert diags(tmp_path, skills="""  - id: either
    name: {zh: 或, en: Either}
    trigger:
      on: damaged
      do: |
        ask event.source play slash or jink
        if not responded:
          damage event.source 1 nature event.nature""") == []


def test_a_thunder_slash_answers_a_request_for_a_slash() -> None:
    content = load_content()
    kinds = content.cards
    thunder = Card(0, kinds["thunder_slash"], "spade", 5)
    table = TableSetup([SeatSetup("guanyu", "lord", hand=[Card(1, kinds["duel"], "spade", 1)]),
                        SeatSetup("zhangfei", "rebel", hand=[thunder])],
                       [Card(2, kinds["jink"], "heart", 2)], [], [], 0, "play")
    game = Game(content, content.ruleset("maneuvering"), table=table)
    from sgs_runtime.resolution.requests import PlayAction, Response

    req = game.start()
    assert req is not None and req.kind == "play"
    req = game.answer(PlayAction(card=table.seats[0].hand[0], targets=[game.players[1]]))
    assert req is not None and req.kind == "respond" and req.player is game.players[1]
    assert [o.card for o in req.options] == [thunder]
    game.answer(Response(card=thunder))
    assert game.players[0].hp == game.players[0].max_hp - 1
