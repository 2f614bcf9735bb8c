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
