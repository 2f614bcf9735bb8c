"""A seat's belief over the hidden roles: for every other seat, a probability per role.

A bot reads the roles the way players do: from what everyone saw the others do
(:attr:`SeatView.public`). Each public record is an act of one player on another,
harmful or helpful (:func:`act_sign`): damage, a harmful card or skill aimed at
someone, a card taken or discarded from someone's hand or equipment are harm;
recovery, a helpful card or skill, a card given, a burden lifted from a judge area
are help. Whether a card or skill harms or helps is the content's ``ai`` hint
(``intent``), never its id.

Sides. Every role has an alignment from the rules' role table (:func:`alignment`):
the lord and the roles on his side lean -1, the rebels +1, a role alone (the
traitor) 0. Harming someone who leans to one side is evidence of leaning to the
other; helping, of leaning the same way. Each seat gathers evidence ``e`` (how much
it worked against the lord's side), and the likelihood of role ``r`` for that seat
is ``exp(e * alignment(r))``.

The probabilities are exact under that model and the role counts: the belief sums
over every way of dealing the roles not yet known (the table's counts, less this
seat's own role and the revealed ones) to the seats whose role is unknown
(:func:`marginals`, a forward-backward pass over the seats). So for every role, the
probabilities over the seats add up to the number of those roles still hidden.

>>> marginals([[1.0, 1.0], [1.0, 1.0]], [1, 1])
[[0.5, 0.5], [0.5, 0.5]]
>>> [[round(p, 3) for p in row] for row in marginals([[4.0, 1.0], [1.0, 1.0]], [1, 1])]
[[0.8, 0.2], [0.2, 0.8]]
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Final, Optional, Sequence

from sgs_runtime.native import mypyc_attr

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.state.definitions import Content, RoleDef, Ruleset
    from sgs_runtime.state.seatview import SeatView

#: A public record: (what, source seat, target seat, card or skill id, amount).
PublicRecord = tuple[str, int, int, str, int]

#: Record kinds that harm or help by what they are (the others ask the card's or skill's intent).
HARM_RECORDS: Final = frozenset({"damage", "take"})
HELP_RECORDS: Final = frozenset({"recover", "give", "relieve"})
#: How much one record of a kind tells, per point of its amount (a use is a weaker sign than its damage).
WEIGHTS: Final = {"damage": 1.0, "recover": 1.0, "use": 0.5, "skill": 0.5, "take": 0.4, "give": 0.4, "relieve": 0.6}
#: How much being harmed by someone tells of the victim (less than what the act tells of the actor).
VICTIM_SHARE: Final = 0.4
#: Evidence is kept within these bounds, so one seat's record never makes the others' impossible.
EVIDENCE_BOUND: Final = 8.0


def act_sign(content: "Content", record: PublicRecord) -> int:
    """+1 for a harmful act, -1 for a helpful one, 0 for neither (from the record kind and the ai hints)."""
    what, _src, _dst, thing, _amount = record
    if what in HARM_RECORDS:
        return 1
    if what in HELP_RECORDS:
        return -1
    if what == "use":
        kind = content.cards.get(thing)
        intent = kind.ai.intent if kind is not None else None
    elif what == "skill":
        skill = content.skills.get(thing)
        intent = skill.ai.intent if skill is not None else None
    else:
        return 0
    return 1 if intent == "harm" else (-1 if intent == "help" else 0)


def side_of(rdef: Optional["RoleDef"]) -> str:
    """lord / rebel / alone: the side a role plays for (the rules' role data; the lord's role is the lord's side)."""
    if rdef is None:
        return "alone"
    return "lord" if rdef.lord_skills else rdef.side


def alignment(rdef: Optional["RoleDef"]) -> float:
    """-1 for the lord and his side, +1 for the rebels' side, 0 for a role alone."""
    return _ALIGNMENT.get(side_of(rdef), 0.0)


_ALIGNMENT: Final = {"lord": -1.0, "rebel": 1.0}


class RoleTable:
    """Each role id's side and alignment under one ruleset (:func:`side_of`, :func:`alignment`), looked up
    without reading the role definitions again; a role the rules do not define plays alone."""

    __slots__ = ("rules", "sides", "alignments")

    def __init__(self, rules: "Ruleset") -> None:
        self.rules = rules
        self.sides = {rid: side_of(rdef) for rid, rdef in rules.roles.items()}
        self.alignments = {rid: alignment(rdef) for rid, rdef in rules.roles.items()}

    def side(self, role: str) -> str:
        return self.sides.get(role, "alone")

    def alignment(self, role: str) -> float:
        return self.alignments.get(role, 0.0)


_last_table: Optional[RoleTable] = None


def role_table(rules: "Ruleset") -> RoleTable:
    """The :class:`RoleTable` of ``rules`` (the last one made is kept, with its rules)."""
    global _last_table
    table = _last_table
    if table is None or table.rules is not rules:
        table = _last_table = RoleTable(rules)
    return table


#: counts -> (the place of each role's digit, the full count vector, the roles not used up in each
#: count vector): a table's few role counts are worked out once
_STATES: Final[dict[tuple[int, ...], tuple[list[int], int, list[list[int]]]]] = {}


def _states(counts: Sequence[int]) -> tuple[list[int], int, list[list[int]]]:
    """For :func:`marginals`: a count vector is one number in mixed radix (digit r: how many of role r
    are used); the place of each digit, the number of the full vector, and for every number the roles
    (in order) that are not used up in it."""
    key = tuple(counts)
    got = _STATES.get(key)
    if got is None:
        k = len(counts)
        mult = [1] * k
        for r in range(1, k):
            mult[r] = mult[r - 1] * (counts[r - 1] + 1)
        full = sum(counts[r] * mult[r] for r in range(k))
        free = [[r for r in range(k) if (used // mult[r]) % (counts[r] + 1) < counts[r]]
                for used in range(full + 1)]
        got = (mult, full, free)
        if len(_STATES) < 64:
            _STATES[key] = got
    return got


#: one step of a sweep of :func:`marginals`: the terms it adds, in the order they are added, each as
#: (count vector before, count vector after, the role the seat takes)
_Step = list[tuple[int, int, int]]

#: the sums of one plan, as a Python function of the weights (:meth:`_Plan.source`)
_Sums = Callable[[Sequence[Sequence[float]]], list[list[float]]]


def _sweep(order: Sequence[int], mult: list[int], free: list[list[int]],
           positive: Optional[tuple[tuple[bool, ...], ...]]) -> tuple[list[_Step], list[list[int]]]:
    """The steps of a sweep over the seats in ``order`` (:class:`_Plan`), and the count vectors each step
    reaches, in the order first reached (the sums are taken in that order). A seat takes a role where its
    weight is positive (all do where ``positive`` is None)."""
    reached = [0]
    steps: list[_Step] = []
    reach = [reached]
    for i in order:
        seen: set[int] = set()
        nxt: list[int] = []
        terms: _Step = []
        for used in reached:
            for r in free[used]:
                if positive is None or positive[i][r]:
                    to = used + mult[r]
                    if to not in seen:
                        seen.add(to)
                        nxt.append(to)
                    terms.append((used, to, r))
        steps.append(terms)
        reach.append(nxt)
        reached = nxt
    return steps, reach


class _Plan:
    """Which terms :func:`marginals` adds, and in which order: they depend only on the counts and on
    which weights are positive (a zero weight adds no term), so they are found once for all weights.
    A plan asked for often is written out as straight-line Python (:meth:`source`, :meth:`written_out`):
    every partial sum a local, no list read or written per term.

    >>> print(_Plan([1, 1], None, 2).source(), end="")
    def sums(W):
        w0 = W[0]
        w1 = W[1]
        w0_0 = w0[0]
        w0_1 = w0[1]
        w1_0 = w1[0]
        w1_1 = w1[1]
        f1_1 = w0_0
        f1_2 = w0_1
        b1_1 = w1_0
        b1_2 = w1_1
        r0_0 = w0_0 * b1_2
        r0_1 = w0_1 * b1_1
        s = 0.0 + r0_0 + r0_1
        o0 = [r0_0 / s, r0_1 / s] if s > 0.0 else [0.0, 0.0]
        r1_1 = f1_1 * w1_1
        r1_0 = f1_2 * w1_0
        s = 0.0 + r1_0 + r1_1
        o1 = [r1_0 / s, r1_1 / s] if s > 0.0 else [0.0, 0.0]
        return [o0, o1]
    """

    __slots__ = ("size", "seats", "roles", "forward", "backward", "joins", "uses", "sums")

    def __init__(self, counts: Sequence[int], positive: Optional[tuple[tuple[bool, ...], ...]], n: int) -> None:
        mult, full, free = _states(counts)
        self.size = full + 1
        self.seats = n  # (how many: the counts' sum)
        self.roles = len(counts)
        self.forward, reached = _sweep(range(n), mult, free, positive)
        self.backward = _sweep(range(n - 1, -1, -1), mult, free, positive)[0]
        #: for each seat: (count vector before it, its role, count vector of the seats after it)
        self.joins = [[(before, r, full - before - mult[r]) for before in reached[i] for r in free[before]
                       if positive is None or positive[i][r]] for i in range(n)]
        self.uses = 0  # (how many times the sums were asked for: written out at the WRITE_OUT_AT-th)
        self.sums: Optional[_Sums] = None

    def written_out(self) -> _Sums:
        """The sums as a Python function of the weights (:meth:`source`), compiled once."""
        if self.sums is None:
            namespace: dict[str, Any] = {}
            exec(compile(self.source(), "<role marginals>", "exec"), namespace)  # noqa: S102
            self.sums = namespace["sums"]
        return self.sums

    def loops(self, weights: Sequence[Sequence[float]]) -> list[list[float]]:
        """The sums taken term by term in lists (until :meth:`written_out`; the same bits)."""
        n, k, size = self.seats, self.roles, self.size
        forward = _ways(weights, n, self.forward, size, False)  # forward[i]: the first i seats
        backward = _ways(weights, n, self.backward, size, True)  # backward[n - i]: the seats from i on
        out: list[list[float]] = []
        for i in range(n):
            row = [0.0] * k
            after = backward[n - 1 - i]
            w = weights[i]
            before_ways = forward[i]
            for before, r, rest in self.joins[i]:
                row[r] = row[r] + before_ways[before] * w[r] * after[rest]
            s = 0.0  # (added up in the roles' order, as sum() of 3.11 does: the same bits, and no call of it)
            for x in row:
                s += x
            out.append([x / s if s > 0.0 else 0.0 for x in row])
        return out

    def source(self) -> str:
        """The plan's sums as the source of a function ``sums(W)`` of the weights: the forward ways
        ``f{seat}_{count vector}``, the backward ways ``b{seat}_{count vector}``, each seat's row
        ``r{seat}_{role}``; every term is added in the order of the plan, so the result is the loops'
        bit for bit. Some steps of the loops are left out where they cannot change a value of finite
        weights that are not negative: a sum's first term is assigned, not added to ``0.0``; a product
        with the one way of no seat (``1.0``) is not taken; a join whose seats after have no way adds
        nothing; a share of ``0.0`` is ``0.0``."""
        n, k = self.seats, self.roles
        lines = ["def sums(W):"]
        used = {(i, r) for i in range(n) for _b, r, _a in self.joins[i]}
        for step in range(n):
            used |= {(step, r) for _b, _t, r in self.forward[step]}
            used |= {(n - 1 - step, r) for _b, _t, r in self.backward[step]}
        for i in range(n):
            lines.append(f"    w{i} = W[{i}]")
        lines += [f"    w{i}_{r} = w{i}[{r}]" for i, r in sorted(used)]

        def ways(tag: str, steps: list[_Step], backward: bool) -> set[tuple[int, int]]:
            # (the ways after the last seat are joined to nothing; 1.0 times a number is that number)
            have = {(0, 0)}
            for step in range(n - 1):
                seat = n - 1 - step if backward else step
                for before, to, r in steps[step]:
                    term = f"w{seat}_{r}" if step == 0 else f"{tag}{step}_{before} * w{seat}_{r}"
                    name = f"{tag}{step + 1}_{to}"
                    if (step + 1, to) in have:
                        lines.append(f"    {name} = {name} + {term}")
                    else:
                        have.add((step + 1, to))
                        lines.append(f"    {name} = {term}")
            return have

        ways("f", self.forward, False)
        after = ways("b", self.backward, True)
        rows = []
        for i in range(n):
            started: set[int] = set()
            for before, r, rest in self.joins[i]:
                if (n - 1 - i, rest) not in after:
                    continue  # (no way for the seats after: the loops add 0.0 here)
                term = " * ".join(([f"f{i}_{before}"] if i else []) + [f"w{i}_{r}"]
                                  + ([f"b{n - 1 - i}_{rest}"] if i < n - 1 else []))
                if r in started:
                    lines.append(f"    r{i}_{r} = r{i}_{r} + {term}")
                else:
                    started.add(r)
                    lines.append(f"    r{i}_{r} = {term}")
            row = [f"r{i}_{r}" if r in started else "0.0" for r in range(k)]
            lines.append(f"    s = 0.0 + {' + '.join(row)}")  # (in the roles' order, as sum() of 3.11 adds)
            shares = ", ".join("0.0" if x == "0.0" else f"{x} / s" for x in row)
            lines.append(f"    o{i} = [{shares}] if s > 0.0 else {[0.0] * k!r}")
            rows.append(f"o{i}")
        lines.append(f"    return [{', '.join(rows)}]")
        return "\n".join(lines) + "\n"


#: (counts, which weights are positive: None when all are) -> the plan of :func:`marginals`
_PLANS: Final[dict[tuple[tuple[int, ...], Optional[tuple[tuple[bool, ...], ...]]], _Plan]] = {}


def marginals(weights: Sequence[Sequence[float]], counts: Sequence[int]) -> list[list[float]]:
    """P(seat i has role r) when the roles (``counts[r]`` of role r, as many in all as there are
    seats) are dealt to the seats with probability proportional to the product of ``weights[i][r]``
    (finite, not negative).

    A forward pass sums the ways the first seats use up part of the counts, a backward pass the
    ways the last seats use up the rest; a seat's marginal joins the two around it. Which terms
    these sums have is found once for the counts (:class:`_Plan`); a plan asked for often has them written
    out as a Python function.

    >>> [[round(x, 3) for x in row] for row in marginals([[1.0, 1.0], [3.0, 1.0]], [1, 1])]
    [[0.25, 0.75], [0.75, 0.25]]
    """
    n = len(weights)
    if n == 0:
        return []
    every = True
    for w in weights:
        for x in w:
            if not x > 0.0:
                every = False
    positive = None if every else tuple([tuple([x > 0.0 for x in w]) for w in weights])
    key = (tuple(counts), positive)
    plan = _PLANS.get(key)
    if plan is None:
        assert sum(counts) == n, "as many roles as seats"
        plan = _Plan(counts, positive, n)
        if len(_PLANS) >= 256:
            _PLANS.clear()  # (a table has few counts: more plans than this are ruled-out roles of tests)
        _PLANS[key] = plan
    assert plan.seats == n, "as many roles as seats"  # (a plan's seats are its counts' sum)
    sums = plan.sums
    if sums is None:
        plan.uses += 1
        if plan.uses < WRITE_OUT_AT:
            return plan.loops(weights)
        sums = plan.written_out()
    return sums(weights)


#: a plan's sums are written out as Python once they are asked for this many times; till then they are
#: taken in lists. Compiling them costs about as much as 150 to 200 sums in lists save (300 to 450 µs
#: against 2 µs a sum, for the plans of a 5-player game), yet nearly every plan asked for 8 times is asked
#: for hundreds of times: written out at the 128th use instead, 5 heuristic games counted 4% more
#: instructions. A count of roles seen only a few times is never compiled
WRITE_OUT_AT: Final = 8


def _ways(rows: Sequence[Sequence[float]], n: int, steps: list[_Step], size: int,
          backward: bool) -> list[list[float]]:
    """Ways the ``n`` seats (taken in turn, from the last with ``backward``) use up part of the counts, after
    each seat: one list per step, indexed by count vector (0.0 where there is no way)."""
    cur = [0.0] * size
    cur[0] = 1.0
    out = [cur]
    for step in range(n):
        w = rows[n - 1 - step] if backward else rows[step]
        nxt = [0.0] * size
        for used, to, r in steps[step]:
            nxt[to] = nxt[to] + cur[used] * w[r]
        out.append(nxt)
        cur = nxt
    return out


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # (copied with the bot that keeps it)
class _Table:
    """What a seat's role probabilities rest on besides the evidence, for the roles it knows now: the
    roles in order, the certain rows of the known seats, the unknown seats, the roles left for them and
    each role's alignment."""

    def __init__(self, view: "SeatView") -> None:
        players = view.players
        counts = view.role_counts()
        roles = sorted(counts)
        hidden = dict(counts)  # (a plain dict: a Counter costs more to make than the rest of a look-up)
        known: dict[int, list[float]] = {}
        unknown: list[int] = []
        for p in players:
            role = view.role_of(p)
            if role is not None:
                known[p.seat] = [1.0 if r == role else 0.0 for r in roles]
                hidden[role] = hidden.get(role, 0) - 1
            else:
                unknown.append(p.seat)
        table = role_table(view.rules)
        self.roles = roles
        self.known = known
        self.unknown = unknown
        self.align = [table.alignment(r) for r in roles]
        self.left = [max(0, hidden.get(r, 0)) for r in roles]
        self.fits = bool(unknown) and sum(self.left) == len(unknown)


#: the row a seat has before the rows are filled in (shared, never changed)
_NO_ROW: Final[list[float]] = []


# (copied with the bot that keeps it; open to interpreted subclasses so that one made from Python is made right)
@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Belief:
    """What one seat believes of the others' roles, from its view only.

    :meth:`update` reads the public records it has not read yet; :meth:`probabilities` gives
    every seat's distribution over the roles (certain for its own and the revealed roles).
    """

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.seen = 0  # public records read
        self.evidence: dict[int, float] = {}  # seat -> how much it worked against the lord's side
        self._changes = 0  # evidence updates so far
        # what the cached probabilities were worked out from (the evidence updates, the roles shown, the rules),
        # a new object at each working out (:meth:`snapshot`'s stamp); the evidence updates alone
        self._key: Optional[tuple[object, ...]] = None
        self._key_changes = -1
        # the cached probabilities: seat -> its row (a probability per role of the table, in its order)
        self._rows: list[list[float]] = []
        self._leans: list[float] = []  # seat -> lean, for the cached rows
        self._probs: Optional[dict[int, dict[str, float]]] = None  # the rows as dictionaries, once asked for
        self._source: Optional[list[Any]] = None  # the game's public records read (one game's)
        # what the probabilities are worked out on besides the evidence, for the roles known now (_table)
        self._revealed: tuple[bool, ...] = ()  # (the table's: which roles were shown, and the rules' id)
        self._rules_id = 0
        self._table: Optional[_Table] = None
        self._holding = False  # a decision is being made (hold)
        self._held = -1  # while it is: the evidence updates the probabilities were last made or found for

    def reads(self, view: "SeatView") -> bool:
        """Whether this belief is that of ``view``'s seat in ``view``'s game (the records it read are
        the start of that game's public records)."""
        return self.seat == view.seat and (self._source is None or self._source is view.public)

    def update(self, view: "SeatView") -> None:
        """Read the public records that came after the last update."""
        records = view.public
        self._source = records
        if self.seen >= len(records):
            return
        lean: Optional[list[float]] = None  # every seat's lean before this update's evidence
        content = view.content
        for rec in records[self.seen:]:
            sign = act_sign(content, rec)
            if sign == 0:
                continue
            what, src, dst, _thing, amount = rec
            if src == dst:
                continue
            if lean is None:  # (taken at the first record that tells something, before any evidence is added)
                lean = self.leans(view)
            weight = WEIGHTS.get(what, 0.5) * max(1, amount) * sign
            # harming someone on one side is working for the other side; helping, for theirs
            self._add(src, -weight * lean[dst])
            if src != self.seat:  # (my own acts tell me nothing new of whom I aimed them at)
                self._add(dst, -weight * lean[src] * VICTIM_SHARE)
        self.seen = len(records)

    def _add(self, seat: int, amount: float) -> None:
        got = self.evidence.get(seat, 0.0) + amount
        self.evidence[seat] = max(-EVIDENCE_BOUND, min(EVIDENCE_BOUND, got))
        self._changes += 1

    def _current(self, view: "SeatView") -> _Table:
        """The table the cached rows and leans are for, the rows worked out again first if the evidence or
        the roles shown have changed since."""
        table = self._table
        if self._held == self._changes and table is not None:
            return table
        if self._holding:
            self._held = self._changes  # (from now until release: worked out below, or found the same)
        players = view.players
        revealed = tuple([p.role_revealed for p in players])
        changes, rules_id = self._changes, id(view.rules)
        same_table = table is not None and rules_id == self._rules_id and revealed == self._revealed
        if same_table and changes == self._key_changes:
            assert table is not None
            return table
        if table is None or not same_table:
            table = self._table = _Table(view)
            self._revealed, self._rules_id = revealed, rules_id
        key = (changes, revealed, rules_id)
        k = len(table.roles)
        rows: list[list[float]] = [_NO_ROW] * len(players)  # (every seat's is set below: known or not)
        for seat, row in table.known.items():
            rows[seat] = row
        unknown = table.unknown
        left = table.left
        align = table.align
        if table.fits:
            evidence = self.evidence
            weights: list[list[float]] = []
            for s in unknown:
                e = evidence.get(s, 0.0)
                weights.append([math.exp(e * a) for a in align])
            found = marginals(weights, left)
            for i in range(len(unknown)):  # (indexed: a zip is two iterators in the compiled build)
                rows[unknown[i]] = found[i]
        else:  # known roles that do not fit the table (a set-up game): the counts of what is left, evenly
            total = sum(left) or 1
            for s in unknown:
                rows[s] = [c / total for c in left]
        leans: list[float] = []
        for row in rows:
            lean = 0.0  # (added up in the roles' order, as sum() of 3.11 does: the same bits in both builds)
            for j in range(k):
                lean += row[j] * align[j]
            leans.append(lean)
        self._rows, self._leans, self._probs, self._key, self._key_changes = rows, leans, None, key, changes
        return table

    def snapshot(self, view: "SeatView") -> tuple[object, list[str], list[int], list[list[float]]]:
        """What a watcher reads of the belief at once (the role-reading meter of ``sgs simulate``): a stamp of
        what the probabilities are worked out from now (the evidence, the roles shown: the same object while
        they stay the same), the roles in the order of a row, the seats whose roles this seat does not know
        (in seat order) and every seat's row (:meth:`row`). The lists are the belief's own: read them."""
        table = self._current(view)
        key = self._key
        assert key is not None
        return key, table.roles, table.unknown, self._rows

    def probabilities(self, view: "SeatView") -> dict[int, dict[str, float]]:
        """Seat -> role -> probability, for every seat (this one and the revealed ones are certain).

        The dictionaries are the belief's own, kept while nothing changes (the same object): read them,
        do not change them."""
        table = self._current(view)
        probs = self._probs
        if probs is None:
            roles = table.roles
            probs = {}
            for seat in table.known:  # (the known seats first, then the others: as always)
                probs[seat] = dict(zip(roles, self._rows[seat]))
            for seat in table.unknown:
                probs[seat] = dict(zip(roles, self._rows[seat]))
            self._probs = probs
        return probs

    def roles(self, view: "SeatView") -> list[str]:
        """The roles in the order of a row (:meth:`row`)."""
        return self._current(view).roles

    def row(self, view: "SeatView", seat: int) -> list[float]:
        """One seat's probability of each role, in the order of :meth:`roles` (the belief's own list: read it)."""
        self._current(view)
        return self._rows[seat]

    def leans(self, view: "SeatView") -> list[float]:
        """Every seat's lean (:meth:`lean`), by seat: the belief's own list, kept while nothing changes."""
        self._current(view)
        return self._leans

    def hold(self) -> None:
        """A decision begins: nothing a bot could see changes while it decides, so the probabilities
        worked out (or found the same) at the first question are given, unchecked, until :meth:`release`
        (or new evidence)."""
        self._holding = True
        self._held = -1

    def release(self) -> None:
        """The decision is made: the probabilities are checked against the state again when asked."""
        self._holding = False
        self._held = -1

    def lean(self, view: "SeatView", seat: int) -> float:
        """The expected alignment of ``seat``: -1 surely with the lord, +1 surely a rebel."""
        self._current(view)
        return self._leans[seat]
