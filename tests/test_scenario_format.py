"""The rule-case format (issue 12, part 7): forced answers named by the script, marks in expectations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sgs_dsl.loader import load_content
from sgs_dsl.scenarios import run_file

FORMAT = Path(__file__).parent / "scenarios" / "format"
FORCED = FORMAT / "forced_answer_named_by_the_script_is_accepted.yaml"


@pytest.fixture(scope="module")
def content() -> Any:
    return load_content()


def test_a_decision_naming_the_forced_answer_is_taken(content: Any) -> None:
    result = run_file(content, FORCED)
    assert result.passed, result.reason


def test_a_decision_naming_another_answer_than_the_forced_one_fails_and_says_what_the_engine_gave(
        content: Any, tmp_path: Path) -> None:
    text = FORCED.read_text(encoding="utf-8").replace("zhangliao: {choose: [slash C2]}",
                                                      "zhangliao: {choose: [peach H4]}")
    path = tmp_path / "other.yaml"
    path.write_text(text, encoding="utf-8")
    result = run_file(content, path)
    assert not result.passed
    assert result.reason == (
        "decisions left unused (not taken by the requests asked): zhangliao: {choose: ['peach H4']} "
        "(zhangliao was asked to choose cards (cards), which has a single legal answer, [slash ♣2]: "
        "the engine gave it)")


def test_a_false_mark_expectation_says_what_the_mark_was(content: Any, tmp_path: Path) -> None:
    text = (FORMAT / "mark_read_in_expectations.yaml").read_text(encoding="utf-8").replace(
        "zhangfei.mark(nightmare) == 1      #", "zhangfei.mark(nightmare) == 3      #")
    path = tmp_path / "mark.yaml"
    path.write_text(text, encoding="utf-8")
    result = run_file(content, path)
    assert not result.passed
    assert result.reason == "line 19: expected zhangfei.mark(nightmare) == 3, but zhangfei.mark(nightmare) was 1"


def test_only_a_delayed_trick_lies_in_a_judge_area_as_another_card(content: Any, tmp_path: Path) -> None:
    text = (FORMAT / "virtual_indulgence_in_judge_area_read_in_state.yaml").read_text(encoding="utf-8")
    path = tmp_path / "slash_face.yaml"
    path.write_text(text.replace('judge: ["indulgence[jink D2]"]\nturn', 'judge: ["slash[jink D2]"]\nturn'),
                    encoding="utf-8")
    result = run_file(content, path)
    assert not result.passed and result.log == []
    assert result.reason == (f"{path}:10:13: E301 'slash' is not a delayed trick: only a delayed trick lies in a "
                             "judge area as another card")
    path = tmp_path / "misspelt_face.yaml"
    path.write_text(text.replace('judge: ["indulgence[jink D2]"]\nturn', 'judge: ["indulgnce[jink D2]"]\nturn'),
                    encoding="utf-8")
    result = run_file(content, path)
    assert not result.passed and "E300 unknown card 'indulgnce' (did you mean 'indulgence'?)" in result.reason


HERO_PILE = FORMAT / "hero_pile_after_the_shuffle.yaml"
RULES_DECK = FORMAT / "rules_deck_below_the_named_draw_pile.yaml"


def _variant(tmp_path: Path, source: Path, old: str, new: str) -> Path:
    text = source.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / source.name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_a_case_dealt_from_its_hero_pile_gives_only_roles_and_names_seats_by_number(
        content: Any, tmp_path: Path) -> None:
    path = _variant(tmp_path, HERO_PILE, "  - role: rebel\n  - role: loyalist",
                    "  - {role: rebel, hand: [slash S7]}\n  - role: loyalist")
    text = path.read_text(encoding="utf-8").replace("  - seat2: {choose: zhaoyun}", "  - zhaoyun: {choose: zhaoyun}")
    path.write_text("turn: 0\n" + text, encoding="utf-8")
    result = run_file(content, path)
    assert not result.passed
    assert "E330 a case dealt from hero_pile starts before the heroes are chosen: a seat gives only its role, " \
           "not 'hand'" in result.reason
    assert "E330 a case dealt from hero_pile starts at the beginning of the game: 'turn' is the rules'" in result.reason
    assert "E300 no seat is 'zhaoyun': the seats of a case dealt from hero_pile have no hero before the deal; " \
           "name a seat by number or seatN (seat0 to seat4)" in result.reason


def test_a_hero_pile_names_each_hero_once_and_known_heroes_only(content: Any, tmp_path: Path) -> None:
    path = _variant(tmp_path, HERO_PILE, "hero_pile: [zhangfei, liubei,", "hero_pile: [zhangfie, liubei, liubei,")
    result = run_file(content, path)
    assert not result.passed
    assert "E300 unknown hero 'zhangfie' (did you mean 'zhangfei'?)" in result.reason
    assert "E310 'liubei' is twice in the hero pile (also at 1)" in result.reason


def test_a_seat_without_a_hero_needs_a_hero_pile(content: Any, tmp_path: Path) -> None:
    path = _variant(tmp_path, FORMAT / "mark_read_in_expectations.yaml", "  - hero: zhangfei\n    role: rebel",
                    "  - role: rebel")
    result = run_file(content, path)
    assert not result.passed
    assert "E112 the seat has no 'hero' (every seat needs one, unless the case deals from 'hero_pile')" in result.reason


def test_the_rules_deck_below_the_named_pile_follows_the_seed(content: Any, tmp_path: Path) -> None:
    from sgs_dsl.scenarios import _Case
    from sgs_dsl.yamlsafe import load_file
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.resolution.turn import setup_table

    def pile(seed: int) -> list[str]:
        path = _variant(tmp_path, RULES_DECK, "seed: 11", f"seed: {seed}")
        doc = load_file(path)
        case = _Case(content, doc)
        game = Game(content, content.ruleset(None), seed=seed, table=case.table())
        setup_table(game)
        return [f"{c.base.id} {c.printed_suit} {c.rank}" for c in game.draw_pile.cards]

    first, again, other = pile(11), pile(11), pile(12)
    assert first == again and first != other
    assert first[:2] == ["jink diamond 2", "jink diamond 3"] and len(first) == 2 + 104 - 5
    assert sorted(first[2:]) == sorted(other[2:])


def test_a_wrong_decision_is_told_by_its_number_and_seat_with_what_a_decision_may_be(
        content: Any, tmp_path: Path) -> None:
    path = tmp_path / "bad_decisions.yaml"
    path.write_text("name: bad decisions\nseats:\n  - {hero: guanyu, role: rebel}\n  - {hero: xiahoudun, role: lord}\n"
                    "decisions:\n  - guanyu: {use: 5}\n  - guanyu: {invok: wusheng}\n  - guanyu: {frob: 1}\n",
                    encoding="utf-8")
    reason = run_file(content, path).reason
    assert "6:19: E111 decision 1 (guanyu).use must be a text, not a number" in reason
    assert "7:14: E110 unknown key 'invok' in decision 2 (guanyu) (did you mean 'invoke'?)" in reason
    assert "8:14: E110 unknown key 'frob' in decision 3 (guanyu) (a decision is pass, end, yes, no or one of: use, " \
           "recast, skill," in reason
