"""Styles of play: habits of the heuristic bot that can be changed, one set per place at the table.

A :class:`Style` is a set of habits (whom to harm first, how sure to be of an enemy,
whether to save others, which side to play for when alone); :data:`PLAIN` is the
heuristic bot's own. A :class:`Styles` gives one style to each *place*: the lord, a
player on the lord's side, a rebel, a player alone (read from the rules' role data,
not from role names). ``--agents heuristic:style=NAME`` and ``search:style=NAME``
take a name of :data:`NAMED`:

* ``plain``: the heuristic's habits everywhere;
* ``focus``: harmful cards to the enemy with the least HP first;
* ``finish``: an enemy at 1 HP first, else as the heuristic;
* ``wary`` / ``bold``: harm only players believed enemies above 0.9 / 0.05 (plain: 0.3);
* ``no_rescue``: save only oneself when dying;
* ``traitor_loyal`` / ``traitor_rebel``: a player alone plays for the lord's side while
  a rebel may be alive / for the rebels while it has more than 1 HP, and either only while
  more than one other player is alive;
* ``roles``: the style that did best for each place in ``benchmarks/play_styles.py``
  (docs/performance.md): ``focus`` for the lord, ``traitor_loyal`` for a player alone,
  ``plain`` for the others.

>>> style("focus").of("rebel").focus
'hp'
>>> style("roles").of("alone").traitor_as, style("roles").of("loyal").plain
('lord', True)
>>> style("fcous")
Traceback (most recent call last):
...
ValueError: no style is called 'fcous' (did you mean 'focus'?); use plain, focus, finish, wary, bold, no_rescue, traitor_loyal, traitor_rebel or roles
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from sgs_runtime.agents.beliefs import side_of
from sgs_runtime.errors import did_you_mean

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.state.definitions import RoleDef

#: the places a style can be given for: the lord, his side, the rebels' side, a player alone
PLACES = ("lord", "loyal", "rebel", "alone")


@dataclass(frozen=True)
class Style:
    """The habits of one seat's heuristic play."""

    focus: Optional[str] = None  # "hp": the enemy with the least HP first; "finish": one at 1 HP first
    enemy_at: float = 0.3  # harmful cards go only to players more hostile than this
    rescue_others: bool = True  # save a dying friend (False: only oneself)
    traitor_as: Optional[str] = None  # alone: play for this side ("lord" or "rebel") while the game is open

    @property
    def plain(self) -> bool:
        """Whether these are the heuristic bot's own habits."""
        return self == PLAIN


PLAIN = Style()


@dataclass(frozen=True)
class Styles:
    """A style for each place at the table (:data:`PLACES`)."""

    name: str
    lord: Style = PLAIN
    loyal: Style = PLAIN
    rebel: Style = PLAIN
    alone: Style = PLAIN

    def of(self, place: str) -> Style:
        """The style for ``place``: lord, loyal, rebel or alone."""
        got: Style = getattr(self, place)
        return got

    @property
    def plain(self) -> bool:
        """Whether every place plays with the heuristic bot's own habits."""
        return all(self.of(p).plain for p in PLACES)


def place_of(rdef: Optional["RoleDef"]) -> str:
    """The place at the table of a role (:data:`PLACES`), from its definition: the role with lord
    skills is the lord's, the rest by their side; a role the rules do not define plays alone."""
    side = side_of(rdef)
    if side == "lord":
        return "lord" if rdef is not None and rdef.lord_skills else "loyal"
    return "rebel" if side == "rebel" else "alone"


def _everywhere(name: str, s: Style) -> Styles:
    return Styles(name, s, s, s, s)


_FOCUS = Style(focus="hp")
_TRAITOR_LOYAL = Style(traitor_as="lord")

#: the styles by name (``style=NAME`` in an agent spec)
NAMED: dict[str, Styles] = {
    "plain": _everywhere("plain", PLAIN),
    "focus": _everywhere("focus", _FOCUS),
    "finish": _everywhere("finish", Style(focus="finish")),
    "wary": _everywhere("wary", Style(enemy_at=0.9)),
    "bold": _everywhere("bold", Style(enemy_at=0.05)),
    "no_rescue": _everywhere("no_rescue", Style(rescue_others=False)),
    "traitor_loyal": Styles("traitor_loyal", alone=_TRAITOR_LOYAL),
    "traitor_rebel": Styles("traitor_rebel", alone=Style(traitor_as="rebel")),
    "roles": Styles("roles", lord=_FOCUS, alone=_TRAITOR_LOYAL),
}


def style(name: str) -> Styles:
    """The styles called ``name``; a ValueError that names the styles for another name."""
    got = NAMED.get(name.strip())
    if got is None:
        names = list(NAMED)
        raise ValueError(f"no style is called '{name}'{did_you_mean(name, names)}; use "
                         f"{', '.join(names[:-1])} or {names[-1]}")
    return got
