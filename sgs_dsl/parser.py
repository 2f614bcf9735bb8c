"""Parse effect-language snippets into :mod:`sgs_dsl.ast` trees.

>>> tree = parse_block("draw 2\\n", Origin("x.yaml", 5, 7))
>>> type(tree[0]).__name__, tree[0].pos
('Draw', (5, 7))

Lark is imported on the first parse (:mod:`sgs_dsl.lark_parser`), not with this
module: loading content whose snippets are all cached never needs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from .errors import Diagnostic
from .lazy import lazy_module

if TYPE_CHECKING:
    from . import ast as A
else:  # the syntax tree's classes: needed once something is parsed or walked (not to read the limits below)
    A = lazy_module("sgs_dsl.ast")

GRAMMAR = Path(__file__).with_name("grammar.lark")

#: what :mod:`sgs_dsl.lark_parser` defines that used to be importable from here
_MOVED = ("_Indenter", "_Builder", "grammar_parser")


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        from . import lark_parser

        return getattr(lark_parser, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Origin:
    """Where a snippet sits in its file: maps snippet positions to file positions.

    ``block`` origins (literal ``|`` scalars) keep the snippet's lines as file
    lines and shift columns by the block indentation; inline origins shift the
    column of the first line.
    """

    file: str
    line: int
    col: int
    block: bool = False
    segments: tuple[tuple[int, int, int], ...] = ()  # a folded multi-line scalar's pieces

    def map(self, line: int, col: int) -> tuple[int, int]:
        if self.block:
            return self.line + line - 1, self.col + col - 1
        if line == 1 and self.segments:
            offset = col - 1
            start, seg_line, seg_col = self.segments[0]
            for s in self.segments:
                if s[0] <= offset:
                    start, seg_line, seg_col = s
            return seg_line, seg_col + offset - start
        if line == 1:
            return self.line, self.col + col - 1
        return self.line + line - 1, col


class SyntaxProblem(Exception):
    """A syntax error in a snippet, already placed in its file."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.text())
        self.diagnostic = diagnostic



#: how deeply expressions and blocks may nest (operators, calls, `if` inside `if` ...): a snippet
#: deeper than this is refused (E201) before it is built, so that nothing later recurses without bound
MAX_NESTING = 100


def _bad_dedent(text: str) -> tuple[int, int]:
    levels = [0]
    for n, raw in enumerate(text.split("\n"), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip(" \t"))
        if indent > levels[-1]:
            levels.append(indent)
            continue
        while indent < levels[-1]:
            levels.pop()
        if indent != levels[-1]:
            return n, indent + 1
    return 1, 1


def parse_block(text: str, origin: Origin) -> A.Block:
    """Parse statements (an effect)."""
    from .lark_parser import parse

    result: A.Block = parse(text, origin, "start")
    return result


def parse_expression(text: str, origin: Origin) -> A.Expr:
    """Parse one expression (a condition, a filter, an expectation)."""
    from .lark_parser import parse

    result: A.Expr = parse(text, origin, "expression")
    return result


def walk(node: Any) -> Iterator[Any]:
    """Every AST node below (and including) ``node``."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            stack.extend(reversed(n))
            continue
        if isinstance(n, tuple):
            stack.extend(reversed(n))
            continue
        if not isinstance(n, (A.Expr, A.Stmt, A.Option, A.Count)):
            continue
        yield n
        for value in vars(n).values():
            if isinstance(value, (A.Expr, A.Stmt, A.Option, A.Count, list, tuple)):
                stack.append(value)


Mapper = Callable[[int, int], tuple[int, int]]
