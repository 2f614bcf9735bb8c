"""The effect-language grammar: how it builds, every statement form, and where syntax errors point."""

from __future__ import annotations

import logging
import textwrap
from pathlib import Path

import lark
import pytest
from lark.exceptions import GrammarError, LexError

from sgs_dsl import ast as A
from sgs_dsl.loader import check_content
from sgs_dsl.parser import GRAMMAR, Origin, SyntaxProblem, _Indenter, grammar_parser, parse_block, parse_expression

START = ["start", "expression"]


def build(**options: object) -> lark.Lark:
    return lark.Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", postlex=_Indenter(), start=START,
                     propagate_positions=True, maybe_placeholders=True, **options)


def one(text: str) -> A.Stmt:
    block = parse_block(text + "\n", Origin("x.yaml", 1, 1, block=True))
    assert len(block) == 1, block
    return block[0]


def expr(text: str) -> A.Expr:
    return parse_expression(text, Origin("x.yaml", 1, 1))


def syntax_error(text: str, origin: Origin, *, expression: bool = False):
    with pytest.raises(SyntaxProblem) as info:
        if expression:
            parse_expression(text, origin)
        else:
            parse_block(text, origin)
    d = info.value.diagnostic
    assert d.code == "E200"
    assert d.file == origin.file
    return d


# ------------------------------------------------------------------ building


def test_grammar_builds_with_lalr() -> None:
    parser = build()
    assert parser.options.parser == "lalr"
    tree = parser.parse("draw 2\n", start="start")
    assert tree.data == "start"


def test_project_parser_is_lalr_with_positions() -> None:
    parser = grammar_parser()
    assert parser.options.parser == "lalr"
    # every node knows where it starts (sgs_dsl.lark_parser._Starts, or lark's own propagation)
    tree = parser.parse("x = 1\ndraw 2\n", start="start")
    assert [(t.data, t.meta.line, t.meta.column) for t in tree.find_data("draw")] == [("draw", 2, 1)]
    assert grammar_parser() is parser  # built once per process


def test_grammar_builds_with_strict() -> None:
    try:
        build(strict=True)
    except GrammarError as exc:  # conflicts in the parse table: a real ambiguity of the grammar
        pytest.fail(f"strict LALR build failed: {exc}")
    except LexError as exc:
        # Strict mode also refuses any two regular-expression terminals that can match the same text
        # (and needs the optional `interegular` package to check that). Such overlaps are intended here:
        # COMMENT is one of the forms of _NL (a comment ends a line), and a verb (`use`) is also a respond
        # mode (`ask target use jink`); the contextual lexer only offers the terminals the parser can take
        # at that point. So a collision alone is accepted as long as the non-strict build works.
        message = str(exc)
        assert "interegular" in message or "Collision between Terminals" in message, message
        assert build().parse("ask target use jink\n", start="start") is not None


def test_parse_table_has_no_conflicts(caplog: pytest.LogCaptureFixture) -> None:
    """The same check as strict mode's parse-table part, visible without the optional interegular package."""
    logger = logging.getLogger("lark")
    old = logger.level
    logger.setLevel(logging.DEBUG)
    try:
        with caplog.at_level(logging.DEBUG, logger="lark"):
            build(debug=True)
    finally:
        logger.setLevel(old)
    conflicts = [r.getMessage().splitlines()[0] for r in caplog.records if "conflict" in r.getMessage().lower()]
    assert conflicts == []


def test_damage_amount_is_a_number_a_name_or_a_path() -> None:
    # two expressions side by side would be ambiguous (`target (1 + 1)` reads as a call), so the amount
    # is a number, a name, a path or a call; arithmetic is bound with `let` first
    for text, kind in (("damage target 2", A.Num), ("damage target n", A.Name),
                       ("damage target event.amount", A.Attr), ("damage target count(x)", A.Call)):
        s = one(text)
        assert isinstance(s, A.Damage) and isinstance(s.amount, kind), text
    with pytest.raises(SyntaxProblem):
        one("damage target (1 + 1)")


# ------------------------------------------------------------------ statements


def test_draw_bare_and_with_subject() -> None:
    s = one("draw 2")
    assert isinstance(s, A.Draw) and s.subject is None and isinstance(s.amount, A.Num) and s.amount.value == 2
    s = one("target draws 2")
    assert isinstance(s, A.Draw) and isinstance(s.subject, A.Name) and s.subject.id == "target"
    s = one("event.source draws count(me.hand)")
    assert isinstance(s, A.Draw) and isinstance(s.subject, A.Attr) and isinstance(s.amount, A.Call)


def test_discard_forms() -> None:
    s = one("discard down to hand_limit(me)")
    assert isinstance(s, A.DiscardDownTo) and isinstance(s.amount, A.Call)
    s = one("discard all")
    assert isinstance(s, A.DiscardAll) and s.zones == []
    s = one("event.player discards all hand or equip")
    assert isinstance(s, A.DiscardAll) and s.zones == ["hand", "equip"]
    s = one("discard 2 hand cards")
    assert isinstance(s, A.DiscardChosen) and s.count.kind == "exact" and s.zones == ["hand"]
    s = one("discard up to 2 hand or equip cards where it.color == red as ds")
    assert isinstance(s, A.DiscardChosen)
    assert s.count.kind == "upto" and s.zones == ["hand", "equip"] and isinstance(s.where, A.Compare)
    assert s.as_name == "ds"
    s = one("discard any number cards")
    assert isinstance(s, A.DiscardChosen) and s.count.kind == "any" and s.count.expr is None
    s = one("discard cards")
    assert isinstance(s, A.DiscardCards) and isinstance(s.cards, A.Name) and s.cards.id == "cards"


def test_choose_cards() -> None:
    s = one("choose 1 hand or equip card from event.source as c")
    assert isinstance(s, A.ChooseCards)
    assert s.count.kind == "exact" and s.zones == ["hand", "equip"] and isinstance(s.source, A.Attr)
    assert s.as_name == "c" and s.where is None
    s = one("choose up to 2 cards where it.suit == heart as hs")
    assert isinstance(s, A.ChooseCards) and s.count.kind == "upto" and s.zones == [] and s.source is None


def test_choose_players() -> None:
    s = one("choose 1 player from others where it != me as p")
    assert isinstance(s, A.ChoosePlayers)
    assert s.count.kind == "exact" and isinstance(s.source, A.Name) and s.source.id == "others"
    assert isinstance(s.where, A.Compare) and s.as_name == "p"
    s = one("choose up to 2 players as victims")
    assert isinstance(s, A.ChoosePlayers) and s.count.kind == "upto" and s.as_name == "victims"


def test_choose_symbol() -> None:
    s = one("choose one of [heart, spade] as s")
    assert isinstance(s, A.ChooseSymbol) and isinstance(s.options, A.ListExpr) and s.as_name == "s"


def test_choose_block() -> None:
    s = one(textwrap.dedent("""\
        event.source chooses:
          "discard two hand cards" if count(event.source.hand) >= 2:
            event.source discards 2 hand cards
          "take 1 damage":
            damage event.source 1"""))
    assert isinstance(s, A.ChooseBlock) and isinstance(s.subject, A.Attr)
    assert [o.label for o in s.options] == ["discard two hand cards", "take 1 damage"]
    assert isinstance(s.options[0].cond, A.Compare) and s.options[1].cond is None
    assert isinstance(s.options[0].body[0], A.DiscardChosen) and isinstance(s.options[1].body[0], A.Damage)
    s = one('choose:\n  "a":\n    draw 1\n  "b":\n    pass')
    assert isinstance(s, A.ChooseBlock) and s.subject is None and len(s.options) == 2


def test_gain_give_show() -> None:
    s = one("gain c")
    assert isinstance(s, A.Gain) and isinstance(s.cards, A.Name)
    s = one("give cards to target")
    assert isinstance(s, A.Give) and s.to.id == "target"  # type: ignore[attr-defined]
    s = one("target shows c")
    assert isinstance(s, A.Show) and s.subject.id == "target"  # type: ignore[union-attr]


def test_damage_forms() -> None:
    s = one("damage target 1")
    assert isinstance(s, A.Damage) and s.nature is None and s.by is None
    s = one("damage target 3 thunder by none")
    assert isinstance(s, A.Damage) and s.nature == "thunder" and s.nature_pos == (1, 17)
    assert isinstance(s.by, A.Const) and s.by.value is None
    s = one("damage first 1 by (me if true else second)")
    assert isinstance(s, A.Damage) and isinstance(s.by, A.CondExpr)


def test_recover_and_lose_hp() -> None:
    s = one("target recovers 1")
    assert isinstance(s, A.Recover) and s.subject.id == "target"  # type: ignore[union-attr]
    assert isinstance(one("recover 1"), A.Recover)
    s = one("lose 1 hp")
    assert isinstance(s, A.LoseHp) and s.amount.value == 1  # type: ignore[attr-defined]
    assert isinstance(one("event.source loses 2 hp"), A.LoseHp)


def test_judge_and_retrial() -> None:
    assert isinstance(one("judge"), A.Judge)
    assert isinstance(one("target judges"), A.Judge)
    s = one("retrial with c")
    assert isinstance(s, A.Retrial) and s.card.id == "c"  # type: ignore[attr-defined]


def test_ask_respond() -> None:
    s = one("ask target use jink times 2 on me for me extra")
    assert isinstance(s, A.AskRespond)
    assert s.mode == "use" and s.pattern == "jink" and s.pattern_pos == (1, 16)
    assert isinstance(s.times, A.Num) and isinstance(s.on, A.Name) and isinstance(s.for_, A.Name) and s.extra
    s = one("ask p play slash")
    assert isinstance(s, A.AskRespond) and s.mode == "play" and s.times is None and not s.extra
    s = one("ask p use rescue on event.player")
    assert isinstance(s, A.AskRespond) and s.pattern == "rescue" and isinstance(s.on, A.Attr)


def test_ask_confirm() -> None:
    s = one('ask target "use the skill?"')
    assert isinstance(s, A.AskConfirm) and s.prompt == "use the skill?"


def test_provide_and_use() -> None:
    s = one("provide jink")
    assert isinstance(s, A.Provide) and s.card.id == "jink"  # type: ignore[attr-defined]
    s = one("use c")
    assert isinstance(s, A.Use) and s.on is None and not s.extra and not s.unnullifiable
    s = one("use c on target extra unnullifiable")
    assert isinstance(s, A.Use) and s.extra and s.unnullifiable
    s = one("last(targets) uses duel on first(targets) unnullifiable")
    assert isinstance(s, A.Use) and isinstance(s.subject, A.Call) and s.unnullifiable and not s.extra


def test_skip_and_signal() -> None:
    s = one("target skips play")
    assert isinstance(s, A.Skip) and s.phase == "play" and s.phase_pos == (1, 14)
    assert isinstance(one("skip draw"), A.Skip)
    s = one("signal dodged")
    assert isinstance(s, A.Signal) and s.name == "dodged" and s.name_pos == (1, 8)


def test_put_forms() -> None:
    s = one("put card into holder judge")
    assert isinstance(s, A.PutZone) and s.zone == "judge" and s.player.id == "holder"  # type: ignore[attr-defined]
    s = one("put c on top of draw pile")
    assert isinstance(s, A.PutPile) and s.where == "top"
    s = one("put c on bottom of draw pile")
    assert isinstance(s, A.PutPile) and s.where == "bottom"


def test_arrange_distribute_reveal_look() -> None:
    s = one("arrange top 5")
    assert isinstance(s, A.Arrange) and s.amount.value == 5  # type: ignore[attr-defined]
    s = one("distribute cs")
    assert isinstance(s, A.Distribute)
    s = one("reveal top 2 as cs")
    assert isinstance(s, A.Reveal) and s.as_name == "cs" and not s.private
    s = one("look at top 2 as cs")
    assert isinstance(s, A.Reveal) and s.as_name == "cs" and s.private


def test_ignore_deny_redirect() -> None:
    s = one("ignore armor of target")
    assert isinstance(s, A.Ignore) and s.slot == "armor" and s.slot_pos == (1, 8)
    s = one("deny responses from target")
    assert isinstance(s, A.Deny) and s.player.id == "target"  # type: ignore[attr-defined]
    s = one("redirect to p")
    assert isinstance(s, A.Redirect) and s.player.id == "p"  # type: ignore[attr-defined]


def test_check_victory_turn_over_log_resolve_act() -> None:
    assert isinstance(one("check victory"), A.CheckVictory)
    assert isinstance(one("turn over"), A.TurnOver)
    s = one("target turns over")
    assert isinstance(s, A.TurnOver) and s.subject.id == "target"  # type: ignore[union-attr]
    s = one('log "hello there"')
    assert isinstance(s, A.Log) and s.text == "hello there"
    s = one("resolve c")
    assert isinstance(s, A.Resolve) and s.card.id == "c"  # type: ignore[attr-defined]
    assert isinstance(one("act"), A.Act)


def test_let_and_assign() -> None:
    s = one("let x = 1")
    assert isinstance(s, A.Let) and s.name == "x" and s.value.value == 1  # type: ignore[attr-defined]
    for op in ("=", "+=", "-="):
        s = one(f"event.amount {op} 1")
        assert isinstance(s, A.Assign) and s.op == op and isinstance(s.target, A.Attr)
    s = one('me.mark("x") += 1')
    assert isinstance(s, A.Assign) and isinstance(s.target, A.Call)


@pytest.mark.parametrize("word", ["stop", "break", "cancel", "pass"])
def test_control(word: str) -> None:
    s = one(word)
    assert isinstance(s, A.Control) and s.kind == word


def test_if_elif_else() -> None:
    s = one(textwrap.dedent("""\
        if judge.suit == spade:
          draw 1
        elif judge.suit == heart:
          recover 1
          draw 1
        else:
          pass"""))
    assert isinstance(s, A.If)
    assert len(s.branches) == 2
    assert [type(x) for x in s.branches[1][1]] == [A.Recover, A.Draw]
    assert s.orelse is not None and isinstance(s.orelse[0], A.Control)
    s = one("if true:\n  draw 1")
    assert isinstance(s, A.If) and s.orelse is None


def test_for_each() -> None:
    s = one("for each p in others:\n  p draws 1")
    assert isinstance(s, A.ForEach) and s.var == "p" and isinstance(s.body[0], A.Draw)


def test_repeat_forms() -> None:
    s = one("repeat 3 times:\n  draw 1")
    assert isinstance(s, A.Repeat) and s.kind == "times" and s.expr.value == 3  # type: ignore[union-attr]
    s = one("repeat while me.hp < 1:\n  recover 1")
    assert isinstance(s, A.Repeat) and s.kind == "while" and isinstance(s.expr, A.Compare)
    s = one("repeat:\n  judge\n  break")
    assert isinstance(s, A.Repeat) and s.kind == "forever" and s.expr is None and len(s.body) == 2


def test_nested_blocks_blank_lines_and_comments() -> None:
    text = textwrap.dedent("""\
        # leading comment
        for each p in alive:

          repeat while p.alive and p.hp < 1:   # trailing comment
            ask p use rescue on me
            if not responded:
              break
        draw 1
        """)
    block = parse_block(text, Origin("x.yaml", 1, 1, block=True))
    assert [type(s) for s in block] == [A.ForEach, A.Draw]
    inner = block[0].body[0]  # type: ignore[attr-defined]
    assert isinstance(inner, A.Repeat) and isinstance(inner.body[1], A.If)


def test_line_continuation() -> None:
    s = one("draw count(c from me.hand \\\n  where c.color == red)")
    assert isinstance(s, A.Draw) and isinstance(s.amount, A.Call)


def test_brackets_span_lines() -> None:
    s = one("choose one of [heart,\n    spade,\n    club] as s")
    assert isinstance(s, A.ChooseSymbol) and len(s.options.items) == 3  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["user", "drawer", "stopper", "passer", "turner", "judger", "player", "uses_left"])
def test_names_that_begin_with_a_keyword(name: str) -> None:
    s = one(f"{name} draws 1")
    assert isinstance(s, A.Draw) and s.subject.id == name  # type: ignore[union-attr]


# ------------------------------------------------------------------ expressions


def test_expression_atoms() -> None:
    assert expr("3").value == 3  # type: ignore[attr-defined]
    assert expr('"text"').value == "text"  # type: ignore[attr-defined]
    assert expr("none").value is None  # type: ignore[attr-defined]
    assert expr("true").value is True and expr("false").value is False  # type: ignore[attr-defined]
    assert isinstance(expr("[]"), A.ListExpr) and expr("[]").items == []  # type: ignore[attr-defined]
    assert len(expr("[1, 2, 3]").items) == 3  # type: ignore[attr-defined]
    assert expr("event_name").id == "event_name"  # type: ignore[attr-defined]


def test_precedence() -> None:
    e = expr("a or b and not c")
    assert isinstance(e, A.BoolOp) and e.op == "or"
    assert isinstance(e.right, A.BoolOp) and e.right.op == "and" and isinstance(e.right.right, A.Not)
    e = expr("1 + 2 * 3")
    assert isinstance(e, A.BinOp) and e.op == "+"
    assert isinstance(e.right, A.BinOp) and e.right.op == "*"
    e = expr("8 / 2 * 3")
    assert isinstance(e, A.BinOp) and e.op == "*" and isinstance(e.left, A.BinOp) and e.left.op == "/"
    e = expr("-x + 1")
    assert isinstance(e, A.BinOp) and isinstance(e.left, A.Neg)
    e = expr("(1 + 2) * 3")
    assert isinstance(e, A.BinOp) and e.op == "*" and isinstance(e.left, A.BinOp)


@pytest.mark.parametrize("text", ["1 - 2", "me.max_hp - 1", "count(me.hand) - 1", "1 + 2 * 3 - 4"])
def test_subtraction(text: str) -> None:
    e = expr(text)
    assert isinstance(e, A.BinOp) and e.op == "-"


def test_subtraction_in_an_expectation() -> None:
    # the left side still parses when the right side has no minus
    e = expr("guojia.hp == guojia.max_hp + -1")
    assert isinstance(e, A.Compare) and isinstance(e.right, A.BinOp) and isinstance(e.right.right, A.Neg)


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
def test_comparisons(op: str) -> None:
    e = expr(f"me.hp {op} 2")
    assert isinstance(e, A.Compare) and e.op == op


def test_in_and_not_in() -> None:
    e = expr("p in event.targets")
    assert isinstance(e, A.Compare) and e.op == "in"
    e = expr("p not in event.targets")
    assert isinstance(e, A.Compare) and e.op == "notin"
    e = expr("not p in event.targets")
    assert isinstance(e, A.Not) and isinstance(e.operand, A.Compare)


def test_conditional_expression() -> None:
    e = expr("0 if count(players) == 4 else 1")
    assert isinstance(e, A.CondExpr)
    assert isinstance(e.test, A.Compare) and e.then.value == 0 and e.orelse.value == 1  # type: ignore[attr-defined]


def test_attributes_calls_and_comprehensions() -> None:
    e = expr("event.source.hand")
    assert isinstance(e, A.Attr) and e.name == "hand" and e.name_pos == (1, 14)
    assert isinstance(e.obj, A.Attr) and e.obj.name == "source"
    e = expr("count(c from me.hand where c.color == red)")
    assert isinstance(e, A.Call) and isinstance(e.args[0], A.Comprehension)
    comp = e.args[0]
    assert comp.var == "c" and isinstance(comp.source, A.Attr) and isinstance(comp.cond, A.Compare)
    e = expr("select(p from players)")
    assert isinstance(e.args[0], A.Comprehension) and e.args[0].cond is None  # type: ignore[attr-defined]
    e = expr("f()")
    assert isinstance(e, A.Call) and e.args == []
    e = expr("distance(me, target) <= trick_distance(me, card)")
    assert isinstance(e, A.Compare) and len(e.left.args) == 2  # type: ignore[attr-defined]


def test_expression_may_be_surrounded_by_newlines() -> None:
    e = parse_expression("\nme.hp > 1\n\n", Origin("x.yaml", 1, 1))
    assert isinstance(e, A.Compare)


def test_statement_is_not_an_expression() -> None:
    syntax_error("draw 1", Origin("x.yaml", 1, 1), expression=True)


# ------------------------------------------------------------------ positions


def test_positions_in_a_block_origin() -> None:
    # a literal block whose text starts on file line 10, indented by 6 spaces
    origin = Origin("f.yaml", 10, 7, block=True)
    block = parse_block("draw 1\nif true:\n  target draws 2\n", origin)
    assert block[0].pos == (10, 7)
    assert block[1].pos == (11, 7)
    inner = block[1].branches[0][1][0]  # type: ignore[attr-defined]
    assert inner.pos == (12, 9)
    assert inner.amount.pos == (12, 22)


def test_positions_in_an_inline_origin() -> None:
    origin = Origin("f.yaml", 4, 11)
    e = parse_expression("me.hp > 1", origin)
    assert e.pos == (4, 11)
    assert e.right.pos == (4, 19)  # type: ignore[attr-defined]


def test_origin_map() -> None:
    assert Origin("f", 10, 7, block=True).map(1, 1) == (10, 7)
    assert Origin("f", 10, 7, block=True).map(3, 5) == (12, 11)
    assert Origin("f", 4, 11).map(1, 3) == (4, 13)
    assert Origin("f", 4, 11).map(2, 3) == (5, 3)


def test_unexpected_token_in_a_block() -> None:
    d = syntax_error("draw 1\ndraw 1 2\n", Origin("f.yaml", 20, 9, block=True))
    # `2` is column 8 of the snippet's second line
    assert (d.line, d.col) == (21, 16)
    assert "'2'" in d.message


def test_unexpected_character_in_a_block() -> None:
    d = syntax_error("judge\nif judge.suit == heart:\n  draw $\n", Origin("f.yaml", 5, 5, block=True))
    assert (d.line, d.col) == (7, 12)
    assert "'$'" in d.message


def test_missing_colon_points_at_the_end_of_the_line() -> None:
    d = syntax_error("draw 1\nif me.hp > 1\n  draw 1\n", Origin("f.yaml", 3, 3, block=True))
    assert (d.line, d.col) == (4, 15)
    assert "':'" in d.message


def test_unfinished_expression_at_the_end_of_the_text() -> None:
    d = syntax_error("draw 1 +", Origin("f.yaml", 3, 3, block=True))
    assert (d.line, d.col) == (3, 11)


def test_bad_dedent_points_at_the_line() -> None:
    d = syntax_error("if true:\n    draw 1\n  draw 2\n", Origin("f.yaml", 7, 5, block=True))
    assert (d.line, d.col) == (9, 7)
    assert "indentation" in d.message


def test_error_in_an_inline_expression() -> None:
    d = syntax_error("event.source !== none", Origin("f.yaml", 15, 11), expression=True)
    assert (d.line, d.col) == (15, 26)


def test_an_expression_is_one_line() -> None:
    d = syntax_error("me.hp > 1 and\nme.hp > 2", Origin("f.yaml", 15, 11), expression=True)
    # the first line is unfinished: the error is at its end
    assert (d.line, d.col) == (15, 24)


def test_friendly_messages() -> None:
    d = syntax_error("draw 1 )\n", Origin("f.yaml", 1, 1, block=True))
    assert d.message.startswith("effect syntax: unexpected ')'")
    d = syntax_error("if true\n  draw 1\n", Origin("f.yaml", 1, 1, block=True))
    assert "expected" in d.message and "':'" in d.message


PACK = """\
pack: grammar_test
heroes:
  - id: grammar_tester
    name: {{zh: 测, en: Tester}}
    kingdom: wei
    gender: male
    hp: 4
    skills: [grammar_skill]
skills:
  - id: grammar_skill
    name: {{zh: 技, en: Skill}}
    trigger:
      on: damaged
      if: {cond}
      do: |
{body}
"""


def check_pack(tmp_path: Path, body: str, cond: str = "event.source != none"):
    text = PACK.format(cond=cond, body=textwrap.indent(textwrap.dedent(body), " " * 8))
    path = tmp_path / "pack.yaml"
    path.write_text(text, encoding="utf-8")
    diags = check_content(None, [path])
    return text.splitlines(), diags


def test_yaml_block_error_maps_to_file_position(tmp_path: Path) -> None:
    lines, diags = check_pack(tmp_path, """\
        draw 1
        if count(me.hand) > 2:
          discard 1 hand card )
        """)
    (d,) = diags
    assert d.code == "E200"
    assert lines[d.line - 1] == "          discard 1 hand card )"
    assert (d.line, d.col) == (18, 31)
    assert lines[d.line - 1][d.col - 1] == ")"


def test_yaml_block_dedent_error_maps_to_file_position(tmp_path: Path) -> None:
    lines, diags = check_pack(tmp_path, """\
        if true:
            draw 1
          draw 2
        """)
    (d,) = diags
    assert (d.code, d.line, d.col) == ("E200", 18, 11)
    assert lines[d.line - 1] == "          draw 2"


def test_yaml_condition_error_maps_to_file_position(tmp_path: Path) -> None:
    lines, diags = check_pack(tmp_path, "draw 1\n", cond="event.source != none )")
    (d,) = diags
    assert (d.code, d.line, d.col) == ("E200", 14, 32)
    assert lines[d.line - 1][d.col - 1] == ")"


def test_yaml_quoted_condition_error_maps_to_file_position(tmp_path: Path) -> None:
    lines, diags = check_pack(tmp_path, "draw 1\n", cond='"event.source != none )"')
    (d,) = diags
    assert (d.code, d.line, d.col) == ("E200", 14, 33)
    assert lines[d.line - 1][d.col - 1] == ")"


def test_yaml_multiline_plain_condition_error_points_at_the_mistake(tmp_path: Path) -> None:
    lines, diags = check_pack(tmp_path, "draw 1\n", cond="event.source != none and\n        event.source.hp $ 2")
    (d,) = diags
    assert d.code == "E200"
    assert d.col <= len(lines[d.line - 1]), f"{d.line}:{d.col} is past the end of the line"
    assert (d.line, d.col) == (15, 25)
    assert lines[d.line - 1][d.col - 1] == "$"
