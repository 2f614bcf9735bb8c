"""What a quantity's expressions read: enough to remember its value for a skill epoch.

A quantity is asked again and again (a distance at every target check), and the runtime
remembers each answer for one *state version*, which moves on with every change of the
state (statecache.py). Many quantities read far less than the whole state: a distance reads
the seats and the horses, an attack range the weapon. Those change only together with the
players' skill sets, and every such change (equipment in or out, a death, a revival, a skill
gained or lost) forgets the skill sets and moves the *skill epoch* on (``Game.epoch``). An
expression that reads no more than its variables, constants, the attributes of
:data:`~sgs_runtime.resolution.vocabulary.EPOCH_ATTRS` (and the equipment slots), the
functions of :data:`~sgs_runtime.resolution.vocabulary.EPOCH_FUNCTIONS` and other
quantities is summed up by :func:`epoch_reads` as the quantities it asks; the runtime
remembers the quantity for an epoch when its base and every modifier in force say so, and
every quantity they ask is of that kind too (quantities.py). Anything else (HP, a hand, a
mark, a pile, a comprehension, a method) sums up as ``None``: remembered for one version.

>>> from sgs_dsl import ast as T
>>> me, b = T.Name((1, 1), "me"), T.Name((1, 7), "b")
>>> epoch_reads(T.Compare((1, 1), "==", me, b), {"distance"}, set())
frozenset()
>>> weapon = T.Attr((1, 1), me, "weapon", (1, 4))
>>> epoch_reads(T.Attr((1, 1), weapon, "range", (1, 11)), {"distance"}, {"weapon"})
frozenset()
>>> epoch_reads(T.Call((1, 1), T.Name((1, 1), "distance"), [me, b]), {"distance"}, set())
frozenset({'distance'})
>>> epoch_reads(T.Attr((1, 1), me, "hp", (1, 4)), {"distance"}, set()) is None  # HP changes within an epoch
True
>>> epoch_reads(T.Compare((1, 1), "==", me, T.Name((1, 7), "current")), set(), set()) is None  # whose turn it is
True
"""

from __future__ import annotations

from typing import AbstractSet, Any, Optional

from sgs_dsl import ast as A
from sgs_dsl.compiler import GLOBALS
from sgs_dsl.parser import walk
from sgs_runtime.resolution.vocabulary import EPOCH_ATTRS, EPOCH_FUNCTIONS

__all__ = ["epoch_reads", "join_reads"]

#: the nodes that read nothing of the state by themselves (what they hold is looked at in turn; a name
#: only when it is a variable or a constant: :data:`STATE_NAMES`)
_NEUTRAL = (A.Num, A.Str, A.Name, A.Const, A.ListExpr, A.BinOp, A.Compare, A.BoolOp, A.Not, A.Neg, A.CondExpr)

#: the language's global names whose value never changes: every seat, and a number larger than any count
STEADY_NAMES = frozenset({"players", "inf"})

#: the language's global names that read the state as it is now (every global of the compiler but the
#: steady ones, so that a global added later counts as reading it): whose turn it is, the phase, the living
#: players from the current one ... An expression that names one is remembered for one version only.
STATE_NAMES = frozenset(GLOBALS) - STEADY_NAMES


def epoch_reads(tree: Any, quantities: AbstractSet[str], slots: AbstractSet[str]) -> Optional[frozenset[str]]:
    """The quantities ``tree`` asks when it reads nothing else that changes within a skill epoch; else None.

    ``quantities``: the names of the declared quantities; ``slots``: the equipment slots (``p.weapon``).
    An absent expression (``None``) reads nothing."""
    if tree is None:
        return frozenset()
    asked: set[str] = set()
    for node in walk(tree):
        if isinstance(node, A.Call):
            name = node.func.id if isinstance(node.func, A.Name) else None
            if name is not None and name in quantities:
                asked.add(name)
            elif name not in EPOCH_FUNCTIONS:
                return None
        elif isinstance(node, A.Attr):
            if node.name not in EPOCH_ATTRS and node.name not in slots:
                return None
        elif isinstance(node, A.Name) and node.id in STATE_NAMES:
            return None
        elif not isinstance(node, _NEUTRAL):
            return None
    return frozenset(asked)


def join_reads(*reads: Optional[frozenset[str]]) -> Optional[frozenset[str]]:
    """What several expressions read together: None when any of them reads the changing state.

    >>> join_reads(frozenset({"distance"}), frozenset(), frozenset({"attack_range"})) == {"distance", "attack_range"}
    True
    >>> join_reads(frozenset(), None) is None
    True
    """
    out: set[str] = set()
    for r in reads:
        if r is None:
            return None
        out |= r
    return frozenset(out)
