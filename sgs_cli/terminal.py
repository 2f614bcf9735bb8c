"""A game in the terminal: one human seat, bots elsewhere.

The human answers the same requests a bot does, through numbered menus; the
game's event log is narrated as it grows, as the player's seat saw it. An answer
the game refuses (a card the skill cannot use, targets out of range ...) is told
and the same question is asked again; nothing a person types ends the game with
an error. The end of input (Ctrl-D) or Ctrl-C abandons the game
(:class:`Abandoned`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import click

from sgs_runtime.seatview import SeatView, ask_agent
from sgs_runtime.simulate import make_agent
from sgs_runtime.definitions import Content, Ruleset
from sgs_runtime.errors import GameError, IllegalDecision
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


class Abandoned(Exception):
    """The player left the game: the end of input (Ctrl-D) or Ctrl-C."""


class Back(Exception):
    """The player went back to the menu of the play phase (a half-built action is dropped)."""


def _ask(prompt: str, confirm: bool = False, **kwargs: Any) -> Any:
    """``click.prompt`` (``click.confirm``); the end of input or Ctrl-C is :class:`Abandoned`."""
    while True:
        try:
            return click.confirm(prompt, **kwargs) if confirm else click.prompt(prompt, **kwargs)
        except (click.Abort, EOFError, KeyboardInterrupt):
            raise Abandoned() from None
        except UnicodeDecodeError:  # bytes that are not text in the terminal's encoding: asked again
            click.echo("that is not text in the terminal's encoding; try again")


def _pick(prompt: str, labels: Sequence[str], allow_none: Optional[str] = None) -> Optional[int]:
    if not labels and not allow_none:
        raise Back()  # nothing to pick from: the caller's menu is asked again
    for i, label in enumerate(labels, 1):
        click.echo(f"  {i}. {label}")
    if allow_none:
        click.echo(f"  0. {allow_none}")
    lo = 0 if allow_none else 1
    n = _ask(prompt, type=click.IntRange(lo, len(labels)), default=lo if allow_none else 1)
    return None if n == 0 else n - 1


def _pick_many(prompt: str, labels: Sequence[str], lo: int, hi: int, can_go_back: bool = False) -> list[int]:
    hi = min(hi, len(labels))
    if lo > hi:
        click.echo(f"there are not {lo} to choose from for: {prompt}")
        raise Back()
    if hi == 0:  # nothing to choose: nothing is asked
        return []
    for i, label in enumerate(labels, 1):
        click.echo(f"  {i}. {label}")
    default = " ".join(str(i + 1) for i in range(lo))  # Enter takes the first ones
    back = ", or b to go back" if can_go_back else ""
    while True:
        raw = _ask(f"{prompt} ({lo}-{hi} numbers, separated by spaces{back})", default=default,
                   show_default=bool(default))
        text = str(raw).strip()
        if can_go_back and text.lower() in ("b", "back"):
            raise Back()
        try:
            picks = [int(x) - 1 for x in text.split()]
        except ValueError:
            click.echo("type numbers from the list, separated by spaces")
            continue
        if lo <= len(picks) <= hi and all(0 <= p < len(labels) for p in picks) and len(set(picks)) == len(picks):
            return picks
        click.echo(f"choose between {lo} and {hi} different numbers from 1 to {len(labels)}")


def _pick_cards(prompt: str, pool: Sequence[Card], lo: int, hi: Optional[int],
                step: Optional[Callable[[list[Card], Card], bool]]) -> list[Card]:
    """Cards for a skill: asked again until each card may join those before it (``step``)."""
    while True:
        picks = _pick_many(prompt, [c.label() for c in pool], lo, hi if hi is not None else len(pool),
                           can_go_back=True)
        cards = [pool[i] for i in picks]
        bad = next((c for i, c in enumerate(cards) if step is not None and not step(cards[:i], c)), None)
        if bad is None:
            return cards
        after = " with the cards before it" if bad is not cards[0] else ""
        click.echo(f"not allowed: {bad.label()} cannot be chosen here{after}")


class HumanAgent:
    name = "human"

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def show(self, game: SeatView) -> None:
        me = game.players[self.seat]
        for p in game.players:
            tag = "you" if p is me else (p.role if p.role_revealed else "?")
            state = f"{p.hp}/{p.max_hp}" if p.alive else "dead"
            equip = ", ".join(c.label() for c in p.equip.cards)
            judge = ", ".join(c.label() for c in p.judge.cards)
            click.echo(f"  [{p.seat}] {p.hero.name.zh}({p.name}) {tag:<8} {state:<6} hand {len(p.hand)}"
                       + (f"  equip: {equip}" if equip else "") + (f"  judge: {judge}" if judge else ""))
        click.echo(f"  your hand: {', '.join(c.label() for c in me.hand.cards) or '(empty)'}")

    def decide(self, req: Request, game: SeatView) -> Any:
        click.echo("")
        if isinstance(req, PlayRequest):
            self.show(game)
            while True:
                try:
                    return self._play(req)
                except Back:
                    click.echo("back to the play phase's menu")
        if isinstance(req, RespondRequest):
            click.echo(req.prompt)
            while True:
                try:
                    return self._respond(req)
                except Back:
                    click.echo("back to the answers")
        if isinstance(req, ConfirmRequest):
            return bool(_ask(req.prompt, confirm=True, default=True))
        try:
            return self._choose(req)
        except Back:  # nothing to choose from: no answer a person could give
            raise GameError(f"the game asks {req.player.name} to {req.prompt}, but offers nothing to "
                            "choose from") from None

    def _choose(self, req: Request) -> Any:
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

    def _play(self, req: PlayRequest) -> Optional[PlayAction]:
        idx = _pick("use", [o.label for o in req.options], allow_none="end the play phase")
        if idx is None:
            return None
        opt = req.options[idx]
        if opt.recast:
            return PlayAction(card=opt.card, recast=True)
        cards: list[Card] = []
        if opt.card is None and req.card_choices is not None:
            pool, lo, hi = req.card_choices(opt)
            step = req.card_step
            cards = _pick_cards("cards", pool, lo, hi, (lambda chosen, c: step(opt, chosen, c)) if step else None)
        targets: list[Player] = []
        if req.target_choices is not None:
            cands, lo, hi = req.target_choices(opt, cards, [])
            if hi > 0:
                picks = _pick_many("targets", [p.name for p in cands], lo, hi, can_go_back=True)
                targets = [cands[i] for i in picks]
        secondary: list[Player] = []
        if targets and not opt.active and req.secondary_choices is not None:
            try:
                for t in targets:
                    extra = req.secondary_choices(opt, cards, t, 0)
                    j = _pick(f"and for {t.name}", [p.name for p in extra])
                    secondary.append(extra[j or 0])
            except IndexError:  # the card needs no further player
                secondary = []
        # the active part of a skill that also has view-as entries is view_as -1 (PlayAction)
        view_as = -1 if opt.active and opt.skill is not None and opt.skill.view_as else opt.view_as
        return PlayAction(card=opt.card, skill=opt.skill.id if opt.skill else None, cards=cards,
                          targets=targets, view_as=view_as, secondary=secondary, as_card=opt.as_card)

    def _respond(self, req: RespondRequest) -> Optional[Response]:
        idx = _pick("answer with", [o.label for o in req.options], allow_none="do not answer")
        if idx is None:
            return None
        ropt = req.options[idx]
        if ropt.card is not None:
            return Response(card=ropt.card)
        assert req.card_choices is not None
        pool, lo, hi = req.card_choices(ropt)
        step = req.card_step
        cards = _pick_cards("cards", pool, lo, hi, (lambda chosen, c: step(ropt, chosen, c)) if step else None)
        return Response(skill=ropt.skill.id if ropt.skill else None, cards=cards,
                        view_as=ropt.view_as, as_card=ropt.as_card)


def play_terminal(content: Content, rules: Ruleset, players: int, seed: int, seat: int,
                  log_file: Optional[Path], save: Optional[Path] = None, agents: str = "random") -> None:
    try:
        sink = log_file.open("w", encoding="utf-8") if log_file else None
    except OSError as exc:
        raise GameError(f"the event log cannot be written to {log_file}: {exc.strerror or exc}") from None
    try:
        game = Game(content, rules, players=players, seed=seed, log_sink=sink)
        bots: list[Any] = [make_agent(agents, seed * 31 + i) for i in range(players)]
        bots[seat] = HumanAgent(seat)
        click.echo(f"seed {seed}: you are seat {seat}")
        shown = 0
        req = game.start()
        while req is not None:
            for line in story(log_view(game.log[shown:], seat)):  # what this seat saw
                click.echo(line)
            shown = len(game.log)
            answer = ask_agent(game, bots[req.player.seat], req)
            if req.player.seat != seat:
                req = game.answer(answer)  # a bot's answer: a refusal is the engine's error
                continue
            try:
                req = game.answer(answer)
            except IllegalDecision as exc:  # the same request is still pending: ask again
                click.echo(f"not allowed: {exc}")
        for line in story(log_view(game.log[shown:], seat)):
            click.echo(line)
        assert game.result is not None
        me = game.players[seat]
        won = me.name in game.result.winners
        click.echo(f"\n{game.result.reason}: {', '.join(game.result.winner_roles) or 'nobody'} won — "
                   f"you were {me.role}; you {'won' if won else 'lost'}.")
        if save is not None:
            try:
                save.write_text(json.dumps(transcript(game), ensure_ascii=False, indent=1), encoding="utf-8")
            except OSError as exc:
                raise GameError(f"the transcript could not be saved to {save}: {exc.strerror or exc}") from None
            click.echo(f"saved: replay it with `sgs replay {save}`")
    finally:
        if sink:
            sink.close()
