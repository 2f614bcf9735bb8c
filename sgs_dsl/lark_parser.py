"""The Lark side of the effect language: the LALR parser and the builder of syntax trees.

Imported only when a snippet has to be parsed (:mod:`sgs_dsl.parser` imports it on
first use), so that a run whose snippets all come from the cache never loads Lark.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from typing import Any, Iterable, Iterator, Optional

# lark imports the third-party `regex` module when it is installed, only for the Unicode categories
# (\p{...}) that a grammar may use with lark's `regex=True`; this grammar uses neither, and importing
# `regex` is a fifth of importing lark: while lark is first imported, `regex` is not there for it
_HIDE_REGEX = "lark" not in sys.modules and "regex" not in sys.modules
if _HIDE_REGEX:
    sys.modules["regex"] = None  # type: ignore[assignment]  # `import regex` raises ImportError
try:
    from lark import Lark, Token, Tree
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
    from lark.indenter import DedentError, Indenter
finally:
    if _HIDE_REGEX and sys.modules.get("regex", 0) is None:
        del sys.modules["regex"]  # anything else may import it as usual

from . import ast as A
from . import parser as _parser
from .errors import Diagnostic, did_you_mean
from .parser import GRAMMAR, Origin, SyntaxProblem, _bad_dedent


class _Indenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 4


@lru_cache(maxsize=1)
def grammar_parser() -> Lark:
    """The LALR parser, built once per process.

    Every node of its trees knows where it starts (``meta.line``, ``meta.column``; ``meta.empty`` when
    it covers no token), which is all the builder reads: lark's own ``propagate_positions`` works out
    the ends and offsets too, which took as long as the rest of building the tree. Where lark's
    callbacks cannot be reached (another version of lark), its own propagation is used instead.
    """
    parser = _lark(propagate_positions=False)
    callbacks = getattr(parser, "_callbacks", None)
    if isinstance(callbacks, dict):
        for rule, callback in list(callbacks.items()):
            if not isinstance(rule, str):  # a rule's (text keys: a terminal's, of the lexer)
                callbacks[rule] = _Starts(callback)
        probe = parser.parse("draw 1\n", start="start")
        if isinstance(probe, Tree) and not probe.meta.empty and (probe.meta.line, probe.meta.column) == (1, 1):
            return parser
    return _lark(propagate_positions=True)


def _lark(propagate_positions: bool) -> Lark:
    return Lark(
        GRAMMAR.read_text(encoding="utf-8"),
        parser="lalr",
        postlex=_Indenter(),
        start=["start", "expression"],
        propagate_positions=propagate_positions,
        maybe_placeholders=True,
        cache=True,  # the parse table is kept in the temp folder: later starts skip building it
    )


class _Starts:
    """A rule's callback that gives the tree it makes the start of its first child that has one, as
    lark's ``propagate_positions`` does (through its *container* positions: a ``?rule`` inlined, as
    ``( expr )``, starts where its text does), without the ends."""

    __slots__ = ("callback",)

    def __init__(self, callback: Any) -> None:
        self.callback = callback

    def __call__(self, children: list[Any]) -> Any:
        res = self.callback(children)
        if isinstance(res, Tree):
            for c in children:
                if isinstance(c, Tree):
                    m = c.meta
                    if m.empty:
                        continue
                    line, col = getattr(m, "container_line", m.line), getattr(m, "container_column", m.column)
                elif isinstance(c, Token):
                    line, col = c.line, c.column
                else:
                    continue
                meta: Any = res.meta
                if not hasattr(meta, "line"):  # a `?rule` passes its child on, which has its own start
                    meta.line, meta.column, meta.empty = line, col, False
                meta.container_line, meta.container_column = line, col
                break
        return res


_TERMINAL_NAMES = {
    "_NL": "end of line",
    "_INDENT": "an indented block",
    "_DEDENT": "the end of the block",
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": "a quoted text",
    "COLON": "':'",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "COMMA": "','",
    "DOT": "'.'",
    "COMP_OP": "a comparison",
    "ASSIGN_OP": "'=', '+=' or '-='",
    "ZONE": "hand, equip or judge",
    "RESPOND_MODE": "use or play",
    "$END": "the end of the text",
}


def _describe(terminal: str) -> str:
    if terminal in _TERMINAL_NAMES:
        return _TERMINAL_NAMES[terminal]
    p = grammar_parser()
    for t in p.terminals:
        if t.name == terminal:
            pattern = t.pattern
            if pattern.type == "str":
                return f"'{pattern.value}'"
    return terminal.lower().lstrip("_")


#: how the first words of the statements are found in the grammar: these rules start statements,
#: and their first terminals (not those of an expression, as in `target draw 2`) are the statement words
_STATEMENT_RULES = ("action", "compound_stmt", "let_stmt", "control_stmt")
_EXPRESSION_RULES = ("subject", "postfix", "expr", "named")


def _terminal_words(name: str) -> list[str]:
    """The words a keyword terminal matches ('damage'; ``/(?:draws|draw)\\b/``), or none."""
    for t in grammar_parser().terminals:
        if t.name == name:
            if t.pattern.type == "str":
                return [t.pattern.value] if re.fullmatch(r"[a-z_]+", t.pattern.value) else []
            m = re.fullmatch(r"\(\?:([a-z_|]+)\)\\b", t.pattern.value)
            return m.group(1).split("|") if m else []
    return []


@lru_cache(maxsize=None)
def _first_terminals(rule: str) -> frozenset[str]:
    """The terminals a statement of ``rule`` may start with, from the grammar (an optional subject skipped)."""
    out: set[str] = set()
    todo, seen = [rule], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for r in grammar_parser().rules:
            if r.origin.name != name or not r.expansion:
                continue
            first = r.expansion[0]
            if first.is_term:
                out.add(first.name)
            elif first.name not in _EXPRESSION_RULES:
                todo.append(first.name)
    return frozenset(out)


@lru_cache(maxsize=1)
def statement_words() -> tuple[str, ...]:
    """Every word a statement can begin with (``draw``, ``draws``, ``if``, ``let``, ``look`` ...), from the grammar."""
    words: set[str] = set()
    for rule in _STATEMENT_RULES:
        for term in _first_terminals(rule):
            words.update(_terminal_words(term))
    return tuple(sorted(words))


def _verb_position(expected: Iterable[str]) -> bool:
    """Whether the parser wanted the verb of a statement here (after its subject: `target ▮`)."""
    verbs, exp = _first_terminals("action"), set(expected)
    # at the start of a statement a name (the subject) or `if` may come too; after the subject they may not
    return len(verbs & exp) * 2 > len(verbs) and not exp & ((_first_terminals("compound_stmt") - verbs) | {"NAME"})


def _near(word: str) -> str:
    """`` (did you mean 'draw'?)`` over the statement words, or '' (the bare form preferred: draw, not draws)."""
    hint = did_you_mean(word, statement_words())
    m = re.fullmatch(r" \(did you mean '([a-z_]+)s'\?\)", hint)
    if m and m.group(1) in statement_words():
        return f" (did you mean '{m.group(1)}'?)"
    return hint


def _leaf_tokens(node: Any) -> list[Token]:
    if isinstance(node, Token):
        return [node]
    out: list[Token] = []
    for child in getattr(node, "children", ()):
        out.extend(_leaf_tokens(child))
    return out


#: a word for the statements, in messages that list them
_SOME_STATEMENTS = "draw, discard, damage, recover, give, gain, choose, judge, ask, use ..."


def _statement_problem(text: str, exc: UnexpectedToken) -> Optional[tuple[int, int, str]]:
    """A statement the grammar lacks: (line, col, message) in snippet coordinates, or None if it is not that.

    The parser read an expression at the start of a statement (a subject, as in `target draw 2`, or
    the left side of `x += 1`) and found no verb after it: the words are compared with the
    grammar's statement words.
    """
    if not _verb_position(exc.expected):
        return None
    stack = getattr(getattr(getattr(exc, "interactive_parser", None), "parser_state", None), "value_stack", None)
    if not stack:
        return None
    subject = stack[-1]
    leaves = _leaf_tokens(subject)
    if not leaves or any(t.line is None or t.column is None for t in leaves):
        return None
    first, tok = leaves[0], exc.token
    start, end = first.start_pos, leaves[-1].end_pos
    if start is None or end is None:
        return None
    written = " ".join(text[start:end].split())
    at_subject = (first.line or 1, first.column or 1)
    placed = tok.line is not None and tok.column is not None and tok.type not in ("_NL", "$END", "_DEDENT")
    at_token = (tok.line or 1, tok.column or 1)
    one_name = len(leaves) == 1 and first.type == "NAME"
    if tok.type == "NAME":  # `target drwa 2`: the word after the subject is no statement word
        hint = _near(str(tok))
        if hint:
            return (*at_token, f"no such statement '{tok}'{hint}")
        if not one_name:
            return (*at_token, f"no such statement '{tok}' after '{written}'; a statement begins with one of: "
                               f"{_SOME_STATEMENTS}")
    if one_name:  # `drwa 2`: the first word is no statement word
        hint = _near(str(first))
        if hint or tok.type in ("NAME", "NUMBER", "STRING", "LPAR", "LSQB"):
            more = "" if hint else f"; a statement begins with one of: {_SOME_STATEMENTS}"
            return (*at_subject, f"no such statement '{first}'{hint}{more}")
    last = leaves[-1]
    if not placed and not one_name and last.type == "NAME" and str(last) in statement_words():
        return (*at_subject, f"no such statement '{written}': it is a value, not a statement (did you mean '{last}'?)")
    what = {"PLUS": "'+='", "MINUS": "'-='", "COMP_OP": "'='"}.get(tok.type)
    if what is not None and placed:
        return (*at_token, f"no such statement: '{written}' is followed by {str(tok)!r}, where a statement "
                           f"word or '=', '+=', '-=' is needed (did you mean {what}?)")
    if not placed:
        return (*at_subject, f"no such statement '{written}': a value must be followed by a statement "
                             f"word ({_SOME_STATEMENTS}) or by '=', '+=', '-='")
    return (*at_token, f"no such statement: '{written}' is followed by {str(tok)!r}, where a statement "
                       f"word ({_SOME_STATEMENTS}) or '=', '+=', '-=' is needed")


def _expected_words(expected: Iterable[str]) -> Optional[str]:
    """What the parser wanted, in words, when it wanted many things; None if no summary fits."""
    exp = set(expected)
    if _verb_position(exp):
        return f"a statement word ({_SOME_STATEMENTS}) or '=', '+=', '-='"
    starts = _first_terminals("action") | _first_terminals("compound_stmt")
    if len(starts & exp) * 2 > len(starts):
        return "a statement"
    if {"NAME", "NUMBER", "STRING"} <= exp:
        return "a value (a name, a number, a quoted text, a list or an expression in parentheses)"
    return None


def _syntax_message(exc: UnexpectedInput) -> str:
    if isinstance(exc, UnexpectedCharacters):
        return f"unexpected character {exc.char!r}"
    if isinstance(exc, UnexpectedEOF):
        return "the text ends too early"
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        if tok.type == "$END":
            got = "end of text"
        elif tok.type == "_NL":
            got = "end of line"
        elif tok.type == "_INDENT":
            return "this line is indented more than the one before, which opens no block (no ':' at its end)"
        elif tok.type == "_DEDENT":
            got = "a change of indentation"
        else:
            got = repr(str(tok))
        expected = sorted({_describe(t) for t in exc.expected if not t.startswith("__")})
        if len(expected) > 6:
            words = _expected_words(exc.expected)
            return f"unexpected {got}; expected {words}" if words else f"unexpected {got}"
        return f"unexpected {got}; expected {', '.join(expected)}"
    return "syntax error"


@lru_cache(maxsize=1024)
def _parse_tree(text: str, start: str) -> Any:
    """The Lark tree of a snippet's text (positions within the text): a text written in several places
    (``if: hp < max_hp``) is parsed once. The tree is only read afterwards (:class:`_Builder` makes new nodes)."""
    return grammar_parser().parse(text, start=start)


def parse(text: str, origin: Origin, start: str) -> Any:
    """Parse a snippet from the rule ``start``; :class:`SyntaxProblem` (placed in its file) on an error."""
    if not text.endswith("\n"):
        text += "\n"
    try:
        tree = _parse_tree(text, start)
    except UnexpectedInput as exc:
        line, col = exc.line, exc.column
        problem = _statement_problem(text, exc) if start == "start" and isinstance(exc, UnexpectedToken) else None
        if problem is not None:
            fl, fc = origin.map(problem[0], problem[1])
            raise SyntaxProblem(Diagnostic(origin.file, fl, fc, "E200", f"effect syntax: {problem[2]}")) from None
        if isinstance(exc, UnexpectedToken) and exc.token.type in ("_NL", "$END", "_DEDENT"):
            # point at the end of the line that is unfinished rather than the next line
            lines = text.split("\n")
            ln = min(max(getattr(exc.token, "line", 1) or 1, 1), len(lines))
            if exc.token.type != "_NL":
                ln = max(1, ln - 1)
            while ln > 1 and not lines[ln - 1].strip():
                ln -= 1
            line, col = ln, len(lines[ln - 1].rstrip()) + 1
        if isinstance(exc, UnexpectedToken) and exc.token.type == "_INDENT":
            # the token sits at the end of the line before: point at the first word of the indented line
            lines = text.split("\n")
            ln = max(getattr(exc.token, "line", 1) or 1, 1)
            while ln < len(lines) and (not lines[ln].strip() or lines[ln].lstrip().startswith("#")):
                ln += 1
            if ln < len(lines):
                line, col = ln + 1, len(lines[ln]) - len(lines[ln].lstrip(" \t")) + 1
        if line is None or line < 1:
            line, col = 1, 1
        fl, fc = origin.map(line, col)
        raise SyntaxProblem(Diagnostic(origin.file, fl, fc, "E200", f"effect syntax: {_syntax_message(exc)}")) from None
    except DedentError:
        line, col = _bad_dedent(text)
        fl, fc = origin.map(line, col)
        raise SyntaxProblem(Diagnostic(origin.file, fl, fc, "E200",
                                       "effect syntax: this line's indentation matches no enclosing block")) from None
    deep = _too_deep(tree)
    if deep is not None:
        fl, fc = origin.map(*deep)
        raise SyntaxProblem(Diagnostic(origin.file, fl, fc, "E201",
                                       f"effect syntax: nested more than {_parser.MAX_NESTING} levels deep here; "
                                       "split the expression or the block with `let` or a helper quantity"))
    return _Builder(origin).build(tree)



def _too_deep(tree: Any) -> Optional[tuple[int, int]]:
    """Where the parse tree first goes deeper than MAX_NESTING, or None (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > _parser.MAX_NESTING:
            meta = getattr(node, "meta", None)
            line = getattr(meta, "line", None) if meta is not None and not getattr(meta, "empty", True) else None
            if line is None and isinstance(node, Token):
                line, col = node.line or 1, node.column or 1
            else:
                col = getattr(meta, "column", 1) if line is not None else 1
            return (line or 1, col or 1)
        for child in getattr(node, "children", ()):
            stack.append((child, depth + 1))
    return None


def _tokens(items: list[Any]) -> Iterator[Token]:
    return (i for i in items if isinstance(i, Token))



class _Builder:
    """Makes the syntax tree (:mod:`sgs_dsl.ast`) of a parse tree, bottom up: the method named after each
    node's rule is called with the node's ``meta`` (where it starts) and its children already made
    (tokens as they are). A node of a rule without a method stays a lark ``Tree`` of its children made."""

    def __init__(self, origin: Origin) -> None:
        self.origin = origin

    def build(self, tree: Tree[Token]) -> Any:
        """The syntax tree of ``tree`` (its depth is bounded beforehand, :func:`_too_deep`)."""
        items = [self.build(c) if isinstance(c, Tree) else c for c in tree.children]
        method = getattr(self, tree.data, None)
        if method is None:
            return Tree(tree.data, items, tree.meta)
        return method(tree.meta, items)

    def _pos(self, meta: Any) -> A.Pos:
        if getattr(meta, "empty", True):
            return self.origin.map(1, 1)
        return self.origin.map(meta.line, meta.column)

    def _tpos(self, tok: Token) -> A.Pos:
        return self.origin.map(tok.line or 1, tok.column or 1)

    # -- structure
    def start(self, meta: Any, items: list[Any]) -> A.Block:
        return items[0]  # type: ignore[no-any-return]

    def expression(self, meta: Any, items: list[Any]) -> A.Expr:
        return items[0]  # type: ignore[no-any-return]

    def block(self, meta: Any, items: list[Any]) -> A.Block:
        return [i for i in items if isinstance(i, A.Stmt)]

    def suite(self, meta: Any, items: list[Any]) -> A.Block:
        return [i for i in items if isinstance(i, A.Stmt)]

    def if_stmt(self, meta: Any, items: list[Any]) -> A.If:
        cond, body, *rest = items
        branches = [(cond, body)]
        orelse = None
        for r in rest:
            if r is None:
                continue
            if isinstance(r, tuple) and r[0] == "elif":
                branches.append((r[1], r[2]))
            elif isinstance(r, tuple) and r[0] == "else":
                orelse = r[1]
        return A.If(self._pos(meta), branches, orelse)

    def elif_clause(self, meta: Any, items: list[Any]) -> tuple[str, A.Expr, A.Block]:
        return ("elif", items[0], items[1])

    def else_clause(self, meta: Any, items: list[Any]) -> tuple[str, A.Block]:
        return ("else", items[0])

    def for_stmt(self, meta: Any, items: list[Any]) -> A.ForEach:
        return A.ForEach(self._pos(meta), str(items[0]), items[1], items[2])

    def repeat_times(self, meta: Any, items: list[Any]) -> A.Repeat:
        return A.Repeat(self._pos(meta), "times", items[0], items[1])

    def repeat_while(self, meta: Any, items: list[Any]) -> A.Repeat:
        return A.Repeat(self._pos(meta), "while", items[0], items[1])

    def repeat_forever(self, meta: Any, items: list[Any]) -> A.Repeat:
        return A.Repeat(self._pos(meta), "forever", None, items[0])

    def choose_block(self, meta: Any, items: list[Any]) -> A.ChooseBlock:
        subject = items[0]
        options = [i for i in items[1:] if isinstance(i, A.Option)]
        return A.ChooseBlock(self._pos(meta), subject, options)

    def option(self, meta: Any, items: list[Any]) -> A.Option:
        label, cond, body = items
        return A.Option(self._pos(meta), str(label)[1:-1], cond, body)

    def let_stmt(self, meta: Any, items: list[Any]) -> A.Let:
        return A.Let(self._pos(meta), str(items[0]), items[1])

    def assign_stmt(self, meta: Any, items: list[Any]) -> A.Assign:
        return A.Assign(self._pos(meta), items[0], str(items[1]), items[2])

    def control_stmt(self, meta: Any, items: list[Any]) -> A.Control:
        return A.Control(self._pos(meta), str(items[0]))

    def subject(self, meta: Any, items: list[Any]) -> A.Expr:
        return items[0]  # type: ignore[no-any-return]

    def action_stmt(self, meta: Any, items: list[Any]) -> A.Action:
        subject, action = items
        action.subject = subject
        action.pos = self._pos(meta)
        return action  # type: ignore[no-any-return]

    # -- actions (subject and final pos are filled in by action_stmt)
    def _p(self, meta: Any) -> A.Pos:
        return self._pos(meta)

    def draw(self, meta: Any, items: list[Any]) -> A.Draw:
        return A.Draw(self._p(meta), None, "draw", amount=items[0])

    def discard_down_to(self, meta: Any, items: list[Any]) -> A.DiscardDownTo:
        return A.DiscardDownTo(self._p(meta), None, "discard", amount=items[0])

    def discard_all(self, meta: Any, items: list[Any]) -> A.DiscardAll:
        return A.DiscardAll(self._p(meta), None, "discard", zones=items[0] or [])

    def discard_chosen(self, meta: Any, items: list[Any]) -> A.DiscardChosen:
        count, zones, _noun, where, as_name = items
        return A.DiscardChosen(self._p(meta), None, "discard", count=count, zones=zones or [], where=where,
                               as_name=as_name)

    def discard_cards(self, meta: Any, items: list[Any]) -> A.DiscardCards:
        return A.DiscardCards(self._p(meta), None, "discard", cards=items[0])

    def choose_cards(self, meta: Any, items: list[Any]) -> A.ChooseCards:
        count, zones, _noun, source, where, as_name = items
        return A.ChooseCards(self._p(meta), None, "choose", count=count, zones=zones or [], source=source,
                             where=where, as_name=as_name)

    def choose_players(self, meta: Any, items: list[Any]) -> A.ChoosePlayers:
        count, _noun, source, where, as_name = items
        return A.ChoosePlayers(self._p(meta), None, "choose", count=count, source=source, where=where,
                               as_name=as_name)

    def choose_symbol(self, meta: Any, items: list[Any]) -> A.ChooseSymbol:
        return A.ChooseSymbol(self._p(meta), None, "choose", options=items[0], as_name=items[1])

    def gain(self, meta: Any, items: list[Any]) -> A.Gain:
        return A.Gain(self._p(meta), None, "gain", cards=items[0])

    def give(self, meta: Any, items: list[Any]) -> A.Give:
        return A.Give(self._p(meta), None, "give", cards=items[0], to=items[1])

    def show(self, meta: Any, items: list[Any]) -> A.Show:
        return A.Show(self._p(meta), None, "show", cards=items[0])

    def damage(self, meta: Any, items: list[Any]) -> A.Damage:
        target, amount, nature, nature_expr, by, card = items
        return A.Damage(self._p(meta), None, "damage", target=target, amount=amount,
                        nature=str(nature) if nature is not None else None,
                        nature_pos=self._tpos(nature) if nature is not None else None,
                        nature_expr=nature_expr, by=by, card=card)

    def damage_like(self, meta: Any, items: list[Any]) -> A.Damage:
        target, like = items
        return A.Damage(self._p(meta), None, "damage", target=target, amount=A.Num(like.pos, 0), like=like)

    def recover(self, meta: Any, items: list[Any]) -> A.Recover:
        return A.Recover(self._p(meta), None, "recover", amount=items[0])

    def lose_hp(self, meta: Any, items: list[Any]) -> A.LoseHp:
        return A.LoseHp(self._p(meta), None, "lose", amount=items[0])

    def judge(self, meta: Any, items: list[Any]) -> A.Judge:
        return A.Judge(self._p(meta), None, "judge")

    def retrial(self, meta: Any, items: list[Any]) -> A.Retrial:
        return A.Retrial(self._p(meta), None, "retrial", card=items[0])

    def ask_respond(self, meta: Any, items: list[Any]) -> A.AskRespond:
        player, mode, pattern, times, on, for_, extra = items
        return A.AskRespond(self._p(meta), None, "ask", player=player, mode=str(mode), pattern=pattern[0][0],
                            pattern_pos=pattern[0][1], times=times, on=on, for_=for_, extra=extra is not None,
                            more=pattern[1:])

    def pattern(self, meta: Any, items: list[Any]) -> list[tuple[str, A.Pos]]:
        return [(str(t), self._tpos(t)) for t in items]

    def ask_confirm(self, meta: Any, items: list[Any]) -> A.AskConfirm:
        return A.AskConfirm(self._p(meta), None, "ask", player=items[0], prompt=str(items[1])[1:-1])

    def provide(self, meta: Any, items: list[Any]) -> A.Provide:
        return A.Provide(self._p(meta), None, "provide", card=items[0])

    def use(self, meta: Any, items: list[Any]) -> A.Use:
        card, on, *flags = items
        names = {str(f) for f in flags if f is not None}
        return A.Use(self._p(meta), None, "use", card=card, on=on, extra="extra" in names,
                     unnullifiable="unnullifiable" in names)

    def use_flag(self, meta: Any, items: list[Any]) -> Token:
        return items[0]  # type: ignore[no-any-return]

    def skip(self, meta: Any, items: list[Any]) -> A.Skip:
        return A.Skip(self._p(meta), None, "skip", phase=str(items[0]), phase_pos=self._tpos(items[0]))

    def signal(self, meta: Any, items: list[Any]) -> A.Signal:
        return A.Signal(self._p(meta), None, "signal", name=str(items[0]), name_pos=self._tpos(items[0]))

    def put_zone(self, meta: Any, items: list[Any]) -> A.PutZone:
        return A.PutZone(self._p(meta), None, "put", cards=items[0], player=items[1], zone=str(items[2]))

    def put_pile(self, meta: Any, items: list[Any]) -> A.PutPile:
        return A.PutPile(self._p(meta), None, "put", cards=items[0], where=str(items[1]))

    def arrange(self, meta: Any, items: list[Any]) -> A.Arrange:
        return A.Arrange(self._p(meta), None, "arrange", amount=items[0])

    def distribute(self, meta: Any, items: list[Any]) -> A.Distribute:
        return A.Distribute(self._p(meta), None, "distribute", cards=items[0])

    def reveal(self, meta: Any, items: list[Any]) -> A.Reveal:
        return A.Reveal(self._p(meta), None, "reveal", amount=items[0], as_name=items[1])

    def end_turn(self, meta: Any, items: list[Any]) -> A.EndTurn:
        return A.EndTurn(self._p(meta), None, "end")

    def reveal_role(self, meta: Any, items: list[Any]) -> A.RevealRole:
        return A.RevealRole(self._p(meta), None, "reveal")

    def look_top(self, meta: Any, items: list[Any]) -> A.Reveal:
        return A.Reveal(self._p(meta), None, "look", amount=items[0], as_name=items[1], private=True)

    def ignore(self, meta: Any, items: list[Any]) -> A.Ignore:
        return A.Ignore(self._p(meta), None, "ignore", slot=str(items[0]), slot_pos=self._tpos(items[0]),
                        player=items[1])

    def deny(self, meta: Any, items: list[Any]) -> A.Deny:
        return A.Deny(self._p(meta), None, "deny", player=items[0])

    def redirect(self, meta: Any, items: list[Any]) -> A.Redirect:
        return A.Redirect(self._p(meta), None, "redirect", player=items[0])

    def check_victory(self, meta: Any, items: list[Any]) -> A.CheckVictory:
        return A.CheckVictory(self._p(meta), None, "check")

    def turn_over(self, meta: Any, items: list[Any]) -> A.TurnOver:
        return A.TurnOver(self._p(meta), None, "turn")

    def log(self, meta: Any, items: list[Any]) -> A.Log:
        return A.Log(self._p(meta), None, "log", text=str(items[0])[1:-1])

    def resolve(self, meta: Any, items: list[Any]) -> A.Resolve:
        return A.Resolve(self._p(meta), None, "resolve", card=items[0])

    def act(self, meta: Any, items: list[Any]) -> A.Act:
        return A.Act(self._p(meta), None, "act")

    def _until(self, tok: Any) -> tuple[Optional[str], A.Pos]:
        return (str(tok), self._tpos(tok)) if tok is not None else (None, (0, 0))

    def until(self, meta: Any, items: list[Any]) -> Any:
        return items[0]

    def gain_skill(self, meta: Any, items: list[Any]) -> A.SkillChange:
        until, upos = self._until(items[1])
        return A.SkillChange(self._p(meta), None, "gain", skill=str(items[0]), skill_pos=self._tpos(items[0]),
                             gain=True, until=until, until_pos=upos)

    def lose_skill(self, meta: Any, items: list[Any]) -> A.SkillChange:
        until, upos = self._until(items[1])
        return A.SkillChange(self._p(meta), None, "lose", skill=str(items[0]), skill_pos=self._tpos(items[0]),
                             gain=False, until=until, until_pos=upos)

    def invalidate_all(self, meta: Any, items: list[Any]) -> A.Invalidate:
        until, upos = self._until(items[1])
        return A.Invalidate(self._p(meta), None, "invalidate", player=items[0], until=until, until_pos=upos)

    def invalidate_one(self, meta: Any, items: list[Any]) -> A.Invalidate:
        until, upos = self._until(items[2])
        return A.Invalidate(self._p(meta), None, "invalidate", player=items[0], skill=str(items[1]),
                            skill_pos=self._tpos(items[1]), until=until, until_pos=upos)

    def forbid(self, meta: Any, items: list[Any]) -> A.Forbid:
        # player, action names..., the card noun (None), where or None, until or None
        player, names, where, until_tok = items[0], items[1:-3], items[-2], items[-1]
        until, upos = self._until(until_tok)
        return A.Forbid(self._p(meta), None, "forbid", player=player, actions=list(names), where=where,
                        until=until, until_pos=upos)

    def ban_word(self, meta: Any, items: list[Any]) -> tuple[str, A.Pos]:
        return str(items[0]), self._tpos(items[0])

    def ban_use(self, meta: Any, items: list[Any]) -> tuple[str, A.Pos]:
        return "use", self._p(meta)

    def ban_discard(self, meta: Any, items: list[Any]) -> tuple[str, A.Pos]:
        return "discard", self._p(meta)

    def kill(self, meta: Any, items: list[Any]) -> A.Kill:
        return A.Kill(self._p(meta), None, "kill", player=items[0], by=items[1])

    def put_named_pile(self, meta: Any, items: list[Any]) -> A.PutNamedPile:
        return A.PutNamedPile(self._p(meta), None, "put", cards=items[0], player=items[1], pile=str(items[2]),
                              pile_pos=self._tpos(items[2]))

    def look_at(self, meta: Any, items: list[Any]) -> A.LookAt:
        return A.LookAt(self._p(meta), None, "look", cards=items[0], as_name=items[1])

    def revive(self, meta: Any, items: list[Any]) -> A.Revive:
        return A.Revive(self._p(meta), None, "revive", player=items[0], hero=items[1], hp=items[2])

    def counter(self, meta: Any, items: list[Any]) -> A.Counter:
        return A.Counter(self._p(meta), None, "counter", card=items[0], target=items[1])

    def count_exact(self, meta: Any, items: list[Any]) -> A.Count:
        return A.Count("exact", items[0])

    def count_up_to(self, meta: Any, items: list[Any]) -> A.Count:
        return A.Count("upto", items[0])

    def count_any(self, meta: Any, items: list[Any]) -> A.Count:
        return A.Count("any", None)

    def zones(self, meta: Any, items: list[Any]) -> list[str]:
        return [str(t) for t in items]

    def card_noun(self, meta: Any, items: list[Any]) -> None:
        return None

    def player_noun(self, meta: Any, items: list[Any]) -> None:
        return None

    def where(self, meta: Any, items: list[Any]) -> A.Expr:
        return items[0]  # type: ignore[no-any-return]

    def as_name(self, meta: Any, items: list[Any]) -> str:
        return str(items[0])

    # -- expressions
    def cond_expr(self, meta: Any, items: list[Any]) -> A.CondExpr:
        return A.CondExpr(self._pos(meta), items[0], items[1], items[2])

    def or_op(self, meta: Any, items: list[Any]) -> A.BoolOp:
        return A.BoolOp(self._pos(meta), "or", items[0], items[1])

    def and_op(self, meta: Any, items: list[Any]) -> A.BoolOp:
        return A.BoolOp(self._pos(meta), "and", items[0], items[1])

    def not_op(self, meta: Any, items: list[Any]) -> A.Not:
        return A.Not(self._pos(meta), items[0])

    def compare(self, meta: Any, items: list[Any]) -> A.Compare:
        return A.Compare(self._pos(meta), str(items[1]), items[0], items[2])

    def in_op(self, meta: Any, items: list[Any]) -> A.Compare:
        return A.Compare(self._pos(meta), "in", items[0], items[1])

    def not_in_op(self, meta: Any, items: list[Any]) -> A.Compare:
        return A.Compare(self._pos(meta), "notin", items[0], items[1])

    def is_op(self, meta: Any, items: list[Any]) -> A.Compare:
        return A.Compare(self._pos(meta), "is", items[0], A.Name(self._tpos(items[1]), str(items[1])))

    def is_not_op(self, meta: Any, items: list[Any]) -> A.Compare:
        return A.Compare(self._pos(meta), "isnot", items[0], A.Name(self._tpos(items[1]), str(items[1])))

    def binop(self, meta: Any, items: list[Any]) -> A.BinOp:
        return A.BinOp(self._pos(meta), str(items[1]), items[0], items[2])

    def neg(self, meta: Any, items: list[Any]) -> A.Neg:
        return A.Neg(self._pos(meta), items[-1])

    def attr(self, meta: Any, items: list[Any]) -> A.Attr:
        return A.Attr(self._pos(meta), items[0], str(items[1]), self._tpos(items[1]))

    def call(self, meta: Any, items: list[Any]) -> A.Call:
        return A.Call(self._pos(meta), items[0], items[1] or [])

    def arguments(self, meta: Any, items: list[Any]) -> list[A.Expr]:
        return list(items)

    def comprehension(self, meta: Any, items: list[Any]) -> A.Comprehension:
        return A.Comprehension(self._pos(meta), str(items[0]), items[1], items[2])

    def number(self, meta: Any, items: list[Any]) -> A.Num:
        return A.Num(self._pos(meta), int(items[0]))

    def string(self, meta: Any, items: list[Any]) -> A.Str:
        return A.Str(self._pos(meta), str(items[0])[1:-1])

    def name(self, meta: Any, items: list[Any]) -> A.Name:
        return A.Name(self._pos(meta), str(items[0]))

    def none(self, meta: Any, items: list[Any]) -> A.Const:
        return A.Const(self._pos(meta), None)

    def true(self, meta: Any, items: list[Any]) -> A.Const:
        return A.Const(self._pos(meta), True)

    def false(self, meta: Any, items: list[Any]) -> A.Const:
        return A.Const(self._pos(meta), False)

    def list(self, meta: Any, items: list[Any]) -> A.ListExpr:
        return A.ListExpr(self._pos(meta), [i for i in items if i is not None])

