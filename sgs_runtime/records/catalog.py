"""Rows describing loaded content, for ``sgs list`` and for tools.

>>> from sgs_dsl.loader import load_content
>>> rows = deck_rows(load_content(), "standard")
>>> {"id", "name_zh", "name_en", "suit", "rank"} <= set(rows[0])
True
"""

from __future__ import annotations

from typing import Any, Optional

from sgs_runtime.state.definitions import Content


def _pack_ok(pack: Optional[str], have: str) -> bool:
    return pack is None or pack == have


def card_rows(content: Content, pack: Optional[str] = None) -> list[dict[str, Any]]:
    counts: dict[str, int] = {}
    for deck_pack, cards in content.decks.items():
        if _pack_ok(pack, deck_pack):
            for dc in cards:
                counts[dc.kind] = counts.get(dc.kind, 0) + 1
    rows = []
    for k in content.cards.values():
        if not _pack_ok(pack, k.pack):
            continue
        row: dict[str, Any] = {"id": k.id, "name_zh": k.name.zh, "name_en": k.name.en, "type": k.type,
                               "pack": k.pack, "in_deck": counts.get(k.id, 0), "aliases": list(k.aliases)}
        if k.equip is not None:
            row["slot"] = k.equip.slot
            if k.equip.range:
                row["range"] = k.equip.range
        if k.delayed is not None:
            row["delayed"] = True
        rows.append(row)
    return rows


def deck_rows(content: Content, pack: Optional[str] = None) -> list[dict[str, Any]]:
    rows = []
    for deck_pack, cards in content.decks.items():
        if not _pack_ok(pack, deck_pack):
            continue
        for dc in cards:
            kind = content.cards[dc.kind]
            rows.append({"id": dc.kind, "name_zh": kind.name.zh, "name_en": kind.name.en, "suit": dc.suit,
                         "rank": dc.rank, "pack": deck_pack})
    return rows


def hero_rows(content: Content, pack: Optional[str] = None) -> list[dict[str, Any]]:
    return [{"id": h.id, "name_zh": h.name.zh, "name_en": h.name.en, "kingdom": h.kingdom, "gender": h.gender,
             "hp": h.hp, "skills": list(h.skills), "pack": h.pack}
            for h in content.heroes.values() if _pack_ok(pack, h.pack)]


def skill_rows(content: Content, pack: Optional[str] = None) -> list[dict[str, Any]]:
    rows = []
    for s in content.skills.values():
        if not _pack_ok(pack, s.pack):
            continue
        kinds = []
        if s.triggers:
            kinds.append("trigger")
        if s.view_as:
            kinds.append("view_as")
        if s.active is not None:
            kinds.append("active")
        if s.modifiers or s.prohibitions:
            kinds.append("static")
        rows.append({"id": s.id, "name_zh": s.name.zh, "name_en": s.name.en, "kinds": kinds, "locked": s.locked,
                     "lord": s.lord, "pack": s.pack, "text_zh": s.text.zh, "text_en": s.text.en})
    return rows


def rules_rows(content: Content, pack: Optional[str] = None) -> list[dict[str, Any]]:
    return [{"id": r.id, "name_zh": r.name.zh, "name_en": r.name.en, "extends": r.extends,
             "players": [r.players_min, r.players_max], "default": r.id == content.default_rules,
             "file": r.source.file}
            for r in content.rulesets.values()]


LISTS = {"cards": card_rows, "deck": deck_rows, "heroes": hero_rows, "skills": skill_rows, "rules": rules_rows}
