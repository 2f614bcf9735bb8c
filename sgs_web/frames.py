"""What one seat's page is sent: built only from that seat's view.

A frame is JSON: the table as the seat sees it (``sgs_runtime.records.present.table_model`` of its
:class:`~sgs_runtime.state.seatview.SeatView`), the request it is asked, masked for it
(``request_model``), and the log as it saw it (:func:`~sgs_runtime.state.visibility.log_view`
told in sentences). Nothing else of the game goes into it, so no card the seat may not see
reaches its browser. The page's answer comes back as JSON and is turned into the engine's
answer by ``sgs_runtime.records.present.answer_from``, against the same masked request (tables.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from sgs_runtime.records.present import log_lines, request_model, table_model
from sgs_runtime.state.visibility import log_view

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game

#: the log lines a page is sent with each frame (the last ones)
LOG_LINES = 200
#: the lines of the "why" panel (the last ones of the last resolution)
WHY_LINES = 60


class SeatLog:
    """The log in sentences as one seat saw it, told as the game goes on.

    It also marks where the seat last answered: the "why" panel explains what was resolved since
    (:meth:`why`). The sentences are the presentation model's (``present.log_lines``), as in the
    terminal: names instead of ids, another seat's answers only as answered or declined."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.lines: list[str] = []
        self.shown = 0  # the log records told so far
        self.since = (0, 0)  # (log records, trace records) when the seat last answered

    def catch_up(self, game: "Game") -> None:
        """Tell the records the game logged since the last call."""
        new = game.log[self.shown:]
        self.shown += len(new)
        self.lines.extend(log_lines(log_view(new, self.seat), game.view_for(self.seat)))

    def mark(self, game: "Game") -> None:
        """The seat has answered: the next "why" starts here."""
        self.since = (len(game.log), len(game.trace or []))

    def why(self, game: "Game") -> list[str]:
        """What was resolved since the seat last answered, with who was asked what (the game's trace)."""
        log_from, trace_from = self.since
        me = game.players[self.seat].name
        # a trace record names its player by hero id: before the heroes are chosen several players may
        # share one, and then no answer is told as the seat's own
        shared = sum(p.name == me for p in game.players) > 1
        notes = []
        for r in (game.trace or [])[trace_from:]:
            r = dict(r, at=max(0, int(r.get("at", log_from)) - log_from))
            if shared and r.get("event") == "asked":
                r["answer"] = "declines" if r.get("declined") else "answers"
            notes.append(r)
        records = log_view(game.log[log_from:], self.seat)
        return log_lines(records, game.view_for(self.seat), notes)[-WHY_LINES:]


def result_model(game: "Game") -> Optional[dict[str, Any]]:
    """How the game ended (public once it is over), or None while it goes on."""
    if game.result is None:
        return None
    r = game.result
    return {"reason": r.reason, "winners": list(r.winners), "winner_roles": list(r.winner_roles),
            "turns": r.turns, "limit": r.limit}


def seat_frame(game: "Game", seat: int, request: Any, request_id: int, log: SeatLog, state: str,
               asking: Optional[int], error: Optional[str] = None) -> dict[str, Any]:
    """Seat ``seat``'s page now: its view of the table, the request it is asked (masked for it), its log."""
    view = game.view_for(seat)
    frame: dict[str, Any] = {"type": "state", "seat": seat, "state": state, "table": table_model(view),
                             "asking": asking, "request": None, "request_id": None,
                             "log": log.lines[-LOG_LINES:], "log_total": len(log.lines), "why": log.why(game)}
    if request is not None:
        frame["request"] = request_model(request, view)
        frame["request_id"] = request_id
    result = result_model(game)
    if result is not None:
        me = game.players[seat]
        result["you_won"] = me.name in result["winners"]
        result["your_role"] = me.role
        frame["result"] = result
    if error:
        frame["error"] = error
    return frame

