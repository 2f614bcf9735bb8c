"""Turn event-log records into sentences: what happened, and why.

>>> narrate({"event": "damage", "source": "hero_a", "target": "hero_b", "amount": 1,
...          "nature": "normal", "card": "spark ♠7", "hp": 3})
'hero_b takes 1 damage from hero_a (spark ♠7): HP 3'
>>> narrate({"event": "move", "cards": 2, "to": "hand", "reason": "draw"}) is None
True
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional, Sequence

Record = dict[str, Any]


def _cards(value: Any) -> str:
    """Cards by name, or how many when this view may not see them."""
    if isinstance(value, int):
        return f"{value} card{'s' if value != 1 else ''}"
    return _list(value)


def _list(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def _use(r: Record) -> str:
    text = f"{r['user']} uses {r['card']}"
    if r.get("against"):
        return text + f" against {r['against']} on {r['target']}"
    if r.get("targets"):
        text += f" on {_list(r['targets'])}"
    if r.get("secondary"):
        text += f" (then {_list(r['secondary'])})"
    return text


def _respond(r: Record) -> str:
    verb = "uses" if r.get("mode") == "use" else "plays"
    text = f"{r['player']} {verb} {r['card']}"
    if r.get("for"):
        text += f" for {r['for']}"
    if r.get("against"):
        text += f" against {r['against']}"
    return text


def _skill(r: Record) -> str:
    if r.get("as_card"):
        return f"{r['player']} uses {r['skill']}: {_list(r.get('cards') or [])} as {r['as_card']}"
    if r.get("timing"):
        return f"{r['player']}'s {r['skill']} fires ({r['timing']})"
    targets = f" on {_list(r['targets'])}" if r.get("targets") else ""
    return f"{r['player']} uses {r['skill']}{targets}"


def _damage(r: Record) -> str:
    nature = f" {r['nature']}" if r.get("nature") not in (None, "normal") else ""
    source = f" from {r['source']}" if r.get("source") else " (no source)"
    card = f" ({r['card']})" if r.get("card") else ""
    return f"{r['target']} takes {r['amount']}{nature} damage{source}{card}: HP {r['hp']}"


def _move(r: Record, origin: str = "") -> Optional[str]:
    """A move of cards; ``origin`` says where they came from (``from xuchu's judge area``), when known."""
    reason = r.get("reason")
    if reason in ("draw", "use", "resolved", "judge", "play", "look", "reveal", "retrial", "resolve"):
        return None  # said by the records around it
    cards = r.get("cards")
    what = f"{cards} card(s)" if isinstance(cards, int) else _list(cards)
    where = f"{r['to_player']}'s {_zone(r['to'])}" if r.get("to_player") else _zone(r.get("to", "?"))
    who = f"{r['by']}: " if r.get("by") else ""
    origin = origin or _origin(r)
    return f"{who}{reason} {what}{' ' + origin if origin else ''} → {where}"


def _zone(name: str) -> str:
    return {"judge": "judge area", "processing": "processing area"}.get(name, name.replace("_", " "))


def _origin(r: Record) -> str:
    """Where a move's cards came from, as the record says it (``from_player``/``from``), if it does."""
    if r.get("from_player"):
        return f"from {r['from_player']}'s {_zone(str(r.get('from') or 'cards'))}"
    if r.get("from"):
        return f"from the {_zone(str(r['from']))}"
    return ""


class _Places:
    """Where each card is, followed through a log (the setup, then every move), so that a move
    can say whose card it took: after a card that discards or takes a card of the target's, the
    target, not the user. Cards are known by their labels; a card shown only as a count is lost
    track of (a seat's view), and its moves then say nothing of their origin."""

    OWNED = ("hand", "equip", "judge")

    def __init__(self) -> None:
        self.at: dict[str, list[tuple[Optional[str], str]]] = {}  # label -> (owner, zone) of each copy

    def read(self, r: Record) -> str:
        """Take in one record; for a move, the origin of its cards ("from xuchu's judge area")."""
        kind = r.get("event")
        if kind == "setup":
            self.at.clear()
            for p in r.get("players") or []:
                for zone in self.OWNED:
                    cards = p.get(zone)
                    if isinstance(cards, list):
                        for label in cards:
                            self.at.setdefault(str(label), []).append((p.get("hero"), zone))
            return ""
        if kind == "revive" and r.get("old") and r.get("hero"):  # a seat becomes another hero (转世)
            for places in self.at.values():
                places[:] = [(r["hero"] if owner == r["old"] else owner, zone) for owner, zone in places]
            return ""
        if kind != "move" or not isinstance(r.get("cards"), list):
            return ""
        origins: list[str] = []
        to = (r.get("to_player"), str(r.get("to")))
        for label in map(str, r["cards"]):
            places = self.at.setdefault(label, [])
            came = next((pl for pl in places if pl != to), None)
            if came is not None:
                places.remove(came)
            places.append(to)
            if came is None:
                continue
            owner, zone = came
            text = f"from {owner}'s {_zone(zone)}" if owner else f"from the {_zone(zone)}"
            if text not in origins:
                origins.append(text)
        return " and ".join(origins)


def _death(r: Record) -> str:
    killer = f", killed by {r['killer']}" if r.get("killer") else ""
    return f"{r['player']} dies ({r['role']}{killer})"


TEMPLATES: dict[str, Callable[[Record], Optional[str]]] = {
    "setup": lambda r: f"setup ({r.get('rules')}): " + "; ".join(
        f"{p['hero']} {p.get('role', '?')} HP {p.get('hp')}" for p in r.get("players", [])),
    "turn": lambda r: f"— turn {r['number']}: {r['player']} —",
    "phase": lambda r: f"{r['player']}: {r['phase']} phase",
    "phase_skipped": lambda r: f"{r['player']} skips the {r['phase']} phase",
    "turn_skipped": lambda r: f"{r['player']}'s turn is skipped ({r.get('reason')})",
    "draw": lambda r: f"{r['player']} draws {r['count']}",
    "use": _use,
    "respond": _respond,
    "skill": _skill,
    "offer": lambda r: None,
    "choice": lambda r: f"{r['player']} chooses: {r['option']}",
    "judge": lambda r: f"{r['player']} judges: {r['card']}",
    "retrial": lambda r: f"{r['player']} replaces {r['judged']}'s judge card {r['replaced']} with {r['card']}",
    "judge_result": lambda r: f"judge result for {r['player']}: {r['card']}",
    "resolve": lambda r: f"{r['player']} resolves {r['card']}",
    "countered": lambda r: f"{r['card']} is countered for {r['target']}",
    "no_effect": lambda r: f"{r['card']} has no effect on {r['target']}",
    "damage": _damage,
    "damage_prevented": lambda r: f"the damage to {r['target']} is prevented",
    "recover": lambda r: f"{r['player']} recovers {r['amount']}: HP {r['hp']}",
    "lose_hp": lambda r: f"{r['player']} loses {r['amount']} HP: HP {r['hp']}",
    "dying": lambda r: f"{r['player']} is dying (HP {r['hp']})",
    "rescued": lambda r: f"{r['player']} is rescued (HP {r['hp']})",
    "death": _death,
    "move": _move,
    "skip": lambda r: f"{r['player']} will skip the {r['phase']} phase",
    "deny": lambda r: f"{r['player']} cannot answer {r['card']}",
    "redirect": lambda r: f"{r['card']} turns from {r['old']} to {r['new']}",
    "show": lambda r: f"{r['player']} shows {_list(r['cards'])}",
    "arrange": lambda r: f"{r['player']} arranges the draw pile ({r['top']} on top, {r['bottom']} at the bottom)",
    "reshuffle": lambda r: f"the discard pile ({r['count']} cards) is shuffled into the draw pile",
    "narrate": lambda r: f"{r.get('player') or ''}: {r['text']}".lstrip(": "),
    "refused": lambda r: f"refused for {r['player']}: {r['reason']}",
    "revive": lambda r: f"{r['old']} returns as {r['hero']} (HP {r['hp']})",
    "hp": lambda r: f"{r['player']}'s HP becomes {r['hp']}",
    "max_hp": lambda r: f"{r['player']}'s max HP becomes {r['max_hp']}",
    "reveal_role": lambda r: f"{r['player']} reveals the role {r['role']}",
    "end_turn": lambda r: f"{r['player']}'s turn ends",
    "turn_over": lambda r: f"{r['player']} turns over",
    "skill_change": lambda r: f"{r['player']} {'gains' if r.get('gained') else 'loses'} {r['skill']}"
                              + (f" until the {r['until']} ends" if r.get("until") else ""),
    "invalidate": lambda r: f"{r['player']}'s {'skills are' if r['skill'] == 'all' else r['skill'] + ' is'} invalid"
                            + (f" until the {r['until']} ends" if r.get("until") else ""),
    "forbid": lambda r: f"{r['player']} may not {' or '.join(r['actions'])} such cards"
                        + (f" until the {r['until']} ends" if r.get("until") else ""),
    "look": lambda r: f"{r['player']} looks at {_cards(r['cards'])}",
    "void": lambda r: f"{r['card']} of {r['player']} is void",
    "kingdom": lambda r: f"{r['player']} takes the kingdom {r['kingdom']}",
    "game_over": lambda r: f"game over: {r.get('reason')} — {_list(r.get('roles') or []) or 'nobody'} won",
}


def narrate(record: Record) -> Optional[str]:
    """One record as a sentence, or None for records the sentences around it already say."""
    kind = record.get("event", "")
    template = TEMPLATES.get(kind)
    try:
        if template is not None:
            return template(record)
    except (KeyError, TypeError):
        pass
    fields = ", ".join(f"{k}={v}" for k, v in record.items() if k not in ("seq", "event", "turn") and v is not None)
    return f"{kind}: {fields}"


def story(records: Iterable[Record]) -> list[str]:
    """The sentences of a whole log (moves say whose cards they took)."""
    return _tell(records, {})


def _tell(records: Iterable[Record], extra: dict[str, Callable[[Record], Optional[str]]]) -> list[str]:
    places = _Places()
    out = []
    for r in records:
        kind = r.get("event", "")
        origin = places.read(r)
        if kind in extra:
            line = extra[kind](r)
        elif kind == "move" and "cards" in r:
            line = _move(r, origin)
        else:
            line = narrate(r)
        if line is not None:
            out.append(line)
    return out


# ---------------------------------------------------------------------- explanations


def _name(value: Any) -> str:
    from sgs_runtime.state.model import Player

    if isinstance(value, Player):
        return value.name
    label = getattr(value, "label", None)
    if callable(label):
        return str(label())
    return str(getattr(value, "name", value))


def _names(values: Any) -> str:
    return ", ".join(_name(v) for v in values or [])


def describe_answer(req: Any, answer: Any) -> tuple[str, bool]:
    """An answer to a request in words, and whether it declines (``--explain``'s ``asked`` records)."""
    from sgs_runtime.resolution.requests import (
        ArrangeRequest,
        ConfirmRequest,
        OptionRequest,
        PlayAction,
        PlayRequest,
        Response,
    )

    if isinstance(req, ConfirmRequest):
        if answer:
            return (f"invokes {req.skill}" if req.skill else "yes"), False
        return (f"declines {req.skill}" if req.skill else "no"), True
    if isinstance(req, OptionRequest):
        return str(req.options[answer]) if isinstance(answer, int) and 0 <= answer < len(req.options) else \
            str(answer), False
    if isinstance(req, ArrangeRequest):
        top, bottom = answer
        return f"top: {_names(top) or 'none'}; bottom: {_names(bottom) or 'none'}", False
    if answer is None:
        return ("ends the play phase" if isinstance(req, PlayRequest) else "declines"), True
    if isinstance(answer, PlayAction):
        if answer.recast:
            return f"recasts {_name(answer.card)}", False
        what = _name(answer.card) if answer.card is not None else answer.skill or "?"
        if answer.card is None and answer.cards:
            what += f" with {_names(answer.cards)}"
        if answer.as_card:
            what += f" as {answer.as_card}"
        targets = f" on {_names(answer.targets)}" if answer.targets else ""
        then = f" (then {_names(answer.secondary)})" if answer.secondary else ""
        return f"uses {what}{targets}{then}", False
    if isinstance(answer, Response):
        if answer.card is not None:
            return f"{'uses' if getattr(req, 'mode', 'use') == 'use' else 'plays'} {_name(answer.card)}", False
        cards = f" with {_names(answer.cards)}" if answer.cards else ""
        return f"answers through {answer.skill}{cards}", False
    if isinstance(answer, (list, tuple)):
        if not answer and req.optional:
            return "declines", True
        return _names(answer), False
    return _name(answer), False


def _asked(r: Record) -> str:
    how = r["answer"]
    if r.get("forced"):
        how = f"{how} (the only answer: given by the engine)"
    elif r.get("declined"):
        how = how if how.startswith(("declines", "ends", "no")) else f"declines ({how})"
    return f"? {r['player']} is asked: {r['prompt']} [{r['kind']}] → {how}"


def _why(r: Record) -> str:
    point = f"{r['skill']} of {r['player']} at {r['timing']}"
    if r.get("held"):
        return f"why {point}: held back — {r['held']} (trigger at {r['trigger']})"
    return f"why {point}: nothing holds it back, it can fire"


EXPLAIN: dict[str, Callable[[Record], Optional[str]]] = {
    "asked": _asked,
    "why": _why,
    "offer": lambda r: f"{r['player']} is offered {r['skill']} ({r['timing']})",
}


def merged(log: Sequence[Record], trace: Iterable[Record]) -> list[Record]:
    """The log with the explanation records of a ``trace`` in their places (each after its ``at`` records)."""
    out: list[Record] = []
    pos = 0
    for note in trace:
        at = int(note.get("at", len(log)))
        out.extend(log[pos:at])
        pos = max(pos, at)
        out.append(note)
    out.extend(log[pos:])
    return out


def explain(log: Sequence[Record], trace: Iterable[Record] = ()) -> list[str]:
    """The story of a game with its explanations: every request and its answer, every skill offered
    (and declined), the ``--why`` records of watched skills, between the sentences of the events."""
    return _tell(merged(log, trace), EXPLAIN)
