"""Agents answer requests. :class:`RandomAgent` picks uniformly among legal answers.

This package holds who answers: the interface and the random agent (here), the heuristic
bot (:mod:`.bots`) and its reading of the hidden roles (:mod:`.beliefs`), the search bot
(:mod:`.search`) and the ``--agents`` spec (:mod:`.agentspec`).

An agent is anything with ``decide(request, view) -> answer``: the view is its seat's
(:class:`~sgs_runtime.state.seatview.SeatView`), and cards it may not see are place holders. Agents choose
only among what the request offers, so they cannot break a rule; the game
checks every answer anyway. Each agent has its own seeded random generator, so
a game is reproduced by its seed.

>>> from sgs_runtime.resolution.requests import ConfirmRequest
>>> agent = RandomAgent(3)
>>> agent.decide.__doc__.split(".")[0]
'Answer any request with a random legal answer'
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Optional, Sequence

from sgs_runtime.errors import IllegalDecision
from sgs_runtime.native import mypyc_attr
from sgs_runtime.resolution.requests import (
    ArrangeRequest,
    CardsRequest,
    ConfirmRequest,
    OptionRequest,
    PlayAction,
    PlayersRequest,
    PlayOption,
    PlayRequest,
    Request,
    RespondRequest,
    Response,
)
from sgs_runtime.state.chance import below, choice, randint, sample, shuffle
from sgs_runtime.state.model import Card, Player

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.state.seatview import SeatView


def pick_in_order(pool: Sequence[Card], want: int, lo: int, step: Any) -> Optional[list[Card]]:
    """Take cards from ``pool`` in its order while ``step(chosen, card)`` allows, up to ``want``;
    None if fewer than ``lo`` could be taken."""
    chosen: list[Card] = []
    for c in pool:
        if len(chosen) >= want:
            break
        if step(chosen, c):
            chosen.append(c)
    return chosen if len(chosen) >= lo else None


def legal(req: Request, answer: Any) -> bool:
    """Whether ``req`` accepts ``answer`` (its check passes)."""
    try:
        req.check(answer)
    except IllegalDecision:
        return False
    return True


def valid_players(req: PlayersRequest) -> Optional[list[Player]]:
    """A choice of players the request accepts (its ``valid`` check included), or None."""
    from itertools import permutations

    for k in range(req.min, req.max + 1):
        for pick in permutations(req.candidates, k):
            if req.valid is None or req.valid(list(pick)):
                return list(pick)
    return None


@mypyc_attr(allow_interpreted_subclasses=True, serializable=True)
class Agent:
    """Base class: override :meth:`decide`."""

    name = "agent"

    def decide(self, request: Request, game: "Game | SeatView") -> Any:  # pragma: no cover - interface
        raise NotImplementedError


@mypyc_attr(allow_interpreted_subclasses=True, serializable=True)
class RandomAgent(Agent):
    """Chooses uniformly at random among legal answers.

    ``end_chance`` is the chance of ending the play phase when something could
    still be done; ``answer_chance`` the chance of answering a response window
    or accepting an optional skill.
    """

    name = "random"

    def __init__(self, seed: int = 0, end_chance: float = 0.2, answer_chance: float = 0.75) -> None:
        self.rng = random.Random(seed)
        self.end_chance = end_chance
        self.answer_chance = answer_chance

    def decide(self, request: Request, game: "Game | SeatView") -> Any:
        """Answer any request with a random legal answer."""
        if isinstance(request, PlayRequest):
            return self._play(request)
        if isinstance(request, RespondRequest):
            return self._respond(request)
        if isinstance(request, ConfirmRequest):
            return self.rng.random() < self.answer_chance
        if isinstance(request, CardsRequest):
            return self._cards(request)
        if isinstance(request, PlayersRequest):
            return self._players(request)
        if isinstance(request, OptionRequest):
            return below(self.rng, len(request.options))
        if isinstance(request, ArrangeRequest):
            cards = list(request.cards)
            shuffle(self.rng, cards)
            cut = randint(self.rng, 0, len(cards))
            return (cards[:cut], cards[cut:])
        return request.decline()

    def _players(self, req: PlayersRequest) -> list[Player]:
        for _ in range(30):
            k = randint(self.rng, req.min, req.max)
            pick = sample(self.rng, list(req.candidates), k)
            if req.valid is None or req.valid(pick):
                return pick
        return valid_players(req) or []

    def _cards(self, req: CardsRequest) -> list[Card]:
        for _ in range(20):
            k = randint(self.rng, req.min, req.max)
            pick = sample(self.rng, list(req.candidates), k)
            if req.valid is None or req.valid(pick):
                return pick
        return list(req.candidates)[: req.min]

    def _choose_cards(self, pool: Sequence[Card], lo: int, hi: Optional[int], step: Any) -> Optional[list[Card]]:
        pool = list(pool)
        shuffle(self.rng, pool)
        upper = len(pool) if hi is None else min(hi, len(pool))
        want = randint(self.rng, lo, max(lo, upper)) if upper >= lo else lo
        return pick_in_order(pool, want, lo, step)

    def _play(self, req: PlayRequest) -> Optional[PlayAction]:
        if not req.options or self.rng.random() < self.end_chance:
            return None
        for _ in range(6):
            opt = choice(self.rng, req.options)
            action = self._build(req, opt)
            if action is not None and legal(req, action):
                return action
        return None

    def _build(self, req: PlayRequest, opt: PlayOption) -> Optional[PlayAction]:
        if opt.recast:
            return PlayAction(card=opt.card, recast=True)
        cards: list[Card] = []
        if opt.card is None:
            pool, lo, hi = req.card_choices(opt)
            got = self._choose_cards(pool, lo, hi, lambda chosen, c: req.card_step(opt, chosen, c))  # type: ignore[misc]
            if got is None:
                return None
            cards = got
        cands, lo, hi = req.target_choices(opt, cards, [])
        targets: list[Player] = []
        if hi > 0:
            if len(cands) < lo:
                return None
            k = randint(self.rng, max(lo, 1) if cands else 0, min(hi, len(cands)))
            targets = sample(self.rng, cands, k)
        secondary: list[Player] = []
        if targets and opt.further:
            for t in targets:
                extra = req.secondary_choices(opt, cards, t, 0)
                if not extra:  # none is left for this target: the action will not pass
                    secondary = []
                    break
                secondary.append(choice(self.rng, extra))
        return PlayAction(card=opt.card, skill=opt.skill.id if opt.skill else None, cards=cards, targets=targets,
                          view_as=-1 if opt.active and opt.skill and opt.skill.view_as else opt.view_as, as_card=opt.as_card,
                          secondary=secondary)

    def _respond(self, req: RespondRequest) -> Optional[Response]:
        if not req.options or self.rng.random() >= self.answer_chance:
            return None
        opt = choice(self.rng, req.options)
        if opt.card is not None:
            return Response(card=opt.card)
        pool, lo, hi = req.card_choices(opt)
        got = self._choose_cards(pool, lo, hi, lambda chosen, c: req.card_step(opt, chosen, c))  # type: ignore[misc]
        if got is None:
            return None
        ans = Response(skill=opt.skill.id if opt.skill else None, cards=got, view_as=opt.view_as, as_card=opt.as_card)
        return ans if legal(req, ans) else None


@mypyc_attr(allow_interpreted_subclasses=True, serializable=True)
class SplitAgent(Agent):
    """One seat's agent chosen by the seat's role (or seat): ``inside`` for the given roles and seats, else ``outside``.

    Used to pit one kind of bot against another (heuristic rebels against random
    loyalists ...); roles are dealt after agents are made, so the choice is made at
    each decision.
    """

    name = "split"

    def __init__(self, roles: frozenset[str], inside: Agent, outside: Agent, seats: frozenset[int] = frozenset()) -> None:
        self.roles = roles
        self.seats = seats  # these seats too, whatever their role
        self.inside = inside
        self.outside = outside

    def decide(self, request: Request, game: "Game | SeatView") -> Any:
        player = request.player
        agent = self.inside if player.seat in self.seats or player.role in self.roles else self.outside
        return agent.decide(request, game)
