"""A/B runs: two contents on the same games, or a hero forced into every game against a baseline.

Both runs play the same games: the same seeds (so the same roles at the same seats, the same deck
order and the same bots) and the same balanced deal (stats.balanced_deals). A game of A and the game
of B with the same index are a pair, and a seat's outcome in A and in B is a paired observation:

* ``compare(A, B)``: the contents differ (a hero's new text against its old one); each hero sits at
  the same seat in both, and the heroes whose definition differs are the focus;
* ``compare(..., force="X")``: hero X sits in every game of both runs (a seat that goes round the
  table over the run, playing each role as often as a seat does);
* a forced hero against a baseline (A and B the same content): in B hero X takes the seat that in
  A is played by the hero the deal gives; the focus is that seat.

For each focus (and each role, and each hero) the report gives B's rate minus A's, its 95%
interval and McNemar's test over the pairs (stats.paired_difference), and beside it the unpaired
two-proportion test over all the seats. A difference is called significant when p < ALPHA.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Optional, Sequence

from sgs_runtime.errors import UsageError
from sgs_runtime.runs.simulate import GameSummary, fair_deals, play_games, run_report
from sgs_runtime.runs.stats import (
    Deal,
    deal_counts,
    finished,
    force_hero,
    heterogeneity,
    paired_difference,
    seat_won,
    two_proportion,
)
from sgs_runtime.state.definitions import Content

#: the significance level of the reports' tests
ALPHA = 0.05

#: a focus name -> per game, the hero whose seat is meant in A and in B
Focus = dict[str, tuple[list[str], list[str]]]


@dataclass
class Arm:
    """One side of a comparison: a label (shown in the report), its content, and how a worker loads it."""

    label: str
    content: Content
    content_dir: Optional[str] = None


def hero_signature(content: Content, hid: str) -> tuple[Any, ...]:
    """What a hero is, for telling whether two contents define it alike: its numbers, its skills and
    their texts and kinds."""
    h = content.heroes[hid]
    skills = []
    for sid in h.skills:
        sk = content.skills.get(sid)
        skills.append((sid, None) if sk is None else
                      (sid, sk.text.zh, sk.text.en, sk.locked, sk.lord, len(sk.triggers), len(sk.view_as),
                       sk.active is not None, len(sk.modifiers), len(sk.prohibitions), len(sk.filters)))
    return (h.hp, h.kingdoms or (h.kingdom,), h.gender, h.can_be_lord, tuple(skills))


def changed_heroes(a: Content, b: Content) -> list[str]:
    """The heroes both contents have and define differently."""
    return sorted(h for h in set(a.heroes) & set(b.heroes) if hero_signature(a, h) != hero_signature(b, h))


def _seat_of(s: GameSummary, hero: str) -> Optional[int]:
    return next((i for i, (h, _) in enumerate(s.heroes) if h == hero), None)


def _pairs(a: Sequence[GameSummary], b: Sequence[GameSummary],
           pick: Callable[[GameSummary, GameSummary], Sequence[tuple[int, int]]]) -> list[tuple[bool, bool]]:
    """The paired outcomes: for each game finished in both runs, the seats ``pick`` names (a seat
    in A, a seat in B), won or not."""
    done_b = {s.index: s for s in finished(b)}
    out = []
    for sa in finished(a):
        sb = done_b.get(sa.index)
        if sb is None:
            continue
        for seat_a, seat_b in pick(sa, sb):
            out.append((seat_won(sa, seat_a), seat_won(sb, seat_b)))
    return out


def _difference(pairs: list[tuple[bool, bool]], a_all: tuple[int, int], b_all: tuple[int, int]) -> dict[str, Any]:
    """The paired difference, with the unpaired test over all seats beside it."""
    d = paired_difference(pairs)
    d["significant"] = d["p"] < ALPHA
    d["unpaired"] = two_proportion(a_all[1], a_all[0], b_all[1], b_all[0])
    return d


def _seats_of(summaries: Sequence[GameSummary], which: Callable[[GameSummary], list[int]]) -> tuple[int, int]:
    """(seats, won) over the finished games, for the seats ``which`` names in each."""
    n = k = 0
    for s in finished(summaries):
        for seat in which(s):
            n += 1
            k += seat_won(s, seat)
    return n, k


def _same_seat(hero: str) -> Callable[[GameSummary, GameSummary], list[tuple[int, int]]]:
    def pick(sa: GameSummary, sb: GameSummary) -> list[tuple[int, int]]:
        i, j = _seat_of(sa, hero), _seat_of(sb, hero)
        return [(i, j)] if i is not None and j is not None else []
    return pick


def _named_seat(heroes: list[str]) -> Callable[[GameSummary], list[int]]:
    """The seat of the hero named for each game (``heroes[game index]``), if it sits there."""
    def which(s: GameSummary) -> list[int]:
        i = _seat_of(s, heroes[s.index])
        return [i] if i is not None else []
    return which


def _hero_seats(hero: str) -> Callable[[GameSummary], list[int]]:
    def which(s: GameSummary) -> list[int]:
        i = _seat_of(s, hero)
        return [i] if i is not None else []
    return which


def comparison(a: Sequence[GameSummary], b: Sequence[GameSummary], focus: Focus,
               ) -> dict[str, Any]:
    """The A/B figures: for each focus (a name and, per game, the hero whose seat is meant in A and
    in B), each role (every seat of it), and each hero that sits at the same seat in both runs."""
    out: dict[str, Any] = {"focus": {}, "roles": {}, "heroes": {}}
    for name, (in_a, in_b) in focus.items():
        seat_a, seat_b = _named_seat(in_a), _named_seat(in_b)

        def pick(sa: GameSummary, sb: GameSummary, seat_a: Callable[[GameSummary], list[int]] = seat_a,
                 seat_b: Callable[[GameSummary], list[int]] = seat_b) -> list[tuple[int, int]]:
            return list(zip(seat_a(sa), seat_b(sb)))

        out["focus"][name] = _difference(_pairs(a, b, pick), _seats_of(a, seat_a), _seats_of(b, seat_b))
    roles = sorted({r for s in [*a, *b] for _, r in s.heroes})
    for role in roles:
        def same_role(sa: GameSummary, sb: GameSummary, role: str = role) -> list[tuple[int, int]]:
            return [(i, i) for i, (_, r) in enumerate(sa.heroes) if r == role and i < len(sb.heroes)
                    and sb.heroes[i][1] == role]

        def of_role(s: GameSummary, role: str = role) -> list[int]:
            return [i for i, (_, r) in enumerate(s.heroes) if r == role]

        out["roles"][role] = _difference(_pairs(a, b, same_role), _seats_of(a, of_role), _seats_of(b, of_role))
    heroes = sorted({h for s in a for h, _ in s.heroes} & {h for s in b for h, _ in s.heroes})
    for hero in heroes:
        out["heroes"][hero] = _difference(_pairs(a, b, _same_seat(hero)), _seats_of(a, _hero_seats(hero)),
                                          _seats_of(b, _hero_seats(hero)))
    return out


def compare(a: Arm, b: Arm, *, rules_id: Optional[str] = None, players: "int | Sequence[int]" = 5, games: int = 100,
            seed: int = 0, agents: str = "random", hero_pool: Optional[Sequence[str]] = None,
            force: Optional[str] = None, baseline: bool = False, options: Optional[dict[str, Any]] = None,
            workers: int = 1, backend: str = "process", scheduler: Optional[str] = None,
            progress: Optional[Callable[[int], None]] = None, check: bool = False) -> dict[str, Any]:
    """Play the same games with A and with B and compare them (see the module's text).

    ``check``: test the invariants after every step of every game of both arms; the report's
    ``violations`` and ``violation_samples`` count both (each sample says its arm).

    ``force``: a hero in every game; with ``baseline`` A and B are one content and the hero is
    forced into B only, against the hero A's deal puts at that seat. The report is B's, with
    ``compare`` (the figures) and ``baseline`` (A's full report) added.

    ``players`` may name several player counts: each count is compared on its own (in
    ``by_players``, as a run over several counts reports), and ``compare`` pools the pairs of
    every count (a game of one count is paired only with the same game of that count)."""
    counts = [players] if isinstance(players, int) else list(dict.fromkeys(players))
    if not counts:
        raise UsageError("compare: no player count")
    run: dict[str, Any] = dict(rules_id=rules_id, games=games, seed=seed, agents=agents, hero_pool=hero_pool,
                               force=force, baseline=baseline, options=options, workers=workers, backend=backend,
                               scheduler=scheduler, progress=progress, check=check)
    if len(counts) == 1:
        rep, _runs = _compare_one(a, b, players=counts[0], **run)
        return rep
    from sgs_runtime.runs.simulate import combine

    reps: dict[int, dict[str, Any]] = {}
    pooled_a: list[GameSummary] = []
    pooled_b: list[GameSummary] = []
    focus: Focus = {}
    for k, n in enumerate(counts):
        reps[n], (sum_a, sum_b, count_focus) = _compare_one(a, b, players=n, **run)
        offset = k * games  # game i of the k-th count is game k * games + i of the pool
        pooled_a += [replace(s, index=s.index + offset) for s in sum_a]
        pooled_b += [replace(s, index=s.index + offset) for s in sum_b]
        for name, (in_a, in_b) in count_focus.items():  # (no hero's seat is meant in a count without it)
            acc = focus.setdefault(name, ([""] * games * len(counts), [""] * games * len(counts)))
            acc[0][offset:offset + games] = in_a
            acc[1][offset:offset + games] = in_b
    rep = combine(reps)
    first = reps[counts[0]]["compare"]
    rep["compare"] = {**{key: first[key] for key in ("a", "b", "mode", "forced", "changed_heroes", "alpha")},
                      "paired_by": "player count, game seed and seat", "players": counts,
                      **comparison(pooled_a, pooled_b, focus)}
    for table in ("focus", "roles"):  # whether the counts' differences differ more than their noise
        for name, d in rep["compare"][table].items():
            parts = [r["compare"][table][name] for r in reps.values() if name in r["compare"][table]]
            d["counts_differ"] = heterogeneity(parts)
    if force is not None:
        rep["compare"]["forced_roles"] = _forced_roles(pooled_b, force)
    rep["baseline"] = combine({n: r["baseline"] for n, r in reps.items()})
    rep["warnings"] = [f"{n} players: {w}" for n in counts for w in reps[n]["warnings"]]
    return rep


def _compare_one(a: Arm, b: Arm, *, rules_id: Optional[str], players: int, games: int, seed: int, agents: str,
                 hero_pool: Optional[Sequence[str]], force: Optional[str], baseline: bool,
                 options: Optional[dict[str, Any]], workers: int, backend: str, scheduler: Optional[str],
                 progress: Optional[Callable[[int], None]], check: bool = False,
                 ) -> tuple[dict[str, Any], tuple[list[GameSummary], list[GameSummary], Focus]]:
    """:func:`compare` at one player count: the report, and the games and focus it was worked out from."""
    rules = a.content.ruleset(rules_id)
    b.content.ruleset(rules.id)  # both contents must have the rules
    changed = changed_heroes(a.content, b.content)
    pool = _design_pool(a.content, rules.id, players, hero_pool, options, force)
    pool += [h for h in changed if h not in pool and h != force]  # the heroes that differ are played
    missing = [h for h in pool + ([force] if force else []) if h not in b.content.heroes]
    if missing:
        raise UsageError(f"{b.label} has no hero {', '.join(missing)} of {a.label}'s pool: the runs could not "
                         "deal the same heroes")
    deals = fair_deals(a.content, rules.id, players, games, seed, pool, options)
    deals_a: list[Deal] = deals
    deals_b: list[Deal] = deals
    focus: Focus = {}
    if force is not None:
        forced, replaced = force_hero(deals, force, seed, rules.selection.lord_role,
                                      a.content.heroes[force].can_be_lord)
        deals_b = forced
        if baseline:
            focus[force] = (replaced, [force] * games)
        else:
            deals_a = forced
            focus[force] = ([force] * games, [force] * games)
    for hero in changed:
        if hero not in focus:
            focus[hero] = ([hero] * games, [hero] * games)
    runs = []
    for arm, arm_deals in ((a, deals_a), (b, deals_b)):
        summaries, seconds = play_games(arm.content, rules_id=rules.id, players=players, games=games, seed=seed,
                                        workers=workers, content_dir=arm.content_dir, agents=agents,
                                        hero_pool=pool, options=options, backend=backend, scheduler=scheduler,
                                        progress=progress, deals=arm_deals, check=check)
        runs.append((summaries, run_report(arm.content, summaries, rules_id=rules.id, players=players, seed=seed,
                                           seconds=seconds, agents=agents, options=options, fair_pool=True,
                                           check=check)))
    (sum_a, rep_a), (sum_b, rep_b) = runs
    if force is not None:  # the deal's balance is told of the other heroes
        rep_a["fair_pool"], rep_b["fair_pool"] = deal_counts(sum_a, force), deal_counts(sum_b, force)
    figures = comparison(sum_a, sum_b, focus)
    rep = dict(rep_b)
    rep["compare"] = {"a": a.label, "b": b.label, "mode": "baseline" if baseline else "contents",
                      "forced": force, "changed_heroes": changed, "alpha": ALPHA, "paired_by": "game seed and seat",
                      **figures}
    rep["baseline"] = rep_a
    if check:  # both arms' broken invariants, each sample with its arm
        rep["violations"] = rep_a["violations"] + rep_b["violations"]
        rep["violation_samples"] = [*({**v, "arm": a.label} for v in rep_a["violation_samples"]),
                                    *({**v, "arm": b.label} for v in rep_b["violation_samples"])][:10]
    rep["warnings"] = [*rep_b["warnings"], *(f"in A ({a.label}): {w}" for w in rep_a["warnings"]
                                             if w not in rep_b["warnings"])]
    if force is not None:
        rep["compare"]["forced_roles"] = _forced_roles(sum_b, force)
    if not focus:
        rep["warnings"] = [*rep["warnings"], "A and B define every hero alike: no hero is compared on its own "
                                             "(the roles and heroes tables still are)"]
    return rep, (sum_a, sum_b, focus)


def _forced_roles(summaries: Sequence[GameSummary], hero: str) -> dict[str, int]:
    """Role -> the games in which the forced ``hero`` played it."""
    roles: dict[str, int] = {}
    for s in summaries:
        seat = _seat_of(s, hero)
        if seat is not None:
            roles[s.heroes[seat][1]] = roles.get(s.heroes[seat][1], 0) + 1
    return dict(sorted(roles.items()))


def _design_pool(content: Content, rules_id: str, players: int, hero_pool: Optional[Sequence[str]],
                 options: Optional[dict[str, Any]], force: Optional[str]) -> list[str]:
    """The heroes the deal is made from: the run's pool, without the forced hero."""
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.resolution.turn import hero_pool as pool_of

    g = Game(content, content.ruleset(rules_id), players=players, hero_pool=hero_pool, options=options)
    return [h for h in pool_of(g) if h != force]
