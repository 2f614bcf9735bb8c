"""Data is the game: no card, hero or skill id appears in the engine's code.

The same check as the project's content-id tool: every id declared in cards/ and
heroes/ (longer than two letters), quoted in a line of sgs_runtime/ or sgs_dsl/ code
that is not a comment.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent


def declared_ids() -> set[str]:
    ids = set()
    for folder in ("cards", "heroes", "rules"):
        for path in (ROOT / folder).rglob("*.y*ml"):
            for line in path.read_text(encoding="utf-8").splitlines():
                m = re.match(r"\s*(?:-\s*)?id:\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)", line)
                if m:
                    ids.add(m.group(1))
    return {i for i in ids if len(i) > 2}


def test_no_content_id_in_engine_code() -> None:
    ids = declared_ids()
    assert len(ids) > 100
    pattern = re.compile(r"['\"](" + "|".join(sorted(map(re.escape, ids), key=len, reverse=True)) + r")['\"]")
    found = []
    for folder in ("sgs_runtime", "sgs_dsl"):
        for path in (ROOT / folder).rglob("*.py"):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if line.lstrip().startswith("#"):
                    continue
                for m in pattern.finditer(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {m.group(1)}")
    assert found == []
