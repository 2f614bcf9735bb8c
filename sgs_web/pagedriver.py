"""Driving the table's page in a real browser (Playwright with Debian's chromium).

The browser tests (tests/test_browser.py) and the docs' screenshots (tools/browser_screenshots.py)
play through the page as a person does: they click what the page offers. Playwright's own browser
downloads are never used: :func:`launch` starts the system's chromium.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any, Optional

#: the system's chromium (Debian's package); SGS_CHROMIUM names another
CHROMIUM = os.environ.get("SGS_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]

#: what the page shows when it can be answered, or when the game is over
READY = "#request button:not([disabled]), #result"


def launch(playwright: Any) -> Any:
    """The system's chromium, headless; :class:`RuntimeError` with a sentence when it cannot start."""
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"no chromium at {CHROMIUM} (apt-get install chromium, or set SGS_CHROMIUM)")
    try:
        return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    except Exception as exc:  # a browser that does not start: said in a sentence (the tests skip on it)
        raise RuntimeError(f"chromium ({CHROMIUM}) cannot be started: {str(exc).splitlines()[0]}") from None


def take_seat(page: Any, url: str, name: str, seat: Optional[int] = None, start: bool = True) -> None:
    """Open the lobby, take a seat (the first free one, or ``seat``) with ``name``, and start the game."""
    page.goto(url)
    page.fill("#name", name)
    button = page.locator(".take" if seat is None else f".take[data-seat='{seat}']").first
    button.click()
    page.wait_for_selector("#banner >> text=Waiting for the game to start")
    if start:
        page.locator("#banner .start").click()
        page.wait_for_selector("#banner >> text=You are seat", timeout=30_000)


def answer_once(page: Any, rng: random.Random, timeout: float = 30_000) -> bool:
    """Answer one step of what the page asks by clicking what it offers; False once the game is over."""
    page.wait_for_selector(READY, timeout=timeout)
    if page.locator("#result").count():
        return False
    try:
        if page.locator("#btn-default:not([disabled])").count() and rng.random() < 0.5:
            page.click("#btn-default", timeout=2_000)
            return True
        if page.locator("#btn-none:not([disabled])").count() and rng.random() < 0.4:
            page.click("#btn-none", timeout=2_000)
            return True
        choices = page.locator("#request button.choice:not([disabled])")
        n = choices.count()
        if page.locator("#btn-ok").count():  # several to choose: pick, then OK
            want = int(page.locator("#btn-ok").inner_text().split("; ")[1].split("–")[0])
            for i in rng.sample(range(n), min(n, max(want, 1))):
                choices.nth(i).click(timeout=2_000)
            if page.locator("#btn-ok:not([disabled])").count():
                page.click("#btn-ok", timeout=2_000)
                return True
        elif n:
            choices.nth(rng.randrange(n)).click(timeout=2_000)
            return True
        for fallback in ("#btn-default", "#btn-none", "#btn-back"):
            if page.locator(f"{fallback}:not([disabled])").count():
                page.click(fallback, timeout=2_000)
                return True
    except Exception:  # the page was drawn anew under the click (a bot moved): look again
        return True
    return True


def play_until(page: Any, rng: random.Random, done: Any, steps: int = 2_000) -> int:
    """Answer what the page asks until ``done()`` or the game is over; how many steps were answered."""
    for n in range(steps):
        if done() or not answer_once(page, rng):
            return n
    raise AssertionError(f"the game did not end in {steps} answers")
