"""Which bot plays which seat: the ``--agents`` spec of ``sgs simulate`` and ``sgs play``.

A spec is one or more parts separated by commas; a part is a bot kind, optionally
with ``:N`` (its budget: rollouts per decision, for kinds that search), ``:NAME=VALUE``
settings (those the kind declares: :data:`sgs_runtime.agents.search.SETTINGS` for the
search bot) and ``@WHO`` (the roles and seats it plays, joined by ``+``; a seat is its
number)::

    heuristic                     every seat
    search:48                     every seat, 48 rollouts per decision
    search:32:hero=40:kinds=response   32 rollouts for the responses only, 40 worlds per hero offered
    search@rebel,heuristic        the rebels search, every other seat is heuristic
    search@0+3,random@lord,heuristic   seats 0 and 3 search, the lord (unless seat 0 or 3) is random ...
    heuristic@rebel+traitor       one part with @ and nothing else: the rest is random
                                  (heuristic when the part is random)

Parts are read left to right: a seat takes the first part that names its seat or its
role (roles are dealt after the bots are made, so the role is read at each decision),
else the part without ``@`` (at most one). Kinds are those of
:data:`sgs_runtime.runs.simulate.AGENTS`.

>>> parse("search@rebel,heuristic", ["random", "heuristic", "search"]).parts[0].roles
frozenset({'rebel'})
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Optional

from sgs_runtime.errors import UsageError, did_you_mean

EXAMPLES = "e.g. heuristic, search@rebel,heuristic or search@0+3,heuristic"


@dataclass(frozen=True)
class Part:
    """One part of a spec: a bot kind (and budget) for some roles and seats (none: the rest)."""

    kind: str
    budget: Optional[int] = None
    roles: frozenset[str] = frozenset()
    seats: frozenset[int] = frozenset()
    settings: tuple[tuple[str, Any], ...] = ()  # (keyword, value) for the bot's constructor

    @property
    def default(self) -> bool:
        return not self.roles and not self.seats


@dataclass(frozen=True)
class Spec:
    """A parsed spec: the parts naming roles or seats, in order, and the bot for the rest."""

    parts: tuple[Part, ...]
    rest: Part


#: a kind's settings: spec name -> (the bot's keyword, a reader of the text that raises ValueError)
Settings = Mapping[str, tuple[str, Callable[[str], Any]]]


def parse(spec: str, kinds: Iterable[str], rules: Any = None, players: Optional[int] = None,
          budgeted: Iterable[str] = ("search",), settings: Optional[Mapping[str, Settings]] = None) -> Spec:
    """Parse ``spec``; refuse, with a message that says how to fix it, an unknown kind, an empty part, a
    budget where the kind takes none, a setting the kind does not have or a value it cannot take, two
    parts for the rest, and (given the rules or the number of players) a role the rules do not have or
    a seat the table does not have.

    >>> parse("search:8:hero=4", ["search"], settings={"search": {"hero": ("hero_rollouts", int)}}).rest
    Part(kind='search', budget=8, roles=frozenset(), seats=frozenset(), settings=(('hero_rollouts', 4),))
    """
    kinds = list(kinds)
    budgeted = set(budgeted)
    settings = settings or {}
    text = spec.strip()
    if not text:
        raise UsageError(f"--agents is empty; use one of {', '.join(kinds)} ({EXAMPLES})")
    parts: list[Part] = []
    rest: Optional[Part] = None
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            raise UsageError(f"'{spec}' has an empty part (two commas, or one at an end); {EXAMPLES}")
        head, at, who = item.partition("@")
        kind, *after = (h.strip() for h in head.strip().split(":"))
        if kind not in kinds:
            raise UsageError(f"unknown agents '{kind}' in '{spec}'{did_you_mean(kind, kinds)}; use one of "
                             f"{', '.join(kinds)}, optionally with @ROLE+ROLE or @SEAT ({EXAMPLES})")
        if any(not a for a in after):
            raise UsageError(f"'{item}' has nothing between two ':' or after the last (e.g. {kind}:48:hero=40)")
        named = [a for a in after if "=" in a]
        bare = [a for a in after if "=" not in a]
        chosen = _settings(item, kind, named, settings.get(kind, {}))
        if len(bare) > 1:
            raise UsageError(f"'{item}' gives the budget twice; give one number of rollouts (e.g. {kind}:48)")
        budget: Optional[int] = None
        colon = bool(bare)
        budget_text = bare[0] if bare else ""
        if colon:
            if kind not in budgeted:
                raise UsageError(f"'{item}': the {kind} bot takes no budget (only {', '.join(sorted(budgeted))} "
                                 "does, e.g. search:48)")
            if not budget_text.isdigit() or int(budget_text) < 1:
                raise UsageError(f"'{item}': the budget after ':' must be a whole number of rollouts per "
                                 f"decision, at least 1 (e.g. {kind}:48)")
            budget = int(budget_text)
        if at and not who.strip():
            raise UsageError(f"'{item}' names no role or seat after '@' (e.g. {kind}@rebel or {kind}@0)")
        roles: set[str] = set()
        seats: set[int] = set()
        for name in (w.strip() for w in who.split("+")) if at else ():
            if not name:
                raise UsageError(f"'{item}' has an empty role or seat between '+' signs")
            if name.isdigit():
                seat = int(name)
                if players is not None and seat >= players:
                    raise UsageError(f"'{item}' names seat {seat}, but the seats are 0 to {players - 1}")
                seats.add(seat)
            elif rules is not None and name not in rules.roles:
                raise UsageError(f"the rules '{rules.id}' have no role '{name}'{did_you_mean(name, rules.roles)}; "
                                 f"roles: {', '.join(sorted(rules.roles))} (or a seat number)")
            else:
                roles.add(name)
        part = Part(kind, budget, frozenset(roles), frozenset(seats), chosen)
        if part.default:
            if rest is not None:
                raise UsageError(f"'{spec}' names the bots for the other seats twice ('{rest.kind}' and "
                                 f"'{kind}'); give one part without @")
            rest = part
        else:
            parts.append(part)
    if rest is None:
        if len(parts) > 1:
            raise UsageError(f"'{spec}' does not say which bots play the other seats: add a part without @ "
                             f"(e.g. '{spec},heuristic')")
        rest = Part("random" if parts[0].kind != "random" else "heuristic")
    return Spec(tuple(parts), rest)


def _settings(item: str, kind: str, named: list[str], known: Settings) -> tuple[tuple[str, Any], ...]:
    """The ``NAME=VALUE`` settings of one part, as (keyword, value), in the order given."""
    out: dict[str, Any] = {}
    for text in named:
        name, _eq, value = (t.strip() for t in text.partition("="))
        if name not in known:
            offer = f"; it has {', '.join(sorted(known))}" if known else "; it has none"
            raise UsageError(f"'{item}': the {kind} bot has no setting '{name}'{did_you_mean(name, known)}{offer}")
        keyword, read = known[name]
        try:
            out[keyword] = read(value)
        except (ValueError, UsageError) as exc:
            raise UsageError(f"'{item}': {name}={value!r} cannot be used: {exc}") from None
    return tuple(out.items())


def build(spec: Spec, seed: int, make: Callable[[Part, int], Any]) -> Any:
    """One seat's agent for a parsed spec; ``make(part, seed)`` makes the bot of one part.

    Every part's bot gets the seat's own seed, so a seat whose bot kind is the same in two specs
    plays with the same chance in both: ``search@0,heuristic`` and ``heuristic`` deal the same
    heuristic bots to seats 1 to 4, and a comparison of the two changes only seat 0."""
    from sgs_runtime.agents import SplitAgent

    agent = make(spec.rest, seed)
    for part in reversed(spec.parts):
        agent = SplitAgent(part.roles, make(part, seed), agent, seats=part.seats)
    return agent


def kinds_used(spec: Spec) -> set[str]:
    """The bot kinds a spec uses."""
    return {p.kind for p in (*spec.parts, spec.rest)}
