"""Fit the search bot's position evaluation (sgs_runtime/agents/evaluation.py) to bot games.

    pip install numpy        # (it comes with the report extra)
    python benchmarks/fit_evaluation.py --games 1500 --players 4,5,6,7,8 --out sgs_runtime/agents/evaluation.json

Plays identity games with heuristic bots on every seat, takes the features of the
true state at the start of every turn, labels each with the side that won the game,
and fits a multinomial logistic model (softmax over the sides, a small L2 penalty) by
Newton's method. A fifth of the games (every fifth seed) are kept out
of the fit; the log-loss and accuracy on them are written into the model's ``info``
beside those of the base rates (each side's share of the wins), so the file says how
much the model knows.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from tiers import _content  # noqa: E402  (the built-in content, loaded once per worker)

from sgs_runtime.agents.beliefs import side_of  # noqa: E402
from sgs_runtime.agents.evaluation import FEATURES, SIDES, Model, features  # noqa: E402


def one_game(args: tuple[str, int, int]) -> tuple[int, list[list[float]], int]:
    """(seed, the features at each turn's start, the index in SIDES of the side that won; -1: no winner)."""
    from sgs_runtime.agents.bots import HeuristicAgent
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.runs.simulate import game_seed
    from sgs_runtime.state.seatview import ask_agent

    rules_id, players, index = args
    content = _content()
    seed = game_seed(2027, index)
    game = Game(content, content.ruleset(rules_id), players=players, seed=seed, keep_log=False)
    bots = [HeuristicAgent(seed * 31 + i) for i in range(players)]
    rows: list[list[float]] = []
    turn = -1
    try:
        req = game.start()
        while req is not None:
            if game.turn_number != turn and game.turn_number >= 1:
                turn = game.turn_number
                rows.append(features(game))
            req = game.answer(ask_agent(game, bots[req.player.seat], req))
    except Exception:  # noqa: BLE001 - a game that failed or hit a limit teaches nothing
        return index, [], -1
    result = game.result
    if result is None or result.limit is not None or not result.winner_roles:
        return index, [], -1
    side = side_of(game.rules.roles.get(result.winner_roles[0]))
    return index, rows, SIDES.index(side) if side in SIDES else -1


def _probs(w: "np.ndarray", x: "np.ndarray") -> "np.ndarray":
    z = x @ w.T
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)  # type: ignore[no-any-return]


def fit(x: "np.ndarray", y: "np.ndarray", l2: float = 1e-3, steps: int = 30) -> "np.ndarray":
    """Softmax regression weights (sides × features) by Newton's method with a small L2 penalty
    (which also pins down the softmax's free shift), on standardised features."""
    k, d = len(SIDES), x.shape[1]
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    xs = x / scale  # fit on standardised features, give the weights back in the features' own units
    onehot = np.eye(k)[y]
    n = len(xs)
    w = np.zeros((k, d))

    def loss(w: "np.ndarray") -> float:
        p = _probs(w, xs)
        return float(-np.log(np.maximum(p[np.arange(n), y], 1e-300)).mean() + 0.5 * l2 * (w * w).sum())

    current = loss(w)
    for _ in range(steps):
        p = _probs(w, xs)
        grad = ((p - onehot).T @ xs / n + l2 * w).ravel()
        # Hessian: mean over positions of (diag(p) - p p^T) (x) x x^T
        h = np.zeros((k * d, k * d))
        for a in range(k):
            for b in range(k):
                c = (p[:, a] if a == b else 0.0) - p[:, a] * p[:, b]
                h[a * d:(a + 1) * d, b * d:(b + 1) * d] = (xs * c[:, None]).T @ xs / n
        h += l2 * np.eye(k * d)
        step = np.linalg.solve(h, grad).reshape(k, d)
        t = 1.0
        while t > 1e-4:
            trial = w - t * step
            got = loss(trial)
            if got <= current:
                break
            t /= 2
        if current - got < 1e-9:
            w, current = trial, got
            break
        w, current = trial, got
    return w / scale


def scores(w: "np.ndarray", x: "np.ndarray", y: "np.ndarray") -> tuple[float, float]:
    """(log-loss, accuracy) of weights ``w`` on (x, y)."""
    p = _probs(w, x)
    loss = float(-np.log(np.maximum(p[np.arange(len(y)), y], 1e-12)).mean())
    return loss, float((p.argmax(axis=1) == y).mean())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1500, help="games per player count")
    ap.add_argument("--players", default="4,5,6,7,8")
    ap.add_argument("--rules", default="identity")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--data", type=Path, default=None,
                    help="keep the positions in this .npz file; when it exists, fit from it without playing")
    a = ap.parse_args()
    counts = [int(n) for n in a.players.split(",")]
    jobs = [(a.rules, n, i) for n in counts for i in range(a.games)]
    start = time.perf_counter()
    train_x: list[list[float]] = []
    train_y: list[int] = []
    test_x: list[list[float]] = []
    test_y: list[int] = []
    used = 0
    if a.data is not None and a.data.exists():
        saved = np.load(a.data)
        x, y, tx, ty, used = saved["x"], saved["y"], saved["tx"], saved["ty"], int(saved["games"])
    else:
        with ProcessPoolExecutor(max_workers=a.workers) as ex:
            for index, rows, label in ex.map(one_game, jobs, chunksize=8):
                if label < 0 or not rows:
                    continue
                used += 1
                xs, ys = (test_x, test_y) if index % 5 == 0 else (train_x, train_y)
                xs.extend(rows)
                ys.extend([label] * len(rows))
        x, y = np.array(train_x), np.array(train_y)
        tx, ty = np.array(test_x), np.array(test_y)
        if a.data is not None:
            np.savez(a.data, x=x, y=y, tx=tx, ty=ty, games=used)
    w = fit(x, y)
    loss, acc = scores(w, tx, ty)
    rates = np.bincount(y, minlength=len(SIDES)) / len(y)
    base = np.log(np.maximum(rates, 1e-12))
    base_w = np.zeros_like(w)
    base_w[:, 0] = base  # the base rates as a model: the bias alone
    base_loss, base_acc = scores(base_w, tx, ty)
    info = {"rules": a.rules, "players": counts, "games": used, "positions": len(y), "held_out": len(ty),
            "bots": "heuristic", "log_loss": round(loss, 4), "accuracy": round(acc, 4),
            "base_log_loss": round(base_loss, 4), "base_accuracy": round(base_acc, 4),
            "seconds": round(time.perf_counter() - start, 1)}
    model = Model(list(FEATURES), {s: [round(float(v), 5) for v in w[i]] for i, s in enumerate(SIDES)}, info)
    text = json.dumps(model.as_dict(), indent=1)
    if a.out is not None:
        a.out.write_text(text + "\n", encoding="utf-8")
    print(json.dumps(info, indent=1))
    if not math.isfinite(loss):
        raise SystemExit("the fit diverged")


if __name__ == "__main__":
    main()
