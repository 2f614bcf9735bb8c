"""Data is the game: no card, hero or skill id appears in the engine's code.

The content-id tool's check, widened to the rules files: every id declared in cards/
and heroes/, every rules file id with its skills and option names (longer than two
letters), quoted in a line of sgs_runtime/ or sgs_dsl/ code that is not a comment.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from sgs_runtime.resolution.turn import ROLE_TABLE_OPTION

ROOT = Path(__file__).parent.parent


def declared_ids() -> set[str]:
    """Card, hero and skill ids, rules file ids, their skills and their option names."""
    ids = set()
    for folder in ("cards", "heroes"):
        for path in (ROOT / folder).rglob("*.y*ml"):
            for line in path.read_text(encoding="utf-8").splitlines():
                m = re.match(r"\s*(?:-\s*)?id:\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)", line)
                if m:
                    ids.add(m.group(1))
    for path in (ROOT / "rules").rglob("*.y*ml"):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        ids.add(data["id"])
        ids.update(skill["id"] for skill in data.get("skills") or [])
        ids.update(data.get("options") or {})
    ids.discard(ROLE_TABLE_OPTION)  # the one option the engine reads, by design
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
