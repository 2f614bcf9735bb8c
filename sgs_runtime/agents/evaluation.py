"""How good a position is for a seat: the chance that its side wins from here, by a fitted model.

A search bot cannot afford to play every copy of the game to its end: the copies
stop after a few turns (a *horizon*) and the position they reached is scored by
:func:`value`. The score is the probability that the seat's side wins, from a
multinomial logistic model over a few facts of the true state (:func:`features`),
for the three sides a role may play for (:data:`SIDES`, the rules' role ``side``;
the role with the lord's skills is the lord's side):

* per side: how many of its players are alive, their HP, hand cards and
  equipment, each per seat at the table;
* the lord's own HP and hand;
* how far the game is (rounds).

The model is fitted to the heuristic bots' own games (``benchmarks/fit_evaluation.py``
writes ``evaluation.json`` beside this module, with what it was fitted on and how well
it predicts games it was not fitted on). It names no role, hero or card: only sides,
so it applies to every rules file whose roles have sides.

>>> m = Model(["bias"], {"lord": [0.0], "rebel": [0.0], "alone": [0.0]})
>>> [round(p, 3) for p in m.probabilities([1.0]).values()]
[0.333, 0.333, 0.333]
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence

from sgs_runtime.agents.beliefs import role_table

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game

#: the sides a role plays for (RoleDef.side; the lord's role is the lord's side)
SIDES = ("lord", "rebel", "alone")

#: the names of the features, in the order :func:`features` gives them
FEATURES = (["bias"]
            + [f"{s}_side_{what}" for s in SIDES for what in ("alive", "hp", "hand", "equip")]
            + ["lord_hp", "lord_hand", "rounds"])

MODEL_FILE = Path(__file__).with_name("evaluation.json")


def features(game: "Game") -> list[float]:
    """The facts of the true state the model reads, in :data:`FEATURES` order."""
    n = len(game.players)
    per = {s: [0.0, 0.0, 0.0, 0.0] for s in SIDES}
    lord_hp = lord_hand = 0.0
    roles = game.rules.roles
    sides = role_table(game.rules)
    for p in game.players:
        if not p.alive:
            continue
        row = per.get(sides.side(p.role))
        if row is None:
            continue
        rdef = roles.get(p.role)
        hand = float(len(p.hand.cards))
        row[0] += 1.0
        row[1] += max(0, p.hp)
        row[2] += hand
        row[3] += len(p.equip.cards)
        if rdef is not None and rdef.lord_skills:
            lord_hp, lord_hand = float(max(0, p.hp)), hand
    out = [1.0]
    for s in SIDES:
        out.extend(v / n for v in per[s])
    out.extend([lord_hp, lord_hand, game.turn_number / n])
    return out


@dataclass
class Model:
    """Softmax weights per side over :data:`FEATURES`."""

    names: list[str]
    weights: dict[str, list[float]]
    info: Optional[dict[str, Any]] = None

    def probabilities(self, xs: Sequence[float]) -> dict[str, float]:
        """Side -> the chance it wins, for the feature values ``xs``."""
        scores = {s: sum(w * x for w, x in zip(ws, xs)) for s, ws in self.weights.items()}
        top = max(scores.values())
        exp = {s: math.exp(v - top) for s, v in scores.items()}
        total = sum(exp.values())
        return {s: e / total for s, e in exp.items()}

    def as_dict(self) -> dict[str, Any]:
        return {"features": self.names, "weights": self.weights, "info": self.info or {}}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Model":
        names = list(data["features"])
        if names != FEATURES:
            raise ValueError(f"the model reads the features {names}, not {FEATURES}: fit it again "
                             "(benchmarks/fit_evaluation.py)")
        return cls(names, {s: [float(w) for w in data["weights"][s]] for s in SIDES}, data.get("info"))


_MODEL: list[Model] = []


def model() -> Model:
    """The fitted model (``evaluation.json``), read once."""
    if not _MODEL:
        _MODEL.append(Model.from_dict(json.loads(MODEL_FILE.read_text(encoding="utf-8"))))
    return _MODEL[0]


def value(game: "Game", seat: int) -> float:
    """The chance, by the model, that ``seat``'s side wins from this position (a traitor's side is his
    alone: his chance when alive, none when dead)."""
    p = game.players[seat]
    side = role_table(game.rules).side(p.role)
    if side not in SIDES:
        return 0.5
    if side == "alone" and not p.alive:
        return 0.0
    return model().probabilities(features(game))[side]
