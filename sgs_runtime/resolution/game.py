"""A game: the table, the event stack, and the step-by-step driver.

A game is a generator of :mod:`requests <sgs_runtime.resolution.requests>`. Drive it::

    game = Game(content, content.ruleset(), players=5, seed=7)
    request = game.start()
    while request is not None:
        request = game.answer(ask_agent(game, agents[request.player.seat], request))
    print(game.result)

or simply ``game.play(agents)``. Chance is explicit: one seeded
:class:`random.Random` per game, and every shuffle and judge card is in the
event log; a game is reproduced from its seed and its decision log.
"""

from __future__ import annotations

import gc
import json
import os
import random
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Final, Generator, Iterable, Optional, Sequence

from sgs_runtime.errors import GameError, IllegalDecision, LimitExceeded
from sgs_runtime.records.replay import DecisionLog
from sgs_runtime.resolution.requests import CardsRequest, OptionRequest, PlayersRequest, Request
from sgs_runtime.state.cardview import CardView
from sgs_runtime.state.definitions import Content, Ruleset, Skill, Trigger
from sgs_runtime.state.events import Event, UseEvent
from sgs_runtime.state.frame import GameOver
from sgs_runtime.state.model import AnyCard, Card, HeroDraft, Player, Zone
from sgs_runtime.state.seatview import SeatView, ask_agent
from sgs_runtime.state.skillset import SkillSet, set_at
from sgs_runtime.state.statecache import StateCache

Gen = Generator[Request, Any, Any]


@dataclass
class Limits:
    """Bounds that end a runaway game with a clear error."""

    steps: int = 200_000  # events pushed
    depth: int = 120  # nested events on the stack
    decisions: int = 50_000
    turns: int = 600
    loop: int = 500  # iterations of one ``repeat``


@dataclass
class GameResult:
    winners: list[str]  # hero ids of the winners
    winner_roles: list[str]
    reason: str
    turns: int
    steps: int
    limit: Optional[str] = None  # which limit ended the game, if any

    def as_dict(self) -> dict[str, Any]:
        return {"winners": self.winners, "winner_roles": self.winner_roles, "reason": self.reason,
                "turns": self.turns, "steps": self.steps, "limit": self.limit}


@dataclass
class SeatSetup:
    """A seat given by hand (rule cases): everything optional but the role; no hero while the
    table deals from a hero pile (:attr:`TableSetup.hero_pile`)."""

    hero: Optional[str]
    role: str
    hp: Optional[int] = None
    max_hp: Optional[int] = None
    alive: bool = True
    hand: list[Card] = field(default_factory=list)
    equip: list[Card] = field(default_factory=list)
    judge: list[Card] = field(default_factory=list)
    marks: dict[str, int] = field(default_factory=dict)
    piles: dict[str, list[Card]] = field(default_factory=dict)
    chained: bool = False


@dataclass
class TableSetup:
    """A table set by hand instead of dealt (rule cases)."""

    seats: list[SeatSetup]
    draw_pile: list[Card]
    discard_pile: list[Card] = field(default_factory=list)
    unused_heroes: list[str] = field(default_factory=list)
    current: int = 0
    phase: Optional[str] = None
    deck_from_rules: bool = False  # the rest of the rules' deck, shuffled, lies below ``draw_pile``
    # the hero pile as it is after the shuffle (top first): the game starts with the heroes' choice,
    # the seats' roles fixed, and deals the start hands from ``draw_pile``
    hero_pile: Optional[list[str]] = None


class Game:
    """One game of Sanguosha."""

    def __init__(self, content: Content, rules: Ruleset, *, players: int = 5, seed: int = 0,
                 options: Optional[dict[str, Any]] = None, table: Optional[TableSetup] = None,
                 hero_pool: Optional[Sequence[str]] = None, limits: Optional[Limits] = None,
                 log_sink: Optional[IO[str]] = None, keep_log: bool = True, trace: bool = False,
                 why: Iterable[str] = (), deal: Optional[dict[str, list[str]]] = None) -> None:
        self.content = content
        self.rules = rules
        self.options: dict[str, Any] = dict(rules.options)
        if options:
            self.options.update(options)
        self.seed = seed
        self.rng = random.Random(seed)
        self.limits = limits or Limits()
        self.table = table
        self.num_players = len(table.seats) if table else players
        self.hero_pool = list(hero_pool) if hero_pool is not None else None
        # a designed deal (simulations with a fair pool): role -> the heroes its seats get, in seat order
        self.deal = {role: list(heroes) for role, heroes in deal.items()} if deal is not None else None
        self.players: list[Player] = []
        self.cards: list[Card] = []
        self.draw_pile = Zone("draw_pile", public=False)
        self.discard_pile = Zone("discard_pile")
        self.processing = Zone("processing")
        self.unused_heroes: list[str] = []
        self.draft: Optional[HeroDraft] = None  # the hero choice while it goes on
        self.current: Optional[Player] = None
        self.phase: Optional[str] = None
        self.turn_number = 0
        self.round_number = 1
        self.stack: list[Event] = []
        self.steps = 0
        self.log: list[dict[str, Any]] = []
        self.keep_log = keep_log
        self.log_sink = log_sink
        self.decisions = DecisionLog()
        # explanations (``--explain``, ``--why``): who was asked what and how they answered, and the
        # points where a watched skill could have fired and what held it back. Kept apart from
        # the log (each record's ``at`` is the number of log records before it), so that the log
        # and every result are the same with or without them; ``None``: nothing is noted.
        self.trace: Optional[list[dict[str, Any]]] = [] if trace else None
        self.why: frozenset[str] = frozenset(why) if trace else frozenset()
        self.why_timings: frozenset[str] = frozenset(
            tr.timing for sid in self.why if (sk := content.skills.get(sid)) is not None for tr in sk.triggers)
        self.pending: Optional[Request] = None
        self.result: Optional[GameResult] = None
        self.error: Optional[BaseException] = None
        self.end_turn = False
        self.acting = False  # inside a play phase's free actions (uses count toward limits)
        self.phase_active = False
        self.stop_at_phase: Optional[str] = None  # rule cases: stop once this phase has ended
        self.stop_turns: Optional[int] = None  # rule cases: stop after this many turns
        self.stop_requested = False
        # told of each request the engine answers itself (its single legal answer), with that answer:
        # rule cases accept a scripted decision that names it
        self.on_forced: Optional[Callable[[Request, Any], None]] = None
        self._gen: Optional[Gen] = None
        self._trigger_index: dict[str, list[Trigger]] = {}
        for tr in [*content.pack_triggers, *rules.triggers]:
            self._trigger_index.setdefault(tr.timing, []).append(tr)
        self._kinds: list[str] = []  # the kind of every record, in order (:attr:`stats` counts them)
        self.card_counts: dict[str, int] = {}  # card kind id -> uses and plays (simulation counts)
        self.skill_counts: dict[str, int] = {}  # skill id -> "skill" records
        # the seats that used each card kind / skill ("skill" records with a player), for win rates when used
        self.card_users: dict[str, set[int]] = {}
        self.skill_users: dict[str, set[int]] = {}
        # the skill epoch: moves on whenever the skill sets are forgotten (SkillSet.forget; a change of
        # equipment, a death, a skill gained ...); what changes only with them is remembered for an epoch
        self.epoch = 0
        self.epoch_cache = StateCache()
        self.skillset = SkillSet(self)  # which skills each player has now
        self._views: dict[int, Any] = {}
        self.view_as_memo: dict[int, list[str]] = {}  # view-as over several names -> this deck's kinds
        self.card_view = CardView(self)  # how cards are seen (filter skills)
        # the state version: moves on with every change a quantity may read (:meth:`touch`);
        # pure answers (quantities, legal targets) are remembered for one version (statecache.py)
        self.version = 0
        self.state_cache = StateCache()
        # recompute every remembered answer and compare (SGS_CHECK_CACHES=1, ``sgs simulate --check``)
        self.check_caches = bool(os.environ.get("SGS_CHECK_CACHES"))
        self.quantity_depth = 0  # quantities being computed inside each other (a runaway is an error)
        # this turn's uses and plays: (seat, card name, phase, "use"/"play")
        self.history: list[tuple[int, str, Optional[str], str]] = []
        # what everyone saw players do to each other, for bots reading the table:
        # (what, from seat, to seat, card or skill id or "", amount); what = use / skill / damage / recover /
        # take / give / relieve (beliefs.py reads them)
        self.public: list[tuple[str, int, int, str, int]] = []

    # ------------------------------------------------------------------ driving

    @property
    def over(self) -> bool:
        return self.result is not None

    def start(self) -> Optional[Request]:
        """Begin the game; return the first request (``None`` if it ended)."""
        from sgs_runtime.resolution.turn import run_game

        self._gen = run_game(self)
        return self._advance(None, first=True)

    def answer(self, answer: Any) -> Optional[Request]:
        """Answer the pending request; return the next one (``None``: game over)."""
        req = self.pending
        if req is None:
            raise GameError("the game is over: there is no request to answer" if self.over else
                            "there is no pending request to answer (start the game first)")
        # the request checks the answer's type and range first: a refused answer raises
        # IllegalDecision before anything is recorded or changed, and ``req`` stays pending; the game
        # goes on with what the request accepted (a play action or a response: its checked form, read once)
        value = req.accept(answer)
        self.record_decision(req, value)
        if self.trace is not None:
            self.note_request(req, answer)
        return self._advance(value)

    def play(self, agents: Sequence[Any]) -> GameResult:
        """Play to the end with one agent per seat; each gets only its seat's view (:mod:`seatview`).

        While it plays, the cyclic collector's young generation waits for :data:`YOUNG_THRESHOLD`
        allocations rather than Python's 700 (:func:`collecting_less`): the table a game builds up lives
        as long as the game, and collecting every 700 allocations only walks it again and again."""
        young = collecting_less()
        try:
            req = self.start()
            while req is not None:
                req = self.answer(ask_agent(self, agents[req.player.seat], req))
        finally:
            if young:
                collecting_as_before(young)
        assert self.result is not None
        return self.result

    def _advance(self, value: Any, first: bool = False) -> Optional[Request]:
        assert self._gen is not None
        try:
            req = next(self._gen) if first else self._gen.send(value)
        except StopIteration:
            req = None
        except LimitExceeded as exc:
            self.error = exc
            self.result = GameResult([], [], str(exc), self.turn_number, self.steps, limit=exc.what)
            self.pending = None
            raise
        self.pending = req
        if len(self.decisions) > self.limits.decisions:
            over = LimitExceeded("decision", self.limits.decisions)
            self.result = GameResult([], [], str(over), self.turn_number, self.steps, limit=over.what)
            self.pending = None
            raise over
        return req

    def ask(self, req: Request) -> Gen:
        """Yield a request unless its answer is forced; return the answer."""
        forced = forced_answer(req)
        if forced is not _NOT_FORCED:
            if self.trace is not None:
                self.note_request(req, forced, forced=True)
            if self.on_forced is not None:
                self.on_forced(req, forced)
            return forced
        answer = yield req
        return answer

    def record_decision(self, req: Request, answer: Any) -> None:
        """Keep an answer so that the game can be replayed (cards by id, players by seat)."""
        self.decisions.add(req.player.seat, req.kind, answer)

    def note(self, what: str, /, **fields: Any) -> None:
        """An explanation record (only when the game keeps a ``trace``): nothing else changes."""
        if self.trace is None:
            return
        self.trace.append(self._record("at", what, fields))

    def _record(self, place: str, kind: str, fields: dict[str, Any]) -> dict[str, Any]:
        """A record: its place (``seq`` in the log, ``at`` in the trace), kind, turn and plain fields."""
        record: dict[str, Any] = {place: len(self.log), "event": kind}
        if self.current is not None:
            record["turn"] = self.turn_number
        for k, v in fields.items():
            record[k] = plain(v)
        return record

    def note_request(self, req: Request, answer: Any, forced: bool = False) -> None:
        """Note who was asked what, and the answer (or that they declined; ``forced``: the only one)."""
        if self.trace is None:
            return
        from sgs_runtime.records.narrate import describe_answer

        text, declined = describe_answer(req, answer)
        skill = getattr(req, "skill", None)
        self.note("asked", player=req.player, kind=req.kind, prompt=req.prompt, answer=text, declined=declined,
                  forced=forced, **({"skill": skill} if skill else {}))

    # ------------------------------------------------------------------ events

    def push(self, event: Event) -> None:
        self.steps += 1
        if self.steps > self.limits.steps:
            raise LimitExceeded("step", self.limits.steps, self.where())
        if len(self.stack) >= self.limits.depth:
            raise LimitExceeded("depth", self.limits.depth, self.where())
        self.stack.append(event)

    def waits(self, timing: str) -> bool:
        """Whether any skill or rule waits at ``timing`` now (when not, its event need not be built)."""
        return (bool(self.skillset.owners_at(timing)) or timing in self._trigger_index
                or (self.trace is not None and timing in self.why_timings))  # --why: every point is seen

    def pass_point(self) -> None:
        """An event nobody waits for: counted and bounded as :meth:`push` would, but never built."""
        self.steps += 1
        if self.steps > self.limits.steps:
            raise LimitExceeded("step", self.limits.steps, self.where())
        if len(self.stack) >= self.limits.depth:
            raise LimitExceeded("depth", self.limits.depth, self.where())

    def pop(self, event: Event) -> None:
        if self.stack and self.stack[-1] is event:
            self.stack.pop()
        elif event in self.stack:  # an inner event ended by an exception
            while self.stack and self.stack[-1] is not event:
                self.stack.pop()
            self.stack.pop()

    def where(self) -> str:
        kinds = [e.kind for e in self.stack[-6:]]
        return "during " + " > ".join(kinds) if kinds else "at top level"

    def current_use(self) -> Optional[UseEvent]:
        for ev in reversed(self.stack):
            if isinstance(ev, UseEvent) and not ev.counter:
                return ev
        return None

    def touch(self) -> None:
        """The state has changed in a way no log record tells (a mark, a counter, the phase): forget quantities."""
        self.version += 1

    @property
    def stats(self) -> dict[str, int]:
        """How many records of each kind the game has made (kept or not), in the order first made."""
        counts: dict[str, int] = {}
        for kind in self._kinds:
            counts[kind] = counts.get(kind, 0) + 1
        return counts

    def emit(self, kind: str, **fields: Any) -> None:
        """Append a record to the event log (JSON lines); count it in ``stats`` either way.

        Every record stands for a change of the state, so the state version moves on (:meth:`touch`)."""
        self.version += 1
        self._kinds.append(kind)
        if kind == "skill":
            sid = str(fields.get("skill"))
            self.skill_counts[sid] = self.skill_counts.get(sid, 0) + 1
            who = fields.get("player")
            if isinstance(who, Player):
                set_at(self.skill_users, sid).add(who.seat)
                through = self.skillset.via(who, sid)
                if through:  # a copied or granted skill: the skill that gives it took effect too, for its holders
                    givers = self.skillset.givers(who, self.content.skills[sid]) if sid in self.content.skills else []
                    self.count_skill(through, givers or [who])
        if not self.keep_log and self.log_sink is None:
            return
        record = self._record("seq", kind, fields)
        if self.keep_log:
            self.log.append(record)
        else:
            self.log.append({})  # keep numbering
        if self.log_sink is not None:
            self.log_sink.write(json.dumps(record, ensure_ascii=False) + "\n")

    # ------------------------------------------------------------------ table

    # (the players round the table are gathered by index in one new list: no slices joined, which the
    # compiled build makes and frees as lists of their own)

    def alive(self) -> list[Player]:
        return [p for p in self.players if p.alive]

    def alive_from(self, start: Optional[Player]) -> list[Player]:
        """Living players in seat order, beginning with ``start`` (if alive)."""
        ps = self.players
        if start is None or not start.seat:
            return [p for p in ps if p.alive]
        return _round(ps, start.seat, start.seat, True)

    def seats_from(self, start: Optional[Player]) -> list[Player]:
        """Every seat, the dead too, in seat order beginning with ``start``."""
        s = start.seat if start is not None else 0
        return _round(self.players, s, s, False)

    def after(self, player: Player) -> list[Player]:
        """Living players after ``player`` in seat order (not ``player`` itself)."""
        return _round(self.players, player.seat + 1, player.seat, True)

    def next_alive(self, player: Player) -> Optional[Player]:
        rest = self.after(player)
        return rest[0] if rest else None

    def order_key(self, start: Optional[Player]) -> Any:
        s = start.seat if start is not None else 0
        n = len(self.players)
        return lambda p: (p.seat - s) % n

    def all_zones(self) -> Iterable[Zone]:
        yield self.draw_pile
        yield self.discard_pile
        yield self.processing
        for p in self.players:
            yield from p.zones()

    def player_by_name(self, name: str) -> Player:
        for p in self.players:
            if p.name == name:
                return p
        raise GameError(f"no player is {name}")

    def view_for(self, seat: int) -> "SeatView":
        """What one seat may know of this game (given to its agent)."""
        got = self._views.get(seat)
        if got is None:
            got = self._views[seat] = SeatView(self, seat)
        return got

    def hp_changed(self) -> None:
        """Someone's HP changed: skills whose validity depends on a condition are looked at again (缠怨)."""
        if self.skillset.volatile:
            self.bump()

    def bump(self, seats: Optional[Sequence[int]] = None) -> None:
        """Some player's skills may have changed (equipment, death, ignored armour): forget caches.

        ``seats``: only these players' equipment changed (:meth:`SkillSet.forget`)."""
        self.version += 1
        self.skillset.forget(seats)  # (the skill epoch moves on)
        self.card_view.forget()

    # which skills a player has is the SkillSet's (skillset.py); these read it
    def active_skills(self, player: Player) -> list[Skill]:
        """The player's valid skills now (see :mod:`sgs_runtime.state.skillset`)."""
        return self.skillset.of(player)

    def triggers_at(self, player: Player, timing: str) -> list[Trigger]:
        return self.skillset.triggers_at(player, timing)

    def owners_at(self, timing: str) -> frozenset[int]:
        return self.skillset.owners_at(timing)

    def modifiers(self, quantity: str) -> list[tuple[Player, Any, bool]]:
        return self.skillset.modifiers(quantity)

    def from_equipment(self, player: Player, skill: Skill) -> bool:
        return self.skillset.from_equipment(player, skill)

    def immune_to_equipment(self) -> list[Player]:
        return self.skillset.immune_to_equipment()

    def skill(self, sid: str) -> Optional[Skill]:
        """A skill by id, as these rules have it (``skill_overrides`` swap older texts in)."""
        sid_now = self.rules.skill_overrides.get(sid, sid)
        return self.content.skills.get(sid_now) if sid_now is not None else None

    def _ignored_slots(self, player: Player) -> set[str]:
        out: set[str] = set()
        for ev in self.stack:
            if isinstance(ev, UseEvent) and ev.ignored:
                for seat, slot in ev.ignored:
                    if seat == player.seat:
                        out.add(slot)
        return out

    def rule_triggers(self, timing: str) -> list[Trigger]:
        return self._trigger_index.get(timing, [])

    def record(self, player: Player, card: AnyCard, mode: str) -> None:
        """Remember a use or play of ``card`` this turn (克己 asks what was used)."""
        kind = card.kind.id
        self.history.append((player.seat, kind, self.phase if player is self.current else None, mode))
        self.card_counts[kind] = self.card_counts.get(kind, 0) + 1
        set_at(self.card_users, kind).add(player.seat)
        if self.card_view.active:
            for c in card.physical:
                self.count_filters(c)

    def count_filters(self, card: Card) -> None:
        """The filter skills that make ``card`` look otherwise than printed took effect: count them, for the
        player whose filters they are (a judge card's, a card used or played)."""
        if not self.card_view.active:
            return
        holder = self.card_view.whose(card)[0]
        for sid in self.card_view.changers(card):
            self.count_skill(sid, [holder] if holder is not None else [])

    def count_skill(self, sid: str, holders: Iterable[Player] = ()) -> None:
        """A skill took effect without being invoked (a filter, a grant, a copy): count it once for reports,
        and the players who hold it (a grant's givers) among the seats that used it (win rates when used)."""
        self.skill_counts[sid] = self.skill_counts.get(sid, 0) + 1
        for holder in holders:
            set_at(self.skill_users, sid).add(holder.seat)

    def option(self, name: str) -> Any:
        return self.options.get(name)

    def game_over(self, winners: list[Player], reason: str) -> GameOver:
        return GameOver(winners, reason)

    def snapshot(self) -> dict[str, Any]:
        """The visible state, for logs, UIs and golden tests."""
        return {
            "turn": self.turn_number,
            "current": self.current.name if self.current else None,
            "phase": self.phase,
            "players": [p.describe() for p in self.players],
            "draw_pile": len(self.draw_pile),
            "discard_pile": [c.label() for c in self.discard_pile.cards],
        }


# ---------------------------------------------------------------------- helpers

_NOT_FORCED: Final = object()


#: the cyclic collector's young-generation threshold while :meth:`Game.play` runs (Python's is 700)
YOUNG_THRESHOLD: Final = 10_000


def collecting_less() -> int:
    """Raise the cyclic collector's young-generation threshold to :data:`YOUNG_THRESHOLD` for a game
    played to its end; the threshold it had, to give back to :func:`collecting_as_before`, or 0 when it
    is left as it is (already as high, or automatic collection off: a threshold of 0).

    A game's table (its players, zones, cards, caches and decision log) is made of cycles and lives as
    long as the game. At Python's threshold every game is walked by a young collection and then again
    by an older one; at this one a collection comes every dozen games or so and finds the finished ones
    as garbage at once. The garbage waiting meanwhile stays bounded by the threshold.

    >>> import gc
    >>> before = gc.get_threshold()
    >>> young = collecting_less(); gc.get_threshold()[0] == max(before[0], YOUNG_THRESHOLD)
    True
    >>> collecting_as_before(young); gc.get_threshold() == before
    True
    """
    young, older, oldest = gc.get_threshold()
    if young == 0 or young >= YOUNG_THRESHOLD:
        return 0
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)
    return young


def collecting_as_before(young: int) -> None:
    """Give the young generation back the threshold :func:`collecting_less` found, unless someone has set
    another one meanwhile (a game played inside a game, another thread: the first to raise it lowers it)."""
    now, older, oldest = gc.get_threshold()
    if now == YOUNG_THRESHOLD:
        gc.set_threshold(young, older, oldest)


def forced_answer(req: Request) -> Any:
    """The only legal answer of a mandatory request, or a marker if there is a choice."""
    if req.optional:
        return _NOT_FORCED
    if isinstance(req, CardsRequest):
        if req.min == req.max == len(req.candidates) and req.valid is None:
            return list(req.candidates)
        return _NOT_FORCED
    if isinstance(req, PlayersRequest):
        if req.min == req.max == len(req.candidates):
            return list(req.candidates)
        return _NOT_FORCED
    if isinstance(req, OptionRequest):
        if len(req.options) == 1:
            return 0
    return _NOT_FORCED


def plain(value: Any) -> Any:
    """A JSON-friendly form of a value for the log."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Player):
        return value.name
    if isinstance(value, Card):
        return value.label()
    if hasattr(value, "label") and callable(value.label):
        return value.label()
    if isinstance(value, (list, tuple, set)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return str(value)


__all__ = ["Game", "GameResult", "Limits", "SeatSetup", "TableSetup", "IllegalDecision", "GameOver"]


def _round(ps: list[Player], start: int, stop: int, alive: bool) -> list[Player]:
    """``ps[start:] + ps[:stop]`` (only the living with ``alive``), gathered in one list."""
    n = len(ps)
    out: list[Player] = []
    for i in range(min(start, n), n):
        p = ps[i]
        if p.alive or not alive:
            out.append(p)
    for i in range(min(stop, n)):
        p = ps[i]
        if p.alive or not alive:
            out.append(p)
    return out
