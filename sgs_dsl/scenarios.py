"""Rule cases: a table set by hand, scripted decisions, and what must hold.

A rule case (docs/scenarios.md) is a YAML file. :func:`run_file` loads it,
builds the table, plays the game with the scripted decisions and checks the
expectations::

    >>> from sgs_dsl.scenarios import run_path                       # doctest: +SKIP
    >>> results = run_path("tests/scenarios")                        # doctest: +SKIP

Scripted decisions are matched to requests per seat, in order. An optional
request with no fitting decision is declined; a mandatory one fails the case
with a message saying what was asked. A ``refuse`` decision must be rejected
by the engine, or the case fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from sgs_runtime.errors import GameError, IllegalDecision, LimitExceeded, SgsError
from sgs_runtime.resolution.game import Game, Limits, SeatSetup, TableSetup
from sgs_runtime.resolution.requests import (
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
from sgs_runtime.state.definitions import Content
from sgs_runtime.state.frame import Frame
from sgs_runtime.state.model import SIGN_SUIT, SUIT_SIGN, TEXT_RANK, Card, Player, Zone, rank_text

from .compiler import Compiler, Scope
from .errors import ContentError, Diagnostic, did_you_mean
from .loader import schema_errors
from .parser import Origin, SyntaxProblem, parse_expression
from .yamlsafe import Document, find_yaml_files, load_file

CARD_RE = re.compile(r"^([a-z][a-z0-9_]*) +([SHCD]|♠|♥|♣|♦)(10|[2-9]|[AJQK])$")
# a card lying in a judge area as another card: 'indulgence[jink D2]' (国色)
FACE_RE = re.compile(r"^([a-z][a-z0-9_]*)\[(.+)\]$")


class CaseFailure(Exception):
    """The case does not hold; the message says why."""


class NotOffered(CaseFailure):
    """A scripted card or option is not among what the request offers."""


@dataclass
class CaseResult:
    file: str
    name: str
    passed: bool
    reason: str = ""
    line: int = 1
    log: list[dict[str, Any]] = field(default_factory=list)
    #: the explanation records (``explain=True``): requests and answers, ``--why`` points (narrate.py)
    trace: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self, records: bool = False) -> dict[str, Any]:
        """The report of the case; ``records``: with its log, the explanation records in their places."""
        out: dict[str, Any] = {"file": self.file, "name": self.name, "passed": self.passed, "reason": self.reason,
                               "line": self.line}
        if records:
            from sgs_runtime.records.narrate import merged

            out["records"] = merged(self.log, self.trace)
        return out

    def explain(self) -> list[str]:
        """The story of the case's game, with every request, answer and skill offered (``--explain``)."""
        from sgs_runtime.records.narrate import explain

        return explain(self.log, self.trace)


def parse_card(text: str) -> tuple[str, str, int]:
    m = CARD_RE.match(text.strip())
    if not m:
        raise CaseFailure(f"'{text}' is not a card (write ID SUITRANK, e.g. 'slash S7')")
    name, suit, rank = m.groups()
    return name, SIGN_SUIT[suit], TEXT_RANK.get(rank) or int(rank)


def card_label(text: str) -> str:
    """'slash S7' -> 'slash ♠7' (the log's spelling); 'indulgence[jink D2]' -> 'indulgence[jink ♦2]'."""
    face = FACE_RE.match(text.strip())
    if face:
        return f"{face.group(1)}[{card_label(face.group(2))}]"
    name, suit, rank = parse_card(text)
    return f"{name} {SUIT_SIGN[suit]}{rank_text(rank)}"


class _Case:
    def __init__(self, content: Content, doc: Document) -> None:
        self.content = content
        self.doc = doc
        self.data: dict[str, Any] = doc.data
        self.next_id = 1000
        self.names: dict[str, int] = {}
        self.game: Optional[Game] = None

    # ------------------------------------------------------------ table

    def card(self, text: str, path: tuple[Any, ...]) -> Card:
        name, suit, rank = parse_card(text)
        canon = self.content.canonical(name)
        kind = self.content.cards.get(canon)
        if kind is None:
            raise CaseFailure(self._at(path, f"unknown card '{name}'{did_you_mean(name, self.content.cards)}"))
        self.next_id += 1
        return Card(self.next_id, kind, suit, rank)

    def cards(self, items: Sequence[str], path: tuple[Any, ...]) -> list[Card]:
        return [self.card(t, path + (i,)) for i, t in enumerate(items or [])]

    def judge_cards(self, items: Sequence[str], path: tuple[Any, ...]) -> list[Card]:
        """A judge area's cards; ``KIND[CARD]`` is CARD lying there as KIND (国色)."""
        out = []
        for i, t in enumerate(items or []):
            face = FACE_RE.match(t.strip())
            card = self.card(face.group(2) if face else t, path + (i,))
            if face:
                card.face = self.content.cards[self.content.canonical(face.group(1))]
            out.append(card)
        return out

    def _at(self, path: tuple[Any, ...], message: str) -> str:
        line, col = self.doc.position(path)
        return f"line {line}: {message}"

    def table(self) -> TableSetup:
        if "hero_pile" in self.data:  # the game starts with the heroes' choice: seats give their roles only
            return TableSetup([SeatSetup(hero=None, role=s["role"]) for s in self.data["seats"]],
                              self.cards(self.data.get("draw_pile", []), ("draw_pile",)),
                              self.cards(self.data.get("discard_pile", []), ("discard_pile",)),
                              deck_from_rules=self.data.get("deck") == "rules",
                              hero_pile=[self.content.canonical(h) for h in self.data["hero_pile"]])
        seats = []
        for i, s in enumerate(self.data["seats"]):
            hero = self.content.canonical(s["hero"])
            if hero not in self.content.heroes:
                raise CaseFailure(self._at(("seats", i, "hero"), f"unknown hero '{s['hero']}'"
                                                                 f"{did_you_mean(s['hero'], self.content.heroes)}"))
            self.names[hero] = i
            seats.append(SeatSetup(
                hero=hero, role=s["role"], hp=s.get("hp"), max_hp=s.get("max_hp"), alive=s.get("alive", True),
                hand=self.cards(s.get("hand", []), ("seats", i, "hand")),
                equip=self.cards(s.get("equip", []), ("seats", i, "equip")),
                judge=self.judge_cards(s.get("judge", []), ("seats", i, "judge")),
                marks=dict(s.get("marks", {})), chained=bool(s.get("chained", False)),
                piles={k: self.cards(v, ("seats", i, "piles", k)) for k, v in (s.get("piles") or {}).items()}))
        turn = self.data.get("turn", 0)
        current = self.seat_index(turn, ("turn",))
        return TableSetup(seats, self.cards(self.data.get("draw_pile", []), ("draw_pile",)),
                          self.cards(self.data.get("discard_pile", []), ("discard_pile",)),
                          [self.content.canonical(h) for h in self.data.get("unused_heroes", [])], current,
                          self.data.get("phase"), deck_from_rules=self.data.get("deck") == "rules")

    def seat_index(self, ref: Any, path: tuple[Any, ...]) -> int:
        if isinstance(ref, int):
            if not 0 <= ref < len(self.data["seats"]):
                raise CaseFailure(self._at(path, f"there is no seat {ref}"))
            return ref
        text = str(ref)
        if re.fullmatch(r"seat\d+", text):
            return self.seat_index(int(text[4:]), path)
        canon = self.content.canonical(text)
        if self.game is not None:  # at the end, a seat may have become another hero (转世)
            for p in self.game.players:
                if p.name == canon:
                    return p.seat
        if canon not in self.names:
            raise CaseFailure(self._at(path, f"no seat is '{text}' (seats: {', '.join(self.names)})"))
        return self.names[canon]


PILES = ("draw_pile", "discard_pile", "processing")
#: what a case's ``state`` may say of a pile, and of a seat (what :class:`_Checker` looks at)
PILE_FACTS = ("cards", "contains", "count", "top")
SEAT_FACTS = ("hp", "max_hp", "alive", "role", "chained", "hand", "equip", "judge", "hand_count", "piles", "contains")


class _CaseCheck:
    """Every name and number of a rule case, checked before the game is built.

    Each problem is a :class:`Diagnostic` at its file:line:col: an unknown hero, card,
    skill, mark, pile, role, phase, rules, option or seat (E300, with "did you mean"), a
    ``state`` fact that is not checked for its key (E110), a value of the wrong kind for
    an option or an equipment slot (E111, E301), the same hero at two seats or two cards
    in one slot (E310), a table that cannot be (E330: hp above max_hp, a living seat
    below 1 HP, more seats than the rules play).
    """

    def __init__(self, content: Content, doc: Document) -> None:
        self.content = content
        self.doc = doc
        self.data: dict[str, Any] = doc.data
        self.diags: list[Diagnostic] = []
        self.seated: dict[str, int] = {}  # canonical hero id -> seat
        self.rules: Any = None

    def err(self, path: tuple[Any, ...], code: str, message: str, key: bool = False) -> None:
        line, col = self.doc.key_position(path) if key else self.doc.position(path)
        if not message.isprintable():  # a name with a line break in it: the message stays one line
            message = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in message)
        self.diags.append(Diagnostic(self.doc.path, line, col, code, message))

    def run(self) -> list[Diagnostic]:
        d = self.data
        try:
            self.rules = self.content.ruleset(d.get("rules"))
        except SgsError as exc:
            if "rules" in d:
                rid = str(d["rules"])
                self.err(("rules",), "E300", f"unknown rules '{rid}'{did_you_mean(rid, self.content.rulesets)}")
            else:
                self.err((), "E300", str(exc))
        if self.rules is not None:
            self.options()
        self.seats()
        for i, h in enumerate(d.get("unused_heroes") or []):
            self.hero(h, ("unused_heroes", i))
        for key in ("draw_pile", "discard_pile"):
            self.cards(d.get(key), (key,))
        if "turn" in d and "hero_pile" not in d:
            self.seat(d["turn"], ("turn",))
        if self.rules is not None:
            if "phase" in d and "hero_pile" not in d:
                self.phase(d["phase"], ("phase",))
            stop = d.get("stop")
            if isinstance(stop, dict) and "after_phase" in stop:
                self.phase(stop["after_phase"], ("stop", "after_phase"))
            for i, role in enumerate(d.get("winners") or []):
                self.role(role, ("winners", i))
        for i, item in enumerate(d.get("decisions") or []):
            for who, decision in item.items():
                self.seat(who, ("decisions", i, who), key=True, started=True)
                self.decision(decision, ("decisions", i, who))
        for key, facts in (d.get("state") or {}).items():
            self.state(key, facts)
        return self.diags

    # ------------------------------------------------------------ names

    def hero(self, ref: Any, path: tuple[Any, ...]) -> Optional[str]:
        canon = self.content.canonical(str(ref))
        if canon not in self.content.heroes:
            self.err(path, "E300", f"unknown hero '{ref}'{did_you_mean(str(ref), self.content.heroes)}")
            return None
        return canon

    def card(self, text: Any, path: tuple[Any, ...]) -> Optional[Any]:
        face = FACE_RE.match(str(text).strip())
        if face:  # CARD lying in a judge area as KIND (the schema allows it there only)
            self.card(face.group(2), path)
            kind = self.content.cards.get(self.content.canonical(face.group(1)))
            if kind is None:
                self.err(path, "E300", f"unknown card '{face.group(1)}'{did_you_mean(face.group(1), self.content.cards)}")
            elif kind.delayed is None:
                self.err(path, "E301", f"'{kind.id}' is not a delayed trick: only a delayed trick lies in a judge "
                                       f"area as another card")
            return kind
        m = CARD_RE.match(str(text).strip())
        if m is None:
            return None  # the schema has said so
        name = m.group(1)
        kind = self.content.cards.get(self.content.canonical(name))
        if kind is None:
            self.err(path, "E300", f"unknown card '{name}'{did_you_mean(name, self.content.cards)}")
        return kind

    def cards(self, items: Any, path: tuple[Any, ...]) -> list[Any]:
        return [self.card(t, path + (i,)) for i, t in enumerate(items or [])]

    def skill(self, sid: Any, path: tuple[Any, ...]) -> None:
        if self.content.canonical(str(sid)) not in self.content.skills:
            self.err(path, "E300", f"unknown skill '{sid}'{did_you_mean(str(sid), self.content.skills)}")

    def role(self, role: Any, path: tuple[Any, ...]) -> None:
        roles = self.rules.roles if self.rules is not None else {}
        if roles and role not in roles:
            self.err(path, "E300", f"unknown role '{role}'{did_you_mean(str(role), roles)} (the roles of rules "
                                   f"'{self.rules.id}': {', '.join(roles)})")

    def phase(self, phase: Any, path: tuple[Any, ...]) -> None:
        ids = [ph.id for ph in self.rules.phases]
        if phase not in ids:
            self.err(path, "E300", f"unknown phase '{phase}'{did_you_mean(str(phase), ids)} (the phases of rules "
                                   f"'{self.rules.id}': {', '.join(ids)})")

    def seat(self, ref: Any, path: tuple[Any, ...], key: bool = False, started: bool = False) -> None:
        """A seat named by number, ``seatN`` or hero id (``started``: the hero it starts with)."""
        n = len(self.data.get("seats") or [])
        text = str(ref)
        number = ref if isinstance(ref, int) else int(text[4:]) if re.fullmatch(r"seat\d+", text) else None
        if number is not None:
            if not 0 <= number < n:
                self.err(path, "E300", f"there is no seat {number} (the seats are 0 to {n - 1})", key)
            return
        canon = self.content.canonical(text)
        if canon in self.seated or (not started and canon in self.content.heroes):
            return  # a seat may become another hero (转世): any hero may name it at the end
        if started and "hero_pile" in self.data:
            self.err(path, "E300", f"no seat is '{text}': the seats of a case dealt from hero_pile have no hero "
                                   f"before the deal; name a seat by number or seatN (seat0 to seat{n - 1})", key)
            return
        names = list(self.seated)
        self.err(path, "E300", f"no seat is '{text}'{did_you_mean(text, names)} (seats: {', '.join(names)})", key)

    # ------------------------------------------------------------ parts

    def options(self) -> None:
        from sgs_runtime.resolution.turn import ROLE_TABLE_OPTION

        rules = self.rules
        for name, value in (self.data.get("options") or {}).items():
            path = ("options", name)
            if name not in rules.options:
                self.err(path, "E300", f"unknown option '{name}' of rules '{rules.id}'"
                                       f"{did_you_mean(name, rules.options)}", key=True)
                continue
            default = rules.options[name]
            if isinstance(default, bool) and not isinstance(value, bool):
                self.err(path, "E111", f"options.{name} must be true or false, not {value!r}")
            elif isinstance(default, int) and not isinstance(default, bool) and (
                    isinstance(value, bool) or not isinstance(value, int)):
                self.err(path, "E111", f"options.{name} must be a whole number, not {value!r}")
            elif isinstance(default, str) and not isinstance(value, str):
                self.err(path, "E111", f"options.{name} must be a text, not {value!r}")
            elif name == ROLE_TABLE_OPTION and value not in rules.role_table_variants:
                self.err(path, "E300", f"unknown role table '{value}'"
                                       f"{did_you_mean(str(value), rules.role_table_variants)} (the tables: "
                                       f"{', '.join(rules.role_table_variants)})")

    def dealt(self) -> None:
        """A case dealt from its hero pile starts before the heroes are chosen: its seats give their
        roles only, and the table is the rules' (no turn, phase or unused heroes of its own)."""
        seen: dict[str, int] = {}
        for i, h in enumerate(self.data["hero_pile"]):
            hero = self.hero(h, ("hero_pile", i))
            if hero in seen:
                self.err(("hero_pile", i), "E310", f"'{hero}' is twice in the hero pile (also at {seen[hero]})")
            elif hero is not None:
                seen[hero] = i
        for i, s in enumerate(self.data.get("seats") or []):
            if self.rules is not None and self.rules.roles and s["role"] not in self.rules.roles:
                self.role(s["role"], ("seats", i, "role"))
            for key in s:
                if key != "role":
                    self.err(("seats", i, key), "E330", f"a case dealt from hero_pile starts before the heroes are "
                                                        f"chosen: a seat gives only its role, not '{key}'", key=True)
        for key in ("turn", "phase", "unused_heroes"):
            if key in self.data:
                self.err((key,), "E330", f"a case dealt from hero_pile starts at the beginning of the game: "
                                         f"'{key}' is the rules' (the first seat of the rules' first role plays "
                                         "first; the heroes not chosen are the unused heroes)", key=True)
        self.seat_count()

    def seat_count(self) -> bool:
        """Whether the rules play as many players as the case has seats (E330 if not)."""
        n = len(self.data.get("seats") or [])
        if self.rules is not None and not self.rules.players_min <= n <= self.rules.players_max:
            self.err(("seats",), "E330", f"{n} seats, but the rules '{self.rules.id}' play "
                                         f"{self.rules.players_min} to {self.rules.players_max} players")
            return False
        return True

    def seats(self) -> None:
        if "hero_pile" in self.data:
            self.dealt()
            return
        ok = True
        for i, s in enumerate(self.data.get("seats") or []):
            path = ("seats", i)
            if "hero" not in s:
                self.err(path, "E112", "the seat has no 'hero' (every seat needs one, unless the case deals from "
                                       "'hero_pile')")
                ok = False
                continue
            hero = self.hero(s["hero"], path + ("hero",))
            if hero is None:
                ok = False
                self.seated.setdefault(self.content.canonical(str(s["hero"])), i)  # said once, not at every use
            elif hero in self.seated:
                first = self.seated[hero]
                line = self.doc.position(("seats", first, "hero"))[0]
                self.err(path + ("hero",), "E310", f"'{hero}' already sits at seat {first} (line {line}): seats "
                                                   "are named by their heroes, so each seat needs a hero of its own")
                ok = False
            else:
                self.seated[hero] = i
            if self.rules is not None and self.rules.roles and s["role"] not in self.rules.roles:
                self.role(s["role"], path + ("role",))
                ok = False
            for zone in ("hand", "equip", "judge"):
                kinds = self.cards(s.get(zone), path + (zone,))
                if zone == "equip":
                    self.equipment(kinds, path + ("equip",))
            for name, pile in (s.get("piles") or {}).items():
                if name not in self.content.piles:
                    self.err(path + ("piles", name), "E300", f"unknown pile '{name}'"
                                                             f"{did_you_mean(name, self.content.piles)}", key=True)
                self.cards(pile, path + ("piles", name))
            for name in s.get("marks") or {}:
                if name not in self.content.marks:
                    self.err(path + ("marks", name), "E300", f"unknown mark '{name}'"
                                                             f"{did_you_mean(name, self.content.marks)}", key=True)
        if self.seat_count() and ok and self.rules is not None:
            self.hit_points()

    def equipment(self, kinds: list[Any], path: tuple[Any, ...]) -> None:
        slots: dict[str, int] = {}
        for j, kind in enumerate(kinds):
            if kind is None:
                continue
            if kind.equip is None:
                self.err(path + (j,), "E301", f"'{kind.id}' is not an equipment card")
                continue
            slot = kind.equip.slot
            if slot in slots:
                self.err(path + (j,), "E310", f"two cards in the {slot} slot ({self.data_card(path + (slots[slot],))} "
                                              f"and {self.data_card(path + (j,))}): a seat holds one per slot")
            else:
                slots[slot] = j

    def data_card(self, path: tuple[Any, ...]) -> str:
        node: Any = self.data
        for k in path:
            node = node[k]
        return f"'{node}'"

    def hit_points(self) -> None:
        """hp and max_hp as the table will have them (the rules' uniform hp, the lord's bonus)."""
        from sgs_runtime.resolution.turn import setup_table

        seats = self.data["seats"]
        table = TableSetup([SeatSetup(hero=self.content.canonical(s["hero"]), role=s["role"], hp=s.get("hp"),
                                      max_hp=s.get("max_hp"), alive=s.get("alive", True)) for s in seats], [])
        try:
            game = Game(self.content, self.rules, table=table, options=self.data.get("options"))
            setup_table(game)
            values = [(p.hp, p.max_hp, _stays_alive_below_one(p.skills)) for p in game.players]
        except Exception:  # a bonus that cannot be computed here: check what is written
            values = [(s.get("hp", s.get("max_hp", 1)), s.get("max_hp", s.get("hp", 1)), True) for s in seats]
        for i, (s, (hp, max_hp, may_stay)) in enumerate(zip(seats, values)):
            where = ("seats", i, "hp") if "hp" in s else ("seats", i, "max_hp") if "max_hp" in s else ("seats", i)
            if hp > max_hp:
                given = "" if "max_hp" in s else " (the hero's, with the rules' bonus)"
                self.err(where, "E330", f"hp {hp} is above max_hp {max_hp}{given}")
            elif s.get("alive", True) and hp <= 0 and not may_stay:
                self.err(where, "E330", f"a living seat needs hp 1 or more, not {hp}: only a hero with a skill "
                                        "that acts on its own dying can stay alive below 1 HP (write "
                                        "'alive: false' for a seat that is dead)")

    def decision(self, d: Any, path: tuple[Any, ...]) -> None:
        if not isinstance(d, dict):
            return
        for key in ("use", "recast", "respond"):
            if key in d:
                self.card(d[key], path + (key,))
        self.cards(d.get("cards"), path + ("cards",))
        for key in ("targets", "then"):
            if key in d:
                items = d[key] if isinstance(d[key], list) else [d[key]]
                for j, ref in enumerate(items):
                    self.seat(ref, path + (key, j) if isinstance(d[key], list) else path + (key,))
        for key in ("skill", "invoke", "decline"):
            if key in d:
                self.skill(d[key], path + (key,))
        if "as" in d and self.content.canonical(str(d["as"])) not in self.content.cards:
            name = str(d["as"])
            self.err(path + ("as",), "E300", f"unknown card '{name}'{did_you_mean(name, self.content.cards)}")
        if "choose" in d:
            items = d["choose"] if isinstance(d["choose"], list) else [d["choose"]]
            for j, item in enumerate(items):
                where = path + ("choose", j) if isinstance(d["choose"], list) else path + ("choose",)
                if isinstance(item, str) and CARD_RE.match(item.strip()):
                    self.card(item, where)
                elif isinstance(d["choose"], list) and isinstance(item, (str, int)) and not isinstance(item, bool):
                    self.seat(item, where)  # a list that names no cards names players
        arrange = d.get("arrange") or {}
        for key in ("top", "bottom"):
            self.cards(arrange.get(key), path + ("arrange", key))
        if "refuse" in d:
            self.decision(d["refuse"], path + ("refuse",))

    def state(self, key: str, facts: dict[str, Any]) -> None:
        path = ("state", key)
        if key not in PILES:
            canon = self.content.canonical(key)
            if not (canon in self.seated or canon in self.content.heroes or re.fullmatch(r"seat\d+", key)):
                names = [*self.seated, *PILES]
                self.err(path, "E300", f"no seat or pile is '{key}'{did_you_mean(key, names)} "
                                       f"(seats: {', '.join(self.seated)}, piles: {', '.join(PILES)})", key=True)
            elif re.fullmatch(r"seat\d+", key):
                self.seat(key, path, key=True)
        allowed = PILE_FACTS if key in PILES else SEAT_FACTS
        for fact in facts:
            if fact not in allowed:
                what = f"the pile {key}" if key in PILES else "a seat"
                self.err(path + (fact,), "E110", f"'{fact}' is not checked for {what}{did_you_mean(fact, allowed)} "
                                                 f"(it may give {', '.join(allowed)})", key=True)
        for zone in ("hand", "equip", "judge", "cards", "contains", "top"):
            self.cards(facts.get(zone), path + (zone,))
        for name, pile in (facts.get("piles") or {}).items():
            self.cards(pile, path + ("piles", name))
        if "role" in facts and self.rules is not None:
            self.role(facts["role"], path + ("role",))


def _stays_alive_below_one(skills: Iterable[Any]) -> bool:
    """Whether a player with these skills may be alive below 1 HP: a skill acts on its owner's own dying."""
    return any(t.timing == "dying" and t.who == "me" for sk in skills for t in sk.triggers)


def check_case(content: Content, doc: Document) -> list[Diagnostic]:
    """What is wrong in a rule case that passed its schema, before anything is played (see :class:`_CaseCheck`)."""
    return _CaseCheck(content, doc).run()


class _Script:
    """Answers requests from the scripted decisions."""

    def __init__(self, case: _Case, game: Game) -> None:
        self.case = case
        self.game = game
        self.queues: dict[int, list[tuple[int, Any]]] = {}
        for i, item in enumerate(case.data.get("decisions", []) or []):
            (who, decision), = item.items()
            seat = case.seat_index(who, ("decisions", i))
            self.queues.setdefault(seat, []).append((i, decision))
        # decision index -> why a request with a single legal answer did not take it
        self.forced_notes: dict[int, str] = {}
        game.on_forced = self.forced

    def player(self, ref: Any, where: tuple[Any, ...]) -> Player:
        return self.game.players[self.case.seat_index(ref, where)]

    def find_card(self, text: str, pool: Iterable[Card], where: tuple[Any, ...]) -> Card:
        name, suit, rank = parse_card(text)
        canon = self.case.content.canonical(name)
        for c in pool:
            if c.base.id == canon and c.printed_suit == suit and c.rank == rank:
                return c
        raise NotOffered(self.case._at(where, f"'{text}' is not among the cards that can be chosen here"))

    def seat_cards(self, p: Player) -> list[Card]:
        return p.all_cards() + list(self.game.processing.cards)

    # ------------------------------------------------------------ matching

    def answer(self, req: Request) -> Any:
        seat = req.player.seat
        queue = self.queues.get(seat, [])
        while True:
            if not queue:
                if req.optional:
                    return req.decline()
                raise CaseFailure(f"{req.player.name} was asked to {req.prompt} ({req.kind}), "
                                  "and no decision is scripted for it")
            index, decision = queue[0]
            where = ("decisions", index, req.player.name)
            if isinstance(decision, dict) and "refuse" in decision:
                if not self.fits(req, decision["refuse"]):
                    if req.optional:
                        return req.decline()
                    raise CaseFailure(self._mismatch(req, decision))
                queue.pop(0)
                try:
                    ans = self.build(req, decision["refuse"], where)
                    req.check(ans)
                except (IllegalDecision, NotOffered) as exc:
                    word = decision.get("reason")
                    if word and word.lower() not in str(exc).lower():
                        raise CaseFailure(self.case._at(where, f"the decision was refused, but for another reason: "
                                                               f"{exc}")) from None
                    self.game.emit("refused", player=req.player, reason=str(exc))
                    continue
                raise CaseFailure(self.case._at(where, f"the engine accepted {self._show(decision['refuse'])} "
                                                       f"from {req.player.name}, which must be refused"))
            if not self.fits(req, decision):
                if req.optional:
                    return req.decline()
                raise CaseFailure(self._mismatch(req, decision))
            queue.pop(0)
            ans = self.build(req, decision, where)
            try:
                req.check(ans)
            except IllegalDecision as exc:
                raise CaseFailure(self.case._at(where, f"the engine refused {self._show(decision)} from "
                                                       f"{req.player.name}: {exc}")) from None
            return ans

    def forced(self, req: Request, answer: Any) -> None:
        """The engine answered ``req`` itself (its single legal answer): the seat's next decision is
        taken when it names that answer; one that names something else waits (and, if nothing takes it,
        the leftover says what the engine answered)."""
        queue = self.queues.get(req.player.seat, [])
        if not queue:
            return
        index, decision = queue[0]
        if isinstance(decision, dict) and "refuse" in decision or not self.fits(req, decision):
            return
        try:
            ans = self.build(req, decision, ("decisions", index, req.player.name))
        except (NotOffered, CaseFailure):
            ans = None
        if _same_answer(ans, answer):
            queue.pop(0)
            return
        self.forced_notes.setdefault(index, f"{req.player.name} was asked to {req.prompt} ({req.kind}), which has a "
                                            f"single legal answer, {_show_answer(req, answer)}: the engine gave it")

    def _show(self, decision: Any) -> str:
        if isinstance(decision, str):
            return f"'{decision}'"
        return "{" + ", ".join(f"{k}: {v}" for k, v in decision.items()) + "}"

    def _mismatch(self, req: Request, decision: Any) -> str:
        return (f"{req.player.name} was asked to {req.prompt} ({req.kind}), but the next scripted decision for "
                f"{req.player.name} is {self._show(decision)}")

    def fits(self, req: Request, d: Any) -> bool:
        if d == "pass":
            return req.optional
        if isinstance(req, PlayRequest):
            return d == "end" or (isinstance(d, dict) and ("use" in d or "skill" in d or "recast" in d))
        if isinstance(req, RespondRequest):
            return isinstance(d, dict) and ("respond" in d or ("skill" in d and "use" not in d))
        if isinstance(req, ConfirmRequest):
            if d in ("yes", "no"):
                return True
            if isinstance(d, dict):
                sid = d.get("invoke") or d.get("decline")
                if sid is None:
                    return False
                return req.skill is not None and self.case.content.canonical(sid) == req.skill
            return False
        if isinstance(req, (CardsRequest, PlayersRequest, OptionRequest)):
            return isinstance(d, dict) and "choose" in d
        if isinstance(req, ArrangeRequest):
            return isinstance(d, dict) and "arrange" in d
        return False

    def build(self, req: Request, d: Any, where: tuple[Any, ...]) -> Any:
        if d in ("pass", "end"):
            return req.decline()
        if d in ("yes", "no"):
            return d == "yes"
        assert isinstance(d, dict)
        if isinstance(req, ConfirmRequest):
            return "invoke" in d
        if isinstance(req, PlayRequest):
            return self.play_action(req, d, where)
        if isinstance(req, RespondRequest):
            return self.response(req, d, where)
        if isinstance(req, CardsRequest):
            items = d["choose"] if isinstance(d["choose"], list) else [d["choose"]]
            chosen: list[Card] = []
            for t in items:
                c = self.find_card(str(t), [c for c in req.candidates if c not in chosen], where)
                chosen.append(c)
            return chosen
        if isinstance(req, PlayersRequest):
            items = d["choose"] if isinstance(d["choose"], list) else [d["choose"]]
            return [self.player(t, where) for t in items]
        if isinstance(req, OptionRequest):
            choice = d["choose"]
            if isinstance(choice, int):
                return choice
            for i, label in enumerate(req.options):
                if str(label) == str(choice):
                    return i
            for i, label in enumerate(req.options):
                if str(label).lower().startswith(str(choice).lower()):
                    return i
            raise NotOffered(self.case._at(where, f"'{choice}' is not an option"
                                                  f"{did_you_mean(str(choice), list(map(str, req.options)))}; "
                                                  f"the options are {', '.join(map(str, req.options))}"))
        if isinstance(req, ArrangeRequest):
            spec = d["arrange"]
            top = [self.find_card(t, req.cards, where) for t in spec.get("top", [])]
            bottom = [self.find_card(t, req.cards, where) for t in spec.get("bottom", [])]
            return (top, bottom)
        return req.decline()

    def _targets(self, d: dict[str, Any], key: str, where: tuple[Any, ...]) -> list[Player]:
        raw = d.get(key, [])
        items = raw if isinstance(raw, list) else [raw]
        return [self.player(t, where) for t in items]

    def _view_as_index(self, sid: str, d: dict[str, Any], where: tuple[Any, ...]) -> int:
        skill = self.case.content.skills.get(self.case.content.canonical(sid))
        if skill is None:
            raise CaseFailure(self.case._at(where, f"unknown skill '{sid}'"))
        if "as" in d:
            want = self.case.content.canonical(d["as"])
            for i, va in enumerate(skill.view_as):
                if want in va.kinds or va.card == want or (va.names and any(n in ("basic", "trick") for n in va.names)):
                    return i
            raise CaseFailure(self.case._at(where, f"{sid} cannot make a {d['as']}"))
        if skill.active is not None and not skill.view_as:
            return 0
        if skill.active is not None:
            return -1
        return 0

    def play_action(self, req: PlayRequest, d: dict[str, Any], where: tuple[Any, ...]) -> PlayAction:
        p = req.player
        if "recast" in d:
            return PlayAction(card=self.find_card(d["recast"], p.hand.cards, where), recast=True)
        if "use" in d:
            card = self.find_card(d["use"], p.hand.cards, where)
            return PlayAction(card=card, targets=self._targets(d, "targets", where),
                              secondary=self._targets(d, "then", where))
        sid = self.case.content.canonical(d["skill"])
        cards = [self.find_card(t, self.seat_cards(p), where) for t in d.get("cards", [])]
        return PlayAction(skill=sid, cards=cards, targets=self._targets(d, "targets", where),
                          view_as=self._view_as_index(sid, d, where), secondary=self._targets(d, "then", where),
                          as_card=self.case.content.canonical(d["as"]) if "as" in d else None)

    def response(self, req: RespondRequest, d: dict[str, Any], where: tuple[Any, ...]) -> Response:
        p = req.player
        if "respond" in d:
            return Response(card=self.find_card(d["respond"], p.hand.cards, where))
        sid = self.case.content.canonical(d["skill"])
        cards = [self.find_card(t, self.seat_cards(p), where) for t in d.get("cards", [])]
        return Response(skill=sid, cards=cards, view_as=self._view_as_index(sid, d, where) if "as" in d else
                        next((o.view_as for o in req.options if o.skill is not None and o.skill.id == sid), 0),
                        as_card=self.case.content.canonical(d["as"]) if "as" in d else
                        next((o.as_card for o in req.options if o.skill is not None and o.skill.id == sid), None))

    def done(self) -> bool:
        """Whether every scripted decision has been taken."""
        return not any(self.queues.values())

    def leftovers(self) -> list[str]:
        out = []
        for seat, queue in sorted(self.queues.items()):
            for index, decision in queue:
                if decision in ("pass", "end"):
                    continue  # a player with nothing left to do is not asked
                note = self.forced_notes.get(index)
                out.append(f"{self.game.players[seat].name}: {self._show(decision)}" + (f" ({note})" if note else ""))
        return out


def _same_answer(mine: Any, forced: Any) -> bool:
    """Whether a scripted answer is the forced one (the same cards or players, in any order)."""
    if isinstance(forced, list):
        return isinstance(mine, list) and len(mine) == len(forced) and all(
            any(m is f for f in forced) for m in mine)
    return type(mine) is type(forced) and mine == forced


def _show_answer(req: Request, answer: Any) -> str:
    if isinstance(req, OptionRequest) and isinstance(answer, int):
        return f"'{req.options[answer]}'"
    if isinstance(answer, list):
        return "[" + ", ".join(a.name if isinstance(a, Player) else a.label() for a in answer) + "]"
    return str(answer)


def _matches(record: dict[str, Any], pattern: dict[str, Any]) -> bool:
    for key, want in pattern.items():
        have = record.get(key)
        want = _norm(want)
        if isinstance(have, list) and not isinstance(want, list):
            if want not in have:
                return False
        elif have != want:
            return False
    return True


def _norm(value: Any) -> Any:
    if isinstance(value, str) and CARD_RE.match(value):
        return card_label(value)
    face = FACE_RE.match(value) if isinstance(value, str) else None
    if face and CARD_RE.match(face.group(2).strip()):  # one card seen as another: 'indulgence[jink D2]'
        return card_label(value)
    if isinstance(value, list):
        return [_norm(v) for v in value]
    return value


def _held(labels: Sequence[str]) -> str:
    return "[" + ", ".join(labels) + "]" if labels else "nothing"


def _show(value: Any) -> str:
    """A value of an expectation as a case would write it: players by name, cards by label."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Player):
        return value.name
    label = getattr(value, "label", None)
    if callable(label):  # a card
        return str(label())
    if isinstance(value, Zone):
        return _held([c.label() for c in value.cards])
    if isinstance(value, (list, tuple, set, frozenset)):
        return _held([_show(v) for v in value])
    return "none" if value is None else str(value)


def _unparse(node: Any) -> str:
    """An expression of the effect language as text (to name the parts of a failed expectation)."""
    import sgs_dsl.ast as A

    if isinstance(node, A.Num):
        return str(node.value)
    if isinstance(node, A.Str):
        return f'"{node.value}"'
    if isinstance(node, A.Name):
        return node.id
    if isinstance(node, A.Const):
        return "none" if node.value is None else str(node.value).lower()
    if isinstance(node, A.ListExpr):
        return "[" + ", ".join(map(_unparse, node.items)) + "]"
    if isinstance(node, A.Attr):
        return f"{_unparse(node.obj)}.{node.name}"
    if isinstance(node, A.Call):
        return f"{_unparse(node.func)}({', '.join(map(_unparse, node.args))})"
    if isinstance(node, A.Comprehension):
        cond = f" where {_unparse(node.cond)}" if node.cond is not None else ""
        return f"{node.var} from {_unparse(node.source)}{cond}"
    if isinstance(node, (A.BinOp, A.BoolOp)):
        return f"{_unparse(node.left)} {node.op} {_unparse(node.right)}"
    if isinstance(node, A.Compare):
        op = {"notin": "not in", "isnot": "is not"}.get(node.op, node.op)
        return f"{_unparse(node.left)} {op} {_unparse(node.right)}"
    if isinstance(node, A.Not):
        return f"not {_unparse(node.operand)}"
    if isinstance(node, A.Neg):
        return f"-{_unparse(node.operand)}"
    return "..."


class _Actual:
    """What made an expectation false, in words: ``guanyu.hp was 4``, ``guanyu.hand held [...]``."""

    def __init__(self, env: Any, file: str, vars_: dict[str, str], frame: Frame) -> None:
        self.env = env
        self.file = file
        self.vars = vars_
        self.frame = frame

    def value(self, node: Any) -> tuple[bool, Any]:
        try:
            comp = Compiler(self.env, self.file)
            fn = comp.condition(node, Scope(dict(self.vars)))
            if comp.diagnostics:
                return False, None
            return True, fn(self.frame)
        except Exception:  # a part that cannot be evaluated alone: it is not told
            return False, None

    def was(self, node: Any) -> str:
        import sgs_dsl.ast as A

        if isinstance(node, (A.Num, A.Str, A.Const)):
            return ""
        ok, value = self.value(node)
        if not ok:
            return ""
        text, shown = _unparse(node), _show(value)
        if text == shown:  # a name of itself (a player): nothing to tell
            return ""
        verb = "held" if isinstance(value, (Zone, list, tuple, set, frozenset)) else "was"
        return f"{text} {verb} {shown}"

    def explain(self, node: Any) -> str:
        import sgs_dsl.ast as A

        if isinstance(node, A.Compare):
            parts = [self.was(node.left), self.was(node.right)]
            return " and ".join(p for p in parts if p)
        if isinstance(node, A.BoolOp) and node.op == "and":
            ok, value = self.value(node.left)
            if ok and not value:
                return self.explain(node.left)
            return self.explain(node.right)
        if isinstance(node, A.BoolOp):  # or: both sides are false
            parts = [self.explain(node.left), self.explain(node.right)]
            return " and ".join(p for p in parts if p)
        if isinstance(node, A.Not):
            return self.was(node.operand)
        return self.was(node)


class _Checker:
    def __init__(self, case: _Case, game: Game) -> None:
        self.case = case
        self.game = game

    def problems(self) -> list[str]:
        out: list[str] = []
        out += self.expectations()
        out += self.states()
        out += self.winner()
        out += self.events()
        return out

    def expectations(self) -> list[str]:
        env = self.case.content.env
        out = []
        vars_ = {p.name: "player" for p in self.game.players}
        vars_.update({f"seat{p.seat}": "player" for p in self.game.players})
        vars_.update({"winners": "players", "winner_roles": "syms:role", "game_over": "bool"})
        values: dict[str, Any] = {p.name: p for p in self.game.players}
        values.update({f"seat{p.seat}": p for p in self.game.players})
        result = self.game.result
        values["winners"] = [p for p in self.game.players if result and p.name in result.winners]
        values["game_over"] = result is not None and result.reason not in ("stopped",)
        values["winner_roles"] = list(result.winner_roles) if result else []
        values["me"] = self.game.current
        vars_["me"] = "player"
        for i, text in enumerate(self.case.data.get("expect", []) or []):
            sc = self.case.doc.scalars.get(("expect", i))
            line, col = (sc.line, sc.col) if sc else self.case.doc.position(("expect", i))
            origin = Origin(self.case.doc.path, line, col)
            try:
                tree = parse_expression(text, origin)
            except SyntaxProblem as exc:
                out.append(exc.diagnostic.text())
                continue
            comp = Compiler(env, self.case.doc.path)
            fn = comp.condition(tree, Scope(dict(vars_)))
            if comp.diagnostics:
                out.extend(d.text() for d in comp.diagnostics)
                continue
            try:
                ok = fn(Frame(self.game, dict(values)))
            except Exception as exc:  # an expectation that cannot be evaluated
                out.append(f"line {line}: cannot evaluate '{text}': {exc}")
                continue
            if not ok:
                actual = _Actual(env, self.case.doc.path, vars_, Frame(self.game, dict(values))).explain(tree)
                out.append(f"line {line}: expected {text}" + (f", but {actual}" if actual else ""))
        return out

    def _labels(self, cards: Iterable[Card]) -> list[str]:
        return sorted(c.label() for c in cards)

    def states(self) -> list[str]:
        out = []
        g = self.game
        for key, facts in (self.case.data.get("state") or {}).items():
            line = self.case.doc.position(("state", key))[0]
            if key in ("draw_pile", "discard_pile", "processing"):
                zone = getattr(g, key)
                have = [c.label() for c in zone.cards]
                if "cards" in facts and sorted(have) != sorted(card_label(t) for t in facts["cards"]):
                    out.append(f"line {line}: {key} holds {have}, expected {[card_label(t) for t in facts['cards']]}")
                for t in facts.get("contains", []) or []:
                    if card_label(t) not in have:
                        out.append(f"line {line}: {key} does not hold {card_label(t)} (it holds {_held(have)})")
                if "count" in facts and len(have) != facts["count"]:
                    out.append(f"line {line}: {key} holds {len(have)} cards, expected {facts['count']}")
                top = [card_label(t) for t in facts.get("top", []) or []]
                if top and have[: len(top)] != top:
                    out.append(f"line {line}: the top of {key} is {have[:len(top)]}, expected {top}")
                continue
            try:
                p = g.players[self.case.seat_index(key, ("state", key))]
            except CaseFailure as exc:
                out.append(str(exc))
                continue
            for attr in ("hp", "max_hp", "alive", "role", "chained"):
                if attr in facts and getattr(p, attr) != facts[attr]:
                    out.append(f"line {line}: {p.name}.{attr} is {getattr(p, attr)}, expected {facts[attr]}")
            if "hand_count" in facts and len(p.hand) != facts["hand_count"]:
                out.append(f"line {line}: {p.name} holds {len(p.hand)} hand cards, expected {facts['hand_count']}")
            for zone in ("hand", "equip", "judge"):
                if zone in facts:
                    have = self._labels(getattr(p, zone).cards)
                    want = sorted(card_label(t) for t in facts[zone])
                    if have != want:
                        out.append(f"line {line}: {p.name}'s {zone} is {have}, expected {want}")
            for name, cards in (facts.get("piles") or {}).items():
                zone = p.piles.get(name)
                have = self._labels(zone.cards if zone is not None else [])
                want = sorted(card_label(t) for t in cards)
                if have != want:
                    out.append(f"line {line}: {p.name}'s pile {name} is {have}, expected {want}")
            for t in facts.get("contains", []) or []:
                if card_label(t) not in [c.label() for c in p.all_cards()]:
                    out.append(f"line {line}: {p.name} does not hold {card_label(t)} (it holds "
                               f"{_held(self._labels(p.all_cards()))})")
        return out

    def winner(self) -> list[str]:
        if "winners" not in self.case.data:
            return []
        line = self.case.doc.position(("winners",))[0]
        result = self.game.result
        if result is None or result.reason == "stopped":
            return [f"line {line}: the game is not over"]
        want = sorted(self.case.data["winners"])
        if sorted(result.winner_roles) != want:
            return [f"line {line}: the winners are {result.winner_roles or 'nobody'} ({result.reason}), "
                    f"expected {want}"]
        return []

    def events(self) -> list[str]:
        out = []
        log = self.game.log
        pos = 0
        for i, pattern in enumerate(self.case.data.get("events", []) or []):
            line = self.case.doc.position(("events", i))[0]
            while pos < len(log) and not _matches(log[pos], pattern):
                pos += 1
            if pos >= len(log):
                earlier = any(_matches(r, pattern) for r in log)
                out.append(f"line {line}: no event {pattern}" + (" after the events before it" if earlier else ""))
                break
            pos += 1
        for i, pattern in enumerate(self.case.data.get("absent", []) or []):
            line = self.case.doc.position(("absent", i))[0]
            hit = next((r for r in log if _matches(r, pattern)), None)
            if hit is not None:
                out.append(f"line {line}: event {pattern} must not happen, but it did: {hit}")
        return out


def run_document(content: Content, doc: Document, explain: bool = False, why: Sequence[str] = ()) -> CaseResult:
    """Check, play and judge one case. ``explain``: keep the explanation records (requests asked and
    their answers; for each skill of ``why``, every point where it could have fired and what held it
    back) in the result's ``trace``; they change nothing in the game."""
    name = str(doc.data.get("name", Path(doc.path).stem)) if isinstance(doc.data, dict) else doc.path
    errs = schema_errors(doc, "scenario")
    if not errs:
        try:
            errs = check_case(content, doc)
        except Exception as exc:  # a bug of the checker must not stop the other cases
            errs = [Diagnostic(doc.path, 1, 1, "E330", f"the case could not be checked: {type(exc).__name__}: {exc}")]
    if errs:
        errs = sorted(errs)
        return CaseResult(doc.path, name, False, "; ".join(e.text() for e in errs), errs[0].line)
    case = _Case(content, doc)
    data = doc.data
    game: Optional[Game] = None
    try:
        rules = content.ruleset(data.get("rules"))
        table = case.table()
        stop = data.get("stop", "turn")
        limits = Limits(turns=60 if stop in ("game", "decisions") else 200)
        game = Game(content, rules, seed=int(data.get("seed", 0)), options=data.get("options"), table=table,
                    limits=limits, trace=explain or bool(why), why=[content.canonical(w) for w in why])
        if stop == "turn":
            game.stop_turns = 1
        elif isinstance(stop, dict) and "turns" in stop:
            game.stop_turns = int(stop["turns"])
        elif isinstance(stop, dict) and "after_phase" in stop:
            game.stop_at_phase = stop["after_phase"]
        script = _Script(case, game)
        case.game = game
        req = game.start()
        while req is not None:
            if stop == "decisions" and isinstance(req, PlayRequest) and script.done():
                break  # every decision taken and the game at rest: read the state now (a turn's states still on)
            req = game.answer(script.answer(req))
        left = script.leftovers()
        if left:
            why = "the game never asked for them" if not script.forced_notes else "not taken by the requests asked"
            raise CaseFailure(f"decisions left unused ({why}): " + "; ".join(left))
        problems = _Checker(case, game).problems()
        if problems:
            raise CaseFailure("; ".join(problems))
        return CaseResult(doc.path, name, True, log=game.log, trace=game.trace or [])
    except CaseFailure as exc:
        reason = str(exc)
    except LimitExceeded as exc:
        reason = f"the game did not stop: {exc}"
    except GameError as exc:
        reason = f"engine error: {exc}"
    except SgsError as exc:
        reason = str(exc)
    except Exception as exc:  # a bug: this case fails, the others still run
        reason = f"internal error (a bug in the engine, not in the case): {type(exc).__name__}: {exc}{_innermost(exc)}"
    return CaseResult(doc.path, name, False, reason, log=game.log if game else [],
                      trace=(game.trace or []) if game else [])


def _innermost(exc: BaseException) -> str:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return ""
    return f" (at {Path(tb.tb_frame.f_code.co_filename).name}:{tb.tb_lineno})"


def _found(paths: Sequence[str | Path]) -> list[tuple[Path, Optional[str]]]:
    """The rule-case files below ``paths`` (each with None), and the folders that could not be read (with why)."""
    out: list[tuple[Path, Optional[str]]] = []
    for p in map(Path, paths):
        if p.is_dir():
            files, problems = find_yaml_files(p)
            out.extend(sorted([(f, None) for f in files] + [(f, why) for f, why in problems]))
        else:
            out.append((p, None))
    return out


def scenario_files(paths: Sequence[str | Path]) -> list[Path]:
    """Every rule-case file (``*.yaml``, ``*.yml``) below ``paths``, and every folder below them that cannot be read."""
    return [p for p, _ in _found(paths)]


def run_file(content: Content, path: str | Path, explain: bool = False, why: Sequence[str] = ()) -> CaseResult:
    from .loader import _display

    display = _display(Path(path))
    try:
        doc = load_file(path, display)
    except ContentError as exc:
        d: Diagnostic = exc.diagnostics[0]
        return CaseResult(display, Path(path).stem, False, "; ".join(x.text() for x in exc.diagnostics), d.line)
    return run_document(content, doc, explain, why)


def run_path(content: Content, paths: Sequence[str | Path], explain: bool = False,
             why: Sequence[str] = ()) -> list[CaseResult]:
    """Run every case below ``paths``; a case that cannot be read or run fails, and the others still run.

    ``explain``, ``why``: keep the explanation records of each case (:func:`run_document`)."""
    from .loader import _display

    results = []
    for p, problem in _found(paths):
        if problem is not None:
            display = _display(p)
            results.append(CaseResult(display, p.name, False, Diagnostic(display, 1, 1, "E105", problem).text()))
        else:
            results.append(run_file(content, p, explain, why))
    return results


# ------------------------------------------------------------ report formats


def github_annotations(results: Sequence[CaseResult]) -> list[str]:
    """An ``::error`` workflow command for each failing case, at its file and line (GitHub Actions)."""
    from .errors import github_data, github_property

    return [f"::error file={github_property(r.file)},line={r.line},title={github_property('rule case failed')}::"
            f"{github_data(f'{r.name}: {r.reason}')}" for r in results if not r.passed]


def _xml_text(text: str) -> str:
    """Text that XML 1.0 can hold: other control characters are written as escapes."""
    return "".join(ch if ch in "\t\n\r" or (ord(ch) >= 0x20 and ord(ch) not in (0xFFFE, 0xFFFF)
                                              and not 0xD800 <= ord(ch) <= 0xDFFF) else ascii(ch)[1:-1]
                   for ch in text)


def junit_xml(results: Sequence[CaseResult], suite: str = "rule cases") -> str:
    """A JUnit XML report: one ``testcase`` per rule case, a ``failure`` with its reason for each failing one."""
    import xml.etree.ElementTree as ET

    failed = sum(1 for r in results if not r.passed)
    root = ET.Element("testsuites", name="sgs scenario run", tests=str(len(results)), failures=str(failed),
                      errors="0")
    ts = ET.SubElement(root, "testsuite", name=suite, tests=str(len(results)), failures=str(failed), errors="0",
                       skipped="0")
    for r in results:
        folder = str(Path(r.file).parent).replace("\\", "/").strip("./").replace("/", ".")
        tc = ET.SubElement(ts, "testcase", name=_xml_text(r.name),
                           classname=_xml_text(f"{folder}.{Path(r.file).stem}" if folder else Path(r.file).stem),
                           file=_xml_text(r.file), line=str(r.line))
        if not r.passed:
            reason = _xml_text(r.reason)
            failure = ET.SubElement(tc, "failure", message=reason, type="RuleCaseFailure")
            failure.text = f"{_xml_text(r.file)}:{r.line}: {reason}"
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
