"""Check and compile effect-language trees into closures.

One pass does both: every name, attribute, call and statement is checked
against what the content declares (card, hero, skill, phase, mark ...) and
what the runtime offers (:mod:`sgs_runtime.vocabulary`, timing points), and
turned into a Python closure. Problems become :class:`Diagnostic` objects at
the exact line and column of the offending word; compilation carries on so
that one run reports every problem.

Compiled expressions are ``f(frame) -> value``; compiled blocks are
generators ``f(frame)`` that yield decision requests.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

from sgs_runtime import ops
from sgs_runtime.events import TIMINGS, Event, SignalEvent
from sgs_runtime.frame import BreakLoop, Frame, StopEffect
from sgs_runtime.model import card_is, parse_card_text
from sgs_runtime.quantities import INF, quantity
from sgs_runtime.respond import RESCUE
from sgs_runtime.vocabulary import (
    CARD_ATTRS,
    COMPREHENSIONS,
    EVENT_COMMON,
    FUNCTIONS,
    JUDGE_ATTRS,
    LIST_ATTRS,
    PLAYER_ATTRS,
    PLAYER_METHODS,
    element_type,
    list_type,
)

from . import ast as A
from .errors import Diagnostic, did_you_mean

ExprFn = Callable[[Frame], Any]
BlockFn = Callable[[Frame], Any]
MISSING = object()

GLOBALS: dict[str, tuple[str, ExprFn, str]] = {
    "players": ("players", lambda f: list(f.game.players), "every seat in seat order, dead or alive"),
    "alive": ("players", lambda f: f.game.alive_from(f.game.current),
              "living players in seat order from the current player"),
    "others": ("players", lambda f: f.game.after(f.vars["me"]), "other living players, from my next seat"),
    "current": ("player", lambda f: f.game.current, "whose turn it is"),
    "phase": ("sym:phase", lambda f: f.game.phase, "the current phase, or none between phases"),
    "resolving": ("bool", lambda f: f.game.current_use() is not None, "a card's use is being resolved"),
    "unused_heroes": ("syms:hero", lambda f: list(f.game.unused_heroes), "the heroes nobody plays, in pile order"),
    "inf": ("num", lambda f: INF, "a number larger than any count"),
    "givers": ("players", lambda f: _givers(f), "who gives me the running granted skill (黄天's 群 givers)"),
}


@dataclass
class Env:
    """The names content declares, for checking."""

    symbols: dict[str, set[str]] = field(default_factory=dict)  # name -> categories
    aliases: dict[str, str] = field(default_factory=dict)
    quantities: dict[str, tuple[str, ...]] = field(default_factory=dict)
    slots: set[str] = field(default_factory=set)
    marks: set[str] = field(default_factory=set)
    signals: set[str] = field(default_factory=set)
    options: set[str] = field(default_factory=set)

    def add(self, category: str, names: Iterable[str]) -> None:
        for n in names:
            self.symbols.setdefault(n, set()).add(category)

    def names_in(self, category: str) -> list[str]:
        return [n for n, cats in self.symbols.items() if category in cats]


@dataclass
class Scope:
    """Variables bound at a point of a snippet, and what the snippet may do."""

    vars: dict[str, str]
    event: Optional[type[Event]] = None
    timing: Optional[str] = None
    in_loop: bool = False
    phase_id: Optional[str] = None  # set in a phase's own block: its draws are that phase's draw

    def child(self) -> "Scope":
        return Scope(dict(self.vars), self.event, self.timing, self.in_loop, self.phase_id)


def _const(value: Any) -> ExprFn:
    return lambda f: value


def _givers(f: Frame) -> list[Any]:
    me, sid = f.vars.get("me"), f.vars.get("__skill__")
    sk = f.game.content.skills.get(sid) if sid else None
    return f.game.skillset.givers(me, sk) if me is not None and sk is not None else []


#: durations of a change: the scope it lasts until
UNTIL = {"turn_end": "turn", "phase_end": "phase", "round_end": "round"}
#: what a prohibition may forbid
BAN_ACTIONS = ("use", "play", "discard", "target")

#: functions over 'x from list' with a key as their second argument
KEYED = ("max", "min", "most", "least", "distinct")


def _each(f: Frame, var: str, xs: list[Any], fn: ExprFn) -> list[Any]:
    """``fn`` for each item of ``xs``, with ``var`` bound to it (``x from LIST``); ``var`` is restored after."""
    saved = f.vars.get(var, MISSING)
    try:
        out = []
        for x in xs:
            f.vars[var] = x
            out.append(fn(f))
        return out
    finally:
        if saved is MISSING:
            f.vars.pop(var, None)
        else:
            f.vars[var] = saved


def _distinct(xs: Any) -> list[Any]:
    out: list[Any] = []
    for x in xs:
        if x not in out:
            out.append(x)
    return out


class Compiler:
    def __init__(self, env: Env, file: str) -> None:
        self.env = env
        self.file = file
        self.diagnostics: list[Diagnostic] = []

    # ------------------------------------------------------------ reporting

    def error(self, pos: A.Pos, code: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(self.file, pos[0], pos[1], code, message))

    # ------------------------------------------------------------ symbols

    def canonical(self, name: str) -> str:
        return self.env.aliases.get(name, name)

    def symbol(self, node: A.Expr, category: str, what: str) -> ExprFn:
        """``node`` must name a ``category`` symbol (or be an expression of that kind)."""
        if isinstance(node, A.Name):
            return self.symbol_name(node.id, node.pos, category, what)
        fn, t = self.expr(node, None)
        return fn

    def symbol_name(self, name: str, pos: A.Pos, category: str, what: str, scope: Optional[Scope] = None) -> ExprFn:
        if scope is not None and name in scope.vars:
            return lambda f: f.vars[name]
        canon = self.canonical(name)
        cats = self.env.symbols.get(canon, set())
        if category in cats:
            return _const(canon)
        if cats:
            kinds = " or ".join(sorted(cats))
            self.error(pos, "E301", f"'{name}' is a {kinds}, not a {what}")
        else:
            pool = self.env.names_in(category) + (list(scope.vars) if scope is not None else [])
            self.error(pos, "E300", f"unknown {what} '{name}'{did_you_mean(name, pool)}")
        return _const(canon)

    # ------------------------------------------------------------ expressions

    def expr(self, node: A.Expr, scope: Optional[Scope]) -> tuple[ExprFn, str]:
        method = getattr(self, "_e_" + type(node).__name__)
        result: tuple[ExprFn, str] = method(node, scope or Scope({}))
        return result

    def expect(self, node: A.Expr, scope: Scope, want: str, what: str) -> ExprFn:
        fn, t = self.expr(node, scope)
        if not _compatible(t, want):
            self.error(node.pos, "E301", f"expected {what}, but this is {_describe(t)}")
        return fn

    def _e_Num(self, node: A.Num, scope: Scope) -> tuple[ExprFn, str]:
        return _const(node.value), "num"

    def _e_Str(self, node: A.Str, scope: Scope) -> tuple[ExprFn, str]:
        return _const(node.value), "text"

    def _e_Const(self, node: A.Const, scope: Scope) -> tuple[ExprFn, str]:
        return _const(node.value), ("bool" if isinstance(node.value, bool) else "none")

    def _e_Name(self, node: A.Name, scope: Scope) -> tuple[ExprFn, str]:
        name = node.id
        if name in scope.vars:
            return (lambda f: f.vars[name]), scope.vars[name]
        if name in GLOBALS:
            t, fn, _ = GLOBALS[name]
            if name == "others" and "me" not in scope.vars:
                self.error(node.pos, "E302", "'others' needs 'me', which is not bound here")
            return fn, t
        canon = self.canonical(name)
        cats = self.env.symbols.get(canon)
        if cats:
            cat = next(iter(cats)) if len(cats) == 1 else "*"
            return _const(canon), f"sym:{cat}"
        if name in _IMPLICIT:
            self.error(node.pos, "E302", f"'{name}' is not bound here: {_IMPLICIT[name]}")
        else:
            pool = list(scope.vars) + list(GLOBALS) + list(self.env.symbols)
            self.error(node.pos, "E300", f"unknown name '{name}'{did_you_mean(name, pool)}")
        return _const(None), "any"

    def _e_ListExpr(self, node: A.ListExpr, scope: Scope) -> tuple[ExprFn, str]:
        fns = [self.expr(i, scope) for i in node.items]
        types = {t for _, t in fns}
        items = [fn for fn, _ in fns]
        t = "list"
        if types == {"player"}:
            t = "players"
        elif types == {"card"}:
            t = "cards"
        elif len(types) == 1 and next(iter(types)).startswith("sym:"):
            t = "syms:" + next(iter(types))[4:]
        return (lambda f: [fn(f) for fn in items]), t

    def _e_Attr(self, node: A.Attr, scope: Scope) -> tuple[ExprFn, str]:
        if isinstance(node.obj, A.Name) and node.obj.id in _IMPLICIT and node.obj.id not in scope.vars:
            # `judge.suit` before any `judge`: say so, rather than "a phase has no attribute"
            self.error(node.obj.pos, "E302", f"'{node.obj.id}' is not bound here: {_IMPLICIT[node.obj.id]}")
            return _const(None), "any"
        obj, t = self.expr(node.obj, scope)
        name = node.name
        table = self._attr_table(t, scope)
        if table is None:
            if t in ("any", "none", "list"):
                return self._dynamic_attr(obj, name, node)
            self.error(node.name_pos, "E304", f"{_describe(t)} has no attribute '{name}'")
            return _const(None), "any"
        if name in table:
            at, getter, _ = table[name]

            def get(f: Frame, obj: ExprFn = obj, getter: Callable[[Any], Any] = getter) -> Any:
                v = obj(f)
                return None if v is None else getter(v)

            return get, at
        if t == "player" and name in self.env.slots:
            return (lambda f: (lambda p: p.slot(name) if p is not None else None)(obj(f))), "card"
        if t == "player" and name in PLAYER_METHODS:
            self.error(node.name_pos, "E305", f"'{name}' needs arguments: {name}(...)")
            return _const(None), "any"
        pool = list(table) + (sorted(self.env.slots) if t == "player" else [])
        self.error(node.name_pos, "E304", f"{_describe(t)} has no attribute '{name}'{did_you_mean(name, pool)}")
        return _const(None), "any"

    def _attr_table(self, t: str, scope: Scope) -> Optional[dict[str, tuple[str, Callable[[Any], Any], str]]]:
        if t == "player":
            return PLAYER_ATTRS
        if t == "card":
            return CARD_ATTRS
        if t == "judge":
            return JUDGE_ATTRS
        if t in ("players", "cards") or t.startswith("syms:"):
            return LIST_ATTRS
        if t.startswith("event:"):
            kind = t[6:]
            cls = _EVENT_CLASSES.get(kind)
            if cls is None:
                return None
            table = dict(EVENT_COMMON)
            for fname, ftype in cls.FIELDS.items():
                table[fname] = (ftype, _field_getter(fname), "")
            return table
        return None

    def _dynamic_attr(self, obj: ExprFn, name: str, node: A.Attr) -> tuple[ExprFn, str]:
        known = (set(PLAYER_ATTRS) | set(CARD_ATTRS) | set(JUDGE_ATTRS) | set(LIST_ATTRS) | self.env.slots
                 | {n for cls in _EVENT_CLASSES.values() for n in cls.FIELDS} | set(EVENT_COMMON))
        if name not in known:
            self.error(node.name_pos, "E304", f"no value has an attribute '{name}'{did_you_mean(name, known)}")
            return _const(None), "any"

        def get(f: Frame) -> Any:
            return _dynamic_get(obj(f), name)

        return get, "any"

    def _e_Call(self, node: A.Call, scope: Scope) -> tuple[ExprFn, str]:
        if isinstance(node.func, A.Attr):
            return self._method(node, scope)
        if not isinstance(node.func, A.Name):
            self.error(node.pos, "E305", "only names can be called")
            return _const(None), "any"
        name = node.func.id
        args = node.args
        if args and isinstance(args[0], A.Comprehension) and name in KEYED:
            if len(args) > 2:
                self.error(node.pos, "E305", f"'{name}' takes a list and a key: {name}(x from list, key)")
            return self._keyed(name, args[0], args[1] if len(args) > 1 else None, scope)  # type: ignore[arg-type]
        if name in ("distinct", "most", "least") and args and not isinstance(args[0], A.Comprehension):
            if len(args) != 1:
                self.error(node.pos, "E305", f"'{name}' takes one list, or 'x from list' and a key")
            fn, t = self.expr(args[0], scope) if args else (_const([]), "list")
            if name != "distinct":
                self.error(node.pos, "E305", f"'{name}' needs a key: {name}(x from list, key)")
            return (lambda f: _distinct(fn(f) or [])), t
        if args and isinstance(args[0], A.Comprehension):
            if name not in COMPREHENSIONS:
                self.error(node.pos, "E305", f"'{name}' does not take 'x from list where ...'"
                                             f"{did_you_mean(name, COMPREHENSIONS)}")
                return _const(None), "any"
            if len(args) != 1:
                self.error(node.pos, "E305", f"'{name}' takes one argument")
            return self._comprehension(name, args[0], scope)  # type: ignore[arg-type]
        if name in ("any", "all") or name == "select":
            if len(args) != 1:
                self.error(node.pos, "E305", f"'{name}' takes one list")
            fn, t = self.expr(args[0], scope) if args else (_const([]), "list")
            if name == "any":
                return (lambda f: bool(fn(f))), "bool"
            if name == "all":
                return (lambda f: all(fn(f) or [])), "bool"
            return fn, t
        if name == "option":
            if len(args) != 1 or not isinstance(args[0], A.Name):
                self.error(node.pos, "E305", "option takes the name of a rules option: option(name)")
                return _const(None), "any"
            opt = args[0].id
            if opt not in self.env.options:
                self.error(args[0].pos, "E300", f"unknown rules option '{opt}'{did_you_mean(opt, self.env.options)}")
            return (lambda f: f.game.option(opt)), "any"
        if name in FUNCTIONS:
            argtypes, rtype, impl, _ = FUNCTIONS[name]
            fns, types = self._args(node, scope, argtypes, name)
            if rtype == "elem":
                rtype = element_type(types[0]) if types else "any"
            elif rtype == "same":
                rtype = types[0] if types else "list"
            return (lambda f: impl(f, *[a(f) for a in fns])), rtype
        if name in self.env.quantities:
            params = self.env.quantities[name]
            if len(args) != len(params):
                self.error(node.pos, "E305", f"'{name}' takes {len(params)} argument(s) "
                                             f"({', '.join(params)}), not {len(args)}")
            fns = [self.expr(a, scope)[0] for a in args]
            return (lambda f: quantity(f.game, name, [a(f) for a in fns])), "num"
        pool = list(FUNCTIONS) + list(self.env.quantities) + list(COMPREHENSIONS) + ["option"]
        self.error(node.func.pos, "E300", f"unknown function '{name}'{did_you_mean(name, pool)}")
        return _const(None), "any"

    def _args(self, node: A.Call, scope: Scope, argtypes: tuple[str, ...], name: str) -> tuple[list[ExprFn], list[str]]:
        args = node.args
        variadic = argtypes and argtypes[-1] == "*"
        fixed = argtypes[:-1] if variadic else argtypes
        if (not variadic and len(args) != len(fixed)) or (variadic and len(args) < len(fixed)):
            self.error(node.pos, "E305", f"'{name}' takes {len(fixed)}{' or more' if variadic else ''} "
                                         f"argument(s), not {len(args)}")
        fns, types = [], []
        for i, a in enumerate(args):
            want = fixed[i] if i < len(fixed) else (fixed[-1] if fixed else "any")
            if want.startswith("sym:") and isinstance(a, A.Name) and a.id not in scope.vars:
                fns.append(self.symbol_name(a.id, a.pos, want[4:], want[4:]))
                types.append(want)
                continue
            fn, t = self.expr(a, scope)
            if not _compatible(t, want):
                self.error(a.pos, "E301", f"'{name}' expects {_describe(want)}, but this is {_describe(t)}")
            fns.append(fn)
            types.append(t)
        return fns, types

    def _method(self, node: A.Call, scope: Scope) -> tuple[ExprFn, str]:
        assert isinstance(node.func, A.Attr)
        obj, t = self.expr(node.func.obj, scope)
        name = node.func.name
        if t not in ("player", "any"):
            self.error(node.func.name_pos, "E304", f"{_describe(t)} has no method '{name}'")
            return _const(None), "any"
        if name not in PLAYER_METHODS:
            self.error(node.func.name_pos, "E304",
                       f"a player has no method '{name}'{did_you_mean(name, PLAYER_METHODS)}")
            return _const(None), "any"
        argtypes, rtype, impl, _ = PLAYER_METHODS[name]
        if len(node.args) != len(argtypes):
            self.error(node.pos, "E305", f"'{name}' takes {len(argtypes)} argument(s)")
            return _const(None), rtype
        fns: list[ExprFn] = []
        for a, want in zip(node.args, argtypes):
            if want == "mark":
                fns.append(self._mark_name(a, scope))
            elif want.startswith("sym:") and isinstance(a, A.Name) and a.id not in scope.vars:
                fns.append(self.symbol_name(a.id, a.pos, want[4:], want[4:].replace("card", "card name")))
            else:
                fns.append(self.expr(a, scope)[0])

        def call(f: Frame) -> Any:
            p = obj(f)
            return None if p is None else impl(p, f, *[a(f) for a in fns])

        return call, rtype

    def _mark_name(self, node: A.Expr, scope: Optional[Scope] = None) -> ExprFn:
        if not isinstance(node, A.Name) or (scope is not None and node.id in scope.vars):
            # an expression naming the mark: checked when it runs
            fn, t = self.expr(node, scope)
            if not _compatible(t, "text"):
                self.error(node.pos, "E301", f"a mark is named by a word or a text, but this is {_describe(t)}")
            marks = self.env.marks

            def named(f: Frame) -> Any:
                name = fn(f)
                if name not in marks:
                    from sgs_runtime.errors import GameError

                    raise GameError(f"unknown mark '{name}'")
                return name
            return named
        if node.id not in self.env.marks:
            self.error(node.pos, "E300", f"unknown mark '{node.id}'{did_you_mean(node.id, self.env.marks)} "
                                         "(declare it under 'marks:')")
        return _const(node.id)

    def _comprehension(self, func: str, comp: A.Comprehension, scope: Scope) -> tuple[ExprFn, str]:
        src, t = self.expr(comp.source, scope)
        inner = scope.child()
        elem = element_type(t)
        inner.vars[comp.var] = elem
        cond = self.condition(comp.cond, inner) if comp.cond is not None else None
        var = comp.var

        def select(f: Frame) -> list[Any]:
            xs = list(src(f) or [])
            if cond is None:
                return xs
            return [x for x, ok in zip(xs, _each(f, var, xs, cond)) if ok]

        if func == "count":
            return (lambda f: len(select(f))), "num"
        if func == "any":
            return (lambda f: bool(select(f))), "bool"
        if func == "all":
            return (lambda f: len(select(f)) == len(src(f) or [])), "bool"
        if func == "first":
            return (lambda f: (lambda xs: xs[0] if xs else None)(select(f))), elem
        return select, t if t in ("players", "cards") else list_type(elem)

    def _keyed(self, func: str, comp: A.Comprehension, key: Optional[A.Expr], scope: Scope) -> tuple[ExprFn, str]:
        """``max/min(x from xs, key)``: the largest/smallest key; ``most/least``: the items that have it;
        ``distinct(x from xs, key)``: the different keys, in order."""
        select, t = self._comprehension("select", comp, scope)
        inner = scope.child()
        elem = element_type(t)
        inner.vars[comp.var] = elem
        var = comp.var
        if key is None:
            keyfn: ExprFn = lambda f: f.vars[var]  # noqa: E731
            kt = elem
        else:
            keyfn, kt = self.expr(key, inner)
            if func in ("max", "min", "most", "least") and not _compatible(kt, "num"):
                self.error(key.pos, "E301", f"the key of '{func}' must be a number, but this is {_describe(kt)}")

        def keys(f: Frame) -> list[tuple[Any, Any]]:
            xs = select(f)
            return list(zip(xs, _each(f, var, xs, keyfn)))

        if func == "distinct":
            return (lambda f: _distinct([k for _, k in keys(f)])), list_type(kt) if kt not in ("any",) else "list"
        if func in ("max", "min"):
            pick = max if func == "max" else min

            def best(f: Frame) -> Any:
                ks = [k or 0 for _, k in keys(f)]
                return pick(ks) if ks else 0
            return best, "num"

        def items(f: Frame) -> list[Any]:
            got = keys(f)
            if not got:
                return []
            target = (max if func == "most" else min)(k or 0 for _, k in got)
            return [x for x, k in got if (k or 0) == target]
        return items, t if t in ("players", "cards") else list_type(elem)

    def _e_Comprehension(self, node: A.Comprehension, scope: Scope) -> tuple[ExprFn, str]:
        return self._comprehension("select", node, scope)

    def _e_BinOp(self, node: A.BinOp, scope: Scope) -> tuple[ExprFn, str]:
        left = self.expect(node.left, scope, "num", "a number")
        right = self.expect(node.right, scope, "num", "a number")
        op = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": _divide}[node.op]
        return (lambda f: op(left(f) or 0, right(f) or 0)), "num"

    def _e_Neg(self, node: A.Neg, scope: Scope) -> tuple[ExprFn, str]:
        fn = self.expect(node.operand, scope, "num", "a number")
        return (lambda f: -(fn(f) or 0)), "num"

    def _e_Not(self, node: A.Not, scope: Scope) -> tuple[ExprFn, str]:
        fn, _ = self.expr(node.operand, scope)
        return (lambda f: not fn(f)), "bool"

    def _e_BoolOp(self, node: A.BoolOp, scope: Scope) -> tuple[ExprFn, str]:
        left, _ = self.expr(node.left, scope)
        right, _ = self.expr(node.right, scope)
        if node.op == "and":
            return (lambda f: bool(left(f)) and bool(right(f))), "bool"
        return (lambda f: bool(left(f)) or bool(right(f))), "bool"

    def _e_CondExpr(self, node: A.CondExpr, scope: Scope) -> tuple[ExprFn, str]:
        test, _ = self.expr(node.test, scope)
        then, t1 = self.expr(node.then, scope)
        orelse, t2 = self.expr(node.orelse, scope)
        return (lambda f: then(f) if test(f) else orelse(f)), (t1 if t1 == t2 else "any")

    def _e_Compare(self, node: A.Compare, scope: Scope) -> tuple[ExprFn, str]:
        op = node.op
        if op in ("is", "isnot"):
            return self._is(node, scope)
        if op in ("in", "notin"):
            right, rt = self.expr(node.right, scope) if not isinstance(node.right, A.ListExpr) else self._sym_list(
                node.right, node.left, scope)
            left, lt = self._side(node.left, node.right, rt, scope)
            if op == "in":
                return (lambda f: _contains(right(f), left(f))), "bool"
            return (lambda f: not _contains(right(f), left(f))), "bool"
        # a bare name (heart, slash ...) is read as a name of the kind the other side has
        left_bare, right_bare = _is_bare(node.left, scope), _is_bare(node.right, scope)
        if left_bare and not right_bare:
            right, rt = self.expr(node.right, scope)
            assert isinstance(node.left, A.Name)
            left, lt = self._bare(node.left, rt, scope)
        elif right_bare and not left_bare:
            left, lt = self.expr(node.left, scope)
            assert isinstance(node.right, A.Name)
            right, rt = self._bare(node.right, lt, scope)
        else:
            left, lt = self.expr(node.left, scope)
            right, rt = self.expr(node.right, scope)
        fn = _COMPARE[op]
        if op in ("<", "<=", ">", ">="):
            for side, t in ((node.left, lt), (node.right, rt)):
                if not _compatible(t, "num"):
                    self.error(side.pos, "E301", f"expected a number, but this is {_describe(t)}")
            return (lambda f: _order(fn, left(f), right(f))), "bool"
        return (lambda f: fn(left(f), right(f))), "bool"

    def _is(self, node: A.Compare, scope: Scope) -> tuple[ExprFn, str]:
        """``CARD is NAME``: the card is a NAME or of its family (a thunder Slash is a slash)."""
        card = self.expect(node.left, scope, "card", "a card")
        assert isinstance(node.right, A.Name)
        self.symbol_name(node.right.id, node.right.pos, "card", "card name")  # reports an unknown name
        name = self.canonical(node.right.id)
        if node.op == "is":
            return (lambda f: _card_is_a(card(f), name)), "bool"
        return (lambda f: not _card_is_a(card(f), name)), "bool"

    def _side(self, node: A.Expr, other: A.Expr, other_t: str, scope: Scope) -> tuple[ExprFn, str]:
        if _is_bare(node, scope):
            assert isinstance(node, A.Name)
            elem = other_t[5:] if other_t.startswith("syms:") else ""
            return self._bare(node, "sym:" + elem if elem else "", scope)
        return self.expr(node, scope)

    def _bare(self, node: A.Name, other_t: str, scope: Scope) -> tuple[ExprFn, str]:
        """A bare name compared with something of type ``other_t``."""
        if other_t.startswith("sym:") and other_t != "sym:*":
            cat = other_t[4:]
            return self.symbol_name(node.id, node.pos, cat, _CATEGORY_WORDS.get(cat, cat)), other_t
        return self.expr(node, scope)

    def _sym_list(self, lst: A.ListExpr, left: A.Expr, scope: Scope) -> tuple[ExprFn, str]:
        _, lt = self.expr(left, scope) if not _is_bare(left, scope) else (None, "")
        if lt.startswith("sym:") and lt != "sym:*":
            cat = lt[4:]
            fns = []
            for item in lst.items:
                if _is_bare(item, scope):
                    assert isinstance(item, A.Name)
                    fns.append(self.symbol_name(item.id, item.pos, cat, _CATEGORY_WORDS.get(cat, cat)))
                else:
                    fns.append(self.expr(item, scope)[0])
            return (lambda f: [fn(f) for fn in fns]), "syms:" + cat
        return self.expr(lst, scope)

    def condition(self, node: A.Expr, scope: Scope) -> ExprFn:
        fn, _ = self.expr(node, scope)
        return fn

    # ------------------------------------------------------------ statements

    def block(self, stmts: list[A.Stmt], scope: Scope) -> BlockFn:
        items: list[tuple[bool, Callable[[Frame], Any]]] = []
        for s in stmts:
            method = getattr(self, "_s_" + type(s).__name__, None)
            if method is None:  # pragma: no cover - the grammar has no other statements
                self.error(s.pos, "E306", f"unsupported statement {type(s).__name__}")
                continue
            items.append(method(s, scope))
        return _make_block(items)

    def _player(self, node: Optional[A.Expr], scope: Scope, what: str = "a player") -> ExprFn:
        if node is None:
            if "me" not in scope.vars:
                self.error((0, 0), "E302", "'me' is not bound here")
            return lambda f: f.vars["me"]
        return self.expect(node, scope, "player", what)

    def _subject(self, s: A.Action, scope: Scope) -> ExprFn:
        if s.subject is None and "me" not in scope.vars:
            self.error(s.pos, "E302", f"'{s.verb}' needs a player: nobody is 'me' here")
            return _const(None)
        return self._player(s.subject, scope, "a player (who acts)")

    def _num(self, node: A.Expr, scope: Scope) -> ExprFn:
        return self.expect(node, scope, "num", "a number")

    def _cards(self, node: A.Expr, scope: Scope) -> ExprFn:
        fn, t = self.expr(node, scope)
        if not (_compatible(t, "cards") or _compatible(t, "card")):
            self.error(node.pos, "E301", f"expected cards, but this is {_describe(t)}")
        return fn

    def _players(self, node: A.Expr, scope: Scope) -> ExprFn:
        fn, t = self.expr(node, scope)
        if not (_compatible(t, "players") or _compatible(t, "player")):
            self.error(node.pos, "E301", f"expected players, but this is {_describe(t)}")
        return fn

    def _zones(self, zones: list[str]) -> tuple[str, ...]:
        return tuple(zones)

    def _where(self, node: Optional[A.Expr], scope: Scope, elem: str) -> Optional[ExprFn]:
        if node is None:
            return None
        inner = scope.child()
        inner.vars["it"] = elem
        return self.condition(node, inner)

    def _s_Let(self, s: A.Let, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        fn, t = self.expr(s.value, scope)
        scope.vars[s.name] = t
        name = s.name

        def run(f: Frame) -> None:
            f.vars[name] = fn(f)

        return False, run

    def _s_Assign(self, s: A.Assign, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        value, vt = self.expr(s.value, scope)
        op = s.op
        target = s.target
        if isinstance(target, A.Call) and isinstance(target.func, A.Attr) and target.func.name == "mark":
            who = self._player(target.func.obj, scope)
            if len(target.args) != 1:
                self.error(target.pos, "E305", "mark takes one name: p.mark(name)")
                return False, lambda f: None
            mark = self._mark_name(target.args[0], scope)
            if not _compatible(vt, "num"):
                self.error(s.value.pos, "E301", f"a mark holds a number, but this is {_describe(vt)}")

            def set_mark(f: Frame) -> None:
                p, name, v = who(f), mark(f), value(f)
                if p is None:
                    return
                cur = p.marks.get(name, 0)
                ops.set_mark(f, p, name, v if op == "=" else cur + v if op == "+=" else cur - v)

            return False, set_mark
        if isinstance(target, A.Attr) and target.name == "chained":
            who = self._player(target.obj, scope)
            if op != "=":
                self.error(s.pos, "E306", "'chained' is true or false: assign it with '='")
            if not _compatible(vt, "bool"):
                self.error(s.value.pos, "E301", f"expected true or false, but this is {_describe(vt)}")

            def set_chained(f: Frame) -> None:
                ops.set_chained(f, who(f), bool(value(f)))

            return False, set_chained
        if isinstance(target, A.Attr) and target.name == "kingdom":
            who = self._player(target.obj, scope)
            if op != "=":
                self.error(s.pos, "E306", "a kingdom is assigned with '='")
            if not _compatible(vt, "sym:kingdom"):
                self.error(s.value.pos, "E301", f"expected a kingdom, but this is {_describe(vt)}")

            def set_kingdom(f: Frame) -> None:
                ops.set_kingdom(f, who(f), value(f))

            return False, set_kingdom
        if isinstance(target, A.Attr) and target.name in ("max_hp", "hp"):
            who = self._player(target.obj, scope)
            attr = target.name
            setter = ops.set_max_hp if attr == "max_hp" else ops.set_hp

            def set_hp(f: Frame) -> Any:
                p, v = who(f), value(f)
                if p is not None:
                    cur = getattr(p, attr)
                    yield from setter(f, p, v if op == "=" else cur + v if op == "+=" else cur - v)

            return True, set_hp
        if isinstance(target, A.Attr) and isinstance(target.obj, A.Name) and target.obj.id == "event":
            if scope.event is None:
                self.error(target.pos, "E306", "there is no event to change here")
                return False, lambda f: None
            fname = target.name
            if fname not in scope.event.FIELDS:
                self.error(target.name_pos, "E304", f"this event has no field '{fname}'"
                                                    f"{did_you_mean(fname, scope.event.FIELDS)}")
                return False, lambda f: None
            timing = TIMINGS.get(scope.timing or "")
            ftype = scope.event.FIELDS[fname]
            if op != "=" and not _compatible(ftype, "num"):
                self.error(s.pos, "E306", f"'event.{fname}' is not a number: assign it with '='")
            elif not _compatible(vt, "num" if op != "=" else ftype):
                self.error(s.value.pos, "E301", f"'event.{fname}' holds {_describe(ftype)}, but this is {_describe(vt)}")
            if fname not in scope.event.MUTABLE or (timing is not None and not timing.before
                                                    and fname not in scope.event.ANY_TIME):
                self.error(target.name_pos, "E306", f"'event.{fname}' cannot be changed at '{scope.timing}'"
                                                    " (only some fields, at 'before' timings)")

            def set_field(f: Frame) -> None:
                ev = f.vars["event"]
                v = value(f)
                if op == "=":
                    setattr(ev, fname, v)
                elif op == "+=":
                    setattr(ev, fname, getattr(ev, fname) + v)
                else:
                    setattr(ev, fname, getattr(ev, fname) - v)

            return False, set_field
        self.error(s.pos, "E306", "only 'event.FIELD', 'PLAYER.mark(NAME)', 'PLAYER.hp', 'PLAYER.max_hp' and "
                                  "'PLAYER.chained' can be assigned")
        return False, lambda f: None

    def _s_Control(self, s: A.Control, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        kind = s.kind
        if kind == "stop":
            def stop(f: Frame) -> None:
                raise StopEffect()

            return False, stop
        if kind == "break":
            if not scope.in_loop:
                self.error(s.pos, "E306", "'break' is only allowed inside 'repeat' or 'for each'")

            def brk(f: Frame) -> None:
                raise BreakLoop()

            return False, brk
        if kind == "cancel":
            timing = TIMINGS.get(scope.timing or "")
            if scope.event is None or (timing is not None and not timing.before and scope.event is not SignalEvent):
                self.error(s.pos, "E306", "'cancel' is only allowed in a trigger at a 'before' timing "
                                          "(before_draw, damage_caused, damage_taken, before_effect ...) or a signal")

            def cancel(f: Frame) -> None:
                f.vars["event"].cancelled = True

            return False, cancel
        return False, lambda f: None

    def _s_If(self, s: A.If, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        branches = []
        bound_sets = []
        for cond, body in s.branches:
            c = self.condition(cond, scope)
            inner = scope.child()
            b = self.block(body, inner)
            bound_sets.append(set(inner.vars) - set(scope.vars))
            branches.append((c, b))
        orelse = None
        if s.orelse is not None:
            inner = scope.child()
            orelse = self.block(s.orelse, inner)
            bound_sets.append(set(inner.vars) - set(scope.vars))
            for name in set.intersection(*bound_sets):
                scope.vars[name] = inner.vars[name]

        def run(f: Frame) -> Any:
            for c, b in branches:
                if c(f):
                    yield from b(f)
                    return
            if orelse is not None:
                yield from orelse(f)

        return True, run

    def _s_ForEach(self, s: A.ForEach, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        src, t = self.expr(s.source, scope)
        if not _compatible(t, "list"):
            self.error(s.source.pos, "E301", f"'for each' needs a list, but this is {_describe(t)}")
        inner = scope.child()
        inner.vars[s.var] = element_type(t)
        inner.in_loop = True
        body = self.block(s.body, inner)
        var = s.var

        def run(f: Frame) -> Any:
            for x in list(src(f) or []):
                f.vars[var] = x
                try:
                    yield from body(f)
                except BreakLoop:
                    break

        return True, run

    def _s_Repeat(self, s: A.Repeat, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        inner = scope.child()
        inner.in_loop = True
        count = self._num(s.expr, scope) if s.kind == "times" and s.expr is not None else None
        cond = self.condition(s.expr, scope) if s.kind == "while" and s.expr is not None else None
        body = self.block(s.body, inner)
        kind = s.kind

        def run(f: Frame) -> Any:
            n = 0
            limit = int(count(f) or 0) if count is not None else None
            while True:
                if limit is not None and n >= limit:
                    return
                if cond is not None and not cond(f):
                    return
                n += 1
                ops.loop_guard(f, n)
                try:
                    yield from body(f)
                except BreakLoop:
                    return
                if kind == "forever" and n > f.game.limits.loop:
                    return

        return True, run

    def _s_ChooseBlock(self, s: A.ChooseBlock, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who = self._player(s.subject, scope) if s.subject is not None else self._player(None, scope)
        options = []
        for opt in s.options:
            cond = self.condition(opt.cond, scope) if opt.cond is not None else None
            body = self.block(opt.body, scope.child())
            options.append((opt.label, cond, body))

        def run(f: Frame) -> Any:
            available = [(label, body) for label, cond, body in options if cond is None or cond(f)]
            if not available:
                return
            idx = yield from ops.choose_option(f, who(f), [label for label, _ in available])
            f.game.emit("choice", player=who(f), option=available[idx][0])
            yield from available[idx][1](f)

        return True, run

    # -- actions

    def _s_Draw(self, s: A.Draw, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who, n = self._subject(s, scope), self._num(s.amount, scope)
        phase = scope.phase_id
        return True, lambda f: ops.draw(f, who(f), n(f), phase)

    def _s_DiscardDownTo(self, s: A.DiscardDownTo, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who, n = self._subject(s, scope), self._num(s.amount, scope)
        return True, lambda f: ops.discard_down_to(f, who(f), n(f))

    def _s_DiscardAll(self, s: A.DiscardAll, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who, zones = self._subject(s, scope), self._zones(s.zones)
        return True, lambda f: ops.discard_all(f, who(f), zones)

    def _count(self, c: A.Count, scope: Scope) -> tuple[str, Optional[ExprFn]]:
        if c.expr is None:
            return c.kind, None
        if isinstance(c.expr, A.Neg) or (isinstance(c.expr, A.Num) and c.expr.value < 0):
            self.error(c.expr.pos, "E301", "a number of cards or players cannot be negative")
        n = self._num(c.expr, scope)
        return c.kind, (lambda f: max(0, int(n(f) or 0)))

    def _s_DiscardChosen(self, s: A.DiscardChosen, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who = self._subject(s, scope)
        kind, n = self._count(s.count, scope)
        zones = self._zones(s.zones)
        where = self._where(s.where, scope, "card")
        name = s.as_name
        if name:
            scope.vars[name] = "cards"

        def run(f: Frame) -> Any:
            got = yield from ops.discard_chosen(f, who(f), kind, n(f) if n else None, zones, where)
            if name:
                f.vars[name] = got

        return True, run

    def _s_DiscardCards(self, s: A.DiscardCards, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who = self._subject(s, scope)
        fn, t = self.expr(s.cards, scope)
        if t == "num":
            # `discard 2`: two of one's own cards
            def run_n(f: Frame) -> Any:
                yield from ops.discard_chosen(f, who(f), "exact", fn(f), (), None)

            return True, run_n
        if not (_compatible(t, "cards") or _compatible(t, "card")):
            self.error(s.cards.pos, "E301", f"expected cards or a number, but this is {_describe(t)}")
        return True, lambda f: ops.discard_cards(f, who(f), fn(f))

    def _s_ChooseCards(self, s: A.ChooseCards, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who = self._subject(s, scope)
        kind, n = self._count(s.count, scope)
        zones = self._zones(s.zones)
        owner = None
        if s.source is not None:
            owner, st = self.expr(s.source, scope)
            if not (_compatible(st, "player") or _compatible(st, "cards")):
                self.error(s.source.pos, "E301", f"choose cards from a player or from a list of cards, "
                                                 f"not from {_describe(st)}")
        where = self._where(s.where, scope, "card")
        single = kind == "exact" and isinstance(s.count.expr, A.Num) and s.count.expr.value == 1
        name = s.as_name
        scope.vars[name] = "card" if single else "cards"

        def run(f: Frame) -> Any:
            got = yield from ops.choose_cards(f, who(f), kind, n(f) if n else None, zones,
                                              owner(f) if owner else None, where)
            f.vars[name] = (got[0] if got else None) if single else got

        return True, run

    def _s_ChoosePlayers(self, s: A.ChoosePlayers, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who = self._subject(s, scope)
        kind, n = self._count(s.count, scope)
        source = self._players(s.source, scope) if s.source is not None else None
        where = self._where(s.where, scope, "player")
        single = kind == "exact" and isinstance(s.count.expr, A.Num) and s.count.expr.value == 1
        name = s.as_name
        scope.vars[name] = "player" if single else "players"

        def run(f: Frame) -> Any:
            got = yield from ops.choose_players(f, who(f), kind, n(f) if n else None,
                                                source(f) if source else None, where)
            f.vars[name] = (got[0] if got else None) if single else got

        return True, run

    def _s_ChooseSymbol(self, s: A.ChooseSymbol, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who = self._subject(s, scope)
        fn, t = self.expr(s.options, scope)
        name = s.as_name
        scope.vars[name] = ("sym:" + t[5:]) if t.startswith("syms:") else "any"

        def run(f: Frame) -> Any:
            got = yield from ops.choose_symbol(f, who(f), list(fn(f) or []))
            f.vars[name] = got
            f.game.emit("choice", player=who(f), option=got)

        return True, run

    def _s_Gain(self, s: A.Gain, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who, cards = self._subject(s, scope), self._cards(s.cards, scope)
        return True, lambda f: ops.gain(f, who(f), cards(f))

    def _s_Give(self, s: A.Give, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who, cards, to = self._subject(s, scope), self._cards(s.cards, scope), self._player(s.to, scope)
        return True, lambda f: ops.give(f, who(f), cards(f), to(f))

    def _s_Show(self, s: A.Show, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who, cards = self._subject(s, scope), self._cards(s.cards, scope)
        return False, lambda f: ops.show(f, who(f), cards(f))

    def _s_Damage(self, s: A.Damage, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        target = self._player(s.target, scope, "the damaged player")
        if s.like is not None:
            original = self.expect(s.like, scope, "event:damage", "a damage event (event, or event.damage)")
            return True, lambda f: ops.damage_like(f, target(f), original(f))
        amount = self._num(s.amount, scope)
        nature: Optional[ExprFn] = None
        if s.nature is not None:
            assert s.nature_pos is not None
            nature = self.symbol_name(s.nature, s.nature_pos, "nature", "damage nature (normal, fire, thunder)")
        if s.nature_expr is not None:
            if s.nature is not None:
                self.error(s.nature_expr.pos, "E306", "give the nature once: 'damage P 1 fire' or 'damage P 1 nature X'")
            nature = self.symbol(s.nature_expr, "nature", "damage nature (normal, fire, thunder)") \
                if isinstance(s.nature_expr, A.Name) and s.nature_expr.id not in scope.vars \
                else self.expect(s.nature_expr, scope, "sym:nature", "a damage nature (normal, fire, thunder)")
        if s.by is not None:
            if isinstance(s.by, A.Const) and s.by.value is None:
                source: ExprFn = _const(None)
            else:
                source = self._player(s.by, scope, "the source of the damage")
        else:
            source = self._player(s.subject, scope)
        card: Optional[ExprFn] = None
        if s.card is not None:
            card = (_const(None) if isinstance(s.card, A.Const) and s.card.value is None
                    else self.expect(s.card, scope, "card", "the card that causes the damage"))
        def run(f: Frame) -> Any:
            return ops.damage(f, source(f), target(f), amount(f), nature(f) if nature else None,
                              card=card(f) if card is not None else ops.NO_CARD)

        return True, run

    def _s_Recover(self, s: A.Recover, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who, n = self._subject(s, scope), self._num(s.amount, scope)
        return True, lambda f: ops.recover(f, who(f), n(f))

    def _s_LoseHp(self, s: A.LoseHp, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who, n = self._subject(s, scope), self._num(s.amount, scope)
        return True, lambda f: ops.lose_hp(f, who(f), n(f))

    def _s_Judge(self, s: A.Judge, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who = self._subject(s, scope)
        scope.vars["judge"] = "judge"

        def run(f: Frame) -> Any:
            ev = yield from ops.judge(f, who(f))
            f.vars["judge"] = ev

        return True, run

    def _s_Retrial(self, s: A.Retrial, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        if scope.timing != "judge_retrial":
            self.error(s.pos, "E306", "'retrial' is only allowed in a trigger on judge_retrial")
        who, card = self._subject(s, scope), self._cards(s.card, scope)
        return True, lambda f: ops.retrial(f, who(f), card(f))

    def _s_AskRespond(self, s: A.AskRespond, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        player = self._player(s.player, scope, "the player asked")
        pattern = s.pattern
        if pattern in scope.vars and not s.more:  # `ask p play x`: the kind a variable names
            var, mode0, extra0 = pattern, s.mode, s.extra
            times0 = self._num(s.times, scope) if s.times is not None else _const(1)
            on0 = self._players(s.on, scope) if s.on is not None else None
            for0 = self._player(s.for_, scope, "the player answered for") if s.for_ is not None else None
            scope.vars["responded"] = "bool"
            scope.vars["response"] = "card"

            def run_var(f: Frame) -> Any:
                n = times0(f)
                value = f.vars[var]
                kind = value.kind.id if hasattr(value, "kind") else str(value)
                got = yield from ops.ask_respond(f, player(f), mode0, frozenset([kind]), n, on0(f) if on0 else None,
                                                 for0(f) if for0 else None, extra0)
                f.vars["responded"] = len(got) >= max(1, int(n or 0))
                f.vars["response"] = got[-1] if got else None

            return True, run_var
        if pattern != RESCUE:
            pattern = self.canonical(pattern)
            self.symbol_name(s.pattern, s.pattern_pos, "card", "card name")
        names = [pattern]
        for more, more_pos in s.more:
            self.symbol_name(more, more_pos, "card", "card name")
            names.append(self.canonical(more))
        patterns = frozenset(names)
        times = self._num(s.times, scope) if s.times is not None else _const(1)
        on = self._players(s.on, scope) if s.on is not None else None
        for_ = self._player(s.for_, scope, "the player answered for") if s.for_ is not None else None
        mode, extra = s.mode, s.extra
        scope.vars["responded"] = "bool"
        scope.vars["response"] = "card"

        def run(f: Frame) -> Any:
            n = times(f)
            got = yield from ops.ask_respond(f, player(f), mode, patterns, n, on(f) if on else None,
                                             for_(f) if for_ else None, extra)
            f.vars["responded"] = len(got) >= max(1, int(n or 0))
            f.vars["response"] = got[-1] if got else None

        return True, run

    def _s_AskConfirm(self, s: A.AskConfirm, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        player = self._player(s.player, scope, "the player asked")
        prompt = s.prompt
        scope.vars["confirmed"] = "bool"

        def run(f: Frame) -> Any:
            f.vars["confirmed"] = yield from ops.ask_confirm(f, player(f), prompt)

        return True, run

    def _s_Provide(self, s: A.Provide, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        if scope.timing != "respond_asked":
            self.error(s.pos, "E306", "'provide' is only allowed in a trigger on respond_asked")
        card = self._card_or_name(s.card, scope)
        return False, lambda f: ops.provide(f, card(f))

    def _card_or_name(self, node: A.Expr, scope: Scope) -> ExprFn:
        if isinstance(node, A.Name) and node.id not in scope.vars and node.id not in GLOBALS:
            return self.symbol_name(node.id, node.pos, "card", "card name", scope)
        fn, t = self.expr(node, scope)
        if not (_compatible(t, "card") or _compatible(t, "cards") or t == "sym:card"):
            self.error(node.pos, "E301", f"expected a card or a card name, but this is {_describe(t)}")
        return fn

    def _s_Use(self, s: A.Use, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who = self._subject(s, scope)
        card = self._card_or_name(s.card, scope)
        on = self._players(s.on, scope) if s.on is not None else None
        extra, unnull = s.extra, s.unnullifiable
        return True, lambda f: ops.use(f, who(f), card(f), on(f) if on else None, extra, unnull)

    def _s_Skip(self, s: A.Skip, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who = self._subject(s, scope)
        phase = self.symbol_name(s.phase, s.phase_pos, "phase", "phase")
        return False, lambda f: ops.skip(f, who(f), phase(f))

    def _s_Signal(self, s: A.Signal, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        name = s.name
        if name in TIMINGS:
            self.error(s.name_pos, "E306", f"'{name}' is a timing of the engine; a signal needs a name of its own")
        scope.vars[name] = "event:signal"

        def run(f: Frame) -> Any:
            f.vars[name] = yield from ops.signal(f, name)

        return True, run

    def _s_PutZone(self, s: A.PutZone, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        cards, player, zone = self._cards(s.cards, scope), self._player(s.player, scope), s.zone
        return True, lambda f: ops.put_zone(f, cards(f), player(f), zone)

    def _s_PutPile(self, s: A.PutPile, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        cards, where = self._cards(s.cards, scope), s.where
        return True, lambda f: ops.put_pile(f, cards(f), where)

    def _s_Arrange(self, s: A.Arrange, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who, n = self._subject(s, scope), self._num(s.amount, scope)
        return True, lambda f: ops.arrange(f, who(f), n(f))

    def _s_Distribute(self, s: A.Distribute, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who, cards = self._subject(s, scope), self._cards(s.cards, scope)
        return True, lambda f: ops.distribute(f, who(f), cards(f))

    def _s_Reveal(self, s: A.Reveal, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who, n = self._subject(s, scope), self._num(s.amount, scope)
        name, private = s.as_name, s.private
        scope.vars[name] = "cards"

        def run(f: Frame) -> Any:
            f.vars[name] = yield from ops.reveal(f, who(f), n(f), private)

        return True, run

    def _s_Ignore(self, s: A.Ignore, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        if s.slot not in self.env.slots:
            self.error(s.slot_pos, "E300", f"unknown equipment slot '{s.slot}'{did_you_mean(s.slot, self.env.slots)}")
        slot = s.slot
        player = self._player(s.player, scope)
        return False, lambda f: ops.ignore(f, slot, player(f))

    def _s_Deny(self, s: A.Deny, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        player = self._player(s.player, scope)
        return False, lambda f: ops.deny(f, player(f))

    def _s_Redirect(self, s: A.Redirect, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        if scope.timing not in ("targeted", "targeting"):
            self.error(s.pos, "E306", "'redirect' is only allowed in a trigger on targeted or targeting")
        player = self._player(s.player, scope)
        return False, lambda f: ops.redirect(f, player(f))

    def _s_CheckVictory(self, s: A.CheckVictory, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        return False, ops.check_victory

    def _s_TurnOver(self, s: A.TurnOver, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who = self._subject(s, scope)
        return False, lambda f: ops.turn_over(f, who(f))

    def _s_Log(self, s: A.Log, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who, text = self._subject(s, scope), s.text
        return False, lambda f: ops.log(f, who(f), text)

    def _s_Resolve(self, s: A.Resolve, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who, card = self._subject(s, scope), self._cards(s.card, scope)
        return True, lambda f: ops.resolve(f, who(f), card(f))

    def _s_EndTurn(self, s: A.EndTurn, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        return False, ops.end_turn

    def _s_RevealRole(self, s: A.RevealRole, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who = self._subject(s, scope)
        return False, lambda f: ops.reveal_role(f, who(f))

    def _until(self, name: Optional[str], pos: A.Pos) -> Optional[str]:
        if name is None:
            return None
        if name not in UNTIL:
            self.error(pos, "E300", f"unknown duration '{name}'{did_you_mean(name, UNTIL)}: "
                                    f"say {', '.join(UNTIL)}")
            return None
        return UNTIL[name]

    def _s_SkillChange(self, s: A.SkillChange, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who = self._subject(s, scope)
        skill = self.symbol_name(s.skill, s.skill_pos, "skill", "skill")
        until, gain = self._until(s.until, s.until_pos), s.gain
        return False, lambda f: ops.change_skill(f, who(f), skill(f), gain, until)

    def _s_Invalidate(self, s: A.Invalidate, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        player = self._player(s.player, scope, "the player whose skills are invalid")
        skill = self.symbol_name(s.skill, s.skill_pos, "skill", "skill") if s.skill is not None else _const(None)
        until = self._until(s.until, s.until_pos)
        return False, lambda f: ops.invalidate(f, player(f), skill(f), until)

    def _s_Forbid(self, s: A.Forbid, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        player = self._player(s.player, scope, "the player bound by the prohibition")
        actions = []
        for name, pos in s.actions:
            if name not in BAN_ACTIONS:
                self.error(pos, "E300", f"'{name}' is not something a prohibition forbids"
                                        f"{did_you_mean(name, BAN_ACTIONS)}: say {', '.join(BAN_ACTIONS)}")
            actions.append(name)
        inner = scope.child()
        inner.vars["it"] = "card"
        inner.vars["user"] = "player"
        cond = self.condition(s.where, inner) if s.where is not None else None
        until, what = self._until(s.until, s.until_pos), frozenset(actions)
        return False, lambda f: ops.forbid(f, player(f), what, cond, until)

    def _s_Kill(self, s: A.Kill, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        player = self._player(s.player, scope, "the player who dies")
        by = self._player(s.by, scope, "the killer") if s.by is not None else None
        return True, lambda f: ops.kill(f, player(f), by(f) if by is not None else None)

    def _s_PutNamedPile(self, s: A.PutNamedPile, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        cards, player = self._cards(s.cards, scope), self._player(s.player, scope)
        pile = self.symbol_name(s.pile, s.pile_pos, "pile", "pile (declare it under a skill's 'piles:')")
        return True, lambda f: ops.put_named_pile(f, cards(f), player(f), pile(f))

    def _s_LookAt(self, s: A.LookAt, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who, cards, name = self._subject(s, scope), self._cards(s.cards, scope), s.as_name
        scope.vars[name] = "cards"

        def run(f: Frame) -> None:
            f.vars[name] = ops.look_at(f, who(f), cards(f))

        return False, run

    def _s_Revive(self, s: A.Revive, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        player = self._player(s.player, scope, "the player who returns")
        if isinstance(s.hero, A.Name) and s.hero.id not in scope.vars and s.hero.id not in GLOBALS:
            hero = self.symbol_name(s.hero.id, s.hero.pos, "hero", "hero")
        else:
            hero, t = self.expr(s.hero, scope)
            if not _compatible(t, "sym:hero"):
                self.error(s.hero.pos, "E301", f"expected a hero, but this is {_describe(t)}")
        hp = self._num(s.hp, scope) if s.hp is not None else None
        return True, lambda f: ops.revive(f, player(f), hero(f), hp(f) if hp else None)

    def _s_Counter(self, s: A.Counter, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        card = self._cards(s.card, scope)
        target = self._player(s.target, scope, "the player the effect is on")
        scope.vars["countered"] = "bool"

        def run(f: Frame) -> Any:
            f.vars["countered"] = yield from ops.counter(f, card(f), target(f))

        return True, run

    def _s_Act(self, s: A.Act, scope: Scope) -> tuple[bool, Callable[[Frame], Any]]:
        who = self._subject(s, scope)
        return True, lambda f: ops.act(f, who(f))


# ---------------------------------------------------------------------- helpers

_IMPLICIT = {
    "judge": "it is bound by a 'judge' statement before it",
    "responded": "it is bound by an 'ask ... use/play ...' statement before it",
    "response": "it is bound by an 'ask ... use/play ...' statement before it",
    "confirmed": "it is bound by an 'ask PLAYER \"question\"' statement before it",
    "countered": "it is bound by a 'counter CARD on PLAYER' statement before it",
    "event": "only triggers, phases and rules blocks have an event",
    "target": "only a card's effect (or an active skill) has a target",
    "card": "only a card's effect, or a trigger's event, has a card",
    "me": "nobody is 'me' here",
    "it": "'it' is the candidate inside a 'where' clause",
}

_CATEGORY_WORDS = {"card": "card name", "sym": "name"}

_EVENT_CLASSES: dict[str, type[Event]] = {}
for _t in TIMINGS.values():
    _EVENT_CLASSES[_t.event.kind] = _t.event
_EVENT_CLASSES["signal"] = SignalEvent


def event_type_name(cls: type[Event]) -> str:
    return "event:" + cls.kind


def _field_getter(name: str) -> Callable[[Any], Any]:
    return lambda e: getattr(e, name, None)


def _dynamic_get(v: Any, name: str) -> Any:
    if v is None:
        return None
    from sgs_runtime.model import Card, Player, VirtualCard

    if isinstance(v, Player):
        if name in PLAYER_ATTRS:
            return PLAYER_ATTRS[name][1](v)
        return v.slot(name)
    if isinstance(v, (Card, VirtualCard)):
        return CARD_ATTRS[name][1](v) if name in CARD_ATTRS else None
    if isinstance(v, Event):
        if name == "cancelled":
            return v.cancelled
        return getattr(v, name, None)
    if isinstance(v, (list, tuple)):
        return LIST_ATTRS[name][1](v) if name in LIST_ATTRS else None
    if hasattr(v, name):
        return getattr(v, name)
    return None


def _make_block(items: list[tuple[bool, Callable[[Frame], Any]]]) -> BlockFn:
    if all(not is_gen for is_gen, _ in items):
        fns = [fn for _, fn in items]

        def run_plain(f: Frame) -> Any:
            for fn in fns:
                fn(f)
            return
            yield  # unreachable: makes this function a generator

        return run_plain

    def run(f: Frame) -> Any:
        for is_gen, fn in items:
            if is_gen:
                yield from fn(f)
            else:
                fn(f)

    return run


def _compatible(t: str, want: str) -> bool:
    if t in ("any", "none") or want == "any":
        return True
    if t == want:
        return True
    if want == "list":
        return t in ("players", "cards", "list") or t.startswith("syms:")
    if want == "text":
        return t == "text" or t.startswith("sym:")
    if want.startswith("sym:") and t.startswith("sym:"):
        return t == "sym:*" or want == "sym:*" or t == want
    if want == "cards":
        return t in ("cards", "card", "list")
    if want == "players":
        return t in ("players", "player", "list")
    if want == "num":
        return t in ("num", "bool")
    if want == "bool":
        return True
    return False


def _describe(t: str) -> str:
    if t.startswith("sym:"):
        return f"a {t[4:]} name" if t != "sym:*" else "a name"
    if t.startswith("syms:"):
        return f"a list of {t[5:]} names"
    if t.startswith("event:"):
        return f"a {t[6:]} event"
    return {"num": "a number", "bool": "a yes/no value", "text": "a text", "player": "a player",
            "players": "a list of players", "card": "a card", "cards": "a list of cards", "judge": "a judge result",
            "list": "a list", "any": "a value", "none": "none", "mark": "a mark name"}.get(t, t)


def _is_bare(node: A.Expr, scope: Scope) -> bool:
    return isinstance(node, A.Name) and node.id not in scope.vars and node.id not in GLOBALS


def _divide(a: int, b: int) -> int:
    """Whole-number division; dividing by 0 gives 0 (the language has no errors at run time)."""
    return a // b if b else 0


def _card_is_a(card: Any, name: str) -> bool:
    kind = getattr(card, "kind", None)
    return kind is not None and name in kind.family


def _contains(container: Any, item: Any) -> bool:
    if container is None:
        return False
    if isinstance(item, str) and isinstance(container, (list, tuple)) and parse_card_text(item):
        return any(card_is(c, item) for c in container)  # "slash S7" in guanyu.hand
    try:
        return item in container
    except TypeError:
        return False


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, str) and not isinstance(b, str) and parse_card_text(a):
        return card_is(b, a)  # guanyu.weapon == "crossbow CA"
    if isinstance(b, str) and not isinstance(a, str) and parse_card_text(b):
        return card_is(a, b)
    return bool(a == b)


def _order(fn: Callable[[Any, Any], bool], a: Any, b: Any) -> bool:
    if a is None or b is None:
        return False
    return fn(a, b)


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": _equal, "!=": lambda a, b: not _equal(a, b), "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
