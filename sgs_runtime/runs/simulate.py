"""Bot games in bulk: the numbers behind balance questions.

Each game's seed is derived from the master seed and the game's index, so a
result does not depend on how games are split between workers. Games run in
batches in worker processes; each worker loads the content once.

>>> game_seed(7, 0) == game_seed(7, 0), game_seed(7, 0) != game_seed(7, 1)
(True, True)
"""

from __future__ import annotations

import random
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from sgs_runtime.agents import RandomAgent
from sgs_runtime.agents.bots import HeuristicAgent
from sgs_runtime.errors import LimitExceeded
from sgs_runtime.resolution.game import Game, Limits
from sgs_runtime.runs.rolereading import ReadingMeter, reading_report
from sgs_runtime.runs.stats import Deal, wilson
from sgs_runtime.state.definitions import Content

AGENTS: dict[str, Callable[[int], Any]] = {
    "random": lambda seed: RandomAgent(seed),
    "heuristic": lambda seed: HeuristicAgent(seed),
    "search": lambda seed: _search_agent(seed),
}
#: the kinds that take a budget (``search:48``: rollouts per decision)
BUDGETED: dict[str, Callable[[int, int], Any]] = {"search": lambda seed, n: _search_agent(seed, n)}


def _search_agent(seed: int, rollouts: Optional[int] = None, **settings: Any) -> Any:
    from sgs_runtime.agents.search import DEFAULT_ROLLOUTS, SearchAgent

    return SearchAgent(seed, rollouts or DEFAULT_ROLLOUTS, **settings)


def _heuristic_agent(seed: int, _budget: Optional[int] = None, **settings: Any) -> Any:
    return HeuristicAgent(seed, **settings)


#: the kinds that take ``NAME=VALUE`` settings (``search:16:hero=40``, ``heuristic:style=focus``), and how
#: each is made with them
CONFIGURED: dict[str, Callable[..., Any]] = {"search": _search_agent, "heuristic": _heuristic_agent}


def _settings() -> dict[str, Any]:
    from sgs_runtime.agents.search import SETTINGS
    from sgs_runtime.agents.styles import style

    return {"search": SETTINGS, "heuristic": {"style": ("style", style)}}


def make_agent(spec: str, seed: int) -> Any:
    """One seat's agent from a spec (:mod:`sgs_runtime.agents.agentspec`): ``random``, ``heuristic``, ``search``,
    ``heuristic@lord+loyalist`` (that kind for those roles, random for the rest), ``search@rebel,heuristic``,
    ``search@0+3,heuristic`` (by seat)."""
    from sgs_runtime.agents import agentspec

    def make(part: agentspec.Part, s: int) -> Any:
        if part.settings:
            return CONFIGURED[part.kind](s, part.budget, **dict(part.settings))
        return BUDGETED[part.kind](s, part.budget) if part.budget is not None else AGENTS[part.kind](s)

    return agentspec.build(agentspec.parse(spec, AGENTS, budgeted=BUDGETED, settings=_settings()), seed, make)


def check_agents(spec: str, rules: Any = None, players: Optional[int] = None) -> None:
    """Refuse an agent spec that is not well formed, or (given the rules and the number of players) names a
    role the rules do not have or a seat the table does not have."""
    from sgs_runtime.agents import agentspec

    agentspec.parse(spec, AGENTS, rules, players, budgeted=BUDGETED, settings=_settings())


def check_pool(content: Any, rules: Any, players: int, hero_pool: Optional[Sequence[str]] = None) -> None:
    """Refuse, before any game, a hero pool that cannot seat the table (a usage error, not an error per game)."""
    from sgs_runtime.errors import UsageError
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.resolution.turn import hero_pool as pool_of

    pool = pool_of(Game(content, rules, players=players, hero_pool=hero_pool))
    if len(pool) < players:
        raise UsageError(f"the hero pool has {len(pool)} hero(es) for {players} players: each seat needs one "
                         "(use --heroes or --hero-packs, or another rules file)")
    if not any(content.heroes[h].can_be_lord for h in pool):
        raise UsageError("no hero of the pool can be the lord")


def game_seed(master: int, index: int) -> int:
    """The seed of game ``index`` of a run with seed ``master``."""
    return random.Random(f"sgs:{master}:{index}").getrandbits(62)


@dataclass
class GameSummary:
    index: int
    seed: int
    winners: list[str] = field(default_factory=list)
    winner_roles: list[str] = field(default_factory=list)
    heroes: list[tuple[str, str]] = field(default_factory=list)  # (hero, role) per seat
    turns: int = 0
    events: int = 0
    limit: Optional[str] = None
    error: Optional[str] = None
    stats: dict[str, int] = field(default_factory=dict)
    cards: dict[str, int] = field(default_factory=dict)  # card kind id -> uses and plays
    skills: dict[str, int] = field(default_factory=dict)  # skill id -> times used
    card_users: dict[str, list[int]] = field(default_factory=dict)  # card kind id -> the seats that used it
    skill_users: dict[str, list[int]] = field(default_factory=dict)  # skill id -> the seats that used it
    violation: Optional[str] = None  # with checks on: the first invariant that failed, and when
    deal: Optional[Deal] = None  # the designed deal it was played with (a fair pool), to play it again
    reading: dict[str, Any] = field(default_factory=dict)  # how the bots read the roles (rolereading.py)
    record: Optional[dict[str, Any]] = None  # with ``record``: the game's transcript (``sgs replay`` plays it back)


def play_one(content: Content, rules_id: str, players: int, seed: int, index: int = 0,
             agents: str = "random", hero_pool: Optional[Sequence[str]] = None,
             limits: Optional[Limits] = None, options: Optional[dict[str, Any]] = None,
             check: bool = False, deal: Optional[Deal] = None, record: bool = False) -> GameSummary:
    """Play one game; with ``check``, test the invariants (invariants.py) after every step; with
    ``deal``, the heroes are dealt as it says (stats.balanced_deals) instead of chosen; with
    ``record``, keep its transcript (:func:`sgs_runtime.records.replay.transcript`: its seed, deal
    and every decision, up to an error if one stopped it) in ``GameSummary.record``."""
    summary = GameSummary(index, seed, deal=deal)
    game: Optional[Game] = None
    try:
        rules = content.ruleset(rules_id)
        game = Game(content, rules, players=players, seed=seed, hero_pool=hero_pool, limits=limits, keep_log=False,
                    options=options, deal=deal)
        meter = ReadingMeter(game)
        bots = meter.wrap([make_agent(agents, seed * 31 + i) for i in range(players)])
        if check:
            game.check_caches = True  # every remembered quantity is computed again and compared
            summary.violation = _checked_play(game, bots)
            if summary.violation is not None or game.result is None:
                raise _Stopped()
            result = game.result
        else:
            result = game.play(bots)
        summary.winners = list(result.winners)
        summary.winner_roles = list(result.winner_roles)
        summary.turns = result.turns
    except _Stopped:
        pass
    except LimitExceeded as exc:
        summary.limit = exc.what
        summary.error = None
    except Exception as exc:  # any other failure is an engine error, reported with its seed
        summary.error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=-6)}"
    if game is not None:
        summary.heroes = [(p.name, p.role) for p in game.players]
        summary.turns = summary.turns or game.turn_number
        summary.events = game.steps
        summary.stats = dict(game.stats)
        summary.cards = dict(game.card_counts)
        summary.skills = dict(game.skill_counts)
        summary.card_users = {k: sorted(v) for k, v in game.card_users.items()}
        summary.skill_users = {k: sorted(v) for k, v in game.skill_users.items()}
        summary.reading = meter.summary()
        if record:
            from sgs_runtime.records.replay import transcript

            summary.record = transcript(game)
    return summary


class _Stopped(Exception):
    """A checked game stopped at a broken invariant."""


def _checked_play(game: Game, bots: Sequence[Any]) -> Optional[str]:
    """Play to the end, testing the invariants after every step; the first violation, or None."""
    from sgs_runtime.runs import invariants
    from sgs_runtime.state.seatview import ask_agent

    req = game.start()
    step = 0
    while True:
        problems = invariants.check(game, dead_hold_nothing=True)
        if not problems and game.cards and not any(p.alive for p in game.players) and game.result is None:
            problems = ["everyone is dead and the game goes on"]
        if problems:
            return f"after step {step}: {problems[0]}"
        if req is None:
            break
        req = game.answer(ask_agent(game, bots[req.player.seat], req))
        step += 1
    if game.result is None:
        return "the game stopped without a result"
    return None


_WORKER_CONTENT: dict[str, Content] = {}

# How a worker process loads content: "module:function(content_dir)". The runtime
# does not read content files itself; the loader lives in sgs_dsl.
CONTENT_LOADER = "sgs_dsl.loader:load_content"


def _load(spec: str, content_dir: Optional[str]) -> Content:
    import importlib

    module, _, func = spec.partition(":")
    return getattr(importlib.import_module(module), func)(content_dir)  # type: ignore[no-any-return]


#: a game to play: its index, its seed, and its deal (None: the heroes are chosen as the rules say)
Item = tuple[int, int, Optional[Deal]]
BatchArgs = tuple[Optional[str], str, int, list[Item], str, Optional[list[str]], Optional[dict[str, Any]], bool]


def _batch(args: BatchArgs) -> list[GameSummary]:
    content_dir, rules_id, players, items, agents, pool, options, check = args
    key = content_dir or "<builtin>"
    if key not in _WORKER_CONTENT:  # each worker loads the content once
        _WORKER_CONTENT[key] = _load(CONTENT_LOADER, content_dir)
    content = _WORKER_CONTENT[key]
    return [play_one(content, rules_id, players, seed, index, agents, pool, options=options, check=check, deal=deal)
            for index, seed, deal in items]


def simulate(content: Content, *, rules_id: Optional[str] = None, players: int = 5, games: int = 100, seed: int = 0,
             workers: int = 1, content_dir: Optional[str] = None, agents: str = "random",
             hero_pool: Optional[Sequence[str]] = None, batch_size: int = 25,
             progress: Optional[Callable[[int], None]] = None,
             options: Optional[dict[str, Any]] = None, backend: str = "process",
             scheduler: Optional[str] = None, check: bool = False, fair_pool: bool = False,
             deals: Optional[Sequence[Deal]] = None) -> dict[str, Any]:
    """Play ``games`` bot games and summarise them (docs/cli.md lists the fields).

    ``rules_id`` None plays the content's default rules. ``fair_pool``: the heroes are dealt by a
    balanced design (stats.balanced_deals) made from the seed; ``deals``: one deal per game, given.
    """
    rules = content.ruleset(rules_id)  # fail early on an unknown rules id
    if fair_pool and deals is None:
        deals = fair_deals(content, rules.id, players, games, seed, hero_pool, options)
    summaries, seconds = play_games(content, rules_id=rules.id, players=players, games=games, seed=seed,
                                    workers=workers, content_dir=content_dir, agents=agents, hero_pool=hero_pool,
                                    batch_size=batch_size, progress=progress, options=options, backend=backend,
                                    scheduler=scheduler, check=check, deals=deals)
    return run_report(content, summaries, rules_id=rules.id, players=players, seed=seed, seconds=seconds,
                      agents=agents, check=check, options=options, fair_pool=deals is not None)


def game_record(content: Content, *, rules_id: Optional[str] = None, players: int = 5, games: int = 100,
                seed: int = 0, index: int = 0, agents: str = "random", hero_pool: Optional[Sequence[str]] = None,
                options: Optional[dict[str, Any]] = None, fair_pool: bool = False,
                check: bool = False) -> tuple[GameSummary, dict[str, Any]]:
    """Game ``index`` of the run :func:`simulate` would play with these arguments, played again: its
    summary and its transcript (for ``sgs replay``). Each game of a run has its own seed and deal, so
    it is the very game the run played."""
    from sgs_runtime.errors import UsageError

    if not 0 <= index < games:
        raise UsageError(f"the run plays games 0 to {games - 1}: there is no game {index}")
    rules = content.ruleset(rules_id)
    deal = fair_deals(content, rules.id, players, games, seed, hero_pool, options)[index] if fair_pool else None
    summary = play_one(content, rules.id, players, game_seed(seed, index), index, agents,
                       list(hero_pool) if hero_pool else None, options=options, check=check, deal=deal, record=True)
    assert summary.record is not None
    return summary, summary.record


def fair_deals(content: Content, rules_id: str, players: int, games: int, seed: int,
               hero_pool: Optional[Sequence[str]] = None, options: Optional[dict[str, Any]] = None) -> list[Deal]:
    """The balanced design of a run: the rules' role table and pool, the lord's choices respected."""
    from sgs_runtime.resolution.turn import hero_pool as pool_of
    from sgs_runtime.resolution.turn import role_table
    from sgs_runtime.runs.stats import balanced_deals

    rules = content.ruleset(rules_id)
    g = Game(content, rules, players=players, hero_pool=hero_pool, options=options)
    return balanced_deals(pool_of(g), role_table(g), games, seed, rules.selection.lord_role,
                          lambda h: content.heroes[h].can_be_lord)


def play_games(content: Content, *, rules_id: str, players: int, games: int, seed: int, workers: int = 1,
               content_dir: Optional[str] = None, agents: str = "random",
               hero_pool: Optional[Sequence[str]] = None, batch_size: int = 25,
               progress: Optional[Callable[[int], None]] = None, options: Optional[dict[str, Any]] = None,
               backend: str = "process", scheduler: Optional[str] = None, check: bool = False,
               deals: Optional[Sequence[Deal]] = None) -> tuple[list[GameSummary], float]:
    """Play the games of a run (in worker processes or on a Dask cluster as asked); their
    summaries in game order, and the seconds taken. Each game carries its own seed and deal,
    so the result does not depend on how the games are split."""
    check_agents(agents)
    if deals is not None and len(deals) != games:
        raise ValueError("one deal per game")
    items: list[Item] = [(i, game_seed(seed, i), deals[i] if deals is not None else None) for i in range(games)]
    batches = [items[i:i + batch_size] for i in range(0, len(items), batch_size)]
    pool = list(hero_pool) if hero_pool else None
    start = time.perf_counter()
    summaries: list[GameSummary] = []
    args = [(content_dir, rules_id, players, b, agents, pool, options, check) for b in batches]
    if backend == "dask":
        from sgs_runtime.runs.backends import run_dask

        for got in run_dask(_batch, args, workers, scheduler):
            summaries.extend(got)
            if progress:
                progress(len(got))
    elif workers <= 1:
        for b in batches:
            summaries.extend(play_one(content, rules_id, players, s, i, agents, pool, options=options, check=check,
                                      deal=d) for i, s, d in b)
            if progress:
                progress(len(b))
    else:
        from concurrent.futures import ProcessPoolExecutor  # (only worker runs need the process machinery)

        with ProcessPoolExecutor(max_workers=workers) as ex:
            for got in ex.map(_batch, args):
                summaries.extend(got)
                if progress:
                    progress(len(got))
    seconds = time.perf_counter() - start
    summaries.sort(key=lambda s: s.index)
    return summaries, seconds


def run_report(content: Content, summaries: list[GameSummary], *, rules_id: str, players: int, seed: int,
               seconds: float, agents: str, check: bool = False, options: Optional[dict[str, Any]] = None,
               fair_pool: bool = False) -> dict[str, Any]:
    """The report of a run: :func:`report`, the balance tables (stats.py), what produced it, and
    with ``check`` the broken invariants."""
    from sgs_runtime.records.replay import content_fingerprint, engine_version
    from sgs_runtime.runs.stats import balance

    rep = report(summaries, rules_id=rules_id, players=players, seed=seed, seconds=seconds, agents=agents)
    rep.update(balance(summaries, content.ruleset(rules_id).selection.lord_role, fair_pool))
    rep["produced_by"] = {"engine_version": engine_version(), "content_fingerprint": content_fingerprint(content),
                          "agents": agents, "rules": rules_id, "seed": seed,
                          "game_seeds": f"game i plays the seed game_seed({seed}, i)", "games": len(summaries)}
    rep["role_reading"] = reading_report(s.reading for s in summaries)
    if check:
        broken = [s for s in summaries if s.violation is not None]
        rep["checked"] = True
        rep["violations"] = len(broken)
        rep["violation_samples"] = [{"game": s.index, "seed": s.seed, "violation": s.violation} for s in broken[:10]]
    if options:
        rep["options"] = dict(options)
    from sgs_runtime.runs.stats import warnings

    rep["warnings"] = warnings(rep)
    return rep


def report(summaries: list[GameSummary], *, rules_id: str, players: int, seed: int, seconds: float,
           agents: str) -> dict[str, Any]:
    finished = [s for s in summaries if s.error is None and s.limit is None and s.violation is None]
    wins: Counter[str] = Counter()
    role_games: Counter[str] = Counter()
    role_wins: Counter[str] = Counter()
    hero_played: Counter[str] = Counter()
    hero_won: Counter[str] = Counter()
    draws = 0
    for s in finished:
        if not s.winner_roles:
            draws += 1
        for r in s.winner_roles:
            wins[r] += 1
        for hero, role in s.heroes:
            hero_played[hero] += 1
            role_games[role] += 1
            if hero in s.winners:
                hero_won[hero] += 1
                role_wins[role] += 1
    errors = [s for s in summaries if s.error is not None]
    n = len(finished)
    counts: Counter[str] = Counter()
    card_uses: Counter[str] = Counter()
    skill_uses: Counter[str] = Counter()
    for s in summaries:
        counts.update(s.stats)
        card_uses.update(s.cards)
        skill_uses.update(s.skills)
    return {
        "rules": rules_id,
        "players": players,
        "seed": seed,
        "agents": agents,
        "games": len(summaries),
        "finished": n,
        "errors": len(errors),
        "error_samples": [{"game": s.index, "seed": s.seed, "error": s.error, **({"deal": s.deal} if s.deal else {})}
                          for s in errors[:10]],
        "limits": sum(1 for s in summaries if s.limit is not None),
        "draws": draws,
        "wins": dict(sorted(wins.items())),
        "win_rates": {r: {"rate": round(wins[r] / n, 4) if n else 0.0, "ci95": wilson(wins[r], n)}
                      for r in sorted(wins)},
        "roles": {r: {"seats": role_games[r], "won": role_wins[r],
                      "rate": round(role_wins[r] / role_games[r], 4) if role_games[r] else 0.0,
                      "ci95": wilson(role_wins[r], role_games[r])} for r in sorted(role_games)},
        "heroes": {h: {"played": hero_played[h], "won": hero_won[h],
                       "rate": round(hero_won[h] / hero_played[h], 4) if hero_played[h] else 0.0,
                       "ci95": wilson(hero_won[h], hero_played[h])} for h in sorted(hero_played)},
        "turns_mean": round(sum(s.turns for s in finished) / n, 3) if n else 0.0,
        # how often things happened over all games (log record kinds: damage, death, revive ...)
        "event_counts": dict(sorted(counts.items())),
        "reincarnations": counts.get("revive", 0),
        # card kinds used or played (virtual cards as the kind they are) and skills used, over all games
        "card_uses": dict(sorted(card_uses.items())),
        "skill_uses": dict(sorted(skill_uses.items())),
        "events_mean": round(sum(s.events for s in finished) / n, 1) if n else 0.0,
        "seconds": round(seconds, 3),
        "games_per_second": round(len(summaries) / seconds, 2) if seconds > 0 else 0.0,
    }


TIMING_FIELDS = ("seconds", "games_per_second")


def combine(reports: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """One report over several player counts: totals, plus ``by_players``."""
    if len(reports) == 1:
        return next(iter(reports.values()))
    first = next(iter(reports.values()))
    out: dict[str, Any] = {"rules": first["rules"], "players": sorted(reports), "seed": first["seed"],
                           "agents": first["agents"]}
    for key in ("games", "finished", "errors", "limits", "draws", "reincarnations"):
        out[key] = sum(r[key] for r in reports.values())
    out["error_samples"] = [dict(s, players=n) for n, r in reports.items() for s in r["error_samples"]][:10]
    if any(r.get("checked") for r in reports.values()):
        out["checked"] = True
        out["violations"] = sum(r.get("violations", 0) for r in reports.values())
        out["violation_samples"] = [dict(s, players=n) for n, r in reports.items()
                                    for s in r.get("violation_samples", [])][:10]
    wins: Counter[str] = Counter()
    heroes: dict[str, list[int]] = {}
    counts: Counter[str] = Counter()
    card_uses: Counter[str] = Counter()
    skill_uses: Counter[str] = Counter()
    for r in reports.values():
        wins.update(r["wins"])
        counts.update(r["event_counts"])
        card_uses.update(r["card_uses"])
        skill_uses.update(r["skill_uses"])
        for h, v in r["heroes"].items():
            acc = heroes.setdefault(h, [0, 0])
            acc[0] += v["played"]
            acc[1] += v["won"]
    n = out["finished"]
    out["wins"] = dict(sorted(wins.items()))
    out["win_rates"] = {r: {"rate": round(wins[r] / n, 4) if n else 0.0, "ci95": wilson(wins[r], n)}
                        for r in sorted(wins)}
    out["heroes"] = {h: {"played": p, "won": w, "rate": round(w / p, 4) if p else 0.0, "ci95": wilson(w, p)}
                     for h, (p, w) in sorted(heroes.items())}
    out["turns_mean"] = round(sum(r["turns_mean"] * r["finished"] for r in reports.values()) / n, 3) if n else 0.0
    out["event_counts"] = dict(sorted(counts.items()))
    out["card_uses"] = dict(sorted(card_uses.items()))
    out["skill_uses"] = dict(sorted(skill_uses.items()))
    out["seconds"] = round(sum(r["seconds"] for r in reports.values()), 3)
    out["games_per_second"] = round(out["games"] / out["seconds"], 2) if out["seconds"] else 0.0
    if all("hero_roles" in r for r in reports.values()):
        from sgs_runtime.runs.stats import merge_balance

        out.update(merge_balance(list(reports.values())))
        out["produced_by"] = dict(first["produced_by"], games=out["games"])
        from sgs_runtime.runs.stats import warnings

        out["warnings"] = warnings(out)
    out["by_players"] = {str(k): v for k, v in sorted(reports.items())}
    return out


def table_size(rules: Any, players: Optional[int]) -> int:
    """How many play: ``players`` when given; else the rules' own count when they fix one
    (a two-player rules file plays 2), else 5 within what the rules allow.

    >>> from types import SimpleNamespace as R
    >>> table_size(R(players_min=2, players_max=2), None), table_size(R(players_min=2, players_max=10), None)
    (2, 5)
    >>> table_size(R(players_min=2, players_max=10), 8), table_size(R(players_min=6, players_max=8), None)
    (8, 6)
    """
    if players is not None:
        return players
    return min(max(5, rules.players_min), rules.players_max)
