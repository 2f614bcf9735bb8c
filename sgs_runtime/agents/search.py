"""A search bot: tries its candidate moves in worlds dealt from what its seat knows.

At an important decision (the play phase with something to play, a rescue, a
counter to a card's effect) :class:`SearchAgent` lists a few candidate answers —
the heuristic bot's own answer first, the next best things the heuristic would do,
other targets for its card, ending the phase or declining — and scores each by
rollouts: :func:`sgs_runtime.runs.fork.evaluate` deals the unseen cards and roles anew
(one world per seed; the roles by the heuristic's belief), answers with the candidate
and lets fast bots play the copy to the end, or for ``max_turns`` turns, where the
position is scored by :mod:`sgs_runtime.agents.evaluation`. With ``hero_rollouts``
the hero choice is searched too, each hero offered tried in up to that many
whole-game worlds (the heroes the seat has not seen dealt anew as well). Every
candidate is tried in the same worlds, so the comparison is paired. The candidates
*race*: the worlds come in rounds of ``batch``, and after each round a candidate
whose mean gain over the heuristic's answer is a standard error below ``margin``
leaves the race, so the budget goes to the candidates that may be better. The bot
leaves the heuristic's answer only for a survivor that did clearly better: its mean
gain, world by world, above ``margin`` and above ``z`` standard errors (``hero_z``
at the hero choice). The best of a few noisy estimates is most often a lucky one
(the winner's curse): re-estimated with 60 fresh worlds each, the answers a one-shot
search of 16 rollouts changed were worth nothing on average, neither in the worlds
the seat could deal nor in the true one (docs/performance.md). Elsewhere it answers
as the heuristic bot does.

The budget is ``rollouts`` per play or response decision, all candidates together
(``search:N``; none by default, so those decisions are the heuristic's: searched with
16 to 48 rollouts they changed results for no measured gain; ``kinds`` says which of the two
the budget goes to, ``alive`` keeps it for the end game), and ``hero_rollouts``
whole-game worlds per hero offered (80 by default): reproducible, since every world's
seed comes from the bot's own seeded generator. ``ms`` adds a
time limit per decision (the worlds tried so far decide): faster on a slow machine,
but then the game depends on the machine's speed.

>>> SearchAgent(1).name
'search'
"""

from __future__ import annotations

import math
import random
import time
from typing import TYPE_CHECKING, Any, Callable, Optional

from sgs_runtime.agents import Agent, legal
from sgs_runtime.agents.bots import HeuristicAgent
from sgs_runtime.agents.styles import NAMED, Styles, style
from sgs_runtime.errors import IllegalDecision, UsageError
from sgs_runtime.resolution.requests import OptionRequest, PlayAction, PlayRequest, Request, RespondRequest, Response
from sgs_runtime.state.seatview import SeatView, as_view

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game

#: rollouts per play or response decision at most, all candidates together (``search:N``); 0: those
#: decisions are the heuristic's (at 16 to 48, searching them changed results for no measured gain)
DEFAULT_ROLLOUTS = 0

#: new worlds per round of the race between the candidates
DEFAULT_BATCH = 4

#: whole-game worlds per hero offered at the hero choice, at most
DEFAULT_HERO_ROLLOUTS = 80

#: the heuristic habits the bot plays with, in its own seat and in its rollouts (:mod:`sgs_runtime.agents.styles`)
DEFAULT_STYLE = "roles"


class SearchAgent(Agent):
    """Rollout search over determinized copies, on top of the heuristic bot."""

    name = "search"

    def __init__(self, seed: int = 0, rollouts: int = DEFAULT_ROLLOUTS, *, candidates: int = 2,
                 policy: str = "heuristic", ms: Optional[float] = None, margin: float = 0.0, z: float = 2.0,
                 method: str = "auto", max_turns: Optional[int] = None, hero_rollouts: int = DEFAULT_HERO_ROLLOUTS,
                 batch: int = DEFAULT_BATCH, hero_z: float = 0.0, kinds: str = "play,response",
                 alive: Optional[int] = None, style: Optional[Styles] = None) -> None:
        self.styles = style if style is not None else NAMED[DEFAULT_STYLE]
        self.base = HeuristicAgent(seed, self.styles)
        self.rng = random.Random(f"search:{seed}")
        self.rollouts = max(0, rollouts)
        self.max_candidates = max(1, candidates)  # besides the heuristic's own answer
        self.policy = policy
        self.ms = ms
        self.margin = margin
        self.z = z
        self.method = method
        self.max_turns = max_turns or None  # (0: to the end, as None)
        self.hero_rollouts = hero_rollouts  # worlds per hero offered at the hero choice (0: the heuristic's)
        self.batch = max(1, batch)  # worlds per round of the race
        self.hero_z = hero_z  # the standard errors a hero's gain must clear (the heuristic's pick is crude)
        self.kinds = _kinds(kinds)  # which of the play and the response decisions the budget is spent on
        self.alive = alive or None  # spend it only once at most this many players are alive (the end game)
        self.searched = 0  # decisions searched, and rollouts spent, in this game
        self.spent = 0
        self.changed = 0  # decisions where search chose otherwise than the heuristic

    def decide(self, request: Request, game: "Game | SeatView") -> Any:
        view = as_view(game, request.player.seat)
        first = self.base.decide(request, view)
        # listing the candidates asks the heuristic about other answers: its chance must not move for
        # that, so that where search changes nothing the bot plays exactly as the heuristic bot
        state = self.base.rng.getstate()
        cands: list[Any]
        horizon = self.max_turns
        budget = self.rollouts
        z = self.z
        if isinstance(request, OptionRequest) and request.purpose == "hero" and self.hero_rollouts:
            cands = [first] + [i for i in range(len(request.options)) if i != first]
            # a hero shows over the whole game: whole-game worlds, the race in rounds as elsewhere
            horizon, budget, z = None, self.hero_rollouts * len(cands), self.hero_z
        elif self.rollouts < 2:  # no budget for the play and the responses: the heuristic's answers
            return first
        elif self.alive is not None and len(view.alive()) > self.alive:
            return first
        elif isinstance(request, PlayRequest) and request.options and "play" in self.kinds:
            cands = self._play_candidates(request, first)
        elif (isinstance(request, RespondRequest) and request.options and "response" in self.kinds
              and self._key_response(request)):
            cands = self._respond_candidates(request, first)
        else:
            return first
        self.base.rng.setstate(state)
        if len(cands) < 2 or budget < len(cands):
            return first
        return self._search(view, request, cands, budget, horizon, z)

    # ------------------------------------------------------------------ candidates

    def _play_candidates(self, req: PlayRequest, first: Optional[PlayAction]) -> list[Optional[PlayAction]]:
        """The heuristic's action, its next best actions, other targets for it, and ending the phase."""
        scored: list[tuple[float, PlayAction]] = []
        for opt in req.options:
            try:
                got = self.base.evaluate(req, opt)
            except IllegalDecision:
                continue
            if got is None:
                continue
            if legal(req, got[1]):
                scored.append(got)
        scored.sort(key=lambda sa: -sa[0])
        out: list[Optional[PlayAction]] = [first]
        keys = {_key(first)}

        def add(action: Optional[PlayAction]) -> None:
            if len(out) < self.max_candidates + 1 and _key(action) not in keys:
                keys.add(_key(action))
                out.append(action)

        if first is not None:
            for action in self._retargeted(req, first):
                add(action)
        for _, action in scored:
            add(action)
        if first is not None:
            add(None)  # end the play phase
        return out

    def _retargeted(self, req: PlayRequest, action: PlayAction) -> list[PlayAction]:
        """``action`` on one other target (for a card with one target), most hostile first."""
        if len(action.targets) != 1 or action.secondary or action.recast:
            return []
        opt = next((o for o in req.options if o.card is action.card and (o.skill.id if o.skill else None)
                    == action.skill), None)
        if opt is None:
            return []
        cands, lo, hi = req.target_choices(opt, list(action.cards), [])
        if lo > 1 or hi < 1:
            return []
        others = sorted((p for p in cands if p is not action.targets[0]), key=self.base.hostility, reverse=True)
        out = []
        for p in others[:1]:
            alt = PlayAction(card=action.card, skill=action.skill, cards=list(action.cards), targets=[p],
                             view_as=action.view_as, as_card=action.as_card)
            if legal(req, alt):
                out.append(alt)
        return out

    @staticmethod
    def _key_response(req: RespondRequest) -> bool:
        """A response worth searching: saving a dying player, or countering a card's effect."""
        return req.pattern == "rescue" or (req.against is not None and req.target is not None)

    def _respond_candidates(self, req: RespondRequest, first: Optional[Response]) -> list[Optional[Response]]:
        """The heuristic's answer and its opposite (answering or declining)."""
        if first is not None:
            return [first, None]
        answer = self.base._answer(req)
        return [None, answer] if answer is not None and legal(req, answer) else [None]

    # ------------------------------------------------------------------ search

    def _own(self, seed: int) -> Optional[Agent]:
        """The bot this seat plays on with in a rollout: the heuristic in this bot's style (with the
        ``random`` policy, a random bot as everywhere else)."""
        from sgs_runtime.runs.fork import POLICIES

        if self.policy != "heuristic":
            return POLICIES[self.policy](seed)  # type: ignore[no-any-return]
        return HeuristicAgent(seed, self.styles)

    def _role_weight(self, view: SeatView) -> Callable[[int, str], float]:
        """The heuristic's belief about the roles (:mod:`sgs_runtime.agents.beliefs`), as the weights the
        roles are dealt with: a seat gets a role in proportion to the chance the belief gives it."""
        self.base.observe(view)
        probs = self.base.belief_of().probabilities(view)

        def weight(seat: int, role: str) -> float:
            return probs.get(seat, {}).get(role, 0.0)

        return weight

    def _search(self, view: SeatView, req: Request, cands: list[Any], budget: int, horizon: Optional[int],
                z: Optional[float] = None) -> Any:
        """Race the candidates against the heuristic's answer (``cands[0]``) in rounds of :attr:`batch`
        new worlds each: after every round, a candidate whose mean gain so far is a standard error below
        ``margin`` drops out (:func:`_may_gain`), and the worlds go on only while one is left in the race
        and the budget lasts. The winner is the survivor with the clearest gain (:func:`_clear_gain`, at
        ``z`` standard errors; default :attr:`z`)."""
        from sgs_runtime.runs.fork import evaluate

        step = 1 if self.ms is not None else self.batch
        weight = self._role_weight(view)
        scores: list[list[Optional[float]]] = [[] for _ in cands]
        racing = list(range(1, len(cands)))
        start = time.perf_counter()
        spent = 0
        while racing:
            ids = [0] + racing
            step_now = min(step, (budget - spent) // len(ids))
            if step_now < 1:
                break
            seeds = [self.rng.getrandbits(62) for _ in range(step_now)]
            got = evaluate(view, req, [cands[i] for i in ids], seeds, policy=self.policy, method=self.method,
                           max_turns=horizon, role_weight=weight, own=self._own)
            for i, more in zip(ids, got):
                scores[i].extend(more)
            spent += step_now * len(ids)
            racing = [i for i in racing if _may_gain(_diffs(scores[i], scores[0]), self.margin)]
            if self.ms is not None and (time.perf_counter() - start) * 1000 >= self.ms:
                break
        self.searched += 1
        self.spent += spent
        best, best_gain = 0, 0.0
        for i in racing:
            gain = _clear_gain(_diffs(scores[i], scores[0]), self.margin, self.z if z is None else z)
            if gain > best_gain:
                best, best_gain = i, gain
        if best:
            self.changed += 1
        return cands[best]


#: the decisions the play budget can be spent on (``kinds``)
KINDS = ("play", "response")


def _kinds(text: str) -> frozenset[str]:
    """``kinds`` as a set: names from :data:`KINDS`, separated by commas or ``+``.

    >>> sorted(_kinds("response+play"))
    ['play', 'response']
    """
    got = frozenset(k.strip() for k in text.replace("+", ",").split(",") if k.strip())
    bad = sorted(got - set(KINDS))
    if bad or not got:
        raise UsageError(f"unknown search decision kind '{bad[0] if bad else text}'; use "
                         f"{' or '.join(KINDS)}, or both joined by '+'")
    return got


def _count(text: str) -> int:
    """A whole number, at least 0."""
    if not text.isdigit():
        raise ValueError("a whole number, at least 0, is needed")
    return int(text)


def _positive(text: str) -> float:
    """A number, at least 0."""
    value = float(text)
    if not value >= 0 or math.isinf(value):
        raise ValueError("a number, at least 0, is needed")
    return value


def _kinds_text(text: str) -> str:
    """``kinds`` as given, once it is known to name decisions (:func:`_kinds` reads it again)."""
    _kinds(text)
    return text


#: the search bot's settings in an ``--agents`` spec (``search:16:hero=40:kinds=response``):
#: spec name -> (:class:`SearchAgent` keyword, reader); see :mod:`sgs_runtime.agents.agentspec`
SETTINGS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "hero": ("hero_rollouts", _count),  # whole-game worlds per hero offered (0: the heuristic's pick)
    "kinds": ("kinds", _kinds_text),  # which decisions the budget goes to: play, response, play+response
    "z": ("z", _positive),  # the standard errors a play or response candidate's gain must clear
    "turns": ("max_turns", _count),  # a horizon of that many turns, scored by the evaluation (0: to the end)
    "alive": ("alive", _count),  # search the play and the responses only once at most that many are alive
    "style": ("style", style),  # the heuristic habits it plays with (sgs_runtime.agents.styles)
}


def _diffs(scores: list[Optional[float]], base: list[Optional[float]]) -> list[float]:
    """World by world, a candidate's score less the heuristic answer's (lost rollouts left out)."""
    return [a - b for a, b in zip(scores, base) if a is not None and b is not None]


#: the least spread assumed of a world's difference in the race (that of two win-or-lose results
#: that part half the time), so that a few tied worlds do not end a candidate's race
NOISE_FLOOR = 0.5


def _may_gain(diffs: list[float], margin: float) -> bool:
    """Whether a candidate stays in the race: its mean gain is not a standard error (at least
    :data:`NOISE_FLOOR` over the square root of the worlds) below ``margin``."""
    n = len(diffs)
    if n == 0:
        return True
    mean = _mean(diffs)
    return mean + max(_spread(diffs, mean), NOISE_FLOOR) / math.sqrt(n) > margin


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _spread(values: list[float], mean: float) -> float:
    """The sample standard deviation of ``values`` about their ``mean`` (0 for fewer than two)."""
    n = len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0


def _clear_gain(diffs: list[float], margin: float, z: float) -> float:
    """The mean of paired differences when it is above ``margin`` and ``z`` standard errors, else 0:
    a candidate replaces the heuristic's answer only when it did clearly better in the same worlds."""
    n = len(diffs)
    if n == 0:
        return 0.0
    mean = _mean(diffs)
    se = _spread(diffs, mean) / math.sqrt(n) if n > 1 else 1.0
    return mean if mean > margin and mean > z * se else 0.0


def _key(action: Any) -> Any:
    if action is None:
        return None
    if isinstance(action, (PlayAction,)):
        return action.key()
    return (id(action.card), action.skill, tuple(map(id, action.cards)), action.view_as, action.as_card)
