"""Reproducing a game from its seed and its decision log.

Every answered request is recorded in :attr:`Game.decisions` in a form that names
cards by their id and players by their seat, so it can be written as JSON and
played back exactly::

    >>> from sgs_dsl.loader import load_content
    >>> from sgs_runtime.agents import RandomAgent
    >>> from sgs_runtime.game import Game
    >>> content = load_content()
    >>> g = Game(content, content.ruleset(), players=4, seed=5)
    >>> _ = g.play([RandomAgent(i) for i in range(4)])
    >>> again = replay(content, transcript(g))
    >>> again.log == g.log
    True

The transcript (:func:`transcript`) holds the rules id, the number of players,
the seed, the options and the decisions; ``sgs play --save FILE`` writes one and
``sgs replay FILE`` plays it back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from .errors import GameError
from .model import Card, Player
from .requests import (
    ArrangeRequest,
    CardsRequest,
    ConfirmRequest,
    OptionRequest,
    PlayAction,
    PlayersRequest,
    PlayRequest,
    Request,
    RespondRequest,
    Response,
)

if TYPE_CHECKING:  # pragma: no cover
    from .definitions import Content
    from .game import Game


def encode(answer: Any) -> Any:
    """An answer in JSON form: cards by id, players by seat."""
    if isinstance(answer, Card):
        return answer.id
    if isinstance(answer, Player):
        return answer.seat
    if isinstance(answer, PlayAction):
        return {"card": encode(answer.card), "skill": answer.skill, "cards": encode(answer.cards),
                "targets": encode(answer.targets), "secondary": encode(answer.secondary),
                "view_as": answer.view_as, **({"recast": True} if answer.recast else {}),
                **({"as": answer.as_card} if answer.as_card else {})}
    if isinstance(answer, Response):
        return {"card": encode(answer.card), "skill": answer.skill, "cards": encode(answer.cards),
                "view_as": answer.view_as, **({"as": answer.as_card} if answer.as_card else {})}
    if isinstance(answer, (list, tuple)):
        return [encode(a) for a in answer]
    return answer


def decode(game: "Game", request: Request, data: Any) -> Any:
    """The answer ``data`` (from :func:`encode`) to ``request`` in ``game``."""
    cards = {c.id: c for c in game.cards}

    def card(i: Optional[int]) -> Optional[Card]:
        return cards[i] if i is not None else None

    def player(s: int) -> Player:
        return game.players[s]

    if data is None:
        return None
    if isinstance(request, PlayRequest):
        return PlayAction(card=card(data["card"]), skill=data["skill"], cards=[cards[i] for i in data["cards"]],
                          targets=[player(s) for s in data["targets"]],
                          secondary=[player(s) for s in data["secondary"]], view_as=data["view_as"],
                          recast=bool(data.get("recast", False)), as_card=data.get("as"))
    if isinstance(request, RespondRequest):
        return Response(card=card(data["card"]), skill=data["skill"], cards=[cards[i] for i in data["cards"]],
                        view_as=data["view_as"], as_card=data.get("as"))
    if isinstance(request, CardsRequest):
        return [cards[i] for i in data]
    if isinstance(request, PlayersRequest):
        return [player(s) for s in data]
    if isinstance(request, ArrangeRequest):
        top, bottom = data
        return ([cards[i] for i in top], [cards[i] for i in bottom])
    if isinstance(request, (ConfirmRequest, OptionRequest)):
        return data
    return data


def transcript(game: "Game") -> dict[str, Any]:
    """What reproduces ``game``: rules, players, seed, options and decisions."""
    return {"rules": game.rules.id, "players": game.num_players, "seed": game.seed,
            "options": {k: v for k, v in game.options.items() if game.rules.options.get(k) != v},
            "decisions": list(game.decisions)}


def replay(content: "Content", record: dict[str, Any], **game_args: Any) -> "Game":
    """Play a transcript back; raise :class:`GameError` if it does not fit the game."""
    from .game import Game

    game = Game(content, content.ruleset(record["rules"]), players=int(record["players"]),
                seed=int(record["seed"]), options=record.get("options") or None, **game_args)
    decisions = list(record["decisions"])
    req = game.start()
    for i, d in enumerate(decisions):
        if req is None:
            raise GameError(f"the game ended before decision {i} of {len(decisions)}")
        if d["player"] != req.player.seat or d["kind"] != req.kind:
            raise GameError(f"decision {i} answers a {d['kind']} request of seat {d['player']}, but the game "
                            f"asks seat {req.player.seat} for a {req.kind}: the transcript does not fit")
        req = game.answer(decode(game, req, d["answer"]))
    if req is not None:
        raise GameError(f"the transcript ends while seat {req.player.seat} is asked to {req.prompt}")
    return game
