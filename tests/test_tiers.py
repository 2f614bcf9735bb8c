"""benchmarks/tiers.py: role-controlled pairs of bot tiers, and the summary of their rows."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def tiers(*args: str) -> Any:
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "tiers.py"), *args], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)


def test_the_rows_keep_their_seed_and_the_summary_reports_it(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    run = tiers("--pair", "random:heuristic", "--deals", "3", "--seed", "5", "--rows", str(rows), "--json")
    got = run["pairs"]["random:heuristic"]
    assert run["seed"] == 5 and got["deals"] == 3 and not got["errors"]
    lines = [json.loads(line) for line in rows.read_text().splitlines()]
    assert [r["seed"] for r in lines] == [5, 5, 5] and [r["seat"] for r in lines] == [0, 1, 2]
    again = tiers("--summarise", str(rows))
    assert again["seed"] == 5  # from the rows, not the default
    assert {k: v for k, v in again["pairs"]["random:heuristic"].items() if k != "wall_seconds"} == \
        {k: v for k, v in got.items() if k != "wall_seconds"}
    # rows of an older run record no seed: --seed says it, else it is unknown
    rows.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "seed"}) + "\n" for r in lines))
    assert tiers("--summarise", str(rows), "--seed", "5")["seed"] == 5
    assert tiers("--summarise", str(rows))["seed"] is None
