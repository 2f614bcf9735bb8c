"""Filter skills, shown with small test heroes in a test content tree (tests/content_trees/filters).

The tree's hero pack is loaded beside the built-in content; its rule cases use the
test heroes. A ♠-as-♥ filter makes a judgement succeed; a name filter makes a heart
in hand a Slash for every request, limit and log record.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sgs_dsl.loader import check_content, load_content
from sgs_dsl.scenarios import run_file, scenario_files
from sgs_runtime.resolution.game import Game, SeatSetup, TableSetup
from sgs_runtime.state.model import Card

TREE = Path(__file__).parent / "content_trees" / "filters"
CASES = scenario_files([TREE / "cases"])


@pytest.fixture(scope="module")
def content():  # type: ignore[no-untyped-def]
    return load_content(None, [TREE / "heroes.yaml"])


def test_the_test_tree_validates() -> None:
    assert check_content(None, [TREE / "heroes.yaml"]) == []


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_filter_case(content, path: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_file(content, path)
    assert result.passed, result.reason


def test_filters_follow_the_card(content) -> None:  # type: ignore[no-untyped-def]
    """A card is seen through its holder's filters only while it is theirs."""
    kinds = content.cards
    spade = Card(0, kinds["jink"], "spade", 2)
    other = Card(1, kinds["jink"], "spade", 3)
    table = TableSetup([SeatSetup("spade_seer", "lord", hand=[spade]), SeatSetup("zhangfei", "rebel", hand=[other])],
                       [Card(2, kinds["slash"], "club", 2)], [], [], 0, "play")
    game = Game(content, content.ruleset(), table=table)
    game.start()
    assert (spade.suit, spade.color, spade.printed_suit) == ("heart", "red", "spade")
    assert other.suit == "spade"
    game.players[0].hand.remove(spade)
    game.discard_pile.add(spade)
    assert spade.suit == "spade"  # in the discard pile it is nobody's: as printed
