"""The table's page in a real headless browser (Debian's chromium, driven by Playwright).

Skipped, with the reason, only where no browser can be started (no chromium installed, or the
web or browser-test extras missing); .ci/run installs them all.
"""

from __future__ import annotations

import json
import random
from typing import Any, Iterator

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install -e '.[web]')")
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="the browser-test extra is not installed (pip install -e '.[browser-test]')")

from sgs_runtime.records.replay import replay  # noqa: E402
from sgs_runtime.state.visibility import visible  # noqa: E402
from sgs_web.pagedriver import answer_once, launch, play_until, take_seat  # noqa: E402
from sgs_web.server import serving  # noqa: E402
from sgs_web.tables import Lobby, Table  # noqa: E402


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        try:
            b = launch(p)
        except RuntimeError as exc:
            pytest.skip(f"no browser can be started: {exc}")
        yield b
        b.close()


def served(content: Any, rules: str, players: int, seed: int, **kw: Any) -> tuple[Lobby, Any]:
    lobby = Lobby(content, content.ruleset(rules), players, seed, **kw)
    lobby.new_table()
    return lobby, serving(lobby)


def only_table(lobby: Lobby) -> Table:
    return next(iter(lobby.tables.values()))


def card_ids(frames: list[str]) -> set[int]:
    """The ids of every card a page was shown with its identity (name, suit, rank)."""
    out: set[int] = set()

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            if v.get("hidden") is False and isinstance(v.get("id"), int) and "kind" in v:
                out.add(v["id"])
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    for f in frames:
        walk(json.loads(f))
    return out


def test_a_whole_two_player_game_is_played_through_the_page_then_saved_and_replayed(
        browser: Any, content: Any, tmp_path: Any) -> None:
    lobby, server = served(content, "two_players", 2, seed=7)
    with server as url:
        page = browser.new_page()
        take_seat(page, url, "Ann")
        assert "your role" in page.inner_text("#banner")
        assert page.locator("#request .choice").count() > 0  # the hero choice
        steps = play_until(page, random.Random(3), lambda: False)
        assert steps > 3
        result = page.inner_text("#result")
        assert " won — you " in result
        table = only_table(lobby)
        assert table.state == "over" and table.game is not None and table.game.result is not None
        assert page.locator("#log li").count() > 10
        # save the game from the page, and step through it in the replay viewer
        with page.expect_download() as download:
            page.click("#save")
        saved = tmp_path / "game.json"
        download.value.save_as(saved)
        record = json.loads(saved.read_text(encoding="utf-8"))
        assert replay(content, record).result.winners == table.game.result.winners  # type: ignore[union-attr]
        page.click("#nav-replay")
        page.set_input_files("#replay-file", str(saved))
        page.wait_for_selector("#replay-pos >> text=step 0 of")
        last = len(record["decisions"])
        page.click("#replay-forward")
        page.wait_for_selector("#replay-pos >> text=step 1 of")
        page.click("#replay-last")
        page.wait_for_selector(f"#replay-pos >> text=step {last} of {last}")
        assert "won" in page.inner_text("#replay-decision")
        page.click("#replay-back")
        page.wait_for_selector(f"#replay-pos >> text=step {last - 1} of {last}")
        assert page.locator("#replay-seats .seat").count() == 2
        page.close()


def test_a_whole_five_player_game_is_played_through_the_page_and_shows_the_table(browser: Any, content: Any) -> None:
    lobby, server = served(content, "identity", 5, seed=5)
    with server as url:
        page = browser.new_page()
        take_seat(page, url, "Ann")
        table = only_table(lobby)
        play_until(page, random.Random(4), lambda: table.game is not None and table.game.turn_number >= 4)
        assert page.locator("#seats .seat").count() == 5
        assert page.locator("#seats .seat.me").count() == 1
        text = page.inner_text("#seats")
        game = table.game
        assert game is not None
        for p in game.players:  # every hero in Chinese and English
            assert p.hero.name.zh in text and p.hero.name.en in text
        assert "distance" in text and "♥" in text
        if game.players[0].hand.cards:  # my hand, by name, suits in colour
            hand = page.inner_text("#hand")
            assert game.players[0].hand.cards[0].kind.name.zh in hand
        assert page.locator("#log li").count() > 5
        play_until(page, random.Random(4), lambda: False)  # and on to the end of the game
        assert " won — you " in page.inner_text("#result")
        assert table.state == "over" and game.result is not None and game.turn_number > 4
        page.close()


def test_a_reloaded_page_gets_its_seat_and_request_back(browser: Any, content: Any) -> None:
    lobby, server = served(content, "two_players", 2, seed=9)
    with server as url:
        page = browser.new_page()
        take_seat(page, url, "Ann")
        rng = random.Random(5)
        for _ in range(3):
            answer_once(page, rng)
        page.reload()  # the token in localStorage brings the seat back
        page.wait_for_selector("#banner >> text=You are seat 0", timeout=30_000)
        table = only_table(lobby)
        assert table.seats[0].name == "Ann" and table.state == "playing"
        page.wait_for_selector("#request button:not([disabled])", timeout=30_000)
        for _ in range(3):
            answer_once(page, rng)
        assert table.state in ("playing", "over")
        page.close()


def test_two_browsers_each_see_only_their_own_hand(browser: Any, content: Any) -> None:
    lobby, server = served(content, "two_players", 2, seed=13)
    with server as url:
        frames: dict[int, list[str]] = {0: [], 1: []}
        pages = []
        for seat, name in ((0, "Ann"), (1, "Bo")):
            context = browser.new_context()  # its own localStorage: its own token
            page = context.new_page()
            page.on("websocket", lambda ws, s=seat: ws.on("framereceived", lambda payload, s=s: frames[s].append(
                payload if isinstance(payload, str) else payload.decode())))
            take_seat(page, url, name, seat=seat, start=False)
            pages.append(page)
        pages[0].locator("#banner .start").click()
        for page in pages:
            page.wait_for_selector("#banner >> text=You are seat", timeout=30_000)
        table = only_table(lobby)
        rng = random.Random(6)
        answered = 0
        while answered < 16 and table.state == "playing":
            ready = [p for p in pages if p.locator("#request button:not([disabled])").count()]
            if ready:  # the page being asked (what the page shows, not the server's state, says so)
                answer_once(ready[0], rng)
                answered += 1
            else:
                pages[0].wait_for_timeout(50)
        game = table.game
        assert game is not None and answered >= 6
        for seat, page in enumerate(pages):
            other = game.players[1 - seat]
            me = game.players[seat]
            unseen = {c.id for c in other.hand.cards if not visible(c, seat)}
            assert unseen, "the other seat's hand holds cards this seat never saw"
            shown = card_ids(frames[seat])
            assert not unseen & shown, f"seat {seat} was sent cards of the other hand: {unseen & shown}"
            page.wait_for_function(f"document.querySelectorAll('#hand .card').length === {len(me.hand.cards)}")
            hand_text = page.inner_text("#hand")
            for c in me.hand.cards:
                assert c.kind.name.zh in hand_text
            assert f"hand: {len(other.hand.cards)}" in page.inner_text(f"#seats .seat[data-seat='{1 - seat}']")
        for page in pages:
            page.context.close()


def test_a_game_saved_from_the_page_goes_on_at_a_new_table(browser: Any, content: Any, tmp_path: Any) -> None:
    lobby, server = served(content, "two_players", 2, seed=7)
    with server as url:
        page = browser.new_page()
        take_seat(page, url, "Ann")
        rng = random.Random(3)
        for _ in range(4):
            answer_once(page, rng)
        with page.expect_download() as download:
            page.click("#save")
        saved = tmp_path / "game.json"
        download.value.save_as(saved)
        record = json.loads(saved.read_text(encoding="utf-8"))
        first = only_table(lobby)
        first.close()
        page.click("#nav-lobby")
        page.set_input_files("#resume-file", str(saved))
        page.wait_for_function("document.querySelectorAll('.table-row').length >= 2", timeout=30_000)
        new = next(t for t in lobby.tables.values() if t is not first)
        assert new.record is not None and new.players == 2 and new.seed == record["seed"]
        page.locator(f".table-row[data-table='{new.id}'] .take[data-seat='0']").click()
        page.wait_for_selector("#banner >> text=Waiting for the game to start")
        page.locator("#banner .start").click()
        page.wait_for_selector("#banner >> text=You are seat", timeout=30_000)
        steps = play_until(page, rng, lambda: False)
        assert steps > 0 and " won — you " in page.inner_text("#result")
        assert new.game is not None and new.game.decisions[:len(record["decisions"])] == record["decisions"]
        page.close()
