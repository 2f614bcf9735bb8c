"""Tables: games held in memory, each played in its own thread.

A :class:`Table` is one game. Before it starts, people take seats with a name (each gets a token,
which their browser keeps to come back to the same seat); when someone starts it, the empty seats
are given bots (``agents``, the syntax of ``sgs simulate --agents``) and the game is played in a
thread of its own. The engine asks its agents synchronously (``decide(request, view)``): a browser
seat's agent (:class:`BrowserAgent`) sends its seat's page the request and waits for the answer
the page sends back.

No game hangs: the waiting agent wakes every :data:`POLL` seconds, and a closed table (or the
server shutting down, :meth:`Lobby.close`) ends its thread. A player who leaves keeps the seat:
while no browser holds it, the game waits for them up to ``takeover`` seconds at each of their
decisions, then the seat's bot answers for them; when a browser comes back with the token, the
player decides again from the next request on.

>>> Seat(0).bot
True
"""

from __future__ import annotations

import itertools
import queue
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from sgs_runtime.errors import SgsError, UsageError
from sgs_runtime.records.present import answer_from, request_model
from sgs_runtime.records.replay import check_content, check_record, resume, transcript
from sgs_runtime.resolution.game import Game
from sgs_runtime.runs.simulate import check_agents, check_pool, make_agent
from sgs_runtime.state.definitions import Content, Ruleset
from sgs_runtime.state.seatview import SeatView, ask_agent

from .frames import SeatLog, result_model, seat_frame

#: how often (seconds) a waiting seat looks whether its table was closed or its player left
POLL = 0.2
#: how often (seconds) at most the pages are told of the bots' moves between two browser decisions
REFRESH = 0.25
#: the tables a server holds at most (in memory): the oldest finished ones make room for new ones
MAX_TABLES = 64


class TableClosed(Exception):
    """The table was closed (or the server stops) while its game was being played: its thread ends."""


@dataclass
class Seat:
    """A seat at a table: a bot, or a person who took it with a name (and holds its token)."""

    index: int
    name: Optional[str] = None
    token: Optional[str] = None
    connections: int = 0  # browsers that hold the seat now
    left_at: Optional[float] = None  # when its last browser left (None: a browser holds it, or none ever came)
    stand_in: bool = False  # the bot answers for a player who left

    @property
    def bot(self) -> bool:
        return self.token is None

    def public(self) -> dict[str, Any]:
        """What everyone may know of the seat (never its token)."""
        return {"seat": self.index, "name": self.name, "bot": self.bot, "connected": self.connections > 0,
                "stand_in": self.stand_in}


Listener = Callable[[dict[str, Any]], None]


class BrowserAgent:
    """The agent of a seat a person took: sends the request to the seat's page and waits for its answer."""

    name = "browser"

    def __init__(self, table: "Table", seat: int, stand_in: Any) -> None:
        self.table = table
        self.seat = seat
        self.stand_in = stand_in  # the bot that answers while the player is away
        self.answers: "queue.Queue[tuple[int, Any]]" = queue.Queue()

    def decide(self, request: Any, view: SeatView) -> Any:
        """Wait for the page's answer to ``request`` (the masked request this seat may see)."""
        table = self.table
        rid = table.publish(self.seat, request)
        while True:
            if table.closed.is_set():
                raise TableClosed()
            if table.away_too_long(self.seat):
                table.set_stand_in(self.seat, True)
                return self.stand_in.decide(request, view)
            try:
                got_rid, data = self.answers.get(timeout=POLL)
            except queue.Empty:
                continue
            if got_rid != rid:
                continue  # an answer to an earlier request (a double click): not this one's
            try:
                if not isinstance(data, dict):
                    raise UsageError("an answer is an object of fields (e.g. {\"option\": 0})")
                model = request_model(request, view, data)
                if model["step"] is not None:  # a step of a play: the page is told the next question
                    table.tell(self.seat, {"type": "request", "request_id": rid, "request": model})
                    continue
                answer = answer_from(request, view, data)
            except Exception as exc:  # refused (nothing a page sends ends the game): told, asked again
                message = str(exc) if isinstance(exc, SgsError) else \
                    f"that answer does not fit the request ({type(exc).__name__}: {exc})"
                table.tell(self.seat, {"type": "refused", "request_id": rid, "message": message,
                                       "request": request_model(request, view)})
                continue
            return answer


class Table:
    """One game: its seats, its thread, and the last page sent to each seat."""

    def __init__(self, table_id: str, content: Content, rules: Ruleset, players: int, seed: int,
                 agents: str = "heuristic", takeover: float = 60.0, pace: float = 0.0,
                 record: Optional[dict[str, Any]] = None, hero_pool: Optional[list[str]] = None) -> None:
        check_agents(agents, rules)
        if not rules.players_min <= players <= rules.players_max:
            raise UsageError(f"the rules '{rules.id}' play {rules.players_min} to {rules.players_max} players")
        self.id = table_id
        self.content = content
        self.rules = rules
        self.players = players
        self.seed = seed
        self.hero_pool = hero_pool  # the heroes a new game deals from (None: the rules' own)
        self.agents_spec = agents
        self.takeover = takeover
        self.pace = pace  # seconds a bot's move is shown before the next one (0: as fast as it plays)
        self.seats = [Seat(i) for i in range(players)]
        self.state = "waiting"  # waiting -> playing -> over (or failed, closed)
        self.error: Optional[str] = None
        self.game: Optional[Game] = None
        self.closed = threading.Event()
        self.lock = threading.RLock()
        self.thread: Optional[threading.Thread] = None
        self.agents: list[Any] = []
        self.frames: dict[int, dict[str, Any]] = {}  # the last page of each person's seat
        self.listeners: dict[int, list[Listener]] = {}
        self.logs: dict[int, SeatLog] = {}
        self.asking: Optional[int] = None  # the seat being asked now
        self.request_ids = itertools.count(1)
        self.request_id = 0
        self.pending: dict[int, Any] = {}  # seat -> the masked request it is asked
        self._last_refresh = 0.0
        # a saved game this table goes on with (its seed and decisions: sgs_runtime/records/replay.py)
        self.record = record
        self._first: Optional[Any] = None  # the request a resumed game waits for

    # ------------------------------------------------------------------ seats

    def public(self) -> dict[str, Any]:
        """What the lobby shows of the table: everyone may know it."""
        with self.lock:
            info: dict[str, Any] = {"id": self.id, "rules": self.rules.id,
                                    "rules_name": {"zh": self.rules.name.zh, "en": self.rules.name.en},
                                    "players": self.players, "state": self.state, "agents": self.agents_spec,
                                    "takeover": self.takeover, "seats": [s.public() for s in self.seats]}
            if self.error:
                info["error"] = self.error
            if self.game is not None and self.game.result is not None:
                info["result"] = result_model(self.game)
            return info

    def join(self, name: str, seat: Optional[int] = None) -> tuple[int, str]:
        """Take a seat (the first free one when ``seat`` is None) before the game starts: (seat, token)."""
        name = " ".join(str(name).split())[:40]
        if not name:
            raise UsageError("give a name to take a seat")
        with self.lock:
            if self.state != "waiting":
                raise UsageError("the game has started: its seats can no longer be taken")
            if seat is None:
                free = [s for s in self.seats if s.bot]
                if not free:
                    raise UsageError("every seat is taken")
                chosen = free[0]
            else:
                if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.players:
                    raise UsageError(f"there is no seat {seat}: the seats are 0 to {self.players - 1}")
                chosen = self.seats[seat]
                if not chosen.bot:
                    raise UsageError(f"seat {seat} is taken by {chosen.name}")
            chosen.name = name
            chosen.token = secrets.token_urlsafe(18)
            return chosen.index, chosen.token

    def seat_of(self, token: Any) -> Optional[int]:
        """The seat a token holds, or None."""
        if not isinstance(token, str) or not token:
            return None
        for s in self.seats:
            if s.token is not None and secrets.compare_digest(s.token, token):
                return s.index
        return None

    def connect(self, seat: int, listener: Listener) -> None:
        """A browser holds ``seat``: it is sent the seat's page now and at every change."""
        with self.lock:
            s = self.seats[seat]
            s.connections += 1
            s.left_at = None
            s.stand_in = False
            self.listeners.setdefault(seat, []).append(listener)
            frame = self.frames.get(seat)
        if frame is not None:
            listener(frame)
        self._lobby_changed()

    def disconnect(self, seat: int, listener: Listener) -> None:
        """A browser left ``seat`` (a closed tab, a lost network): the seat waits for it (``takeover``)."""
        with self.lock:
            s = self.seats[seat]
            if listener in self.listeners.get(seat, []):
                self.listeners[seat].remove(listener)
                s.connections -= 1
            if s.connections == 0:
                s.left_at = time.monotonic()
        self._lobby_changed()

    def away_too_long(self, seat: int) -> bool:
        """Whether the seat's player has been away longer than ``takeover`` (its bot then answers)."""
        s = self.seats[seat]
        if s.connections > 0:
            return False
        left = s.left_at if s.left_at is not None else self._started_at
        return time.monotonic() - left >= self.takeover

    def set_stand_in(self, seat: int, on: bool) -> None:
        with self.lock:
            changed = self.seats[seat].stand_in != on
            self.seats[seat].stand_in = on
        if changed:
            self._lobby_changed()

    def submit(self, seat: int, request_id: Any, data: Any) -> None:
        """A page's answer to the request it was sent (``request_id``); checked by the seat's agent."""
        if 0 <= seat < len(self.agents) and isinstance(self.agents[seat], BrowserAgent):
            self.agents[seat].answers.put((request_id, data))

    def tell(self, seat: int, message: dict[str, Any]) -> None:
        """Send one message to the browsers holding ``seat``."""
        with self.lock:
            listeners = list(self.listeners.get(seat, []))
        for listener in listeners:
            listener(message)

    # ------------------------------------------------------------------ the game

    def start(self) -> None:
        """Give the empty seats bots and play the game in its own thread."""
        with self.lock:
            if self.state != "waiting":
                raise UsageError("the game has already started")
            bots = [make_agent(self.agents_spec, self.seed * 31 + s.index) for s in self.seats]
            for s, bot in zip(self.seats, bots):
                self.agents.append(bot if s.bot else BrowserAgent(self, s.index, bot))
                if not s.bot:
                    self.logs[s.index] = SeatLog(s.index)
            # the trace (who was asked what) explains each resolution in the "why" panel; it changes nothing
            if self.record is None:
                self.game = Game(self.content, self.rules, players=self.players, seed=self.seed, trace=True,
                                 hero_pool=self.hero_pool)
            else:
                self.game, self._first = self._resume(bots)
            self.state = "playing"
            self._started_at = time.monotonic()
            self.thread = threading.Thread(target=self._run, name=f"sgs-table-{self.id}", daemon=True)
            self.thread.start()
        self._lobby_changed()

    def _resume(self, bots: list[Any]) -> tuple[Game, Any]:
        """The saved game played back to where it was left; every seat's bot sees it again as it saw
        it then (so that it goes on as it would have, and stands in for a person who leaves)."""
        assert self.record is not None

        def watch(game: Game, req: Any, answer: Any) -> None:
            ask_agent(game, bots[req.player.seat], req)

        game, req = resume(self.content, self.record, watch=watch, warn=lambda note: None, trace=True)
        if req is None:
            raise UsageError("the saved game is over: open it in the replay viewer to step through it")
        return game, req

    def _run(self) -> None:
        game = self.game
        assert game is not None
        try:
            req = self._first if self.record is not None else game.start()
            while req is not None:
                if self.closed.is_set():
                    raise TableClosed()
                seat = req.player.seat
                agent = self.agents[seat]
                if not isinstance(agent, BrowserAgent):
                    self.asking = seat
                    self.refresh(force=self.pace > 0)
                    if self.pace > 0:
                        self.closed.wait(self.pace)
                answer = ask_agent(game, agent, req)
                self.pending = {}  # answered: no page shows the request any more
                if seat in self.logs:
                    self.logs[seat].mark(game)
                req = game.answer(answer)
            self.state = "over"
        except TableClosed:
            self.state = "closed"
        except SgsError as exc:
            self.state, self.error = "failed", str(exc)
        except Exception as exc:  # an engine error: the table tells it; the server goes on
            self.state, self.error = "failed", f"the game stopped on an engine error: {type(exc).__name__}: {exc}"
        self.asking = None
        self.pending.clear()
        if self.state != "closed":
            self.refresh(force=True)
        self._lobby_changed()

    def publish(self, seat: int, request: Any) -> int:
        """Seat ``seat`` is asked ``request`` (masked for it): every person's page is built anew."""
        with self.lock:
            self.request_id = next(self.request_ids)
            self.asking = seat
            self.pending = {seat: request}
        self.refresh(force=True)
        return self.request_id

    def refresh(self, force: bool = False) -> None:
        """Build each person's page from their seat's view and send it (at most every :data:`REFRESH` s)."""
        now = time.monotonic()
        if not force and now - self._last_refresh < REFRESH:
            return
        self._last_refresh = now
        game = self.game
        assert game is not None
        for seat, log in self.logs.items():
            log.catch_up(game)
            frame = seat_frame(game, seat, self.pending.get(seat), self.request_id, log, self.state, self.asking,
                               self.error)
            with self.lock:
                self.frames[seat] = frame
                listeners = list(self.listeners.get(seat, []))
            for listener in listeners:
                listener(frame)

    def _lobby_changed(self) -> None:
        """Tell every browser at the table the seats as the lobby shows them (who is there, who left)."""
        message = {"type": "table", "table": self.public()}
        with self.lock:
            listeners = [one for ls in self.listeners.values() for one in ls]
        for listener in listeners:
            listener(message)

    def transcript(self) -> dict[str, Any]:
        """The game's seed and decisions so far (sgs_runtime/records/replay.py): ``sgs replay`` and the viewer read it."""
        if self.game is None:
            raise UsageError("the game has not started: there is nothing to save yet")
        with self.lock:
            return transcript(self.game)

    def close(self, wait: float = 5.0) -> None:
        """End the table: its game thread stops at its next step."""
        self.closed.set()
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join(wait)
        if self.state in ("waiting", "playing"):
            self.state = "closed"

    _started_at = 0.0


@dataclass
class Lobby:
    """The tables a server holds, in memory, with the settings new tables are made with."""

    content: Content
    rules: Ruleset
    players: int
    seed: int
    agents: str = "heuristic"
    takeover: float = 60.0
    pace: float = 0.0
    tables: dict[str, Table] = field(default_factory=dict)
    made: int = 0
    hero_pool: Optional[list[str]] = None  # the heroes new tables deal from (None: the rules' own)

    def new_table(self, players: Optional[int] = None, seed: Optional[int] = None,
                  record: Optional[dict[str, Any]] = None) -> Table:
        """A new table with the server's rules (the seed of the n-th table derives from the server's seed);
        ``record``: a saved game to go on with, at a table of its rules, players and seed."""
        rules = self.rules
        if record is not None:
            check_record(self.content, record)  # a malformed save, or one of other content, is told now
            check_content(self.content, record)
            rules, players, seed = self.content.ruleset(record["rules"]), record["players"], record["seed"]
        n = players if players is not None else self.players
        pool = self.hero_pool if record is None else None  # (a saved game keeps its own)
        if pool is not None:
            check_pool(self.content, rules, n, pool)
        if len(self.tables) >= MAX_TABLES:
            done = [t for t in self.tables.values() if t.state not in ("waiting", "playing")]
            if not done:
                raise UsageError(f"the server holds {MAX_TABLES} tables, all waiting or playing: join one of them")
            self.tables.pop(done[0].id).close()
        if seed is None:
            seed = self.seed if self.made == 0 else (self.seed * 1_000_003 + self.made) % (1 << 31)
        self.made += 1
        table = Table(secrets.token_hex(4), self.content, rules, n, seed, self.agents, self.takeover,
                      self.pace, record, pool)
        self.tables[table.id] = table
        return table

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise UsageError(f"there is no table '{table_id}' (it was closed, or the server was restarted)")
        return table

    def close(self) -> None:
        """Close every table (the server stops)."""
        for table in list(self.tables.values()):
            table.close()
