"""Errors raised while loading, checking and compiling content.

The exception tree::

    SgsError                      every error this project raises on purpose
    ├── ContentError              content files are wrong; carries Diagnostics
    ├── UsageError                a caller asked for something impossible
    │                             (an unknown rules id, a missing folder ...)
    └── GameError                 (sgs_runtime.errors) a game cannot go on

The base classes live in :mod:`sgs_runtime.errors`, the lowest layer.

A :class:`Diagnostic` is one finding at one place: ``file:line:col: CODE
message``. Codes are stable and documented in docs/language.md:

=========  =====================================================
E100       the file is not valid YAML (syntax)
E101       duplicate key
E102       aliases and anchors are not allowed
E103       the file is too large, too deeply nested or holds too many values
E104       a folded block (``>``) where an effect needs ``|``
E105       not a regular file (a folder, FIFO, device, socket), or a folder that cannot be read
E106       a character YAML forbids (NUL, other control characters), at its position
E110       schema: unknown key
E111       schema: wrong type of value
E112       schema: missing key
E113       schema: other schema violations (enum, pattern ...)
E200       effect syntax error
E201       an effect snippet nested too deeply
E300       unknown name (card, skill, hero, phase, variable ...)
E301       wrong kind of value (a card where a player is needed ...)
E302       name used before it is bound
E303       trigger on an unknown event or timing
E304       unknown attribute
E305       wrong number of arguments
E306       statement not allowed here
E310       duplicate id
E311       a card kind that is a kind of itself
E312       a quantity defined in terms of itself
E320       deck lint: counts or cells do not match the declaration
E330       a rule case whose table cannot exist (HP above max HP, a living seat below 1 HP ...)
=========  =====================================================
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Sequence

from sgs_runtime.errors import SgsError, UsageError, did_you_mean

__all__ = ["SgsError", "UsageError", "ContentError", "Diagnostic", "did_you_mean", "format_diagnostics"]


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding in a content file."""

    file: str
    line: int
    col: int
    code: str
    message: str
    severity: str = "error"

    def text(self) -> str:
        """``path:line:col: CODE message``."""
        return f"{self.file}:{self.line}:{self.col}: {self.code} {self.message}"

    def github(self) -> str:
        """A GitHub Actions workflow command that annotates the line."""
        kind = "error" if self.severity == "error" else "warning"
        msg = self.message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        return f"::{kind} file={self.file},line={self.line},col={self.col}::{self.code} {msg}"

    def as_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
        }


@dataclass
class ContentError(SgsError):
    """Content could not be loaded; ``diagnostics`` says where and why."""

    diagnostics: list[Diagnostic] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(d.text() for d in self.diagnostics)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


def format_diagnostics(diags: Sequence[Diagnostic], fmt: str) -> str:
    """Render diagnostics as ``text``, ``json`` or ``github``."""
    ordered = sorted(diags)
    if fmt == "json":
        return json.dumps([d.as_dict() for d in ordered], ensure_ascii=False, indent=2)
    if fmt == "github":
        return "\n".join(d.github() for d in ordered)
    return "\n".join(d.text() for d in ordered)
