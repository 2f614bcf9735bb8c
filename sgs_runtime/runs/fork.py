"""Copies of a game at a decision, and fast rollouts on them (for search bots).

A game runs its effects as Python generators and is suspended inside them while
it waits for an answer, so it cannot be deep-copied. There are two ways to get a
copy, behind one API:

* **fork** (where the platform has ``os.fork`` and the process runs one thread):
  the child process *is* a copy, generator stacks included. It plays the copy on,
  sends back a small result through a pipe and ends with ``os._exit``; the parent
  waits for it with a time limit, kills a child that overruns and reaps every child,
  so no process is left behind.
* **replay** (everywhere): a fresh :class:`~sgs_runtime.resolution.game.Game` with the same
  seed is driven through the decision log up to the same request
  (:func:`sgs_runtime.records.replay.follow`); slower (the game so far is played again),
  in process.

Both give the same state, so a rollout gives the same result either way.

A **rollout** (:func:`play_out`) deals anew what the searching seat cannot see
(:func:`sgs_runtime.state.redeal.redeal`), reseeds the game's chance, answers the pending
request with a candidate answer, lets a fast policy (``heuristic`` or ``random``
bots, :data:`POLICIES`) play every seat to the end, and scores the end for the seat:
1 won, 0 lost, 0.5 when a limit stopped it. With a horizon (``max_turns``) the copy
stops after that many turns and the position is scored by a fitted evaluation
(:func:`sgs_runtime.agents.evaluation.value`: the chance that the seat's side wins). Everything is drawn from the rollout's
seed, so the same seed gives the same result. :func:`evaluate` is what an agent
calls: it holds only its :class:`~sgs_runtime.state.seatview.SeatView`, and gets back only
scores, over worlds dealt from what its seat knows.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import pickle
import random
import select
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, TypeVar

from sgs_runtime.errors import GameError, LimitExceeded, UsageError, did_you_mean
from sgs_runtime.records.replay import decode, encode, follow
from sgs_runtime.resolution.requests import PlayRequest, Request
from sgs_runtime.state.redeal import RoleWeight, redeal

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.state.seatview import SeatView

T = TypeVar("T")


def _heuristic(seed: int) -> Any:
    from sgs_runtime.agents.bots import HeuristicAgent

    return HeuristicAgent(seed)


def _random(seed: int) -> Any:
    from sgs_runtime.agents import RandomAgent

    return RandomAgent(seed)


#: the rollout policies: a bot for each seat of a copy, made from a seed
POLICIES: dict[str, Callable[[int], Any]] = {"heuristic": _heuristic, "random": _random}

#: how copies are made: ``fork`` or ``replay``; ``auto`` forks where it can
METHODS = ("auto", "fork", "replay")

#: a child that has not answered after this many seconds is counted as lost
DEFAULT_TIMEOUT = 20.0


def fork_available() -> bool:
    """Whether copies can be made by forking: ``os.fork`` exists and this process runs one thread."""
    return hasattr(os, "fork") and sys.platform != "win32" and threading.active_count() == 1


def choose_method(method: str = "auto") -> str:
    """``fork`` or ``replay`` for ``method`` (``auto``: fork where it can; ``SGS_COPY`` overrides ``auto``)."""
    if method == "auto":
        method = os.environ.get("SGS_COPY", "auto") or "auto"
    if method not in METHODS:
        raise UsageError(f"unknown copy method '{method}'{did_you_mean(method, METHODS)}; use one of "
                         f"{', '.join(METHODS)}")
    if method == "auto":
        return "fork" if fork_available() else "replay"
    if method == "fork" and not hasattr(os, "fork"):
        raise UsageError("this platform cannot fork: use the copy method 'replay'")
    return method


# ---------------------------------------------------------------- copies


def copy_game(game: "Game", keep_log: bool = False) -> "Game":
    """A new game in the same state as ``game``, waiting for the same request (by replaying its decisions).

    Raise :class:`GameError` for a game that cannot be replayed (one set up by hand)."""
    from sgs_runtime.resolution.game import Game

    if game.table is not None:
        raise GameError("a game set up by hand (a rule case's table) cannot be copied by replaying it")
    if game._gen is None:
        raise GameError("the game has not started: there is nothing to copy yet")
    copy = Game(game.content, game.rules, players=game.num_players, seed=game.seed, options=dict(game.options),
                hero_pool=game.hero_pool, limits=dataclasses.replace(game.limits), keep_log=keep_log)
    follow(copy, list(game.decisions))
    return copy


def in_fork(fn: Callable[[], T], timeout: float = DEFAULT_TIMEOUT) -> Optional[T]:
    """Run ``fn`` in a forked child (a copy of this whole process) and return what it returns.

    ``None`` when the child failed, overran ``timeout`` seconds (it is killed) or returned
    nothing that can be pickled. The child is always reaped before this returns."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 1
        try:
            os.close(read_end)
            import gc

            gc.disable()  # a collection would touch (and so copy) every page of the parent's memory
            data = pickle.dumps(fn(), protocol=pickle.HIGHEST_PROTOCOL)
            view = memoryview(data)
            while view:
                view = view[os.write(write_end, view):]
            code = 0
        except BaseException:  # noqa: BLE001 - the child reports failure by its exit code only
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    chunks: list[bytes] = []
    done = False
    try:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([read_end], [], [], left)
            if not ready:
                break
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                done = True
                break
            chunks.append(chunk)
    finally:
        os.close(read_end)
        if not done:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover - it ended meanwhile
                pass
        _, status = os.waitpid(pid, 0)
    if not done or not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return None
    try:
        return pickle.loads(b"".join(chunks))  # type: ignore[no-any-return]
    except Exception:  # noqa: BLE001 - a garbled result is a lost rollout
        return None


# ---------------------------------------------------------------- rollouts


def play_out(game: "Game", seat: int, answer: Any, seed: int, policy: str = "heuristic",
             max_turns: Optional[int] = None, role_weight: Optional[RoleWeight] = None,
             own: Optional[Callable[[int], Any]] = None) -> float:
    """On a copy (it is played on and spoilt): deal anew what ``seat`` cannot see, answer the pending
    request with ``answer`` (in :func:`~sgs_runtime.records.replay.encode` form), play every seat with
    ``policy`` bots to the end; 1.0 if ``seat`` won, 0.0 if it lost, 0.5 if a limit stopped it.

    ``max_turns``: a horizon: stop after that many more turns and score the position reached by the
    chance the model of :mod:`sgs_runtime.agents.evaluation` gives the seat's side; ``role_weight``: the seat's belief
    about the unknown roles (:func:`~sgs_runtime.state.redeal.redeal`); ``own``: the bot ``seat`` plays itself
    with, made from its seed like the others (default: a ``policy`` bot). Raise :class:`GameError` when the
    answer is refused."""
    from sgs_runtime.state.seatview import ask_agent

    req = game.pending
    if req is None:
        raise GameError("the game is not waiting for an answer: there is nothing to play out")
    make = POLICIES[policy]
    rng = random.Random(seed)
    redeal(game, seat, rng, role_weight)
    game.rng = random.Random(rng.getrandbits(64))  # chance from here on is the rollout's
    game.log_sink = None
    game.trace = None
    game.on_forced = None
    horizon = max_turns is not None and game.turn_number + max_turns < game.limits.turns
    if max_turns is not None:
        game.limits = dataclasses.replace(game.limits, turns=min(game.limits.turns, game.turn_number + max_turns))
    if isinstance(req, PlayRequest):
        req.passed.clear()  # legality is judged again in the dealt world
    bots = [(own if own is not None and p.seat == seat else make)(rng.getrandbits(62)) for p in game.players]
    try:
        req = game.answer(decode(game, req, answer))
        while req is not None:
            req = game.answer(ask_agent(game, bots[req.player.seat], req))
    except LimitExceeded as exc:
        if horizon and exc.what == "turn":
            from sgs_runtime.agents.evaluation import value

            return value(game, seat)
        return 0.5
    result = game.result
    if result is None or result.limit is not None:
        return 0.5
    return 1.0 if game.players[seat].name in result.winners else 0.0


def rollouts(game: "Game", seat: int, jobs: Sequence[tuple[Any, int]], *, policy: str = "heuristic",
             method: str = "auto", timeout: float = DEFAULT_TIMEOUT, max_turns: Optional[int] = None,
             role_weight: Optional[RoleWeight] = None, own: Optional[Callable[[int], Any]] = None
             ) -> list[Optional[float]]:
    """Play out each job ``(answer in encode form, seed)`` on its own copy of ``game``; its score, or
    ``None`` for a rollout that was lost (failed, refused or overran). ``game`` itself does not change."""
    if policy not in POLICIES:
        raise UsageError(f"unknown rollout policy '{policy}'{did_you_mean(policy, POLICIES)}; use one of "
                         f"{', '.join(POLICIES)}")
    how = choose_method(method)
    out: list[Optional[float]] = []
    for answer, seed in jobs:
        if how == "fork":
            got = in_fork(functools.partial(play_out, game, seat, answer, seed, policy, max_turns, role_weight, own),
                          timeout)
            out.append(got if isinstance(got, float) else None)
            continue
        try:
            out.append(play_out(copy_game(game), seat, answer, seed, policy, max_turns, role_weight, own))
        except GameError:
            out.append(None)
    return out


def evaluate(view: "SeatView", request: "Request", answers: Sequence[Any], seeds: Sequence[int], *,
             policy: str = "heuristic", method: str = "auto", timeout: float = DEFAULT_TIMEOUT,
             max_turns: Optional[int] = None, role_weight: Optional[RoleWeight] = None,
             own: Optional[Callable[[int], Any]] = None) -> list[list[Optional[float]]]:
    """For an agent: the score of each of its candidate ``answers`` to ``request`` (as it was given to
    the agent) in one rollout per seed: ``scores[answer][seed]`` (``None``: lost).

    Each seed deals one world from what the view's seat knows; every answer is tried in the same
    worlds; ``role_weight`` is the agent's belief about the roles it does not know, ``own`` the bot its
    seat plays on with (:func:`play_out`). Only the scores come
    back: nothing of the dealt worlds does."""
    from sgs_runtime.state.visibility import unmask_answer

    game = view.game
    if game.pending is None or request.player.seat != view.seat or game.pending.player.seat != view.seat:
        raise GameError("evaluate: the game is not waiting for this seat's answer")
    encoded = [encode(unmask_answer(request, a)) for a in answers]
    jobs = [(a, s) for a in encoded for s in seeds]
    flat = rollouts(game, view.seat, jobs, policy=policy, method=method, timeout=timeout, max_turns=max_turns,
                    role_weight=role_weight, own=own)
    n = len(seeds)
    return [flat[i * n:(i + 1) * n] for i in range(len(answers))]
