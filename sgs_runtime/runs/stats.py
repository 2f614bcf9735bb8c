"""Balance statistics: rates with intervals, differences with tests, the fair deal, and the tables
that control for role and seat (hero × role, cards and skills with the win rate when used).

Everything here is plain arithmetic over game summaries (:class:`~sgs_runtime.runs.simulate.GameSummary`)
or over counts; the runs themselves are in :mod:`sgs_runtime.runs.simulate` and :mod:`sgs_runtime.runs.abtest`.

Rates are per seat: a seat that played a hero in a game counts once, and counts as won if that
seat is among the game's winners. Intervals are 95% Wilson score intervals.

>>> wilson(0, 0), wilson(5, 10)
((0.0, 0.0), (0.2366, 0.7634))
>>> d = two_proportion(45, 100, 60, 100)
>>> d["diff"], d["z"], d["p"]
(0.15, 2.124, 0.0337)
"""

from __future__ import annotations

import heapq
import math
import random
from collections import Counter
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Sequence

from sgs_runtime.errors import UsageError
from sgs_runtime.state.chance import shuffle

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.runs.simulate import GameSummary

#: the normal quantile of a two-sided 95% interval
Z95 = 1.959963984540054

#: below this many seats a rate is flagged as a small sample (its interval is wider than about ±0.18)
MIN_SAMPLE = 30

#: a deal: for each role, the heroes its seats get, in seat order
Deal = dict[str, list[str]]


# ---------------------------------------------------------------------- rates and tests


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a rate k/n (rounded to 4 places; (0, 0) when n is 0)."""
    if n == 0:
        return (0.0, 0.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4))


def rate(won: int, n: int, count: str = "played") -> dict[str, Any]:
    """A rate entry: ``{count: n, "won": won, "rate", "ci95", "small"}`` (``small``: fewer than MIN_SAMPLE)."""
    return {count: n, "won": won, "rate": round(won / n, 4) if n else 0.0, "ci95": wilson(won, n),
            "small": n < MIN_SAMPLE}


def two_sided_p(z: float) -> float:
    """The two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


def two_proportion(ka: int, na: int, kb: int, nb: int) -> dict[str, Any]:
    """B's rate minus A's with its 95% (Wald) interval, and the pooled two-proportion z-test.

    With no variation at all (both rates 0 or both 1) z is 0 and p is 1."""
    pa = ka / na if na else 0.0
    pb = kb / nb if nb else 0.0
    diff = pb - pa
    se = math.sqrt(pa * (1 - pa) / na + pb * (1 - pb) / nb) if na and nb else 0.0
    pooled = (ka + kb) / (na + nb) if na + nb else 0.0
    se0 = math.sqrt(pooled * (1 - pooled) * (1 / na + 1 / nb)) if na and nb else 0.0
    z = diff / se0 if se0 > 0 else 0.0
    return {"test": "two-proportion z-test", "a": rate(ka, na, "n"), "b": rate(kb, nb, "n"),
            "diff": round(diff, 4), "ci95": (round(diff - Z95 * se, 4), round(diff + Z95 * se, 4)),
            "z": round(z, 4), "p": round(two_sided_p(z) if se0 > 0 else 1.0, 4)}


def paired_difference(pairs: Sequence[tuple[bool, bool]]) -> dict[str, Any]:
    """B minus A over paired outcomes (the same game seed and seat in both runs).

    The difference is (c − b)/n, where b pairs were won in A only and c in B only; its 95%
    interval is the Wald interval of a paired difference, and the test is McNemar's
    (z = (c − b)/√(b + c)). With no discordant pair the difference is 0 and p is 1."""
    n = len(pairs)
    ka = sum(1 for a, _ in pairs if a)
    kb = sum(1 for _, b in pairs if b)
    only_a = sum(1 for a, b in pairs if a and not b)
    only_b = sum(1 for a, b in pairs if b and not a)
    diff = (only_b - only_a) / n if n else 0.0
    se = math.sqrt(max(0.0, _paired_variance(n, only_a, only_b)))
    discordant = only_a + only_b
    z = (only_b - only_a) / math.sqrt(discordant) if discordant else 0.0
    return {"test": "paired (McNemar) z-test", "a": rate(ka, n, "n"), "b": rate(kb, n, "n"),
            "pairs": n, "won_in_a_only": only_a, "won_in_b_only": only_b,
            "diff": round(diff, 4), "ci95": (round(diff - Z95 * se, 4), round(diff + Z95 * se, 4)),
            "z": round(z, 4), "p": round(two_sided_p(z) if discordant else 1.0, 4)}


def _paired_variance(n: int, only_a: int, only_b: int) -> float:
    """The variance of a paired difference (c − b)/n over ``n`` pairs, ``only_a`` (b) won in A alone
    and ``only_b`` (c) in B alone (0 with no pair)."""
    return (only_a + only_b - (only_b - only_a) ** 2 / n) / (n * n) if n else 0.0


def chi2_sf(x: float, df: int) -> float:
    """P(X ≥ x) for a chi-squared variable with ``df`` degrees of freedom (exact, from the closed
    forms for 1 and 2 degrees and the recurrence Q(k + 2) = Q(k) + (x/2)^(k/2) e^(−x/2) / Γ(k/2 + 1)).

    >>> round(chi2_sf(3.841459, 1), 4), round(chi2_sf(5.991465, 2), 4), round(chi2_sf(7.814728, 3), 4)
    (0.05, 0.05, 0.05)
    """
    if df < 1:
        raise ValueError("chi2_sf: at least one degree of freedom")
    if x <= 0:
        return 1.0
    half = x / 2
    k = 2 - df % 2
    q = math.exp(-half) if k == 2 else math.erfc(math.sqrt(half))
    while k < df:
        q += math.exp((k / 2) * math.log(half) - half - math.lgamma(k / 2 + 1))
        k += 2
    return min(1.0, q)


def heterogeneity(parts: Sequence[dict[str, Any]]) -> Optional[dict[str, Any]]:
    """Whether paired differences (:func:`paired_difference`, one per stratum: a player count) differ
    more than their noise: Cochran's Q, the sum of ``w·(d − d̄)²`` with ``w`` the inverse of each
    difference's variance and ``d̄`` their weighted mean, against chi-squared with one degree fewer
    than the strata. A stratum with no changed pair has no variance and is left out; with fewer than
    two left there is no test (``None``).

    >>> a = {"pairs": 100, "won_in_a_only": 10, "won_in_b_only": 30}
    >>> heterogeneity([a, dict(a)])["p"]
    1.0
    >>> heterogeneity([a, {"pairs": 100, "won_in_a_only": 30, "won_in_b_only": 10}])["p"] < 0.001
    True
    """
    ds, ws = [], []
    for d in parts:
        n, b, c = d["pairs"], d["won_in_a_only"], d["won_in_b_only"]
        var = _paired_variance(n, b, c)
        if var > 0:
            ds.append((c - b) / n)
            ws.append(1 / var)
    if len(ds) < 2:
        return None
    mean = sum(w * d for w, d in zip(ws, ds)) / sum(ws)
    q = sum(w * (d - mean) ** 2 for w, d in zip(ws, ds))
    df = len(ds) - 1
    return {"test": "Cochran's Q over the player counts", "q": round(q, 4), "df": df,
            "p": round(chi2_sf(q, df), 4), "counts": len(ds)}


# ---------------------------------------------------------------------- the fair deal


def balanced_deals(pool: Sequence[str], table: Sequence[str], games: int, seed: int,
                   lord_role: Optional[str] = None, can_be_lord: Callable[[str], bool] = lambda h: True) -> list[Deal]:
    """A balanced design of ``games`` deals: in each role, every hero that may take it gets the same
    number of seats over the run, give or take one; each game's heroes are distinct.

    ``table`` is the role of each seat (the rules' role table for the player count); only heroes
    for which ``can_be_lord`` holds are dealt the ``lord_role``. The same arguments give the same
    design. How: each role's seats are shared out among its heroes (quotas differing by at most one,
    the extra seats going to the heroes with the fewest games so far), each role is cut into one
    column per seat of it, holding exactly ``games`` entries, and the hero–column multigraph (every
    degree at most ``games``) is edge-coloured with ``games`` colours (König's theorem: a bipartite
    graph needs no more colours than its largest degree). A colour is one game."""
    rng = random.Random(f"sgs-fair-pool:{seed}")
    heroes = list(dict.fromkeys(pool))
    roles = list(dict.fromkeys(table))
    seats = Counter(table)
    eligible = {r: [h for h in heroes if r != lord_role or can_be_lord(h)] for r in roles}
    for r in roles:
        if len(eligible[r]) < seats[r]:
            raise UsageError(f"a fair pool needs at least {seats[r]} hero(es) that can be {r}; the pool has "
                             f"{len(eligible[r])}")
    if len(heroes) < len(table):
        raise UsageError(f"a fair pool needs at least {len(table)} heroes for {len(table)} players; "
                         f"the pool has {len(heroes)}")
    order = list(heroes)
    shuffle(rng, order)
    rank = {h: i for i, h in enumerate(order)}
    total: Counter[str] = Counter()
    quota: dict[tuple[str, str], int] = {}
    for r in sorted(roles, key=lambda r: (len(eligible[r]), roles.index(r))):  # the narrowest role first
        need = games * seats[r]
        base, extra = divmod(need, len(eligible[r]))
        lucky = sorted(eligible[r], key=lambda h: (total[h], rank[h]))[:extra]
        for h in eligible[r]:
            quota[(h, r)] = base + (1 if h in lucky else 0)
            total[h] += quota[(h, r)]
    if any(n > games for n in total.values()):
        raise UsageError("this pool cannot be dealt fairly: some hero would need more seats than there are games "
                         "(the lord's choices are too few); add heroes to the pool")
    # columns: each role's entries cut into one column of `games` entries per seat of the role
    columns: list[str] = []
    edges: list[tuple[str, int]] = []
    for r in roles:
        units = [h for h in sorted(eligible[r], key=lambda h: rank[h]) for _ in range(quota[(h, r)])]
        for j in range(seats[r]):
            col = len(columns)
            columns.append(r)
            edges.extend((h, col) for h in units[j * games:(j + 1) * games])
    colour_of = _edge_colouring(edges, games)
    games_of: list[Deal] = [{r: [] for r in roles} for _ in range(games)]
    slots: list[list[tuple[int, str]]] = [[] for _ in range(games)]
    for (h, col), c in zip(edges, colour_of):
        slots[c].append((col, h))
    which = list(range(games))
    shuffle(rng, which)  # colours to game indices: the order of the design does not follow the quotas
    for c, game in enumerate(which):
        for col, h in sorted(slots[c]):
            games_of[game][columns[col]].append(h)
    return games_of


def _edge_colouring(edges: Sequence[tuple[str, int]], colours: int) -> list[int]:
    """A proper colouring of a bipartite multigraph (heroes, columns) with ``colours`` colours, each
    degree being at most that: alternating-path (Kempe chain) recolouring."""
    at: dict[Any, dict[int, Any]] = {}  # vertex -> colour -> the vertex across that edge
    fresh: dict[Any, int] = {}  # vertex -> the lowest colour it has never had (or has again)
    freed: dict[Any, list[int]] = {}  # vertex -> a heap of colours it lost (some may be taken again)

    def free(v: Any) -> int:
        """The lowest colour free at ``v``."""
        used = at.setdefault(v, {})
        heap = freed.setdefault(v, [])
        while heap and heap[0] in used:
            heapq.heappop(heap)
        low = fresh.get(v, 0)
        while low in used:
            low += 1
        fresh[v] = low
        return min(low, heap[0]) if heap else low

    for hero, col in edges:
        u, v = ("h", hero), ("c", col)
        a, b = free(u), free(v)
        if a in at[v]:  # swap a and b along the path from v that starts with colour a; it cannot reach u
            path = []
            x, c = v, a
            while c in at.setdefault(x, {}):
                y = at[x][c]
                path.append((x, y, c))
                x, c = y, (b if c == a else a)
            for x, y, c in path:
                del at[x][c], at[y][c]
                heapq.heappush(freed.setdefault(x, []), c)
                heapq.heappush(freed.setdefault(y, []), c)
            for x, y, c in path:
                other = b if c == a else a
                at[x][other], at[y][other] = y, x
        at[u][a], at[v][a] = v, u
    # each edge's colour is read back from its ends (recolouring may have changed earlier ones)
    return _read_colours(edges, at)


def _read_colours(edges: Sequence[tuple[str, int]], at: dict[Any, dict[int, Any]]) -> list[int]:
    """The colour of each edge, from the colouring's tables (multi-edges take their colours in turn)."""
    taken: dict[tuple[str, int], list[int]] = {}
    for hero, col in edges:
        key = (hero, col)
        if key not in taken:
            taken[key] = sorted(c for c, y in at[("h", hero)].items() if y == ("c", col))
    out = []
    for key in edges:
        out.append(taken[key].pop())
    return out


def force_hero(deals: Sequence[Deal], hero: str, seed: int, lord_role: Optional[str] = None,
               hero_can_be_lord: bool = True) -> tuple[list[Deal], list[str]]:
    """The deals with ``hero`` in every game, and the hero it replaces in each (the baseline's seat).

    The seat it takes goes round the table's seats in a shuffled order, so that over the run it
    plays each role as often as a seat does (never the lord's if it cannot be lord)."""
    rng = random.Random(f"sgs-force-hero:{seed}:{hero}")
    if not deals:
        return [], []
    places = [(r, i) for r, hs in deals[0].items() for i in range(len(hs)) if r != lord_role or hero_can_be_lord]
    if not places:
        raise UsageError(f"the hero '{hero}' can take no seat of this table")
    shuffle(rng, places)
    out: list[Deal] = []
    replaced: list[str] = []
    for g, deal in enumerate(deals):
        role, i = places[g % len(places)]
        new = {r: list(hs) for r, hs in deal.items()}
        replaced.append(new[role][i])
        new[role][i] = hero
        out.append(new)
    return out, replaced


# ---------------------------------------------------------------------- tables from summaries


def finished(summaries: Iterable["GameSummary"]) -> list["GameSummary"]:
    """The games that ended with a result (no error, no limit, no broken invariant): the rates' games."""
    return [s for s in summaries if s.error is None and s.limit is None and s.violation is None]


def seat_won(s: "GameSummary", seat: int) -> bool:
    """Whether the seat's player is among the game's winners."""
    return s.heroes[seat][0] in s.winners


def hero_roles(summaries: Sequence["GameSummary"], lord_role: Optional[str]) -> dict[str, Any]:
    """Per hero: its rate in each role, in every seat but the lord's (``not_lord``), over all seats,
    and ``vs_roles``: its rate against what its seats' roles win on average (see :func:`vs_roles`)."""
    played: Counter[tuple[str, str]] = Counter()
    won: Counter[tuple[str, str]] = Counter()
    for s in finished(summaries):
        for seat, (hero, role) in enumerate(s.heroes):
            w = seat_won(s, seat)
            for key in (role, "all", *(("not_lord",) if role != lord_role else ())):
                played[(hero, key)] += 1
                won[(hero, key)] += w
    role_seats: Counter[str] = Counter()
    role_won: Counter[str] = Counter()
    for (_, key), n in played.items():
        if key not in ("all", "not_lord"):
            role_seats[key] += n
    for (_, key), n in won.items():
        if key not in ("all", "not_lord"):
            role_won[key] += n
    out: dict[str, Any] = {}
    for hero in sorted({h for h, _ in played}):
        keys = sorted(k for h, k in played if h == hero and k not in ("all", "not_lord"))
        every = rate(won[(hero, "all")], played[(hero, "all")])
        expected = sum(role_won[k] / role_seats[k] * played[(hero, k)] for k in keys) / every["played"]
        out[hero] = {"roles": {k: rate(won[(hero, k)], played[(hero, k)]) for k in keys},
                     "not_lord": rate(won[(hero, "not_lord")], played[(hero, "not_lord")]),
                     "all": every, "vs_roles": vs_roles(every, expected)}
    return out


def vs_roles(every: dict[str, Any], expected: float) -> dict[str, Any]:
    """A hero's rate against the rate its seats would have had on average: ``expected`` is the mean,
    over the seats it played, of the win rate of that seat's role (all heroes); ``excess`` is its
    rate minus that, with its Wilson interval moved by the same amount. Positive: it wins more than
    its roles do, whatever mix of roles it was dealt."""
    lo, hi = every["ci95"]
    return {"expected": round(expected, 4), "excess": round(every["rate"] - expected, 4),
            "ci95": (round(lo - expected, 4), round(hi - expected, 4))}


def usage(summaries: Sequence["GameSummary"], kind: str) -> dict[str, Any]:
    """Per card kind (``kind`` "card") or skill ("skill"): uses over all games, the seats (one a game)
    that used it, and their win rate; beside it the win rate of every seat, for comparison."""
    uses: Counter[str] = Counter()
    for s in summaries:
        uses.update(s.cards if kind == "card" else s.skills)
    seats: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    for s in finished(summaries):
        users = s.card_users if kind == "card" else s.skill_users
        for item, by in users.items():
            for seat in by:
                seats[item] += 1
                wins[item] += seat_won(s, seat)
    return {item: {"uses": uses[item], **rate(wins[item], seats[item], "seats")} for item in sorted(uses)}


def deal_counts(summaries: Sequence["GameSummary"], leave_out: Optional[str] = None) -> dict[str, Any]:
    """How many seats of each role each hero was dealt (all games, finished or not), and per role the
    spread (most − fewest, over the heroes dealt that role at least once); ``leave_out``: a hero
    not counted (a hero forced into every game)."""
    counts: dict[str, Counter[str]] = {}
    for s in summaries:
        for hero, role in s.heroes:
            if hero != leave_out:
                counts.setdefault(hero, Counter())[role] += 1
    return _spread(counts)


def _spread(counts: dict[str, Counter[str]]) -> dict[str, Any]:
    roles = sorted({r for c in counts.values() for r in c})
    spread = {}
    for r in roles:
        got = [c[r] for c in counts.values() if c[r]]
        spread[r] = max(got) - min(got) if got else 0
    return {"counts": {h: dict(sorted(c.items())) for h, c in sorted(counts.items())}, "spread": spread}


def limit_kinds(summaries: Sequence["GameSummary"]) -> dict[str, int]:
    """How many games each kind of limit cut short (turn, step ...)."""
    return dict(sorted(Counter(s.limit for s in summaries if s.limit is not None).items()))


def balance(summaries: Sequence["GameSummary"], lord_role: Optional[str], fair_pool: bool) -> dict[str, Any]:
    """The report's balance fields from a run's summaries."""
    out: dict[str, Any] = {"lord_role": lord_role, "hero_roles": hero_roles(summaries, lord_role),
                           "card_stats": usage(summaries, "card"), "skill_stats": usage(summaries, "skill"),
                           "limit_kinds": limit_kinds(summaries), "pool": "fair" if fair_pool else "offers"}
    if fair_pool:
        out["fair_pool"] = deal_counts(summaries)
    return out


# ---------------------------------------------------------------------- several player counts


def _merge_rates(tables: Iterable[dict[str, Any]], count: str = "played") -> dict[str, Any]:
    n: Counter[str] = Counter()
    w: Counter[str] = Counter()
    for t in tables:
        for k, v in t.items():
            n[k] += v[count]
            w[k] += v["won"]
    return {k: rate(w[k], n[k], count) for k in sorted(n)}


def merge_balance(reports: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The balance fields over several player counts' reports (sums, rates again)."""
    out: dict[str, Any] = {"lord_role": reports[0].get("lord_role"), "pool": reports[0].get("pool", "offers")}
    heroes = sorted({h for r in reports for h in r.get("hero_roles", {})})
    table: dict[str, Any] = {}
    for h in heroes:
        parts = [r["hero_roles"][h] for r in reports if h in r.get("hero_roles", {})]
        every = _merge_rates({"x": p["all"]} for p in parts).get("x", rate(0, 0))
        expected = (sum(p["vs_roles"]["expected"] * p["all"]["played"] for p in parts) / every["played"]
                    if every["played"] else 0.0)
        table[h] = {"roles": _merge_rates(p["roles"] for p in parts),
                    "not_lord": _merge_rates({"x": p["not_lord"]} for p in parts).get("x", rate(0, 0)),
                    "all": every, "vs_roles": vs_roles(every, expected)}
    out["hero_roles"] = table
    for key in ("card_stats", "skill_stats"):
        tables = [r.get(key, {}) for r in reports]
        merged = _merge_rates(tables, "seats")
        uses: Counter[str] = Counter()
        for t in tables:
            uses.update({k: v["uses"] for k, v in t.items()})
        out[key] = {k: {"uses": uses[k], **merged[k]} for k in sorted(uses)}
    kinds: Counter[str] = Counter()
    for r in reports:
        kinds.update(r.get("limit_kinds", {}))
    out["limit_kinds"] = dict(sorted(kinds.items()))
    if all("fair_pool" in r for r in reports):
        counts: dict[str, Counter[str]] = {}
        for r in reports:
            for h, c in r["fair_pool"]["counts"].items():
                counts.setdefault(h, Counter()).update(c)
        out["fair_pool"] = _spread(counts)
    return out


# ---------------------------------------------------------------------- warnings


def warnings(rep: dict[str, Any]) -> list[str]:
    """What a reader of the report should be told before trusting it: games cut short, errors,
    small samples, bots that measure themselves more than the heroes."""
    out: list[str] = []
    games = rep["games"]
    if rep.get("limits"):
        kinds = ", ".join(f"{n} by the {k} limit" for k, n in rep.get("limit_kinds", {}).items())
        out.append(f"{rep['limits']} of {games} games were cut short ({kinds}): a bot limit was hit, and those "
                   "games are left out of every rate")
    if rep.get("errors"):
        out.append(f"{rep['errors']} of {games} games stopped with an engine error and are left out of every rate")
    if rep.get("draws"):
        out.append(f"{rep['draws']} games ended with no winner")
    heroes = rep.get("heroes", {})
    small = [h for h, v in heroes.items() if v["played"] < MIN_SAMPLE]
    if small:
        out.append(f"{len(small)} of {len(heroes)} heroes played fewer than {MIN_SAMPLE} seats: their rates are "
                   "too uncertain to rank them (see the intervals); play more games")
    cells = [(h, r) for h, v in rep.get("hero_roles", {}).items() for r, e in v["roles"].items() if e["small"]]
    if cells:
        out.append(f"{len(cells)} hero × role cells have fewer than {MIN_SAMPLE} seats (marked *)")
    if rep.get("pool", "offers") != "fair":
        out.append("heroes were chosen by the bots from the rules' offers, so heroes differ in games and roles "
                   "(lord choices play the lord far more often); --fair-pool deals a balanced design")
    if str(rep.get("agents", "")).split("@")[0] == "random":
        out.append("random bots played: the rates describe random play more than the heroes")
    return out
