"""Every legal answer to a play request: for UIs, bots and count oracles.

:func:`play_actions` lists each distinct legal :class:`PlayAction` — a hand card
with each legal choice of targets (order does not matter for a card: its targets
resolve in seat order), a view-as skill with each legal choice of cards and
targets, an active skill with each legal choice of cards and ordered targets
(离间's order decides who duels whom). Counting them on fixed tables is the
engine's "perft": a regression oracle for the rules of targeting.
"""

from __future__ import annotations

from itertools import combinations, permutations
from typing import Iterator

from sgs_runtime.errors import IllegalDecision
from sgs_runtime.resolution.requests import PlayAction, PlayOption, PlayRequest
from sgs_runtime.state.model import Card, Player


def _card_sets(req: PlayRequest, opt: PlayOption) -> Iterator[list[Card]]:
    if opt.card is not None:
        yield []
        return
    assert req.card_choices is not None and req.card_step is not None
    pool, lo, hi = req.card_choices(opt)
    upper = len(pool) if hi is None else min(hi, len(pool))
    for k in range(lo, upper + 1):
        for combo in combinations(pool, k):
            chosen: list[Card] = []
            ok = True
            for c in combo:
                if not req.card_step(opt, chosen, c):
                    ok = False
                    break
                chosen.append(c)
            if ok:
                yield chosen


def _target_sets(cands: list[Player], lo: int, hi: int, ordered: bool) -> Iterator[list[Player]]:
    for k in range(lo, min(hi, len(cands)) + 1):
        pick = permutations(cands, k) if ordered else combinations(cands, k)
        for targets in pick:
            yield list(targets)


def play_actions(req: PlayRequest, limit: int = 100_000) -> list[PlayAction]:
    """Every legal action of a play request (at most ``limit``)."""
    assert req.target_choices is not None
    out: list[PlayAction] = []
    for opt in req.options:
        for cards in _card_sets(req, opt):
            cands, lo, hi = req.target_choices(opt, cards, [])
            target_sets = [[]] if hi == 0 else list(_target_sets(cands, lo, hi, ordered=opt.active))
            for targets in target_sets:
                for secondary in _secondaries(req, opt, cards, targets):
                    action = PlayAction(card=opt.card, skill=opt.skill.id if opt.skill else None, cards=cards,
                                        targets=targets, secondary=secondary, recast=opt.recast,
                                        view_as=-1 if opt.active and opt.skill and opt.skill.view_as else opt.view_as, as_card=opt.as_card)
                    try:
                        req.check(action)
                    except IllegalDecision:
                        continue
                    out.append(action)
                    if len(out) >= limit:
                        return out
    return out


def _secondaries(req: PlayRequest, opt: PlayOption, cards: list[Card], targets: list[Player]) -> Iterator[list[Player]]:
    if not targets or not opt.further or req.secondary_choices is None:
        yield []
        return
    choices = [req.secondary_choices(opt, cards, t, 0) for t in targets]

    def rec(i: int, acc: list[Player]) -> Iterator[list[Player]]:
        if i == len(choices):
            yield list(acc)
            return
        for p in choices[i]:
            yield from rec(i + 1, acc + [p])

    yield from rec(0, [])
