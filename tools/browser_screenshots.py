"""The screenshots of docs/browser.md: the browser table played in Debian's chromium.

    pip install -e '.[web,browser-test]' && apt-get install chromium
    python tools/browser_screenshots.py [--out docs/img]

Starts the table's server on a free port with the built-in identity rules (5 players, a fixed
seed), takes seat 0 in a headless browser and plays by clicking what the page offers, then saves
the game and opens it in the replay viewer. Each picture is taken at a point of the game found
by what the page shows, so the same seeds give the same pictures.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from sgs_dsl.loader import load_content  # noqa: E402
from sgs_web.pagedriver import answer_once, launch, play_until, take_seat  # noqa: E402
from sgs_web.server import serving  # noqa: E402
from sgs_web.tables import Lobby  # noqa: E402

SEED = 1
SIZE = {"width": 1360, "height": 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    content = load_content()
    lobby = Lobby(content, content.ruleset("identity"), 5, args.seed)
    lobby.new_table()
    table = next(iter(lobby.tables.values()))
    rng = random.Random(args.seed)
    with serving(lobby) as url, sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport=SIZE)
        page.goto(url)
        page.fill("#name", "Ann")
        page.wait_for_selector(".take")
        page.screenshot(path=str(out / "browser-lobby.png"))
        take_seat(page, url, "Ann")
        page.screenshot(path=str(out / "browser-hero-choice.png"), full_page=True)

        def my_play_phase() -> bool:
            game = table.game
            return (game is not None and game.turn_number >= 6 and page.locator("#request .prompt").count() > 0
                    and "play phase" in page.inner_text("#request .prompt"))

        play_until(page, rng, my_play_phase)
        page.screenshot(path=str(out / "browser-table.png"), full_page=True)
        # a card's next step: on whom? (the page asks the targets after the card)
        for _ in range(40):
            step = page.locator("#request .step")
            if step.count() and "on whom" in step.inner_text():
                page.screenshot(path=str(out / "browser-targets.png"), full_page=True)
                break
            if not answer_once(page, rng):
                break
        with page.expect_download() as download:
            page.click("#save")
        saved = Path(tempfile.mkdtemp()) / "game.json"
        download.value.save_as(saved)
        steps = len(json.loads(saved.read_text(encoding="utf-8"))["decisions"])
        page.click("#nav-replay")
        page.set_input_files("#replay-file", str(saved))
        page.wait_for_selector("#replay-pos >> text=step 0 of")
        page.locator("#replay-slider").fill(str(steps // 2))
        page.wait_for_selector(f"#replay-pos >> text=step {steps // 2} of")
        page.screenshot(path=str(out / "browser-replay.png"), full_page=True)
        browser.close()
    for name in sorted(out.glob("browser-*.png")):
        print(name)


if __name__ == "__main__":
    main()
