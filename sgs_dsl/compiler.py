"""Check and compile effect-language trees into Python functions.

One pass does both: every name, attribute, call and statement is checked
against what the content declares (card, hero, skill, phase, mark ...) and
what the runtime offers (:mod:`sgs_runtime.resolution.vocabulary`, timing points), and
turned into Python source (:mod:`sgs_dsl.codegen`). Problems become
:class:`Diagnostic` objects at the exact line and column of the offending
word; compilation carries on so that one run reports every problem.

Each snippet becomes one Python function, compiled with the YAML file as its
file name and the YAML positions on its code: compiled expressions are
``f(frame) -> value``; compiled blocks are generators ``f(frame)`` that yield
decision requests. Variables the runtime provides (``me``, ``event`` ...) are
read from ``frame.vars``; variables a block binds are Python locals that are
also written to ``frame.vars`` (the runtime and later snippets read them
there); the variable of ``x from LIST`` is a local of a Python comprehension.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Optional

from sgs_runtime.resolution import ops
from sgs_runtime.resolution.quantities import INF, quantity
from sgs_runtime.resolution.respond import RESCUE
from sgs_runtime.resolution.vocabulary import (
    CARD_ATTRS,
    COMPREHENSIONS,
    EVENT_COMMON,
    FUNCTIONS,
    JUDGE_ATTRS,
    LIST_ATTRS,
    PLAYER_ATTRS,
    PLAYER_METHODS,
    Field,
    OptionalField,
    element_type,
    list_type,
)
from sgs_runtime.resolution.vocabulary import card_is_a as _card_is_a
from sgs_runtime.resolution.vocabulary import contains as _contains
from sgs_runtime.resolution.vocabulary import divide as _divide
from sgs_runtime.resolution.vocabulary import dynamic_get as _dynamic_get
from sgs_runtime.resolution.vocabulary import equal as _equal
from sgs_runtime.resolution.vocabulary import has as _has
from sgs_runtime.state.events import TIMINGS, Event, SignalEvent
from sgs_runtime.state.frame import BreakLoop, Frame, StopEffect
from sgs_runtime.state.model import parse_card_text

from .codegen import Code, Line, Unit, body, code, join
from .env import Env
from .errors import Diagnostic, did_you_mean
from .lazy import lazy_module

if TYPE_CHECKING:
    from . import ast as A
else:  # the syntax tree's classes are needed only when something is compiled (not by compiled code)
    A = lazy_module("sgs_dsl.ast")

ExprFn = Callable[[Frame], Any]
BlockFn = Callable[[Frame], Any]
#: a compiled statement: whether it may yield, and its lines
Stmt = tuple[bool, list[Line]]

#: the names every snippet can read: their type, Python source (``{me}`` is the reader of ``me``) and meaning
_GLOBAL_SOURCE: dict[str, tuple[str, str, str]] = {
    "players": ("players", "list(f.game.players)", "every seat in seat order, dead or alive"),
    "alive": ("players", "f.game.alive_from(f.game.current)",
              "living players in seat order from the current player"),
    "others": ("players", "f.game.after({me})", "other living players, from my next seat"),
    "current": ("player", "f.game.current", "whose turn it is"),
    "phase": ("sym:phase", "f.game.phase", "the current phase, or none between phases"),
    "resolving": ("bool", "(f.game.current_use() is not None)", "a card's use is being resolved"),
    "unused_heroes": ("syms:hero", "list(f.game.unused_heroes)", "the heroes nobody plays, in pile order"),
    "inf": ("num", "_INF", "a number larger than any count"),
    "givers": ("players", "_givers(f)", "who gives me the running granted skill (黄天's 群 givers)"),
}


def _givers(f: Frame) -> list[Any]:
    me, sid = f.vars.get("me"), f.vars.get("__skill__")
    sk = f.game.content.skills.get(sid) if sid else None
    return f.game.skillset.givers(me, sk) if me is not None and sk is not None else []


def _global_fn(src: str) -> ExprFn:
    fn: ExprFn = eval("lambda f: " + src.format(me='f.vars["me"]'), {"_INF": INF, "_givers": _givers})  # noqa: S307
    return fn


GLOBALS: dict[str, tuple[str, ExprFn, str]] = {
    name: (t, _global_fn(src), doc) for name, (t, src, doc) in _GLOBAL_SOURCE.items()
}


@dataclass
class Scope:
    """Variables bound at a point of a snippet, and what the snippet may do.

    ``py``: the variables that are Python locals of the snippet's function here (name -> Python name);
    the others are read from ``frame.vars``.
    """

    vars: dict[str, str]
    event: Optional[type[Event]] = None
    timing: Optional[str] = None
    in_loop: bool = False
    phase_id: Optional[str] = None  # set in a phase's own block: its draws are that phase's draw
    py: dict[str, str] = field(default_factory=dict)

    def child(self) -> "Scope":
        return Scope(dict(self.vars), self.event, self.timing, self.in_loop, self.phase_id, dict(self.py))


#: durations of a change: the scope it lasts until
UNTIL = {"turn_end": "turn", "phase_end": "phase", "round_end": "round"}
#: what a prohibition may forbid
BAN_ACTIONS = ("use", "play", "discard", "target")

#: functions over 'x from list' with a key as their second argument
KEYED = ("max", "min", "most", "least", "distinct")

#: variables the runtime itself sets in a running frame (a 'where' candidate): never Python locals
_RUNTIME_SET = frozenset({"it"})


def _distinct(xs: Any) -> list[Any]:
    out: list[Any] = []
    for x in xs:
        if x not in out:
            out.append(x)
    return out


def _best(pick: Callable[[list[Any]], Any], keys: list[Any]) -> Any:
    """``max/min(x from xs, key)``: ``pick`` of the keys (none counting as 0), or 0 for no items."""
    ks = [k or 0 for k in keys]
    return pick(ks) if ks else 0


def _extreme(pick: Callable[..., Any], got: list[tuple[Any, Any]]) -> list[Any]:
    """``most/least(x from xs, key)``: the items whose key is ``pick`` of all keys."""
    if not got:
        return []
    target = pick(k or 0 for _, k in got)
    return [x for x, k in got if (k or 0) == target]


def _known_mark(marks: set[str], name: Any) -> Any:
    """A mark named by an expression: it must be declared."""
    if name not in marks:
        from sgs_runtime.errors import GameError

        raise GameError(f"unknown mark '{name}'")
    return name


def _response_kind(value: Any) -> str:
    """What ``ask p play x`` asks for: the kind of the card (or the name) ``x`` holds."""
    return value.kind.id if hasattr(value, "kind") else str(value)


#: the calls the compiler reads as forms of their own before it looks for a function or a quantity
#: of that name (:meth:`Compiler._e_Call`)
_FORMS = frozenset({"distinct", "most", "least", "any", "all", "select", "option"})


def quantity_call(env: Env, tree: Any, variables: tuple[str, ...]) -> Optional[tuple[str, tuple[str, ...]]]:
    """``(quantity, argument names)`` when the expression ``tree`` is nothing but a quantity asked of
    some of ``variables`` (``slash_uses(me)``), as :meth:`Compiler._e_Call` compiles it; else None."""
    if not isinstance(tree, A.Call) or not isinstance(tree.func, A.Name):
        return None
    name = tree.func.id
    params = env.quantities.get(name)
    if params is None or name in _FORMS or name in FUNCTIONS:
        return None
    names = [a.id for a in tree.args if isinstance(a, A.Name) and a.id in variables]
    if len(names) != len(tree.args) or len(names) != len(params):
        return None
    return name, tuple(names)


class Compiler:
    def __init__(self, env: Env, file: str) -> None:
        self.env = env
        self.file = file
        self.diagnostics: list[Diagnostic] = []
        self.unit = Unit(file)
        self._iter_depth = 0  # > 0 inside the iterable of a Python comprehension, where ':=' is not allowed
        # True while checking a trigger whose 'on:' names no timing (already reported): what depends on
        # the timing (may the event be changed or cancelled here ...) is not checked, the rest is
        self.timing_unknown = False

    # ------------------------------------------------------------ reporting

    def error(self, pos: A.Pos, code: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(self.file, pos[0], pos[1], code, message))

    # ------------------------------------------------------------ code

    def k(self, value: Any) -> Code:
        """A constant in the generated code."""
        return self.unit.const(value)

    def read(self, name: str, scope: Scope) -> Code:
        """The value of variable ``name``: its Python local, or ``frame.vars``."""
        py = scope.py.get(name)
        return Code(py, simple=True) if py is not None else Code(f"v[{ascii(name)}]", simple=True)

    def bind(self, name: str, value: Code, scope: Scope, pos: A.Pos) -> Line:
        """``name = value``: a Python local (when that is safe) that is also written to ``frame.vars``."""
        if name in _RUNTIME_SET:
            scope.py.pop(name, None)
            return Line(0, code(f"v[{ascii(name)}] = {{}}", value, pos=pos))
        py = scope.py.get(name) or self.unit.local(name)
        scope.py[name] = py
        return Line(0, code(f"{py} = v[{ascii(name)}] = {{}}", value, pos=pos))

    def once(self, values: list[Code], make: Callable[[list[Code], list[Code]], Code]) -> Code:
        """``make(first, again)`` with each value evaluated once, in order: ``first[i]`` where it is read
        first (it evaluates the value), ``again[i]`` where it is read after."""
        firsts: list[Code] = []
        agains: list[Code] = []
        params: list[tuple[str, Code]] = []
        for value in values:
            if value.simple:
                firsts.append(value)
                agains.append(value)
                continue
            t = self.unit.fresh()
            if self._iter_depth:
                params.append((t, value))
                firsts.append(Code(t, simple=True))
            else:
                firsts.append(code(f"({t} := {{}})", value))
            agains.append(Code(t, simple=True))
        made = make(firsts, agains)
        if not params:
            return made
        head = ", ".join(t for t, _ in params)
        return code(f"(lambda {head}: {{}})({{}})", made, join([v for _, v in params]))

    def guard(self, obj: Code, make: Callable[[Code], Code]) -> Code:
        """``None`` when ``obj`` is none, else ``make(obj)``."""
        return self.once([obj], lambda first, again: code("(None if {} is None else {})", first[0], make(again[0])))

    def call(self, fn: Any, *args: Code, frame: bool = True) -> Code:
        """``fn(f, args...)`` (``fn(args...)`` without ``frame``)."""
        parts = ([Code("f", simple=True)] if frame else []) + list(args)
        return code("{}({})", self.k(fn), join(parts))

    def act(self, gen: bool, fn: Any, args: list[Code], pos: A.Pos, **kw: Code) -> Stmt:
        """A statement that calls an operation with the frame: ``yield from`` it when it is a generator."""
        call = code("{}({})", self.k(fn), join([Code("f")] + args + [code(f"{k}={{}}", v) for k, v in kw.items()]))
        return gen, [Line(0, code("yield from {}" if gen else "{}", call, pos=pos))]

    def hoist(self, test: Code, pos: A.Pos) -> Code:
        """A function ``f -> test`` of the unit (a 'where' the runtime calls with its own frame): its name."""
        name = self.unit.function([Line(0, code("return {}", test, pos=pos))], pos, generator=False)
        return Code(name, simple=True)

    # ------------------------------------------------------------ symbols

    def canonical(self, name: str) -> str:
        return self.env.aliases.get(name, name)

    def symbol(self, node: A.Expr, category: str, what: str) -> Code:
        """``node`` must name a ``category`` symbol (or be an expression of that kind)."""
        if isinstance(node, A.Name):
            return self.symbol_name(node.id, node.pos, category, what)
        fn, t = self.expr(node, None)
        return fn

    def symbol_name(self, name: str, pos: A.Pos, category: str, what: str, scope: Optional[Scope] = None) -> Code:
        if scope is not None and name in scope.vars:
            return self.read(name, scope)
        canon = self.canonical(name)
        cats = self.env.symbols.get(canon, set())
        if category in cats:
            return self.k(canon)
        if cats:
            kinds = " or ".join(sorted(cats))
            self.error(pos, "E301", f"'{name}' is a {kinds}, not a {what}")
        else:
            pool = self.env.names_in(category) + (list(scope.vars) if scope is not None else [])
            self.error(pos, "E300", f"unknown {what} '{name}'{did_you_mean(name, pool)}")
        return self.k(canon)

    # ------------------------------------------------------------ expressions

    def expr(self, node: A.Expr, scope: Optional[Scope]) -> tuple[Code, str]:
        method = getattr(self, "_e_" + type(node).__name__)
        c, t = method(node, scope or Scope({}))
        return code("{}", c, pos=node.pos, simple=c.simple, boolean=c.boolean, notnone=c.notnone), t

    def expect(self, node: A.Expr, scope: Scope, want: str, what: str) -> Code:
        fn, t = self.expr(node, scope)
        if not _compatible(t, want):
            self.error(node.pos, "E301", f"expected {what}, but this is {_describe(t)}")
        return fn

    def _e_Num(self, node: A.Num, scope: Scope) -> tuple[Code, str]:
        return self.k(node.value), "num"

    def _e_Str(self, node: A.Str, scope: Scope) -> tuple[Code, str]:
        return self.k(node.value), "text"

    def _e_Const(self, node: A.Const, scope: Scope) -> tuple[Code, str]:
        return self.k(node.value), ("bool" if isinstance(node.value, bool) else "none")

    def _e_Name(self, node: A.Name, scope: Scope) -> tuple[Code, str]:
        name = node.id
        if name in scope.vars:
            return self.read(name, scope), scope.vars[name]
        if name in GLOBALS:
            t, src, _ = _GLOBAL_SOURCE[name]
            if name == "others" and "me" not in scope.vars:
                self.error(node.pos, "E302", "'others' needs 'me', which is not bound here")
            if name == "inf":
                return self.k(INF), t
            if name == "givers":
                return self.call(_givers), t
            return Code(src.format(me=self.read("me", scope).src)), t
        canon = self.canonical(name)
        cats = self.env.symbols.get(canon)
        if cats:
            cat = next(iter(cats)) if len(cats) == 1 else "*"
            return self.k(canon), f"sym:{cat}"
        if name in _IMPLICIT:
            self.error(node.pos, "E302", f"'{name}' is not bound here: {_IMPLICIT[name]}")
        else:
            pool = list(scope.vars) + list(GLOBALS) + list(self.env.symbols)
            self.error(node.pos, "E300", f"unknown name '{name}'{did_you_mean(name, pool)}")
        return self.k(None), "any"

    def _e_ListExpr(self, node: A.ListExpr, scope: Scope) -> tuple[Code, str]:
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
        return code("[{}]", join(items)), t

    def _e_Attr(self, node: A.Attr, scope: Scope) -> tuple[Code, str]:
        if isinstance(node.obj, A.Name) and node.obj.id in _IMPLICIT and node.obj.id not in scope.vars:
            # `judge.suit` before any `judge`: say so, rather than "a phase has no attribute"
            self.error(node.obj.pos, "E302", f"'{node.obj.id}' is not bound here: {_IMPLICIT[node.obj.id]}")
            return self.k(None), "any"
        obj, t = self.expr(node.obj, scope)
        name = node.name
        table = self._attr_table(t, scope)
        if table is None:
            if t in ("any", "none", "list"):
                return self._dynamic_attr(obj, name, node)
            self.error(node.name_pos, "E304", f"{_describe(t)} has no attribute '{name}'")
            return self.k(None), "any"
        if name in table:
            at, getter, _ = table[name]
            if isinstance(getter, OptionalField):
                return self.guard(obj, lambda o: code(f"getattr({{}}, {ascii(name)}, None)", o)), at
            if isinstance(getter, Field):
                return self.guard(obj, lambda o: code("{}." + getter.path, o)), at
            return self.guard(obj, lambda o: self.call(getter, o, frame=False)), at
        if t == "player" and name in self.env.slots:
            return self.guard(obj, lambda o: code(f"{{}}.slot({ascii(name)})", o)), "card"
        if t == "player" and name in PLAYER_METHODS:
            self.error(node.name_pos, "E305", f"'{name}' needs arguments: {name}(...)")
            return self.k(None), "any"
        pool = list(table) + (sorted(self.env.slots) if t == "player" else [])
        self.error(node.name_pos, "E304", f"{_describe(t)} has no attribute '{name}'{did_you_mean(name, pool)}")
        return self.k(None), "any"

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
                table[fname] = (ftype, OptionalField(fname), "")
            return table
        return None

    def _dynamic_attr(self, obj: Code, name: str, node: A.Attr) -> tuple[Code, str]:
        known = (set(PLAYER_ATTRS) | set(CARD_ATTRS) | set(JUDGE_ATTRS) | set(LIST_ATTRS) | self.env.slots
                 | {n for cls in _EVENT_CLASSES.values() for n in cls.FIELDS} | set(EVENT_COMMON))
        if name not in known:
            self.error(node.name_pos, "E304", f"no value has an attribute '{name}'{did_you_mean(name, known)}")
            return self.k(None), "any"
        return self.call(_dynamic_get, obj, self.k(name), frame=False), "any"

    def _e_Call(self, node: A.Call, scope: Scope) -> tuple[Code, str]:
        if isinstance(node.func, A.Attr):
            return self._method(node, scope)
        if not isinstance(node.func, A.Name):
            self.error(node.pos, "E305", "only names can be called")
            return self.k(None), "any"
        name = node.func.id
        args = node.args
        if args and isinstance(args[0], A.Comprehension) and name in KEYED:
            if len(args) > 2:
                self.error(node.pos, "E305", f"'{name}' takes a list and a key: {name}(x from list, key)")
            return self._keyed(name, args[0], args[1] if len(args) > 1 else None, scope)  # type: ignore[arg-type]
        if name in ("distinct", "most", "least") and args and not isinstance(args[0], A.Comprehension):
            if len(args) != 1:
                self.error(node.pos, "E305", f"'{name}' takes one list, or 'x from list' and a key")
            fn, t = self.expr(args[0], scope) if args else (self.k(()), "list")
            if name != "distinct":
                self.error(node.pos, "E305", f"'{name}' needs a key: {name}(x from list, key)")
            return code("{}({} or [])", self.k(_distinct), fn, notnone=True), t
        if args and isinstance(args[0], A.Comprehension):
            if name not in COMPREHENSIONS:
                self.error(node.pos, "E305", f"'{name}' does not take 'x from list where ...'"
                                             f"{did_you_mean(name, COMPREHENSIONS)}")
                return self.k(None), "any"
            if len(args) != 1:
                self.error(node.pos, "E305", f"'{name}' takes one argument")
            return self._comprehension(name, args[0], scope)  # type: ignore[arg-type]
        if name in ("any", "all") or name == "select":
            if len(args) != 1:
                self.error(node.pos, "E305", f"'{name}' takes one list")
            fn, t = self.expr(args[0], scope) if args else (code("[]"), "list")
            if name == "any":
                return code("bool({})", fn, boolean=True), "bool"
            if name == "all":
                return code("all({} or [])", fn, boolean=True), "bool"
            return fn, t
        if name == "option":
            if len(args) != 1 or not isinstance(args[0], A.Name):
                self.error(node.pos, "E305", "option takes the name of a rules option: option(name)")
                return self.k(None), "any"
            opt = args[0].id
            if opt not in self.env.options:
                self.error(args[0].pos, "E300", f"unknown rules option '{opt}'{did_you_mean(opt, self.env.options)}")
            return code("f.game.option({})", self.k(opt)), "any"
        if name in FUNCTIONS:
            argtypes, rtype, impl, _ = FUNCTIONS[name]
            fns, types = self._args(node, scope, argtypes, name)
            if rtype == "elem":
                rtype = element_type(types[0]) if types else "any"
            elif rtype == "same":
                rtype = types[0] if types else "list"
            return self.call(impl, *fns), rtype
        if name in self.env.quantities:
            params = self.env.quantities[name]
            if len(args) != len(params):
                self.error(node.pos, "E305", f"'{name}' takes {len(params)} argument(s) "
                                             f"({', '.join(params)}), not {len(args)}")
            fns = [self.expr(a, scope)[0] for a in args]
            return code("{}(f.game, {}, [{}])", self.k(quantity), self.k(name), join(fns)), "num"
        pool = list(FUNCTIONS) + list(self.env.quantities) + list(COMPREHENSIONS) + ["option"]
        self.error(node.func.pos, "E300", f"unknown function '{name}'{did_you_mean(name, pool)}")
        return self.k(None), "any"

    def _args(self, node: A.Call, scope: Scope, argtypes: tuple[str, ...], name: str) -> tuple[list[Code], list[str]]:
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

    def _method(self, node: A.Call, scope: Scope) -> tuple[Code, str]:
        assert isinstance(node.func, A.Attr)
        obj, t = self.expr(node.func.obj, scope)
        name = node.func.name
        if t not in ("player", "any"):
            self.error(node.func.name_pos, "E304", f"{_describe(t)} has no method '{name}'")
            return self.k(None), "any"
        if name not in PLAYER_METHODS:
            self.error(node.func.name_pos, "E304",
                       f"a player has no method '{name}'{did_you_mean(name, PLAYER_METHODS)}")
            return self.k(None), "any"
        argtypes, rtype, impl, _ = PLAYER_METHODS[name]
        if len(node.args) != len(argtypes):
            self.error(node.pos, "E305", f"'{name}' takes {len(argtypes)} argument(s)")
            return self.k(None), rtype
        fns: list[Code] = []
        for a, want in zip(node.args, argtypes):
            if want == "mark":
                fns.append(self._mark_name(a, scope))
            elif want.startswith("sym:") and isinstance(a, A.Name) and a.id not in scope.vars:
                fns.append(self.symbol_name(a.id, a.pos, want[4:], want[4:].replace("card", "card name")))
            else:
                fns.append(self.expr(a, scope)[0])
        return self.guard(obj, lambda p: self.call(impl, p, Code("f"), *fns, frame=False)), rtype

    def _mark_name(self, node: A.Expr, scope: Optional[Scope] = None) -> Code:
        if not isinstance(node, A.Name) or (scope is not None and node.id in scope.vars):
            # an expression naming the mark: checked when it runs
            fn, t = self.expr(node, scope)
            if not _compatible(t, "text"):
                self.error(node.pos, "E301", f"a mark is named by a word or a text, but this is {_describe(t)}")
            return code("{}", self.call(_known_mark, self.k(self.env.marks), fn, frame=False), pos=node.pos)
        if node.id not in self.env.marks:
            self.error(node.pos, "E300", f"unknown mark '{node.id}'{did_you_mean(node.id, self.env.marks)} "
                                         "(declare it under 'marks:')")
        return self.k(node.id)

    def _source(self, comp: A.Comprehension, scope: Scope) -> tuple[Code, str]:
        """The list of ``x from LIST``: compiled as the iterable of a Python comprehension."""
        self._iter_depth += 1
        try:
            return self.expr(comp.source, scope)
        finally:
            self._iter_depth -= 1

    def _each_scope(self, comp: A.Comprehension, scope: Scope, elem: str) -> tuple[Scope, str]:
        """The scope inside ``x from LIST``: ``x`` is a local of the Python comprehension."""
        inner = scope.child()
        inner.vars[comp.var] = elem
        py = self.unit.fresh("_x")
        inner.py[comp.var] = py
        return inner, py

    def _comprehension(self, func: str, comp: A.Comprehension, scope: Scope) -> tuple[Code, str]:
        src, t = self._source(comp, scope)
        elem = element_type(t)
        inner, x = self._each_scope(comp, scope, elem)
        cond = self.test(comp.cond, inner) if comp.cond is not None else None
        items = code("list({} or [])", src)
        select = items if cond is None else code(f"[{x} for {x} in {{}} if {{}}]", items, cond)

        if func == "count":
            return code("len({})", select, notnone=True), "num"
        if func == "any":
            return code("bool({})", select, boolean=True), "bool"
        if func == "all":
            return code("(len({}) == len({} or []))", select, src, boolean=True), "bool"
        if func == "first":
            return self.once([select], lambda first, again: code("({}[0] if {} else None)", again[0], first[0])), elem
        return select, t if t in ("players", "cards") else list_type(elem)

    def _keyed(self, func: str, comp: A.Comprehension, key: Optional[A.Expr], scope: Scope) -> tuple[Code, str]:
        """``max/min(x from xs, key)``: the largest/smallest key; ``most/least``: the items that have it;
        ``distinct(x from xs, key)``: the different keys, in order."""
        self._iter_depth += 1
        try:
            select, t = self._comprehension("select", comp, scope)
        finally:
            self._iter_depth -= 1
        elem = element_type(t)
        inner, x = self._each_scope(comp, scope, elem)
        if key is None:
            keyfn = Code(x, simple=True)
            kt = elem
        else:
            keyfn, kt = self.expr(key, inner)
            if func in ("max", "min", "most", "least") and not _compatible(kt, "num"):
                self.error(key.pos, "E301", f"the key of '{func}' must be a number, but this is {_describe(kt)}")

        if func == "distinct":
            return (code(f"{{}}([{{}} for {x} in {{}}])", self.k(_distinct), keyfn, select),
                    list_type(kt) if kt not in ("any",) else "list")
        if func in ("max", "min"):
            return code(f"{{}}({{}}, [{{}} for {x} in {{}}])", self.k(_best), self.k(max if func == "max" else min),
                        keyfn, select, notnone=True), "num"
        return (code(f"{{}}({{}}, [({x}, {{}}) for {x} in {{}}])", self.k(_extreme),
                     self.k(max if func == "most" else min), keyfn, select),
                t if t in ("players", "cards") else list_type(elem))

    def _e_Comprehension(self, node: A.Comprehension, scope: Scope) -> tuple[Code, str]:
        return self._comprehension("select", node, scope)

    def _e_BinOp(self, node: A.BinOp, scope: Scope) -> tuple[Code, str]:
        left = self.expect(node.left, scope, "num", "a number")
        right = self.expect(node.right, scope, "num", "a number")
        if node.op == "/":
            return code("{}({} or 0, {} or 0)", self.k(_divide), left, right, notnone=True), "num"
        return code(f"(({{}} or 0) {node.op} ({{}} or 0))", left, right, notnone=True), "num"

    def _e_Neg(self, node: A.Neg, scope: Scope) -> tuple[Code, str]:
        fn = self.expect(node.operand, scope, "num", "a number")
        return code("(-({} or 0))", fn, notnone=True), "num"

    def _e_Not(self, node: A.Not, scope: Scope) -> tuple[Code, str]:
        fn, _ = self.expr(node.operand, scope)
        return code("(not {})", fn, boolean=True), "bool"

    def _e_BoolOp(self, node: A.BoolOp, scope: Scope) -> tuple[Code, str]:
        left, _ = self.expr(node.left, scope)
        right, _ = self.expr(node.right, scope)
        return code(f"({{}} {node.op} {{}})", _truth(left), _truth(right), boolean=True), "bool"

    def _e_CondExpr(self, node: A.CondExpr, scope: Scope) -> tuple[Code, str]:
        test, _ = self.expr(node.test, scope)
        then, t1 = self.expr(node.then, scope)
        orelse, t2 = self.expr(node.orelse, scope)
        return code("({} if {} else {})", then, test, orelse), (t1 if t1 == t2 else "any")

    def _e_Compare(self, node: A.Compare, scope: Scope) -> tuple[Code, str]:
        op = node.op
        if op in ("is", "isnot"):
            return self._is(node, scope)
        if op in ("in", "notin"):
            right, rt = self.expr(node.right, scope) if not isinstance(node.right, A.ListExpr) else self._sym_list(
                node.right, node.left, scope)
            left, lt = self._side(node.left, node.right, rt, scope)
            has = _contains if _may_be_card_text(node.left, lt) else _has
            if op == "in":
                return code("{}({}, {})", self.k(has), right, left, boolean=True), "bool"
            return code("(not {}({}, {}))", self.k(has), right, left, boolean=True), "bool"
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
        if op in ("<", "<=", ">", ">="):
            for side, t in ((node.left, lt), (node.right, rt)):
                if not _compatible(t, "num"):
                    self.error(side.pos, "E301", f"expected a number, but this is {_describe(t)}")
            return self._order(op, left, right), "bool"
        if ((_may_be_card_text(node.left, lt) and _may_be_card(rt))
                or (_may_be_card_text(node.right, rt) and _may_be_card(lt))):
            return code("{}({}, {})" if op == "==" else "(not {}({}, {}))", self.k(_equal), left, right,
                        boolean=True), "bool"
        return code(f"({{}} {op} {{}})", left, right, boolean=True), "bool"

    def _order(self, op: str, left: Code, right: Code) -> Code:
        """``left OP right``; false when either is none (both are evaluated, left first)."""
        if left.notnone and right.notnone:
            return code(f"({{}} {op} {{}})", left, right, boolean=True)
        if right.simple or (left.notnone and left.simple):
            # only one side can be none, or the side read after the test has no effect: test as it is read
            def short(first: list[Code], again: list[Code]) -> Code:
                checks = [code("({} is not None)", c) for c, v in zip(first, (left, right)) if not v.notnone]
                return code(f"({{}} and {{}} {op} {{}})", join(checks, " and "),
                            again[0] if not left.notnone else first[0], again[1] if not right.notnone else first[1],
                            boolean=True)
            return self.once([left, right], short)

        def make(first: list[Code], again: list[Code]) -> Code:
            checks = [code("({} is not None)", c) for c in first]
            return code(f"({{}} and {{}} {op} {{}})", join(checks, " & "), again[0], again[1], boolean=True)
        return self.once([left, right], make)

    def _is(self, node: A.Compare, scope: Scope) -> tuple[Code, str]:
        """``CARD is NAME``: the card is a NAME or of its family (a thunder Slash is a slash)."""
        card = self.expect(node.left, scope, "card", "a card")
        assert isinstance(node.right, A.Name)
        self.symbol_name(node.right.id, node.right.pos, "card", "card name")  # reports an unknown name
        name = self.canonical(node.right.id)
        if node.op == "is":
            return code("{}({}, {})", self.k(_card_is_a), card, self.k(name), boolean=True), "bool"
        return code("(not {}({}, {}))", self.k(_card_is_a), card, self.k(name), boolean=True), "bool"

    def _side(self, node: A.Expr, other: A.Expr, other_t: str, scope: Scope) -> tuple[Code, str]:
        if _is_bare(node, scope):
            assert isinstance(node, A.Name)
            elem = other_t[5:] if other_t.startswith("syms:") else ""
            return self._bare(node, "sym:" + elem if elem else "", scope)
        return self.expr(node, scope)

    def _bare(self, node: A.Name, other_t: str, scope: Scope) -> tuple[Code, str]:
        """A bare name compared with something of type ``other_t``."""
        if other_t.startswith("sym:") and other_t != "sym:*":
            cat = other_t[4:]
            return self.symbol_name(node.id, node.pos, cat, _CATEGORY_WORDS.get(cat, cat)), other_t
        return self.expr(node, scope)

    def _sym_list(self, lst: A.ListExpr, left: A.Expr, scope: Scope) -> tuple[Code, str]:
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
            return code("[{}]", join(fns)), "syms:" + cat
        return self.expr(lst, scope)

    def test(self, node: A.Expr, scope: Scope) -> Code:
        """The code of a condition (or of any expression whose value is all that counts)."""
        fn, _ = self.expr(node, scope)
        return fn

    def condition(self, node: A.Expr, scope: Scope) -> ExprFn:
        """The compiled function ``frame -> value`` of an expression snippet."""
        self.unit = Unit(self.file)
        scope.py = {}
        test = self.test(node, scope)
        name = self.unit.function([Line(0, code("return {}", test, pos=node.pos))], node.pos, generator=False)
        return self.unit.load(name)

    # ------------------------------------------------------------ statements

    def block(self, stmts: list[A.Stmt], scope: Scope) -> BlockFn:
        """The compiled generator function ``frame -> decisions`` of a block snippet."""
        self.unit = Unit(self.file)
        scope.py = {}
        pos = stmts[0].pos if stmts else (1, 1)
        gen, lines = self.statements(stmts, scope)
        name = self.unit.function(lines, pos, generator=not gen)
        return self.unit.load(name)

    def statements(self, stmts: list[A.Stmt], scope: Scope) -> Stmt:
        """The lines of a block, one statement after another; whether any of them may yield."""
        gen, lines = False, []
        for s in stmts:
            method = getattr(self, "_s_" + type(s).__name__, None)
            if method is None:  # pragma: no cover - the grammar has no other statements
                self.error(s.pos, "E306", f"unsupported statement {type(s).__name__}")
                continue
            g, more = method(s, scope)
            gen = gen or g
            lines.extend(more)
        return gen, lines

    def _player(self, node: Optional[A.Expr], scope: Scope, what: str = "a player") -> Code:
        if node is None:
            if "me" not in scope.vars:
                self.error((0, 0), "E302", "'me' is not bound here")
            return self.read("me", scope)
        return self.expect(node, scope, "player", what)

    def _subject(self, s: A.Action, scope: Scope) -> Code:
        if s.subject is None and "me" not in scope.vars:
            self.error(s.pos, "E302", f"'{s.verb}' needs a player: nobody is 'me' here")
            return self.k(None)
        return self._player(s.subject, scope, "a player (who acts)")

    def _num(self, node: A.Expr, scope: Scope) -> Code:
        return self.expect(node, scope, "num", "a number")

    def _cards(self, node: A.Expr, scope: Scope) -> Code:
        fn, t = self.expr(node, scope)
        if not (_compatible(t, "cards") or _compatible(t, "card")):
            self.error(node.pos, "E301", f"expected cards, but this is {_describe(t)}")
        return fn

    def _players(self, node: A.Expr, scope: Scope) -> Code:
        fn, t = self.expr(node, scope)
        if not (_compatible(t, "players") or _compatible(t, "player")):
            self.error(node.pos, "E301", f"expected players, but this is {_describe(t)}")
        return fn

    def _zones(self, zones: list[str]) -> tuple[str, ...]:
        return tuple(zones)

    def _frame_scope(self, scope: Scope) -> Scope:
        """The scope of a function the runtime calls with a frame of its own: no locals of this one."""
        inner = scope.child()
        inner.py = {}
        return inner

    def _where(self, node: Optional[A.Expr], scope: Scope, elem: str) -> Code:
        if node is None:
            return self.k(None)
        inner = self._frame_scope(scope)
        inner.vars["it"] = elem
        return self.hoist(self.test(node, inner), node.pos)

    def _opt(self, c: Optional[Code]) -> Code:
        return c if c is not None else self.k(None)

    def _s_Let(self, s: A.Let, scope: Scope) -> Stmt:
        fn, t = self.expr(s.value, scope)
        scope.vars[s.name] = t
        return False, [self.bind(s.name, fn, scope, s.pos)]

    def _s_Assign(self, s: A.Assign, scope: Scope) -> Stmt:
        value, vt = self.expr(s.value, scope)
        op = s.op
        target = s.target
        if isinstance(target, A.Call) and isinstance(target.func, A.Attr) and target.func.name == "mark":
            who = self._player(target.func.obj, scope)
            if len(target.args) != 1:
                self.error(target.pos, "E305", "mark takes one name: p.mark(name)")
                return False, []
            mark = self._mark_name(target.args[0], scope)
            if not _compatible(vt, "num"):
                self.error(s.value.pos, "E301", f"a mark holds a number, but this is {_describe(vt)}")
            p, name, val = self.unit.fresh(), self.unit.fresh(), self.unit.fresh()
            new = val if op == "=" else f"{p}.marks.get({name}, 0) {_sign(op)} {val}"
            return False, [
                Line(0, code(f"{p}, {name}, {val} = {{}}, {{}}, {{}}", who, mark, value, pos=s.pos)),
                Line(0, code(f"if {p} is not None: {{}}(f, {p}, {name}, {new})", self.k(ops.set_mark), pos=s.pos)),
            ]
        if isinstance(target, A.Attr) and target.name == "chained":
            who = self._player(target.obj, scope)
            if op != "=":
                self.error(s.pos, "E306", "'chained' is true or false: assign it with '='")
            if not _compatible(vt, "bool"):
                self.error(s.value.pos, "E301", f"expected true or false, but this is {_describe(vt)}")
            return self.act(False, ops.set_chained, [who, _truth(value)], s.pos)
        if isinstance(target, A.Attr) and target.name == "kingdom":
            who = self._player(target.obj, scope)
            if op != "=":
                self.error(s.pos, "E306", "a kingdom is assigned with '='")
            if not _compatible(vt, "sym:kingdom"):
                self.error(s.value.pos, "E301", f"expected a kingdom, but this is {_describe(vt)}")
            return self.act(False, ops.set_kingdom, [who, value], s.pos)
        if isinstance(target, A.Attr) and target.name in ("max_hp", "hp"):
            who = self._player(target.obj, scope)
            attr = target.name
            setter = ops.set_max_hp if attr == "max_hp" else ops.set_hp
            p, val = self.unit.fresh(), self.unit.fresh()
            new = val if op == "=" else f"{p}.{attr} {_sign(op)} {val}"
            return True, [
                Line(0, code(f"{p}, {val} = {{}}, {{}}", who, value, pos=s.pos)),
                Line(0, code(f"if {p} is not None: yield from {{}}(f, {p}, {new})", self.k(setter), pos=s.pos)),
            ]
        if isinstance(target, A.Attr) and isinstance(target.obj, A.Name) and target.obj.id == "event":
            if scope.event is None:
                if not self.timing_unknown:
                    self.error(target.pos, "E306", "there is no event to change here")
                else:  # the event's type is not known: a field that no event has is still wrong
                    fields = sorted({n for cls in _EVENT_CLASSES.values() for n in cls.FIELDS})
                    if target.name not in fields:
                        self.error(target.name_pos, "E304", f"no event has a field '{target.name}'"
                                                            f"{did_you_mean(target.name, fields)}")
                return False, []
            fname = target.name
            if fname not in scope.event.FIELDS:
                self.error(target.name_pos, "E304", f"this event has no field '{fname}'"
                                                    f"{did_you_mean(fname, scope.event.FIELDS)}")
                return False, []
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
            ev, val = self.unit.fresh(), self.unit.fresh()
            field_name = ascii(fname)
            new = val if op == "=" else f"getattr({ev}, {field_name}) {_sign(op)} {val}"
            return False, [
                Line(0, code(f"{ev} = v['event']; {val} = {{}}", value, pos=s.pos)),
                Line(0, code(f"setattr({ev}, {field_name}, {new})", pos=s.pos)),
            ]
        self.error(s.pos, "E306", "only 'event.FIELD', 'PLAYER.mark(NAME)', 'PLAYER.hp', 'PLAYER.max_hp' and "
                                  "'PLAYER.chained' can be assigned")
        return False, []

    def _s_Control(self, s: A.Control, scope: Scope) -> Stmt:
        kind = s.kind
        if kind == "stop":
            return False, [Line(0, code("raise {}()", self.k(StopEffect), pos=s.pos))]
        if kind == "break":
            if not scope.in_loop:
                self.error(s.pos, "E306", "'break' is only allowed inside 'repeat' or 'for each'")
                return False, [Line(0, code("raise {}()", self.k(BreakLoop), pos=s.pos))]
            # the innermost loop of the language is the innermost loop of the generated code
            return False, [Line(0, code("break", pos=s.pos))]
        if kind == "cancel":
            timing = TIMINGS.get(scope.timing or "")
            if (scope.event is None and not self.timing_unknown) or (
                    timing is not None and not timing.before and scope.event is not SignalEvent):
                self.error(s.pos, "E306", "'cancel' is only allowed in a trigger at a 'before' timing "
                                          "(before_draw, damage_caused, damage_taken, before_effect ...) or a signal")
            return False, [Line(0, code("v['event'].cancelled = True", pos=s.pos))]
        return False, []

    def _s_If(self, s: A.If, scope: Scope) -> Stmt:
        lines: list[Line] = []
        gen = False
        bound_sets = []
        inners = []
        for i, (cond, stmts) in enumerate(s.branches):
            c = self.test(cond, scope)
            inner = scope.child()
            g, b = self.statements(stmts, inner)
            gen = gen or g
            bound_sets.append(set(inner.vars) - set(scope.vars))
            inners.append(inner)
            lines.append(Line(0, code(("if {}:" if i == 0 else "elif {}:"), c, pos=s.pos)))
            lines.extend(body(b, s.pos))
        if s.orelse is not None:
            inner = scope.child()
            g, b = self.statements(s.orelse, inner)
            gen = gen or g
            bound_sets.append(set(inner.vars) - set(scope.vars))
            inners.append(inner)
            for name in set.intersection(*bound_sets):
                scope.vars[name] = inner.vars[name]
                pys = {i.py.get(name) for i in inners}
                if len(pys) == 1 and None not in pys:  # a local in every branch
                    scope.py[name] = pys.pop()  # type: ignore[assignment]
                else:
                    scope.py.pop(name, None)
            lines.append(Line(0, code("else:", pos=s.pos)))
            lines.extend(body(b, s.pos))
        return gen, lines

    def _s_ForEach(self, s: A.ForEach, scope: Scope) -> Stmt:
        src, t = self.expr(s.source, scope)
        if not _compatible(t, "list"):
            self.error(s.source.pos, "E301", f"'for each' needs a list, but this is {_describe(t)}")
        inner = scope.child()
        inner.vars[s.var] = element_type(t)
        inner.in_loop = True
        x = self.unit.fresh("_x")
        bind = self.bind(s.var, Code(x), inner, s.pos)
        gen, b = self.statements(s.body, inner)
        return gen, [Line(0, code(f"for {x} in list({{}} or []):", src, pos=s.pos))] + body([bind] + b, s.pos)

    def _s_Repeat(self, s: A.Repeat, scope: Scope) -> Stmt:
        inner = scope.child()
        inner.in_loop = True
        count = self._num(s.expr, scope) if s.kind == "times" and s.expr is not None else None
        cond = self.test(s.expr, scope) if s.kind == "while" and s.expr is not None else None
        gen, b = self.statements(s.body, inner)
        n, limit = self.unit.fresh(), self.unit.fresh()
        pos = s.pos
        head = [Line(0, code(f"{n} = 0", pos=pos))]
        loop = []
        if count is not None:
            head.append(Line(0, code(f"{limit} = int({{}} or 0)", count, pos=pos)))
            loop.append(Line(0, code(f"if {n} >= {limit}: break", pos=pos)))
        if cond is not None:
            loop.append(Line(0, code("if not {}: break", cond, pos=pos)))
        loop.append(Line(0, code(f"{n} += 1; {{}}(f, {n})", self.k(ops.loop_guard), pos=pos)))
        loop.extend(b)
        if s.kind == "forever":
            loop.append(Line(0, code(f"if {n} > f.game.limits.loop: break", pos=pos)))
        return gen, head + [Line(0, code("while True:", pos=pos))] + body(loop, pos)

    def _s_ChooseBlock(self, s: A.ChooseBlock, scope: Scope) -> Stmt:
        who = self._player(s.subject, scope) if s.subject is not None else self._player(None, scope)
        options = []
        for opt in s.options:
            cond = self.test(opt.cond, scope) if opt.cond is not None else None
            options.append((opt.label, cond, self.statements(opt.body, scope.child())[1]))
        avail, idx, pick = self.unit.fresh(), self.unit.fresh(), self.unit.fresh()
        labels = self.k(tuple(label for label, _, _ in options))
        pos = s.pos
        lines = [Line(0, code(f"{avail} = []", pos=pos))]
        for i, (_, cond, _) in enumerate(options):
            lines.append(Line(0, code(f"{avail}.append({i})", pos=pos) if cond is None
                              else code(f"if {{}}: {avail}.append({i})", cond, pos=pos)))
        inside = [
            Line(0, code(f"{idx} = yield from {{}}(f, {{}}, [{{}}[i] for i in {avail}])",
                         self.k(ops.choose_option), who, labels, pos=pos)),
            Line(0, code(f"{pick} = {avail}[{idx}]", pos=pos)),
            Line(0, code(f"f.game.emit('choice', player={{}}, option={{}}[{pick}])", who, labels, pos=pos)),
        ]
        for i, (_, _, b) in enumerate(options):
            inside.append(Line(0, code(f"{'if' if i == 0 else 'elif'} {pick} == {i}:", pos=pos)))
            inside.extend(body(b, pos))
        lines.append(Line(0, code(f"if {avail}:", pos=pos)))
        lines.extend(body(inside, pos))
        return True, lines

    # -- actions

    def _s_Draw(self, s: A.Draw, scope: Scope) -> Stmt:
        who, n = self._subject(s, scope), self._num(s.amount, scope)
        return self.act(True, ops.draw, [who, n, self.k(scope.phase_id)], s.pos)

    def _s_DiscardDownTo(self, s: A.DiscardDownTo, scope: Scope) -> Stmt:
        who, n = self._subject(s, scope), self._num(s.amount, scope)
        return self.act(True, ops.discard_down_to, [who, n], s.pos)

    def _s_DiscardAll(self, s: A.DiscardAll, scope: Scope) -> Stmt:
        who, zones = self._subject(s, scope), self._zones(s.zones)
        return self.act(True, ops.discard_all, [who, self.k(zones)], s.pos)

    def _count(self, c: A.Count, scope: Scope) -> tuple[str, Optional[Code]]:
        if c.expr is None:
            return c.kind, None
        if isinstance(c.expr, A.Neg) or (isinstance(c.expr, A.Num) and c.expr.value < 0):
            self.error(c.expr.pos, "E301", "a number of cards or players cannot be negative")
        n = self._num(c.expr, scope)
        if isinstance(c.expr, A.Num):
            return c.kind, self.k(max(0, int(c.expr.value or 0)))
        return c.kind, code("max(0, int({} or 0))", n)

    def _got(self, gen: bool, fn: Any, args: list[Code], pos: A.Pos, then: Callable[[Code], list[Line]]) -> Stmt:
        """``got = fn(f, args...)`` (``yield from`` it when it is a generator), then ``then(got)``."""
        got = self.unit.fresh()
        call = code("{}({})", self.k(fn), join([Code("f")] + args))
        return True, [Line(0, code(f"{got} = yield from {{}}" if gen else f"{got} = {{}}", call, pos=pos))] + then(
            Code(got, simple=True))

    def _s_DiscardChosen(self, s: A.DiscardChosen, scope: Scope) -> Stmt:
        who = self._subject(s, scope)
        kind, n = self._count(s.count, scope)
        zones = self._zones(s.zones)
        where = self._where(s.where, scope, "card")
        name = s.as_name
        if name:
            scope.vars[name] = "cards"
        return self._got(True, ops.discard_chosen, [who, self.k(kind), self._opt(n), self.k(zones), where], s.pos,
                         lambda got: [self.bind(name, got, scope, s.pos)] if name else [])

    def _s_DiscardCards(self, s: A.DiscardCards, scope: Scope) -> Stmt:
        who = self._subject(s, scope)
        fn, t = self.expr(s.cards, scope)
        if t == "num":
            # `discard 2`: two of one's own cards
            return self.act(True, ops.discard_chosen, [who, self.k("exact"), fn, self.k(()), self.k(None)], s.pos)
        if not (_compatible(t, "cards") or _compatible(t, "card")):
            self.error(s.cards.pos, "E301", f"expected cards or a number, but this is {_describe(t)}")
        return self.act(True, ops.discard_cards, [who, fn], s.pos)

    def _chosen(self, name: str, single: bool, scope: Scope, pos: A.Pos) -> Callable[[Code], list[Line]]:
        """Bind what was chosen to ``name``: the one item when exactly one was asked for."""
        def then(got: Code) -> list[Line]:
            return [self.bind(name, code("({}[0] if {} else None)", got, got) if single else got, scope, pos)]
        return then

    def _s_ChooseCards(self, s: A.ChooseCards, scope: Scope) -> Stmt:
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
        return self._got(True, ops.choose_cards, [who, self.k(kind), self._opt(n), self.k(zones), self._opt(owner),
                                                  where], s.pos, self._chosen(name, single, scope, s.pos))

    def _s_ChoosePlayers(self, s: A.ChoosePlayers, scope: Scope) -> Stmt:
        who = self._subject(s, scope)
        kind, n = self._count(s.count, scope)
        source = self._players(s.source, scope) if s.source is not None else None
        where = self._where(s.where, scope, "player")
        single = kind == "exact" and isinstance(s.count.expr, A.Num) and s.count.expr.value == 1
        name = s.as_name
        scope.vars[name] = "player" if single else "players"
        return self._got(True, ops.choose_players, [who, self.k(kind), self._opt(n), self._opt(source), where],
                         s.pos, self._chosen(name, single, scope, s.pos))

    def _s_ChooseSymbol(self, s: A.ChooseSymbol, scope: Scope) -> Stmt:
        who = self._subject(s, scope)
        fn, t = self.expr(s.options, scope)
        name = s.as_name
        scope.vars[name] = ("sym:" + t[5:]) if t.startswith("syms:") else "any"
        return self._got(True, ops.choose_symbol, [who, code("list({} or [])", fn)], s.pos, lambda got: [
            self.bind(name, got, scope, s.pos),
            Line(0, code("f.game.emit('choice', player={}, option={})", who, got, pos=s.pos))])

    def _s_Gain(self, s: A.Gain, scope: Scope) -> Stmt:
        who, cards = self._subject(s, scope), self._cards(s.cards, scope)
        return self.act(True, ops.gain, [who, cards], s.pos)

    def _s_Give(self, s: A.Give, scope: Scope) -> Stmt:
        who, cards, to = self._subject(s, scope), self._cards(s.cards, scope), self._player(s.to, scope)
        return self.act(True, ops.give, [who, cards, to], s.pos)

    def _s_Show(self, s: A.Show, scope: Scope) -> Stmt:
        who, cards = self._subject(s, scope), self._cards(s.cards, scope)
        return self.act(False, ops.show, [who, cards], s.pos)

    def _s_Damage(self, s: A.Damage, scope: Scope) -> Stmt:
        target = self._player(s.target, scope, "the damaged player")
        if s.like is not None:
            original = self.expect(s.like, scope, "event:damage", "a damage event (event, or event.damage)")
            return self.act(True, ops.damage_like, [target, original], s.pos)
        amount = self._num(s.amount, scope)
        nature: Optional[Code] = None
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
                source = self.k(None)
            else:
                source = self._player(s.by, scope, "the source of the damage")
        else:
            source = self._player(s.subject, scope)
        card: Optional[Code] = None
        if s.card is not None:
            card = (self.k(None) if isinstance(s.card, A.Const) and s.card.value is None
                    else self.expect(s.card, scope, "card", "the card that causes the damage"))
        return self.act(True, ops.damage, [source, target, amount, self._opt(nature)], s.pos,
                        card=card if card is not None else self.k(ops.NO_CARD))

    def _s_Recover(self, s: A.Recover, scope: Scope) -> Stmt:
        who, n = self._subject(s, scope), self._num(s.amount, scope)
        return self.act(True, ops.recover, [who, n], s.pos)

    def _s_LoseHp(self, s: A.LoseHp, scope: Scope) -> Stmt:
        who, n = self._subject(s, scope), self._num(s.amount, scope)
        return self.act(True, ops.lose_hp, [who, n], s.pos)

    def _s_Judge(self, s: A.Judge, scope: Scope) -> Stmt:
        who = self._subject(s, scope)
        scope.vars["judge"] = "judge"
        return self._got(True, ops.judge, [who], s.pos, lambda got: [self.bind("judge", got, scope, s.pos)])

    def _s_Retrial(self, s: A.Retrial, scope: Scope) -> Stmt:
        if scope.timing != "judge_retrial" and not self.timing_unknown:
            self.error(s.pos, "E306", "'retrial' is only allowed in a trigger on judge_retrial")
        who, card = self._subject(s, scope), self._cards(s.card, scope)
        return self.act(True, ops.retrial, [who, card], s.pos)

    def _responded(self, n: Code, scope: Scope, pos: A.Pos) -> Callable[[Code], list[Line]]:
        """Bind ``responded`` (enough answers) and ``response`` (the last card) after an 'ask'."""
        def then(got: Code) -> list[Line]:
            return [self.bind("responded", code("(len({}) >= max(1, int({} or 0)))", got, n), scope, pos),
                    self.bind("response", code("({}[-1] if {} else None)", got, got), scope, pos)]
        return then

    def _s_AskRespond(self, s: A.AskRespond, scope: Scope) -> Stmt:
        player = self._player(s.player, scope, "the player asked")
        pattern = s.pattern
        if pattern in scope.vars and not s.more:  # `ask p play x`: the kind a variable names
            var, mode0, extra0 = pattern, s.mode, s.extra
            times0 = self._num(s.times, scope) if s.times is not None else self.k(1)
            on0 = self._players(s.on, scope) if s.on is not None else None
            for0 = self._player(s.for_, scope, "the player answered for") if s.for_ is not None else None
            value = self.read(var, scope)
            scope.vars["responded"] = "bool"
            scope.vars["response"] = "card"
            n, kind = self.unit.fresh(), self.unit.fresh()
            head = Line(0, code(f"{n} = {{}}; {kind} = {{}}({{}})", times0, self.k(_response_kind), value, pos=s.pos))
            gen, lines = self._got(True, ops.ask_respond, [
                player, self.k(mode0), code(f"frozenset([{kind}])"), Code(n), self._opt(on0), self._opt(for0),
                self.k(extra0)], s.pos, self._responded(Code(n), scope, s.pos))
            return gen, [head] + lines
        if pattern != RESCUE:
            pattern = self.canonical(pattern)
            self.symbol_name(s.pattern, s.pattern_pos, "card", "card name")
        names = [pattern]
        for more, more_pos in s.more:
            self.symbol_name(more, more_pos, "card", "card name")
            names.append(self.canonical(more))
        patterns = frozenset(names)
        times = self._num(s.times, scope) if s.times is not None else self.k(1)
        on = self._players(s.on, scope) if s.on is not None else None
        for_ = self._player(s.for_, scope, "the player answered for") if s.for_ is not None else None
        mode, extra = s.mode, s.extra
        scope.vars["responded"] = "bool"
        scope.vars["response"] = "card"
        n = self.unit.fresh()
        head = Line(0, code(f"{n} = {{}}", times, pos=s.pos))
        gen, lines = self._got(True, ops.ask_respond, [
            player, self.k(mode), self.k(patterns), Code(n), self._opt(on), self._opt(for_), self.k(extra)],
            s.pos, self._responded(Code(n), scope, s.pos))
        return gen, [head] + lines

    def _s_AskConfirm(self, s: A.AskConfirm, scope: Scope) -> Stmt:
        player = self._player(s.player, scope, "the player asked")
        scope.vars["confirmed"] = "bool"
        return self._got(True, ops.ask_confirm, [player, self.k(s.prompt)], s.pos,
                         lambda got: [self.bind("confirmed", got, scope, s.pos)])

    def _s_Provide(self, s: A.Provide, scope: Scope) -> Stmt:
        if scope.timing != "respond_asked" and not self.timing_unknown:
            self.error(s.pos, "E306", "'provide' is only allowed in a trigger on respond_asked")
        card = self._card_or_name(s.card, scope)
        return self.act(False, ops.provide, [card], s.pos)

    def _card_or_name(self, node: A.Expr, scope: Scope) -> Code:
        if isinstance(node, A.Name) and node.id not in scope.vars and node.id not in GLOBALS:
            return self.symbol_name(node.id, node.pos, "card", "card name", scope)
        fn, t = self.expr(node, scope)
        if not (_compatible(t, "card") or _compatible(t, "cards") or t == "sym:card"):
            self.error(node.pos, "E301", f"expected a card or a card name, but this is {_describe(t)}")
        return fn

    def _s_Use(self, s: A.Use, scope: Scope) -> Stmt:
        who = self._subject(s, scope)
        card = self._card_or_name(s.card, scope)
        on = self._players(s.on, scope) if s.on is not None else None
        return self.act(True, ops.use, [who, card, self._opt(on), self.k(s.extra), self.k(s.unnullifiable)], s.pos)

    def _s_Skip(self, s: A.Skip, scope: Scope) -> Stmt:
        who = self._subject(s, scope)
        phase = self.symbol_name(s.phase, s.phase_pos, "phase", "phase")
        return self.act(False, ops.skip, [who, phase], s.pos)

    def _s_Signal(self, s: A.Signal, scope: Scope) -> Stmt:
        name = s.name
        if name in TIMINGS:
            self.error(s.name_pos, "E306", f"'{name}' is a timing of the engine; a signal needs a name of its own")
        scope.vars[name] = "event:signal"
        return self._got(True, ops.signal, [self.k(name)], s.pos, lambda got: [self.bind(name, got, scope, s.pos)])

    def _s_PutZone(self, s: A.PutZone, scope: Scope) -> Stmt:
        cards, player, zone = self._cards(s.cards, scope), self._player(s.player, scope), s.zone
        return self.act(True, ops.put_zone, [cards, player, self.k(zone)], s.pos)

    def _s_PutPile(self, s: A.PutPile, scope: Scope) -> Stmt:
        cards, where = self._cards(s.cards, scope), s.where
        return self.act(True, ops.put_pile, [cards, self.k(where)], s.pos)

    def _s_Arrange(self, s: A.Arrange, scope: Scope) -> Stmt:
        who, n = self._subject(s, scope), self._num(s.amount, scope)
        return self.act(True, ops.arrange, [who, n], s.pos)

    def _s_Distribute(self, s: A.Distribute, scope: Scope) -> Stmt:
        who, cards = self._subject(s, scope), self._cards(s.cards, scope)
        return self.act(True, ops.distribute, [who, cards], s.pos)

    def _s_Reveal(self, s: A.Reveal, scope: Scope) -> Stmt:
        who, n = self._subject(s, scope), self._num(s.amount, scope)
        name, private = s.as_name, s.private
        scope.vars[name] = "cards"
        return self._got(True, ops.reveal, [who, n, self.k(private)], s.pos,
                         lambda got: [self.bind(name, got, scope, s.pos)])

    def _s_Ignore(self, s: A.Ignore, scope: Scope) -> Stmt:
        if s.slot not in self.env.slots:
            self.error(s.slot_pos, "E300", f"unknown equipment slot '{s.slot}'{did_you_mean(s.slot, self.env.slots)}")
        player = self._player(s.player, scope)
        return self.act(False, ops.ignore, [self.k(s.slot), player], s.pos)

    def _s_Deny(self, s: A.Deny, scope: Scope) -> Stmt:
        player = self._player(s.player, scope)
        return self.act(False, ops.deny, [player], s.pos)

    def _s_Redirect(self, s: A.Redirect, scope: Scope) -> Stmt:
        if scope.timing not in ("targeted", "targeting") and not self.timing_unknown:
            self.error(s.pos, "E306", "'redirect' is only allowed in a trigger on targeted or targeting")
        player = self._player(s.player, scope)
        return self.act(False, ops.redirect, [player], s.pos)

    def _s_CheckVictory(self, s: A.CheckVictory, scope: Scope) -> Stmt:
        return self.act(False, ops.check_victory, [], s.pos)

    def _s_TurnOver(self, s: A.TurnOver, scope: Scope) -> Stmt:
        who = self._subject(s, scope)
        return self.act(False, ops.turn_over, [who], s.pos)

    def _s_Log(self, s: A.Log, scope: Scope) -> Stmt:
        who = self._subject(s, scope)
        return self.act(False, ops.log, [who, self.k(s.text)], s.pos)

    def _s_Resolve(self, s: A.Resolve, scope: Scope) -> Stmt:
        who, card = self._subject(s, scope), self._cards(s.card, scope)
        return self.act(True, ops.resolve, [who, card], s.pos)

    def _s_EndTurn(self, s: A.EndTurn, scope: Scope) -> Stmt:
        return self.act(False, ops.end_turn, [], s.pos)

    def _s_RevealRole(self, s: A.RevealRole, scope: Scope) -> Stmt:
        who = self._subject(s, scope)
        return self.act(False, ops.reveal_role, [who], s.pos)

    def _until(self, name: Optional[str], pos: A.Pos) -> Optional[str]:
        if name is None:
            return None
        if name not in UNTIL:
            self.error(pos, "E300", f"unknown duration '{name}'{did_you_mean(name, UNTIL)}: "
                                    f"say {', '.join(UNTIL)}")
            return None
        return UNTIL[name]

    def _s_SkillChange(self, s: A.SkillChange, scope: Scope) -> Stmt:
        who = self._subject(s, scope)
        skill = self.symbol_name(s.skill, s.skill_pos, "skill", "skill")
        until, gain = self._until(s.until, s.until_pos), s.gain
        return self.act(False, ops.change_skill, [who, skill, self.k(gain), self.k(until)], s.pos)

    def _s_Invalidate(self, s: A.Invalidate, scope: Scope) -> Stmt:
        player = self._player(s.player, scope, "the player whose skills are invalid")
        skill = self.symbol_name(s.skill, s.skill_pos, "skill", "skill") if s.skill is not None else self.k(None)
        until = self._until(s.until, s.until_pos)
        return self.act(False, ops.invalidate, [player, skill, self.k(until)], s.pos)

    def _s_Forbid(self, s: A.Forbid, scope: Scope) -> Stmt:
        player = self._player(s.player, scope, "the player bound by the prohibition")
        actions = []
        for name, pos in s.actions:
            if name not in BAN_ACTIONS:
                self.error(pos, "E300", f"'{name}' is not something a prohibition forbids"
                                        f"{did_you_mean(name, BAN_ACTIONS)}: say {', '.join(BAN_ACTIONS)}")
            actions.append(name)
        inner = self._frame_scope(scope)
        inner.vars["it"] = "card"
        inner.vars["user"] = "player"
        cond = self.hoist(self.test(s.where, inner), s.where.pos) if s.where is not None else self.k(None)
        until, what = self._until(s.until, s.until_pos), frozenset(actions)
        return self.act(False, ops.forbid, [player, self.k(what), cond, self.k(until)], s.pos)

    def _s_Kill(self, s: A.Kill, scope: Scope) -> Stmt:
        player = self._player(s.player, scope, "the player who dies")
        by = self._player(s.by, scope, "the killer") if s.by is not None else None
        return self.act(True, ops.kill, [player, self._opt(by)], s.pos)

    def _s_PutNamedPile(self, s: A.PutNamedPile, scope: Scope) -> Stmt:
        cards, player = self._cards(s.cards, scope), self._player(s.player, scope)
        pile = self.symbol_name(s.pile, s.pile_pos, "pile", "pile (declare it under a skill's 'piles:')")
        return self.act(True, ops.put_named_pile, [cards, player, pile], s.pos)

    def _s_LookAt(self, s: A.LookAt, scope: Scope) -> Stmt:
        who, cards, name = self._subject(s, scope), self._cards(s.cards, scope), s.as_name
        scope.vars[name] = "cards"
        gen, lines = self._got(False, ops.look_at, [who, cards], s.pos,
                               lambda got: [self.bind(name, got, scope, s.pos)])
        return False, lines

    def _s_Revive(self, s: A.Revive, scope: Scope) -> Stmt:
        player = self._player(s.player, scope, "the player who returns")
        if isinstance(s.hero, A.Name) and s.hero.id not in scope.vars and s.hero.id not in GLOBALS:
            hero = self.symbol_name(s.hero.id, s.hero.pos, "hero", "hero")
        else:
            hero, t = self.expr(s.hero, scope)
            if not _compatible(t, "sym:hero"):
                self.error(s.hero.pos, "E301", f"expected a hero, but this is {_describe(t)}")
        hp = self._num(s.hp, scope) if s.hp is not None else None
        return self.act(True, ops.revive, [player, hero, self._opt(hp)], s.pos)

    def _s_Counter(self, s: A.Counter, scope: Scope) -> Stmt:
        card = self._cards(s.card, scope)
        target = self._player(s.target, scope, "the player the effect is on")
        scope.vars["countered"] = "bool"
        return self._got(True, ops.counter, [card, target], s.pos,
                         lambda got: [self.bind("countered", got, scope, s.pos)])

    def _s_Act(self, s: A.Act, scope: Scope) -> Stmt:
        who = self._subject(s, scope)
        return self.act(True, ops.act, [who], s.pos)


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


def _truth(c: Code) -> Code:
    """``c`` as true or false."""
    return c if c.boolean else code("bool({})", c, boolean=True)


def _sign(op: str) -> str:
    """The operator of ``+=`` / ``-=``."""
    return "+" if op == "+=" else "-"


def _may_be_card(t: str) -> bool:
    """Whether a value of type ``t`` may be a physical card (the only thing a card text is equal to)."""
    return t in ("card", "any")


def _may_be_card_text(node: A.Expr, t: str) -> bool:
    """Whether a side of ``==`` may be a card text (``"spark S7"``), which compares with a card by what it names.

    Names of symbols have no spaces, so only texts and values of unknown type can be one. (Nothing else
    defines ``==``: a card text and anything but a card are unequal either way.)"""
    if isinstance(node, A.Str):
        return parse_card_text(node.value) is not None
    return t in ("text", "any")
