"""The table as a person sees it: plain data for the terminal and the browser.

Everything here is built from one seat's :class:`~sgs_runtime.state.seatview.SeatView`
and a request masked for that seat, so nothing reaches a person that their seat
may not see. The models are JSON-serialisable dicts and lists of strings,
numbers, booleans and None:

* :func:`table_model` — the seats, my role and hand, the turn;
* :func:`card_model`, :func:`skill_model`, :func:`hero_model` — names and texts;
* :func:`request_model` — what is asked, in words, one step at a time: the
  choices with labels, how many to choose, what pressing Enter does, whether the
  step can be undone;
* :func:`answer_from` — a JSON answer (choice indices, card ids, seats) turned
  into the request's answer; a wrong one raises :class:`AnswerError`.

A request's answer is built up as a dict of fields (``data``), step by step:

=========  ===================================================================
confirm    ``{"yes": true}``
option     ``{"option": 0}`` (also ``order``)
cards      ``{"cards": [card id, ...]}`` (hidden cards have negative ids)
players    ``{"players": [seat, ...]}``
arrange    ``{"top": [card id, ...]}`` (the others go to the bottom, in order)
play       ``{"option": i or None, "cards": [...], "targets": [...], "secondary": [...]}``
respond    ``{"option": i or None, "cards": [...]}``
=========  ===================================================================

:func:`request_model` with the fields given so far tells the next step;
:func:`undo` drops the last field given (``back``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

from sgs_runtime.errors import GameError, IllegalDecision
from sgs_runtime.resolution.requests import (
    ArrangeRequest,
    CardsRequest,
    ConfirmRequest,
    OptionRequest,
    OrderRequest,
    PlayAction,
    PlayersRequest,
    PlayOption,
    PlayRequest,
    Request,
    RespondOption,
    RespondRequest,
    Response,
)
from sgs_runtime.resolution.respond import RESCUE
from sgs_runtime.state.model import SUIT_SIGN, Card, Player, VirtualCard, parse_card_text, rank_text
from sgs_runtime.state.visibility import HiddenCard

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.state.definitions import CardKind, Hero, Skill, Text
    from sgs_runtime.state.seatview import SeatView

#: the quantities a table shows, when the rules declare them: seats apart, and within attack range
DISTANCE_QUANTITY = "distance"
REACH_QUANTITY = "in_attack_range"
#: a distance the engine gives a player out of reach (a dead one)
_FAR = 10**5

Model = dict[str, Any]


class AnswerError(GameError):
    """An answer from a person or a page that does not fit the request: said in a sentence."""


# ------------------------------------------------------------------ names and texts


def text_model(text: "Text") -> Model:
    return {"zh": text.zh, "en": text.en}


def kind_name(kind: "CardKind") -> str:
    """``Slash (杀)``: a card kind's name for sentences."""
    if kind.name.en and kind.name.zh:
        return f"{kind.name.en} ({kind.name.zh})"
    return kind.name.en or kind.name.zh or kind.id


def card_name(card: Any) -> str:
    """A card as a person reads it: ``杀 Slash ♠7``, ``Slash (杀) [Wusheng: 桃 Peach ♥3]``, ``a hidden card``."""
    if isinstance(card, HiddenCard) or getattr(card, "kind", None) is None:
        return f"a hidden card ({card.index + 1})" if isinstance(card, HiddenCard) else "a hidden card"
    kind = card.kind
    name = f"{kind.name.zh} {kind.name.en}".strip() or kind.id
    if isinstance(card, VirtualCard):
        inner = ", ".join(card_name(c) for c in card.subcards)
        return f"{name} [{inner}]" if inner else name
    sign = f"{SUIT_SIGN.get(card.suit, '')}{rank_text(card.rank)}"
    if kind is not card.base:
        base = card.base
        return f"{name} [{base.name.zh} {base.name.en} {SUIT_SIGN.get(card.printed_suit, '')}{rank_text(card.rank)}]"
    return f"{name} {sign}"


def player_name(p: Player, view: Optional["SeatView"] = None) -> str:
    """A player in a sentence: their hero's Chinese name (``you`` for the seat itself)."""
    if view is not None and p.seat == view.seat:
        return "you"
    return p.hero.name.zh or p.hero.name.en or p.hero.id


def player_label(p: Player, view: Optional["SeatView"] = None) -> str:
    """A player in a list: ``[2] 张飞 Zhang Fei``."""
    me = " (you)" if view is not None and p.seat == view.seat else ""
    return f"[{p.seat}] {p.hero.name.zh} {p.hero.name.en}{me}".replace("  ", " ")


def possessive(p: Player, view: Optional["SeatView"] = None) -> str:
    """``张飞's``, or ``your``."""
    return "your" if view is not None and p.seat == view.seat else f"{player_name(p)}'s"


def skill_name(skill: "Skill") -> str:
    return f"{skill.name.zh} {skill.name.en}".strip() or skill.id


def card_model(card: Any) -> Model:
    """One card: id, names, suit, rank, colour, type and text; a hidden card only as one."""
    if isinstance(card, HiddenCard) or getattr(card, "kind", None) is None:
        return {"id": card.id, "hidden": True, "label": card_name(card)}
    kind = card.kind
    out: Model = {
        "id": card.id,
        "hidden": False,
        "kind": kind.id,
        "name": text_model(kind.name),
        "type": kind.type,
        "suit": card.suit,
        "suit_sign": SUIT_SIGN.get(card.suit, "") if card.suit else "",
        "rank": card.rank,
        "rank_text": rank_text(card.rank) if card.rank else "",
        "color": card.color,
        "text": text_model(kind.text),
        "label": card_name(card),
        "virtual": bool(card.virtual),
    }
    if isinstance(card, VirtualCard):
        out["subcards"] = [card_model(c) for c in card.subcards]
    elif kind is not card.base:
        out["printed"] = {"kind": card.base.id, "name": text_model(card.base.name), "suit": card.printed_suit}
    if kind.equip is not None and kind.equip.range is not None:
        out["range"] = kind.equip.range
    return out


def skill_model(skill: "Skill") -> Model:
    """One skill: its id, names, text and kind (locked, lord)."""
    return {"id": skill.id, "name": text_model(skill.name), "text": text_model(skill.text),
            "locked": skill.locked, "lord": skill.lord, "label": skill_name(skill)}


def hero_model(hero: "Hero", view: "SeatView") -> Model:
    """One hero: names, kingdom, HP, gender and skills with their texts."""
    skills = [view.content.skills[s] for s in hero.skills if s in view.content.skills]
    return {"id": hero.id, "name": text_model(hero.name), "kingdom": hero.kingdom,
            "kingdoms": list(hero.kingdoms or (hero.kingdom,)), "hp": hero.hp, "gender": hero.gender,
            "skills": [skill_model(s) for s in skills],
            "label": f"{hero.name.zh} {hero.name.en} — {hero.kingdom}, {hero.hp} HP: "
                     + ", ".join(skill_name(s) for s in skills)}


def role_model(view: "SeatView", role: Optional[str]) -> Optional[Model]:
    if role is None:
        return None
    rd = view.rules.roles.get(role)
    return {"id": role, "name": text_model(rd.name) if rd is not None else {"zh": role, "en": role}}


def phase_model(view: "SeatView") -> Optional[Model]:
    phase = view.phase
    if phase is None:
        return None
    pd = next((p for p in view.rules.phases if p.id == phase), None)
    return {"id": phase, "name": text_model(pd.name) if pd is not None else {"zh": phase, "en": phase}}


# ------------------------------------------------------------------ the table


def _marks(view: "SeatView", p: Player) -> list[Model]:
    out = []
    for name, n in sorted(p.marks.items()):
        md = view.content.marks.get(name)
        if n and (md is None or md.visible or p.seat == view.seat):
            out.append({"name": name, "count": n})
    return out


def _piles(view: "SeatView", p: Player) -> list[Model]:
    out = []
    for name, zone in p.piles.items():
        if not zone.cards:
            continue
        pd = view.content.piles.get(name)
        cards = view.cards_of(p, name)
        seen = [card_model(c) for c in cards if not isinstance(c, HiddenCard)]
        out.append({"name": name, "text": text_model(pd.text) if pd is not None else {"zh": name, "en": name},
                    "face": pd.face if pd is not None else "up", "count": len(cards), "cards": seen})
    return out


def seat_model(view: "SeatView", p: Player) -> Model:
    """One seat as ``view``'s seat sees it."""
    me = view.me
    mine = p.seat == view.seat
    distance = None
    reach = False
    if p.alive and me.alive and not mine:
        d = view.quantity(DISTANCE_QUANTITY, me, p)
        distance = d if isinstance(d, int) and d < _FAR else None
        reach = bool(view.quantity(REACH_QUANTITY, me, p)) if distance is not None else False
    return {
        "seat": p.seat,
        "me": mine,
        "hero": {"id": p.hero.id, "name": text_model(p.hero.name)},
        "kingdom": p.kingdom,
        "gender": p.gender,
        "role": role_model(view, view.role_of(p)),  # one's own, and those revealed (the lord, the dead)
        "hp": p.hp,
        "max_hp": p.max_hp,
        "alive": p.alive,
        "dying": p.dying,
        "chained": p.chained,
        "face_down": p.face_down,
        "hand_count": len(p.hand),
        "equipment": [card_model(c) for c in view.cards_of(p, "equip")],
        "judge": [card_model(c) for c in view.cards_of(p, "judge")],  # a card lying as a delayed trick: as it lies
        "marks": _marks(view, p),
        "piles": _piles(view, p),
        "distance": distance,
        "in_range": reach,
        "current": view.current is p,
        "skills": [skill_model(view.content.skills[s]) for s in p.hero.skills if s in view.content.skills],
    }


def table_model(view: "SeatView") -> Model:
    """The whole table as one seat sees it (JSON-serialisable)."""
    me = view.me
    if not view.seated:  # heroes are being chosen: the seats have no hero yet
        return {"seat": view.seat, "role": role_model(view, me.role), "seated": False,
                "rules": {"id": view.rules.id, "name": text_model(view.rules.name)},
                "seats": [{"seat": p.seat, "me": p.seat == view.seat, "role": role_model(view, view.role_of(p))}
                          for p in view.players],
                "hand": [], "current": None, "phase": None, "draw_pile": view.draw_count}
    return {
        "seat": view.seat,
        "role": role_model(view, me.role),
        "seated": True,
        "rules": {"id": view.rules.id, "name": text_model(view.rules.name)},
        "seats": [seat_model(view, p) for p in view.players],
        "hand": [card_model(c) for c in view.cards_of(me, "hand")],
        "current": view.current.seat if view.current is not None else None,
        "phase": phase_model(view),
        "draw_pile": view.draw_count,
    }


# ------------------------------------------------------------------ requests


def _count_words(lo: int, hi: int, noun: str) -> str:
    plural = noun + "s"
    if lo == hi:
        return f"{lo} {noun if lo == 1 else plural}"
    if lo == 0:
        return f"up to {hi} {noun if hi == 1 else plural}"
    return f"{lo} to {hi} {plural}"


def _skill_of(view: "SeatView", sid: Optional[str]) -> Optional["Skill"]:
    return view.content.skills.get(sid) if sid else None


def _user_of(view: "SeatView", card: Any) -> Optional[Player]:
    """Who used ``card`` (the use being resolved; public)."""
    for ev in reversed(view.stack):
        if getattr(ev, "card", None) is card:
            user = getattr(ev, "user", None) or getattr(ev, "player", None)
            if isinstance(user, Player):
                return user
    return None


def _pattern_words(view: "SeatView", pattern: str) -> str:
    names: list[str] = []
    for pid in pattern.split("/"):
        if pid == RESCUE:
            deck = view.deck_kinds()
            savers = [k for k in view.content.cards.values()
                      if k.use is not None and k.use.rescue is not None and k.id in deck]
            names.extend(dict.fromkeys(f"a {kind_name(k)}" for k in savers))
            if not savers:
                names.append("a card that saves")
            continue
        kind = view.content.cards.get(view.content.canonical(pid))
        names.append(f"a {kind_name(kind)}" if kind is not None else pid)
    return " or ".join(names)


def _option_label(view: "SeatView", opt: PlayOption | RespondOption) -> str:
    if opt.card is not None:
        label = card_name(opt.card)
        return f"recast {label}" if isinstance(opt, PlayOption) and opt.recast else label
    skill = opt.skill
    if skill is None:
        return opt.label
    if opt.as_card is not None:
        kind = view.content.cards.get(opt.as_card)
        return f"{skill_name(skill)}: cards as {kind_name(kind) if kind else opt.as_card}"
    return skill_name(skill)


def _option_choice(view: "SeatView", i: int, opt: PlayOption | RespondOption) -> Model:
    out: Model = {"value": i, "label": _option_label(view, opt)}
    if opt.card is not None:
        out["card"] = card_model(opt.card)
    if opt.skill is not None:
        out["skill"] = skill_model(opt.skill)
    return out


def _player_choice(view: "SeatView", p: Player) -> Model:
    d = view.quantity(DISTANCE_QUANTITY, view.me, p) if p is not view.me and p.alive else None
    extra = f" — distance {d}" if isinstance(d, int) and d < _FAR else ""
    role = role_model(view, view.role_of(p)) if p.seat != view.seat else None
    known = f" ({role['name']['zh']} {role['name']['en']})" if role else ""
    return {"value": p.seat, "label": f"{player_label(p, view)}{known}, {p.hp}/{p.max_hp} HP{extra}"}


def _step(field: str, prompt: str, choices: list[Model], lo: int, hi: int, multi: bool,
          default: Any = None, default_text: str = "", none_label: str = "") -> Model:
    """One question: ``field`` gets a value (``multi``: a list of ``lo``..``hi`` values) among ``choices``."""
    return {"field": field, "prompt": prompt, "choices": choices, "min": lo, "max": hi, "multi": multi,
            "default": default, "default_text": default_text, "none_label": none_label}


def _respond_prompt(req: RespondRequest, view: "SeatView") -> tuple[str, str]:
    """The question of a response window, and what declining it means."""
    what = _pattern_words(view, req.pattern)
    verb = "Use" if req.mode == "use" else "Play"
    against = req.against
    for_whom = f" for {player_name(req.beneficiary, view)}" if req.beneficiary is not None else ""
    if RESCUE in req.pattern.split("/") and req.target is not None:
        t = req.target
        who = "You are" if t.seat == view.seat else f"{player_name(t)} is"
        return (f"{who} dying (HP {t.hp}): {verb.lower()} {what} to save "
                f"{'yourself' if t.seat == view.seat else 'them'}?",
                f"do not save {'yourself' if t.seat == view.seat else player_name(t)}")
    if against is not None and getattr(against, "kind", None) is not None:
        kind = against.kind
        user = _user_of(view, against)
        counters = {k.id for k in view.content.counters_for(kind.type)}
        if req.target is not None and set(req.pattern.split("/")) <= counters:
            on = player_name(req.target, view)
            by = f"{possessive(user, view)} " if user is not None else ""
            return (f"Cancel {by}{kind_name(kind)} on {on} with {what}?", f"let the {kind.name.en or kind.id} resolve")
        by = f"{possessive(user, view)} " if user is not None else "the "
        on = f" on {', '.join(player_name(p, view) for p in req.on)}" if req.on else ""
        return (f"{verb} {what}{on}{for_whom} against {by}{kind_name(kind)}?",
                f"do not {verb.lower()} one: the {kind.name.en or kind.id} takes effect")
    on = f" on {', '.join(player_name(p, view) for p in req.on)}" if req.on else ""
    return f"{verb} {what}{on}{for_whom}?", f"do not {verb.lower()} one"


_ZONE_WORDS = {"hand": "hand", "equip": "equipment", "judge": "judge area"}


def _asked_by(req: Request, view: "SeatView") -> str:
    """What asks: the skill, or the card being resolved (``顺手牵羊 Snatch: ``)."""
    skill = _skill_of(view, getattr(req, "skill", None))
    if skill is not None:
        return f"{skill_name(skill)}: "
    use = view.current_use()
    card = getattr(use, "card", None)
    if card is not None and getattr(card, "kind", None) is not None:
        return f"{card.kind.name.zh} {card.kind.name.en}: ".lstrip()
    return ""


def _card_choice(view: "SeatView", c: Any) -> Model:
    """A card to choose, with whose it is and where it lies when it is not one's own."""
    owner = getattr(c, "owner", None)
    zone = getattr(c, "zone_name", None) or (c.zone.name if getattr(c, "zone", None) is not None else "")
    where = ""
    if isinstance(owner, Player) and owner.seat != view.seat:
        where = f" — {possessive(owner, view)} {_ZONE_WORDS.get(zone, zone)}"
    return {"value": c.id, "label": card_name(c) + where, "card": card_model(c)}


def _selection_prompt(req: CardsRequest | PlayersRequest, view: "SeatView", verb: str, count: str,
                      plain: str) -> str:
    """``突袭 Surprise Raid: choose up to 2 players``; the request's own words when it says more."""
    said = re.sub(r"\b(\d+) ((?:\w+ )?)(card|player)\(s\)",
                  lambda m: f"{m[1]} {m[2]}{m[3]}{'' if m[1] == '1' else 's'}", req.prompt.strip())
    if said.lower() in (plain, "") or said.lower() == verb:
        text = f"{verb} {count}"
    elif said.lower().startswith(verb):
        text = said
    else:
        text = f"{said} — {verb} {count}"
    by = _asked_by(req, view)
    return by + text if by else text[:1].upper() + text[1:]


def _trigger_label(view: "SeatView", label: str) -> str:
    """A trigger's label (a skill id, or ``skill: what this part does``) in words."""
    sid, sep, rest = label.partition(":")
    skill = view.content.skills.get(sid.strip())
    if skill is None:
        return label
    return skill_name(skill) + (f" — {rest.strip()}" if sep and rest.strip() else "")


def _first_step(req: Request, view: "SeatView") -> Model:
    """The first (often the only) step of a request."""
    if isinstance(req, ConfirmRequest):
        skill = _skill_of(view, req.skill)
        if skill is not None:
            said = _trigger_label(view, req.part) if req.part.partition(":")[0].strip() == skill.id else ""
            part = said[len(skill_name(skill)):] if said.startswith(skill_name(skill)) else \
                (f" — {req.part}" if req.part and req.part != skill.id else "")
            prompt = f"Invoke {skill_name(skill)}{part}?"
        else:
            prompt = req.prompt[:1].upper() + req.prompt[1:]
        choices = [{"value": True, "label": "yes"}, {"value": False, "label": "no"}]
        return _step("yes", prompt, choices, 1, 1, False, True,
                     f"yes{', invoke ' + skill_name(skill) if skill else ''}")
    if isinstance(req, OptionRequest):
        heroes = view.content.heroes
        if req.purpose == "hero":
            choices = [{"value": i, "label": hero_model(heroes[h], view)["label"], "hero": hero_model(heroes[h], view)}
                       if h in heroes else {"value": i, "label": h} for i, h in enumerate(req.options)]
            return _step("option", "Choose your hero", choices, 1, 1, False, 0, f"take {choices[0]['label']}"
                         if choices else "")
        if isinstance(req, OrderRequest):
            choices = [{"value": i, "label": _trigger_label(view, str(o))} for i, o in enumerate(req.options)]
            return _step("option", "Several of your skills take effect now: which first?", choices, 1, 1, False,
                         0 if choices else None, f"the first: {choices[0]['label']}" if choices else "")
        prompt = _asked_by(req, view) + (req.prompt[:1].upper() + req.prompt[1:])
        choices = [{"value": i, "label": str(o)} for i, o in enumerate(req.options)]
        return _step("option", prompt, choices, 1, 1, False, 0 if choices else None,
                     f"the first: {choices[0]['label']}" if choices else "")
    if isinstance(req, CardsRequest):
        lo, hi = req.min, min(req.max, len(req.candidates))
        verb = req.purpose if req.purpose and req.purpose != "choose" else "choose"
        prompt = _selection_prompt(req, view, verb, _count_words(lo, hi, "card"), "choose cards")
        choices = [_card_choice(view, c) for c in req.candidates]
        if lo == 0:
            default: Any = []
            default_text = f"{verb} none"
        elif len(req.candidates) == lo:
            default = [c.id for c in req.candidates]
            default_text = f"{verb} all of them (there are just {lo})"
        else:
            default = [c.id for c in req.candidates[:lo]]
            default_text = f"{verb} the first {lo}: {', '.join(card_name(c) for c in req.candidates[:lo])}"
        return _step("cards", prompt, choices, lo, hi, True, default, default_text)
    if isinstance(req, PlayersRequest):
        lo, hi = req.min, min(req.max, len(req.candidates))
        prompt = _selection_prompt(req, view, "choose", _count_words(lo, hi, "player"), "choose players")
        choices = [_player_choice(view, p) for p in req.candidates]
        if lo == 0:
            default, default_text = [], "choose nobody"
        else:
            default = [p.seat for p in req.candidates[:lo]]
            default_text = "choose " + ", ".join(player_label(p, view) for p in req.candidates[:lo])
        return _step("players", prompt, choices, lo, hi, True, default, default_text)
    if isinstance(req, ArrangeRequest):
        n = len(req.cards)
        choices = [{"value": c.id, "label": card_name(c), "card": card_model(c)} for c in req.cards]
        return _step("top", f"Arrange the top {n} cards of the draw pile: the cards to put back on top, in order "
                     "(the first is drawn first); the others go to the bottom",
                     choices, 0, n, True, [c.id for c in req.cards], "keep them all on top, in this order")
    if isinstance(req, PlayRequest):
        choices = [_option_choice(view, i, o) for i, o in enumerate(req.options)]
        return _step("option", "Your play phase: use a card or a skill, or end the phase", choices, 0, 1, False,
                     None, "end the play phase", none_label="end the play phase")
    if isinstance(req, RespondRequest):
        prompt, declining = _respond_prompt(req, view)
        choices = [_option_choice(view, i, o) for i, o in enumerate(req.options)]
        return _step("option", prompt, choices, 0, 1, False, None, declining, none_label=declining)
    raise AnswerError(f"this table cannot show a request of kind '{req.kind}'")


def _option_of(req: PlayRequest | RespondRequest, data: dict[str, Any]) -> Optional[PlayOption | RespondOption]:
    i = data.get("option")
    if i is None:
        return None
    if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(req.options):
        raise AnswerError(f"choose an option from 1 to {len(req.options)}")
    return req.options[i]


def _by_key(pool: Sequence[Any], keys: Any, key: Callable[[Any], int], noun: str, what: str) -> list[Any]:
    """The offered objects ``keys`` name (card ids, seats), in order; :class:`AnswerError` for any other."""
    if not isinstance(keys, list):
        raise AnswerError(f"{what}: give a list of {noun} numbers")
    offered = {key(o): o for o in pool}
    out = []
    for k in keys:
        if isinstance(k, bool) or not isinstance(k, int) or k not in offered:
            raise AnswerError(f"{what}: {k!r} is not one of the {noun}s offered")
        out.append(offered[k])
    if len({id(o) for o in out}) != len(out):
        raise AnswerError(f"{what}: the same {noun} was chosen twice")
    return out


def _cards_by_id(pool: Sequence[Any], ids: Any, what: str) -> list[Any]:
    return _by_key(pool, ids, lambda c: int(c.id), "card", what)


def _players_by_seat(pool: Sequence[Player], seats: Any, what: str) -> list[Player]:
    return _by_key(pool, seats, lambda p: int(p.seat), "seat", what)


def _count_ok(got: Sequence[Any], lo: int, hi: int, noun: str, what: str) -> None:
    if not lo <= len(got) <= hi:
        raise AnswerError(f"{what}: choose {_count_words(lo, hi, noun)}, not {len(got)}")


def _later_step(req: PlayRequest | RespondRequest, view: "SeatView", data: dict[str, Any]) -> Optional[Model]:
    """The next step of a play or a response once its option is chosen, or None when the answer is complete."""
    opt = _option_of(req, data)
    if opt is None:
        return None
    if isinstance(opt, PlayOption) and opt.recast:
        return None
    cards: list[Card] = []
    if opt.card is None:
        pool, lo, hi_ = req.card_choices(opt)  # type: ignore[arg-type]
        hi = len(pool) if hi_ is None else min(hi_, len(pool))
        if "cards" not in data:
            if hi == 0 and lo == 0:
                data["cards"] = []
            else:
                choices = [{"value": c.id, "label": card_name(c), "card": card_model(c)} for c in pool]
                return _step("cards", f"{_option_label(view, opt)}: which cards? — choose "
                             f"{_count_words(lo, hi, 'card')}", choices, lo, hi, True,
                             [c.id for c in pool] if len(pool) == lo else None,
                             "all of them" if len(pool) == lo and lo else "")
        cards = _cards_by_id(pool, data["cards"], "the cards")
        _count_ok(cards, lo, hi, "card", "the cards")
        for i, c in enumerate(cards):
            if not req.card_step(opt, cards[:i], c):  # type: ignore[arg-type]
                after = " with the cards before it" if i else ""
                raise AnswerError(f"not allowed: {card_name(c)} cannot be chosen here{after}")
    if not isinstance(req, PlayRequest):
        return None
    assert isinstance(opt, PlayOption)
    cands, lo, hi = req.target_choices(opt, cards, [])
    hi = min(hi, len(cands))
    if hi > 0 and "targets" not in data:
        choices = [_player_choice(view, p) for p in cands]
        all_of = len(cands) == lo
        every = "all of them" if len(cands) > 1 else f"on {player_label(cands[0], view)}" if cands else ""
        return _step("targets", f"{_option_label(view, opt)}: on whom? — choose {_count_words(lo, hi, 'player')}",
                     choices, lo, hi, True, [p.seat for p in cands] if all_of else None,
                     every if all_of else "")
    targets = _players_by_seat(cands, data.get("targets", []), "the targets")
    _count_ok(targets, lo if hi > 0 else 0, hi, "player", "the targets")
    if targets and opt.further:
        given = data.get("secondary", [])
        if not isinstance(given, list):
            raise AnswerError("the further players: give a list of seats")
        for i, t in enumerate(targets):
            extra = req.secondary_choices(opt, cards, t, 0)
            if i >= len(given):
                choices = [_player_choice(view, p) for p in extra]
                return _step("secondary", f"{_option_label(view, opt)}: and for {player_name(t, view)}, "
                             "which player?", choices, 1, 1, False,
                             extra[0].seat if len(extra) == 1 else None, "the only one" if len(extra) == 1 else "")
    return None


def request_model(req: Request, view: "SeatView", data: Optional[dict[str, Any]] = None) -> Model:
    """What ``req`` asks, as ``view``'s seat sees it, at the step after the fields of ``data``.

    ``step`` is the question now (None once ``data`` answers everything: call
    :func:`answer_from`); ``can_undo`` whether a field given may be taken back.
    An answer that does not fit the request raises :class:`AnswerError`.
    """
    data = dict(data or {})
    step: Optional[Model]
    first = _first_step(req, view)
    if first["field"] not in data:
        step = first
    elif isinstance(req, (PlayRequest, RespondRequest)):
        step = _later_step(req, view, data)
    else:
        step = None
    out: Model = {
        "kind": req.kind,
        "seat": req.player.seat,
        "prompt": first["prompt"],
        "step": step,
        "can_undo": bool(data),
        "data": data,
    }
    skill = _skill_of(view, getattr(req, "skill", None))
    if skill is not None:
        out["skill"] = skill_model(skill)
    if isinstance(req, ConfirmRequest) and req.part:
        out["part"] = req.part
    return out


def give(data: dict[str, Any], step: Model, value: Any) -> dict[str, Any]:
    """``data`` with ``value`` given for ``step`` (a further player is added to those given before)."""
    out = dict(data)
    if step["field"] == "secondary":
        out["secondary"] = [*out.get("secondary", []), value]
    else:
        out[step["field"]] = value
    return out


def undo(data: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``data`` without the last one given (``back``)."""
    out = dict(data)
    if not out:
        return out
    last = list(out)[-1]
    if last == "secondary" and len(out["secondary"]) > 1:
        out["secondary"] = out["secondary"][:-1]
    else:
        out.pop(last)
    return out


def answer_from(req: Request, view: "SeatView", data: Any) -> Any:
    """The answer of ``req`` that ``data`` (a JSON object of fields, see the module) stands for.

    Raises :class:`AnswerError` with a sentence when ``data`` does not fit: a wrong
    type, a choice not offered, a field missing, or an answer the game refuses."""
    if not isinstance(data, dict):
        raise AnswerError("an answer is an object of fields (e.g. {\"option\": 0})")
    model = request_model(req, view, data)
    if model["step"] is not None:
        raise AnswerError(f"the answer is not complete: {model['step']['prompt']}")
    answer = _build(req, view, data)
    try:
        req.check(answer)
    except IllegalDecision as exc:
        raise AnswerError(f"not allowed: {exc}") from None
    return answer


def _build(req: Request, view: "SeatView", data: dict[str, Any]) -> Any:
    if isinstance(req, ConfirmRequest):
        if not isinstance(data["yes"], bool):
            raise AnswerError("answer yes or no (true or false)")
        return data["yes"]
    if isinstance(req, OptionRequest):
        i = data["option"]
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(req.options):
            raise AnswerError(f"choose an option from 1 to {len(req.options)}")
        return i
    if isinstance(req, CardsRequest):
        return _cards_by_id(req.candidates, data["cards"], "the cards")
    if isinstance(req, PlayersRequest):
        return _players_by_seat(req.candidates, data["players"], "the players")
    if isinstance(req, ArrangeRequest):
        top = _cards_by_id(req.cards, data["top"], "the cards on top")
        rest = [c for c in req.cards if all(c is not t for t in top)]
        if "bottom" in data:
            bottom = _cards_by_id(rest, data["bottom"], "the cards at the bottom")
            if len(bottom) != len(rest):
                raise AnswerError("the cards at the bottom: every card not on top goes to the bottom")
            rest = bottom
        return (top, rest)
    if isinstance(req, (PlayRequest, RespondRequest)):
        opt = _option_of(req, data)
        if opt is None:
            return None
        cards: list[Card] = []
        if opt.card is None:
            pool, _lo, _hi = req.card_choices(opt)  # type: ignore[arg-type]
            cards = _cards_by_id(pool, data.get("cards", []), "the cards")
        if isinstance(req, RespondRequest):
            assert isinstance(opt, RespondOption)
            if opt.card is not None:
                return Response(card=opt.card)
            return Response(skill=opt.skill.id if opt.skill else None, cards=cards, view_as=opt.view_as,
                            as_card=opt.as_card)
        assert isinstance(opt, PlayOption)
        if opt.recast:
            return PlayAction(card=opt.card, recast=True)
        targets: list[Player] = []
        secondary: list[Player] = []
        if "targets" in data:
            cands, _lo, _hi = req.target_choices(opt, cards, [])
            targets = _players_by_seat(cands, data["targets"], "the targets")
            if opt.further and data.get("secondary"):
                for t, s in zip(targets, data["secondary"]):
                    extra = req.secondary_choices(opt, cards, t, 0)
                    secondary.extend(_players_by_seat(extra, [s], f"the player for {player_name(t, view)}"))
        # the active part of a skill that also has view-as entries is view_as -1 (PlayAction)
        view_as = -1 if opt.active and opt.skill is not None and opt.skill.view_as else opt.view_as
        return PlayAction(card=opt.card, skill=opt.skill.id if opt.skill else None, cards=cards,
                          targets=targets, view_as=view_as, secondary=secondary, as_card=opt.as_card)
    raise AnswerError(f"this table cannot answer a request of kind '{req.kind}'")


# ------------------------------------------------------------------ the log in sentences

#: record fields that hold no name of a player, card or skill
_PLAIN_FIELDS = frozenset({"seq", "at", "event", "turn", "to", "reason", "mode", "nature", "kind", "prompt",
                           "answer", "declined", "forced", "seen", "hidden", "amount", "hp", "count", "held",
                           "phase", "timing", "trigger", "role", "roles", "seat", "rules"})


def _translate(value: Any, names: dict[str, str]) -> Any:
    """A record's value with ids put into words: heroes and skills by name, cards as ``杀♠7``."""
    if isinstance(value, list):
        return [_translate(v, names) for v in value]
    if isinstance(value, dict):
        return {k: (v if k in _PLAIN_FIELDS else _translate(v, names)) for k, v in value.items()}
    if not isinstance(value, str):
        return value
    if value in names:
        return names[value]
    parsed = parse_card_text(value)
    if parsed is not None and parsed[0] in names:
        return f"{names[parsed[0]]}{SUIT_SIGN[parsed[1]]}{rank_text(parsed[2])}"
    return value


_CARD_IN_TEXT = re.compile(r"\b([a-z][a-z0-9_]*) ([♠♥♣♦](?:10|[2-9AJQK]))")
_WORD = re.compile(r"\b[a-z][a-z0-9_]*\b")


def _translate_text(text: str, names: dict[str, str]) -> str:
    """A sentence of ids (an answer told by the engine: ``uses snatch ♦4 on guojia``) with names instead."""
    text = _CARD_IN_TEXT.sub(lambda m: f"{names[m[1]]}{m[2]}" if m[1] in names else m[0], text)
    return _WORD.sub(lambda m: names.get(m[0], m[0]), text)


def _names(view: "SeatView") -> dict[str, str]:
    """Ids a log record may hold, and how a person reads them."""
    content = view.content
    names: dict[str, str] = {k: v.name.zh or v.name.en or k for k, v in content.cards.items()}
    names.update({k: v.name.zh or v.name.en or k for k, v in content.skills.items()})
    names.update({p.hero.id: p.hero.name.zh or p.hero.id for p in view.players})  # players last: they win
    return names


def log_lines(records: Sequence[dict[str, Any]], view: "SeatView",
              trace: Sequence[dict[str, Any]] = ()) -> list[str]:
    """The sentences of log records (already as this seat saw them, :func:`~sgs_runtime.state.visibility.log_view`),
    with names instead of ids; ``trace`` (explanation records) is told between them, others' answers only
    as answered or declined (what they chose may be hidden)."""
    from sgs_runtime.records.narrate import explain, story

    names = _names(view)
    mine = view.me.hero.id

    def words(r: dict[str, Any]) -> dict[str, Any]:
        out = {k: (v if k in _PLAIN_FIELDS else _translate(v, names)) for k, v in r.items()}
        for key in ("answer", "prompt"):  # sentences the engine wrote with ids
            if isinstance(out.get(key), str):
                out[key] = _translate_text(out[key], names)
        return out

    notes = []
    for t in trace:
        t = dict(t)
        if t.get("event") == "asked" and t.get("player") != mine:
            t["answer"] = "declines" if t.get("declined") else "answers"
        notes.append(words(t))
    told = [words(r) for r in records]
    return explain(told, notes) if notes else story(told)
