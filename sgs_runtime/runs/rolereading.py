"""How well bots read the hidden roles: friendly fire and belief accuracy, for simulation reports.

The simulation (the harness, which knows the truth) measures two things a bot
cannot see about itself:

* **harm between roles** — every public record that is a harmful act
  (:func:`beliefs.act_sign`: damage, a harmful card or skill aimed at someone, a card
  taken or discarded from someone) is counted by the true roles of its actor and its
  target. The *friendly fire* rates are, for each pair of roles on the lord's side
  (the rules' role data: the lord and the roles with ``side: lord``), the share of
  the first role's harmful acts that hit the second: in the identity game
  ``loyalist>lord`` and ``lord>loyalist``;
* **belief accuracy** — after each decision of a bot that keeps a
  :class:`beliefs.Belief`, the probability its belief gives the true role of each
  other player whose role that seat does not know. A game's accuracy is the mean
  over its (decision, player) pairs; the report gives the mean over games (each game
  weighs the same), overall and by the deciding bot's role, next to the same mean for
  a belief that knows only the role counts (``prior``).

>>> reading_report([])["belief_accuracy"]
{'mean': 0.0, 'prior': 0.0, 'games': 0, 'by_role': {}}
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Iterable, Optional, Sequence

from sgs_runtime.agents import Agent, SplitAgent
from sgs_runtime.agents.beliefs import Belief, act_sign, alignment

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.resolution.requests import Request


def _belief(agent: Any, role: str) -> Optional[Belief]:
    """The belief of the agent that decides for ``role`` (a split agent asks the one for that role)."""
    if isinstance(agent, SplitAgent):
        return _belief(agent.inside if role in agent.roles else agent.outside, role)
    kind = type(agent)
    keeps = _KEEPS_BELIEF.get(kind)
    if keeps is None:  # (asked once per class of agent: asking an agent without one costs an exception)
        keeps = _KEEPS_BELIEF[kind] = hasattr(agent, "belief")
    got = getattr(agent, "belief", None) if keeps else None
    return got if isinstance(got, Belief) else None


def _chance(row: list[float], roles: list[str], role: str) -> float:
    """The probability a belief's row (:meth:`Belief.row`, in the order of ``roles``) gives ``role``.

    >>> _chance([0.25, 0.75], ["lord", "rebel"], "rebel"), _chance([1.0], ["lord"], "rebel")
    (0.75, 0.0)
    """
    for j in range(len(roles)):
        if roles[j] == role:
            return row[j]
    return 0.0


#: whether an agent of each class keeps a belief (an attribute ``belief``)
_KEEPS_BELIEF: dict[type, bool] = {}


class ReadingMeter:
    """Watches the agents of one game: their beliefs against the true roles, and who harmed whom."""

    def __init__(self, game: "Game") -> None:
        self.game = game
        self.sums: dict[str, float] = {}  # observer role -> sum of P(true role)
        self.prior: dict[str, float] = {}  # observer role -> sum of the counts-only probability
        self.counts: dict[str, int] = {}  # observer role -> (decision, player) pairs
        #: seat -> the stamp of its belief's probabilities at its last decision (:meth:`Belief.snapshot`), and
        #: what they added up to
        self._last: dict[int, tuple[object, tuple[float, float, int]]] = {}
        #: seat -> the seats whose roles its belief does not know (:meth:`Belief.snapshot`: the same list while
        #: the roles shown stay the same), what the counts alone give their true roles, and how many they are
        self._prior: dict[int, tuple[list[int], float, int]] = {}

    def wrap(self, agents: Sequence[Any]) -> list[Any]:
        """The agents, each reporting to this meter after its decisions."""
        return [_Metered(a, self) for a in agents]

    def measure(self, agent: Any, request: "Request") -> None:
        """After ``agent`` decided ``request``: how much its belief gives each hidden role's truth."""
        me = request.player
        belief = _belief(agent, me.role)
        if belief is None:
            return
        view = self.game.view_for(me.seat)
        stamp, roles, unknown, rows = belief.snapshot(view)
        last = self._last.get(me.seat)
        # the same stamp as at this seat's last decision: the same evidence and the same roles shown,
        # so the same probabilities and the same sums
        if last is not None and last[0] is stamp:
            got = last[1]
        else:
            players = self.game.players
            prior = self._prior.get(me.seat)
            if prior is None or prior[0] is not unknown:  # (the counts-only figure changes with the roles shown)
                hidden = [players[s].role for s in unknown]
                left: dict[str, int] = {}
                for r in hidden:
                    left[r] = left.get(r, 0) + 1
                prior = self._prior[me.seat] = (unknown, sum(left[r] / len(hidden) for r in hidden), len(hidden))
            got = (sum(_chance(rows[s], roles, players[s].role) for s in unknown), prior[1], prior[2])
            self._last[me.seat] = (stamp, got)
        if not got[2]:
            return
        role = me.role
        self.sums[role] = self.sums.get(role, 0.0) + got[0]
        self.prior[role] = self.prior.get(role, 0.0) + got[1]
        self.counts[role] = self.counts.get(role, 0) + got[2]

    def summary(self) -> dict[str, Any]:
        """This game's figures, in plain data (they cross process boundaries)."""
        harm: Counter[str] = Counter()
        acts: Counter[str] = Counter()
        players = self.game.players
        for rec in self.game.public:
            if act_sign(self.game.content, rec) > 0 and rec[1] != rec[2]:
                src, dst = players[rec[1]].role, players[rec[2]].role
                harm[f"{src}>{dst}"] += 1
                acts[src] += 1
        roles = self.game.rules.roles
        lord_side = sorted({p.role for p in players if alignment(roles.get(p.role)) < 0})
        return {"harm": dict(harm), "acts": dict(acts), "lord_side": lord_side,
                "belief": {r: [self.sums[r], self.prior[r], self.counts[r]] for r in self.counts}}


class _Metered(Agent):
    """An agent whose decisions the meter looks at (its answers pass through unchanged)."""

    def __init__(self, agent: Any, meter: ReadingMeter) -> None:
        self.agent = agent
        self.meter = meter
        self.name = getattr(agent, "name", "agent")

    def decide(self, request: "Request", game: Any) -> Any:
        answer = self.agent.decide(request, game)
        self.meter.measure(self.agent, request)
        return answer


def _rate(k: int, n: int) -> dict[str, Any]:
    from sgs_runtime.runs.simulate import wilson

    return {"harm": k, "of": n, "rate": round(k / n, 4) if n else 0.0, "ci95": wilson(k, n)}


def reading_report(readings: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The report's ``role_reading`` section over games' :meth:`ReadingMeter.summary` figures."""
    harm: Counter[str] = Counter()
    acts: Counter[str] = Counter()
    lord_side: set[str] = set()
    game_means: list[float] = []
    game_priors: list[float] = []
    by_role: dict[str, list[float]] = {}
    for r in readings:
        if not r:
            continue
        harm.update(r["harm"])
        acts.update(r["acts"])
        lord_side.update(r["lord_side"])
        total = sum(v[2] for v in r["belief"].values())
        if total:
            game_means.append(sum(v[0] for v in r["belief"].values()) / total)
            game_priors.append(sum(v[1] for v in r["belief"].values()) / total)
        for role, (s, _prior, n) in r["belief"].items():
            if n:
                by_role.setdefault(role, []).append(s / n)
    friendly = {f"{a}>{b}": _rate(harm[f"{a}>{b}"], acts[a]) for a in sorted(lord_side) for b in sorted(lord_side)
                if f"{a}>{b}" in harm or (a != b and acts[a])}

    def mean(xs: list[float]) -> float:
        return round(sum(xs) / len(xs), 4) if xs else 0.0

    return {
        "harmful_acts": dict(sorted(acts.items())),
        "harm": dict(sorted(harm.items())),
        "friendly_fire": friendly,
        "belief_accuracy": {"mean": mean(game_means), "prior": mean(game_priors), "games": len(game_means),
                            "by_role": {role: mean(v) for role, v in sorted(by_role.items())}},
    }
