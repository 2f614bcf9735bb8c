"""The names a content declares (cards, heroes, skills, marks ...), which the compiler checks snippets against.

It is kept with the built content (``Content.env``, for compiling rule cases' snippets later), so it lives
apart from the compiler: reading a kept content back imports neither the compiler nor the syntax tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

__all__ = ["Env"]


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
