"""Errors raised while loading, checking and compiling content.

The exception tree::

    SgsError                      every error this project raises on purpose
    ├── ContentError              content files are wrong; carries Diagnostics
    ├── UsageError                a caller asked for something impossible
    │                             (an unknown rules id, a missing folder ...)
    └── GameError                 (sgs_runtime.errors) a game cannot go on

The base classes live in :mod:`sgs_runtime.errors`, the lowest layer.

A :class:`Diagnostic` is one finding at one place: ``file:line:col: CODE
message``. Codes are stable and documented in docs/language.md (errors) and
docs/cli.md (warnings); :data:`CODES` holds each code's help text (SARIF rules).
Errors (E...) fail ``sgs validate``; warnings (W..., :mod:`sgs_dsl.lint`) fail it
only with ``--strict``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from sgs_runtime.errors import SgsError, UsageError, did_you_mean
from sgs_runtime.version import engine_version

__all__ = ["SgsError", "UsageError", "ContentError", "Diagnostic", "did_you_mean", "format_diagnostics", "CODES",
           "FORMATS", "github_property", "github_data"]

#: every diagnostic code and its help text
CODES: dict[str, str] = {
    "E100": "the file is not valid YAML (syntax)",
    "E101": "duplicate key",
    "E102": "aliases and anchors are not allowed",
    "E103": "the file is too large, too deeply nested or holds too many values",
    "E104": "a folded block (>) where an effect needs a literal block (|)",
    "E105": "not a regular file (a folder, FIFO, device, socket), or a folder that cannot be read",
    "E106": "a character YAML forbids (NUL, other control characters), at its position",
    "E110": "schema: unknown key",
    "E111": "schema: wrong type of value",
    "E112": "schema: missing key",
    "E113": "schema: other schema violations (enum, pattern ...)",
    "E200": "effect syntax error",
    "E201": "an effect snippet nested too deeply",
    "E300": "unknown name (card, skill, hero, phase, variable ...)",
    "E301": "wrong kind of value (a card where a player is needed ...)",
    "E302": "name used before it is bound",
    "E303": "trigger on an unknown event or timing",
    "E304": "unknown attribute",
    "E305": "wrong number of arguments",
    "E306": "statement not allowed here",
    "E310": "duplicate id",
    "E311": "a card kind that is a kind of itself",
    "E312": "a quantity defined in terms of itself",
    "E320": "deck lint: counts or cells do not match the declaration",
    "E330": "a rule case whose table cannot exist (HP above max HP, a living seat below 1 HP ...)",
    "W401": "a hero without skills",
    "W402": "a skill that no hero, card, rules file or other skill refers to",
    "W403": "a rules option that no expression reads (option(NAME)) and the engine does not read",
    "W404": "a choose option that can never be offered (its condition is always false)",
}

#: the output formats of :func:`format_diagnostics`
FORMATS = ("text", "json", "github", "sarif")


def github_property(value: str) -> str:
    """A value escaped for a property of a GitHub workflow command (``file=``, ``title=``)."""
    return (value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            .replace(":", "%3A").replace(",", "%2C"))


def github_data(value: str) -> str:
    """A value escaped for the message of a GitHub workflow command (after ``::``)."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding in a content file."""

    file: str
    line: int
    col: int
    code: str
    message: str
    severity: str = "error"
    end_line: int = 0  # where the finding ends, when known (0: unknown)
    end_col: int = 0

    def text(self) -> str:
        """``path:line:col: CODE message``."""
        return f"{self.file}:{self.line}:{self.col}: {self.code} {self.message}"

    def github(self) -> str:
        """A GitHub Actions workflow command that annotates the line."""
        kind = "error" if self.severity == "error" else "warning"
        where = f"file={github_property(self.file)},line={self.line},col={self.col}"
        return f"::{kind} {where}::{github_data(f'{self.code} {self.message}')}"

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
        }
        if self.end_line:
            out.update(end_line=self.end_line, end_col=self.end_col)
        return out


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
    """Render diagnostics as ``text``, ``json``, ``github`` or ``sarif`` (SARIF 2.1.0)."""
    ordered = sorted(diags)
    if fmt == "json":
        return json.dumps([d.as_dict() for d in ordered], ensure_ascii=False, indent=2)
    if fmt == "sarif":
        return json.dumps(sarif_log(ordered), ensure_ascii=False, indent=2)
    if fmt == "github":
        return "\n".join(d.github() for d in ordered)
    return "\n".join(d.text() for d in ordered)


SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _sarif_uri(file: str) -> tuple[str, Optional[str]]:
    """A file's URI and base: relative to the working folder (``SRCROOT``) when below it, else absolute."""
    from pathlib import Path, PurePath
    from urllib.parse import quote

    if os.path.isabs(file):
        return Path(file).as_uri(), None
    return quote(PurePath(file).as_posix()), "SRCROOT"


def sarif_log(diags: Sequence[Diagnostic]) -> dict[str, Any]:
    """A SARIF 2.1.0 log of one run of ``sgs validate``: every code as a rule, every diagnostic as a result."""
    from pathlib import Path

    codes = sorted(set(CODES) | {d.code for d in diags})
    index = {c: i for i, c in enumerate(codes)}
    rules = []
    for c in codes:
        text = CODES.get(c, c)
        rules.append({
            "id": c,
            "shortDescription": {"text": text},
            "help": {"text": f"{c}: {text}. See docs/language.md (errors) and docs/cli.md (warnings)."},
            "defaultConfiguration": {"level": "warning" if c.startswith("W") else "error"},
        })
    results = []
    for d in diags:
        uri, base = _sarif_uri(d.file)
        artifact: dict[str, Any] = {"uri": uri}
        if base is not None:
            artifact["uriBaseId"] = base
        region: dict[str, Any] = {"startLine": max(d.line, 1), "startColumn": max(d.col, 1)}
        if d.end_line >= region["startLine"]:
            region["endLine"] = d.end_line
            if d.end_col >= 1:
                region["endColumn"] = d.end_col
        results.append({
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": "error" if d.severity == "error" else "warning",
            "message": {"text": d.message},
            "locations": [{"physicalLocation": {"artifactLocation": artifact, "region": region}}],
        })
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "sgs",
                "version": engine_version(),
                "rules": rules,
            }},
            "originalUriBaseIds": {"SRCROOT": {"uri": Path.cwd().as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
