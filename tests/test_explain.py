"""Rule cases that explain themselves (issue 12, part 6).

A failed expectation says what was there; a misspelt name in a decision gets the nearest
one before anything is played; ``--explain`` tells every request and its answer and every
skill offered between the events, ``--why SKILL`` each point where the skill could have
fired and what held it back; the story names whose card a move took.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import TESTS, run_cli

from sgs_dsl.loader import load_content
from sgs_dsl.scenarios import run_file
from sgs_runtime.agents import RandomAgent
from sgs_runtime.records.narrate import explain, merged, story
from sgs_runtime.records.replay import replay, transcript
from sgs_runtime.resolution.game import Game

CASES = TESTS / "scenarios"
GANGLIE = CASES / "rulings2" / "ganglie_one_hand_card_must_take_damage.yaml"
NO_SOURCE = CASES / "rulings" / "ganglie_no_source_lightning.yaml"
INVALID = CASES / "gods_sp" / "chanyuan_invalid_ganglie_does_not_fire.yaml"
DISMANTLE_JUDGE = CASES / "cards2" / "dismantlement_discards_lightning_from_judge_area.yaml"
SNATCH_JUDGE = CASES / "cards2" / "snatch_takes_indulgence_from_judge_area.yaml"


@pytest.fixture(scope="module")
def content() -> Any:
    return load_content()


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


TABLE = """\
name: a Slash on Xiahou Dun
seats:
  - hero: guanyu
    role: lord
    hand: [slash S7, jink D5]
  - hero: xiahoudun
    role: rebel
draw_pile: [jink D2, jink D3]
turn: guanyu
phase: play
decisions:
  - guanyu: {use: slash S7, targets: [xiahoudun]}
"""


# ------------------------------------------------------------------ 1. actual values


def test_a_failed_expectation_says_the_actual_value(content: Any, tmp_path: Path) -> None:
    path = write(tmp_path, "values.yaml", TABLE + """\
stop: {after_phase: play}
expect:
  - guanyu.hp == 3
  - count(guanyu.hand) == 2
  - not xiahoudun.alive
  - '"jink D2" in guanyu.hand'
  - xiahoudun.hp >= 4 and guanyu.hp == 5
  - guanyu.hp < xiahoudun.hp
  - xiahoudun.hp != 3
  - xiahoudun in winners
state:
  discard_pile: {contains: [peach H3]}
  guanyu: {contains: [peach H3], hp: 2}
""")
    result = run_file(content, path)
    assert not result.passed
    reasons = result.reason.split("; ")
    assert reasons == [
        "line 15: expected guanyu.hp == 3, but guanyu.hp was 5",
        "line 16: expected count(guanyu.hand) == 2, but count(guanyu.hand) was 1",
        "line 17: expected not xiahoudun.alive, but xiahoudun.alive was true",
        'line 18: expected "jink D2" in guanyu.hand, but guanyu.hand held [jink ♦5]',
        "line 19: expected xiahoudun.hp >= 4 and guanyu.hp == 5, but xiahoudun.hp was 3",
        "line 20: expected guanyu.hp < xiahoudun.hp, but guanyu.hp was 5 and xiahoudun.hp was 3",
        "line 21: expected xiahoudun.hp != 3, but xiahoudun.hp was 3",
        "line 22: expected xiahoudun in winners, but winners held nothing",
        "line 24: discard_pile does not hold peach ♥3 (it holds [slash ♠7])",
        "line 25: guanyu.hp is 5, expected 2",
        "line 25: guanyu does not hold peach ♥3 (it holds [jink ♦5])",
    ]


# ------------------------------------------------------------------ 2. did you mean


def test_a_misspelt_skill_in_a_decision_is_reported_before_the_game(content: Any, tmp_path: Path) -> None:
    path = write(tmp_path, "ganglei.yaml", TABLE + "  - xiahoudun: {invoke: ganglei}\n")
    result = run_file(content, path)
    assert not result.passed and result.log == []  # nothing was played
    assert result.reason == f"{path}:13:25: E300 unknown skill 'ganglei' (did you mean 'ganglie'?)"
    assert "decisions left unused" not in result.reason


@pytest.mark.parametrize("decision, name, message", [
    ("{use: slahs S7, targets: [xiahoudun]}", "slahs", "unknown card 'slahs' (did you mean 'slash'?)"),
    ("{use: slash S7, targets: [xiahuodun]}", "xiahuodun", "no seat is 'xiahuodun' (did you mean 'xiahoudun'?)"),
    ("{choose: [xiahuodun]}", "xiahuodun", "no seat is 'xiahuodun' (did you mean 'xiahoudun'?)"),
    ("{skill: wushengg}", "wushengg", "unknown skill 'wushengg' (did you mean 'wusheng'?)"),
])
def test_every_name_a_decision_gives_is_checked(content: Any, tmp_path: Path, decision: str, name: str,
                                                message: str) -> None:
    text = TABLE.replace("{use: slash S7, targets: [xiahoudun]}", decision)
    path = write(tmp_path, "names.yaml", text)
    result = run_file(content, path)
    assert not result.passed and result.log == []
    col = text.splitlines()[11].index(name) + 1
    assert result.reason.startswith(f"{path}:12:{col}: E300 {message}"), result.reason


def test_an_option_that_is_not_offered_gets_the_nearest(content: Any, tmp_path: Path) -> None:
    case = CASES / "cards2" / "double_sword_female_user_male_target.yaml"
    text = case.read_text(encoding="utf-8")
    assert "{choose: discard}" in text
    result = run_file(content, write(tmp_path, "option.yaml", text.replace("{choose: discard}",
                                                                           "{choose: dsicard a card}")))
    assert not result.passed
    assert "'dsicard a card' is not an option (did you mean 'discard a hand card'?); the options are" in result.reason


# ------------------------------------------------------------------ 3. --explain, --why


def test_explain_tells_requests_answers_and_offers_in_order(content: Any) -> None:
    result = run_file(content, GANGLIE, explain=True)
    assert result.passed
    lines = result.explain()
    play = next(i for i, t in enumerate(lines) if t.startswith("? xuchu is asked: play phase"))
    assert lines[play].endswith("[play] → uses slash ♠7 on xiahoudun")
    used = lines.index("xuchu uses slash ♠7 on xiahoudun")
    offered = lines.index("xiahoudun is offered ganglie (damaged)")
    invoked = lines.index("? xiahoudun is asked: invoke ganglie (刚烈)? [confirm] → invokes ganglie")
    fired = lines.index("xiahoudun's ganglie fires (damaged)")
    assert play < used < offered < invoked < fired
    # a request with one legal answer is answered by the engine: told as such
    assert "? xuchu is asked: choose one [option] → take 1 damage (the only answer: given by the engine)" in lines
    # the story of the events is all there, in its order
    events = [t for t in lines if not t.startswith("? ") and " is offered " not in t]
    assert events == story(result.log)


def test_explain_tells_what_was_declined(content: Any, tmp_path: Path) -> None:
    text = TABLE.replace("[slash S7, jink D5]", "[slash S7, ex_nihilo HA]").replace(
        "    role: rebel\n", "    role: rebel\n    hand: [jink D5]\n")
    path = write(tmp_path, "declined.yaml", text + """\
  - xiahoudun: {decline: ganglie}
  - guanyu: end
""")
    result = run_file(content, path, explain=True)
    assert result.passed, result.reason
    lines = result.explain()
    assert "xiahoudun is offered ganglie (damaged)" in lines
    assert "? xiahoudun is asked: invoke ganglie (刚烈)? [confirm] → declines ganglie" in lines
    assert any(t.startswith("? guanyu is asked: play phase") and t.endswith("→ ends the play phase") for t in lines)
    # the answer window nobody scripted: declined quietly, and told
    assert any(t.startswith("? xiahoudun is asked:") and "[respond] → declines" in t for t in lines)
    records = [r for r in merged(result.log, result.trace) if r["event"] == "asked"]
    assert {"player": "xiahoudun", "kind": "confirm", "skill": "ganglie", "declined": True}.items() <= \
        next(r for r in records if r["kind"] == "confirm").items()


@pytest.mark.parametrize("case, held", [
    (GANGLIE, "the event was xuchu's, not xiahoudun's"),
    (NO_SOURCE, "its condition 'if: event.source != none and event.source.alive' (heroes/standard.yaml:253) was false"),
    (INVALID, "the skill was not valid for xiahoudun (lost, or made invalid)"),
])
def test_why_tells_what_held_a_skill_back(content: Any, case: Path, held: str) -> None:
    result = run_file(content, case, why=["ganglie"])
    assert result.passed
    whys = [r for r in result.trace if r["event"] == "why"]
    assert whys and all(r["skill"] == "ganglie" and r["timing"] == "damaged" for r in whys)
    assert any(r["held"] == held for r in whys), whys
    lines = result.explain()
    assert any(t.startswith(f"why ganglie of xiahoudun at damaged: held back — {held} (trigger at heroes/")
               for t in lines), lines


def test_why_tells_a_limit_used_up(content: Any) -> None:
    result = run_file(content, CASES / "classic" / "old_luoshen_after_delayed_tricks.yaml", why=["old_luoshen"])
    assert result.passed
    assert any(r["event"] == "why" and r["held"] == "its limit (1 per turn) was used up" for r in result.trace)


def test_why_tells_where_a_skill_could_fire(content: Any) -> None:
    result = run_file(content, GANGLIE, why=["ganglie"])
    lines = result.explain()
    can = lines.index("why ganglie of xiahoudun at damaged: nothing holds it back, it can fire")
    assert can < lines.index("xiahoudun is offered ganglie (damaged)")


def test_explanations_change_nothing(content: Any) -> None:
    """The same game and the same log with the explanation records as without them."""
    plain = run_file(content, NO_SOURCE)
    told = run_file(content, NO_SOURCE, explain=True, why=["ganglie", "jianxiong"])
    assert plain.passed and told.passed and plain.log == told.log
    assert plain.trace == [] and told.trace
    g = Game(content, content.ruleset("identity"), players=5, seed=11)
    g.play([RandomAgent(i) for i in range(5)])
    again = replay(content, transcript(g), trace=True, why=["ganglie", "jianxiong", "tieqi"])
    assert again.log == g.log and g.trace is None
    assert again.trace is not None and sum(r["event"] == "asked" for r in again.trace) == len(g.decisions) + sum(
        r.get("forced", False) for r in again.trace)


def test_no_records_are_built_without_a_trace(content: Any) -> None:
    g = Game(content, content.ruleset("identity"), players=4, seed=3, keep_log=False)
    g.note("asked", player="nobody")
    assert g.trace is None and g.log == []


def test_scenario_run_explain_and_why_on_the_command_line(tmp_path: Path) -> None:
    result = run_cli("scenario", "run", str(GANGLIE), "--why", "ganglie")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "ok   " in out and "? xuchu is asked: play phase" in out
    assert "why ganglie of xiahoudun at damaged: held back — the event was xuchu's, not xiahoudun's" in out
    # passing cases where the skill never waited are not told
    quiet = run_cli("scenario", "run", str(DISMANTLE_JUDGE), "--why", "ganglie")
    assert quiet.exit_code == 0 and quiet.stdout.strip() == "1 passed, 0 failed"
    report = json.loads(run_cli("scenario", "run", str(GANGLIE), "--json", "--explain", "--why", "ganglie").stdout)
    records = report["cases"][0]["records"]
    kinds = [r["event"] for r in records]
    assert {"asked", "why", "offer", "skill", "damage"} <= set(kinds)
    assert kinds.index("offer") < max(i for i, k in enumerate(kinds) if k == "asked")
    assert "records" not in json.loads(run_cli("scenario", "run", str(GANGLIE), "--json").stdout)["cases"][0]


def test_why_an_unknown_skill_is_a_usage_error() -> None:
    result = run_cli("scenario", "run", str(GANGLIE), "--why", "ganglei")
    assert result.exit_code == 2
    assert "unknown skill 'ganglei' (did you mean 'ganglie'?)" in result.output


def test_replay_explain(content: Any, tmp_path: Path) -> None:
    g = Game(content, content.ruleset("identity"), players=4, seed=21)
    g.play([RandomAgent(i) for i in range(4)])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(transcript(g)), encoding="utf-8")
    told = run_cli("replay", "--explain", str(path))
    assert told.exit_code == 0, told.output
    lines = told.stdout.splitlines()
    assert sum(t.startswith("? ") and " is asked: " in t for t in lines) >= len(g.decisions)
    assert [t for t in lines if not t.startswith("? ") and " is offered " not in t] == story(g.log)
    records = [json.loads(t) for t in run_cli("replay", "--json", "--why", "ganglie", str(path)).stdout.splitlines()]
    assert [r for r in records if "seq" in r] == g.log
    assert sum(r["event"] == "asked" and not r["forced"] for r in records) == len(g.decisions)
    assert run_cli("replay", "--explain", "--seat", "0", str(path)).exit_code == 2


# ------------------------------------------------------------------ 4. owners and sources


def test_a_discarded_card_is_told_as_the_targets(content: Any) -> None:
    result = run_file(content, DISMANTLE_JUDGE)
    assert "zhangliao: discard lightning ♠A from lvmeng's judge area → discard pile" in story(result.log)


def test_a_gained_card_says_whose_it_was(content: Any) -> None:
    result = run_file(content, SNATCH_JUDGE)
    assert "zhangliao: gain indulgence ♠6 from xuchu's judge area → zhangliao's hand" in story(result.log)


def test_owners_follow_the_cards_through_the_game(content: Any, tmp_path: Path) -> None:
    """A hand card taken, then discarded by its new holder: each move names the holder of the moment."""
    path = write(tmp_path, "owners.yaml", """\
name: owners
seats:
  - hero: zhangliao
    role: lord
    hand: [snatch S3, dismantlement S4]
  - hero: xuchu
    role: rebel
    hand: [peach H3]
  - hero: lvmeng
    role: loyalist
    equip: [crossbow CA]
turn: zhangliao
phase: play
decisions:
  - zhangliao: {use: snatch S3, targets: [xuchu]}
  - zhangliao: {use: dismantlement S4, targets: [lvmeng]}
  - zhangliao: end
stop: {after_phase: play}
""")
    result = run_file(content, path)
    assert result.passed, result.reason
    lines = story(result.log)
    assert "zhangliao: gain peach ♥3 from xuchu's hand → zhangliao's hand" in lines
    assert "zhangliao: discard crossbow ♣A from lvmeng's equip → discard pile" in lines
    assert explain(result.log) == lines  # no trace: the same story
