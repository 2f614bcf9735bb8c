"""Errors raised while playing.

The exception tree (shared with :mod:`sgs_dsl.errors`)::

    SgsError                     every error this project raises on purpose
    ├── UsageError               a caller asked for something impossible
    ├── ContentError             (sgs_dsl) content files are wrong
    └── GameError                a game cannot go on
        ├── LimitExceeded        a step, depth or decision limit was hit
        ├── IllegalDecision      an agent answered a request with an illegal answer
        └── ScriptError          a rule case's scripted decisions do not fit the game

Every message is a sentence a user can act on; the CLI prints it without a
traceback.
"""

from __future__ import annotations

import difflib
from typing import Iterable


class SgsError(Exception):
    """Base class of every error raised on purpose by this project."""


class UsageError(SgsError):
    """The caller asked for something that cannot be done (a clear sentence)."""


class GameError(SgsError):
    """A game cannot go on."""


class LimitExceeded(GameError):
    """A game hit its step, depth or decision limit (a runaway game)."""

    def __init__(self, what: str, limit: int, where: str = "") -> None:
        self.what = what
        self.limit = limit
        super().__init__(f"the game exceeded its {what} limit of {limit}" + (f" ({where})" if where else ""))


class IllegalDecision(GameError):
    """An answer that the request does not allow."""


class ScriptError(GameError):
    """A scripted decision (rule case) does not fit what the game asks."""


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """A ``(did you mean 'x'?)`` suffix when a close candidate exists.

    >>> did_you_mean("colour", ["color", "suit"])
    " (did you mean 'color'?)"
    >>> did_you_mean("zzz", ["color"])
    ''
    """
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.7)
    return f" (did you mean '{close[0]}'?)" if close else ""
