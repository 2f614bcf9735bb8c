"""A game in the terminal: one human seat, bots elsewhere.

The human answers the same requests a bot does, through numbered menus; the
game's event log is narrated as it grows, as the player's seat saw it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, Sequence

import click

from sgs_runtime.seatview import ask_agent
from sgs_runtime.agents import RandomAgent
from sgs_runtime.definitions import Content, Ruleset
from sgs_runtime.game import Game
from sgs_runtime.model import Card, Player
from sgs_runtime.narrate import story
from sgs_runtime.visibility import log_view
from sgs_runtime.replay import transcript
from sgs_runtime.requests import (
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


def _pick(prompt: str, labels: Sequence[str], allow_none: Optional[str] = None) -> Optional[int]:
    for i, label in enumerate(labels, 1):
        click.echo(f"  {i}. {label}")
    if allow_none:
        click.echo(f"  0. {allow_none}")
    lo = 0 if allow_none else 1
    n = click.prompt(prompt, type=click.IntRange(lo, len(labels)), default=lo if allow_none else 1)
    return None if n == 0 else n - 1


def _pick_many(prompt: str, labels: Sequence[str], lo: int, hi: int) -> list[int]:
    for i, label in enumerate(labels, 1):
        click.echo(f"  {i}. {label}")
    default = " ".join(str(i + 1) for i in range(lo))  # Enter takes the first ones
    while True:
        raw = click.prompt(f"{prompt} ({lo}-{hi} numbers, separated by spaces)", default=default,
                           show_default=bool(default))
        try:
            picks = [int(x) - 1 for x in str(raw).split()]
        except ValueError:
            continue
        if lo <= len(picks) <= hi and all(0 <= p < len(labels) for p in picks) and len(set(picks)) == len(picks):
            return picks
        click.echo(f"choose between {lo} and {hi} different numbers")


class HumanAgent:
    name = "human"

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def show(self, game: Game) -> None:
        me = game.players[self.seat]
        for p in game.players:
            tag = "you" if p is me else (p.role if p.role_revealed else "?")
            state = f"{p.hp}/{p.max_hp}" if p.alive else "dead"
            equip = ", ".join(c.label() for c in p.equip.cards)
            judge = ", ".join(c.label() for c in p.judge.cards)
            click.echo(f"  [{p.seat}] {p.hero.name.zh}({p.name}) {tag:<8} {state:<6} hand {len(p.hand)}"
                       + (f"  equip: {equip}" if equip else "") + (f"  judge: {judge}" if judge else ""))
        click.echo(f"  your hand: {', '.join(c.label() for c in me.hand.cards) or '(empty)'}")

    def decide(self, req: Request, game: Game) -> Any:
        click.echo("")
        if isinstance(req, PlayRequest):
            self.show(game)
            idx = _pick("use", [o.label for o in req.options], allow_none="end the play phase")
            if idx is None:
                return None
            opt = req.options[idx]
            cards: list[Card] = []
            if opt.card is None and req.card_choices is not None:
                pool, lo, hi = req.card_choices(opt)
                picks = _pick_many("cards", [c.label() for c in pool], lo, hi if hi is not None else len(pool))
                cards = [pool[i] for i in picks]
            targets: list[Player] = []
            if req.target_choices is not None:
                cands, lo, hi = req.target_choices(opt, cards, [])
                if hi > 0:
                    picks = _pick_many("targets", [p.name for p in cands], lo, hi)
                    targets = [cands[i] for i in picks]
            secondary: list[Player] = []
            if targets and not opt.active and req.secondary_choices is not None:
                try:
                    for t in targets:
                        extra = req.secondary_choices(opt, cards, t, 0)
                        j = _pick(f"and for {t.name}", [p.name for p in extra])
                        secondary.append(extra[j or 0])
                except IndexError:
                    secondary = []
            return PlayAction(card=opt.card, skill=opt.skill.id if opt.skill else None, cards=cards,
                              targets=targets, view_as=opt.view_as, secondary=secondary, as_card=opt.as_card)
        if isinstance(req, RespondRequest):
            click.echo(req.prompt)
            idx = _pick("answer with", [o.label for o in req.options], allow_none="do not answer")
            if idx is None:
                return None
            ropt = req.options[idx]
            if ropt.card is not None:
                return Response(card=ropt.card)
            assert req.card_choices is not None
            pool, lo, hi = req.card_choices(ropt)
            picks = _pick_many("cards", [c.label() for c in pool], lo, hi if hi is not None else len(pool))
            return Response(skill=ropt.skill.id if ropt.skill else None, cards=[pool[i] for i in picks],
                            view_as=ropt.view_as, as_card=ropt.as_card)
        if isinstance(req, ConfirmRequest):
            return click.confirm(req.prompt, default=True)
        if isinstance(req, CardsRequest):
            labels = ["(a hidden card)" if c.id in req.hidden else c.label() for c in req.candidates]
            picks = _pick_many(req.prompt, labels, req.min, req.max)
            return [req.candidates[i] for i in picks]
        if isinstance(req, PlayersRequest):
            picks = _pick_many(req.prompt, [p.name for p in req.candidates], req.min, req.max)
            return [req.candidates[i] for i in picks]
        if isinstance(req, OptionRequest):
            return _pick(req.prompt, list(req.options)) or 0
        if isinstance(req, ArrangeRequest):
            picks = _pick_many("cards to put on top, in order", [c.label() for c in req.cards], 0, len(req.cards))
            top = [req.cards[i] for i in picks]
            return (top, [c for c in req.cards if c not in top])
        return req.decline()


def play_terminal(content: Content, rules: Ruleset, players: int, seed: int, seat: int,
                  log_file: Optional[Path], save: Optional[Path] = None) -> None:
    sink = log_file.open("w", encoding="utf-8") if log_file else None
    try:
        game = Game(content, rules, players=players, seed=seed, log_sink=sink)
        agents: list[Any] = [RandomAgent(seed * 31 + i) for i in range(players)]
        agents[seat] = HumanAgent(seat)
        click.echo(f"seed {seed}: you are seat {seat}")
        shown = 0
        req = game.start()
        while req is not None:
            for line in story(log_view(game.log[shown:], seat)):  # what this seat saw
                click.echo(line)
            shown = len(game.log)
            req = game.answer(ask_agent(game, agents[req.player.seat], req))
        for line in story(log_view(game.log[shown:], seat)):
            click.echo(line)
        assert game.result is not None
        me = game.players[seat]
        won = me.name in game.result.winners
        click.echo(f"\n{game.result.reason}: {', '.join(game.result.winner_roles) or 'nobody'} won — "
                   f"you were {me.role}; you {'won' if won else 'lost'}.")
        if save is not None:
            save.write_text(json.dumps(transcript(game), ensure_ascii=False, indent=1), encoding="utf-8")
            click.echo(f"saved: replay it with `sgs replay {save}`")
    finally:
        if sink:
            sink.close()
