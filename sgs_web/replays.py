"""The replay viewer's side: a saved game (its seed and decisions) stepped forward and back.

A transcript (sgs_runtime/records/replay.py) is checked, then played back once for each seat the viewer
asks for; after the start and after each decision the table is kept as that seat saw it
(``table_model`` of its view) with the log as it saw it, so that stepping back is reading an
earlier step. A game saved before its end is shown up to its last decision.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from sgs_runtime.errors import GameError, UsageError
from sgs_runtime.records.present import table_model
from sgs_runtime.records.replay import check_content, check_record, resume

from .frames import SeatLog, result_model

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.state.definitions import Content


@dataclass
class Step:
    """The table after ``n`` decisions, as one seat saw it."""

    table: dict[str, Any]
    log_lines: int  # how many of the seat's log lines had been told
    decision: Optional[dict[str, Any]]  # the decision that led here (None for the start)


@dataclass
class Replay:
    """A transcript and, per seat, its steps (computed the first time that seat is asked for)."""

    id: str
    content: "Content"
    record: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    steps: dict[int, tuple[list[Step], list[str], Optional[dict[str, Any]]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def players(self) -> int:
        return int(self.record["players"])

    @property
    def decisions(self) -> int:
        return len(self.record["decisions"])

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "rules": self.record["rules"], "players": self.players, "seed": self.record["seed"],
                "steps": self.decisions + 1, "notes": self.notes}

    def seat_steps(self, seat: int) -> tuple[list[Step], list[str], Optional[dict[str, Any]]]:
        """Every step as ``seat`` saw it, the seat's log lines, and the result (if the game ended)."""
        if not 0 <= seat < self.players:
            raise UsageError(f"there is no seat {seat}: the seats are 0 to {self.players - 1}")
        with self.lock:
            if seat not in self.steps:
                self.steps[seat] = self._play(seat)
            return self.steps[seat]

    def _play(self, seat: int) -> tuple[list[Step], list[str], Optional[dict[str, Any]]]:
        log = SeatLog(seat)
        steps: list[Step] = []
        decisions = self.record["decisions"]

        def keep(game: "Game") -> None:
            n = len(steps)  # the decisions answered so far
            log.catch_up(game)
            steps.append(Step(table_model(game.view_for(seat)), len(log.lines), decisions[n - 1] if n else None))

        try:
            # each decision is watched before it is answered: the table then is the step before it
            game, _ = resume(self.content, self.record, warn=lambda note: None, watch=lambda g, r, a: keep(g))
        except GameError as exc:
            raise UsageError(f"the saved game cannot be replayed: {exc}") from None
        keep(game)
        return steps, log.lines, result_model(game)

    def step(self, seat: int, n: int) -> dict[str, Any]:
        """Step ``n`` (0: the start) as ``seat`` saw it."""
        steps, lines, result = self.seat_steps(seat)
        if not 0 <= n < len(steps):
            raise UsageError(f"there is no step {n}: the steps are 0 to {len(steps) - 1}")
        s = steps[n]
        out: dict[str, Any] = {"seat": seat, "step": n, "steps": len(steps), "table": s.table,
                               "log": lines[:s.log_lines][-200:], "decision": _decision(s.decision, seat)}
        if n == len(steps) - 1 and result is not None:
            out["result"] = result
        return out


def _decision(d: Optional[dict[str, Any]], seat: int) -> Optional[dict[str, Any]]:
    """Who decided what kind of thing at a step; the answer itself only for the seat's own decisions
    (another seat's answer may name a card the seat never saw)."""
    if d is None:
        return None
    return {"player": d["player"], "kind": d["kind"], **({"answer": d["answer"]} if d["player"] == seat else {})}


def load(replay_id: str, content: "Content", record: Any) -> Replay:
    """A replay of ``record`` (a transcript), checked: a clear :class:`UsageError` when it does not fit."""
    try:
        check_record(content, record)
        notes = check_content(content, record)
    except GameError as exc:
        raise UsageError(f"that is not a saved game this server can replay: {exc}") from None
    return Replay(replay_id, content, record, notes)
