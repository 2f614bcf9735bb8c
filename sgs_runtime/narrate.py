"""Turn event-log records into sentences: what happened, and why.

>>> narrate({"event": "damage", "source": "hero_a", "target": "hero_b", "amount": 1,
...          "nature": "normal", "card": "spark ♠7", "hp": 3})
'hero_b takes 1 damage from hero_a (spark ♠7): HP 3'
>>> narrate({"event": "move", "cards": 2, "to": "hand", "reason": "draw"}) is None
True
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

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


def _move(r: Record) -> Optional[str]:
    reason = r.get("reason")
    if reason in ("draw", "use", "resolved", "judge", "play", "look", "reveal", "retrial", "resolve"):
        return None  # said by the records around it
    cards = r.get("cards")
    what = f"{cards} card(s)" if isinstance(cards, int) else _list(cards)
    where = f"{r['to_player']}'s {r['to']}" if r.get("to_player") else r.get("to", "?").replace("_", " ")
    who = f"{r['by']}: " if r.get("by") else ""
    return f"{who}{reason} {what} → {where}"


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
    """The sentences of a whole log."""
    return [line for r in records if (line := narrate(r)) is not None]
