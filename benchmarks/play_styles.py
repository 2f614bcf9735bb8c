"""How much a style of play moves one seat's wins: a probe of what a search over styles could gain.

    python benchmarks/play_styles.py --deals 1000 --workers 2
    python benchmarks/play_styles.py --deals 200 --styles focus,traitor_loyal --json

Each deal (a seed of the 5-player identity game) is played once with heuristic bots
on every seat and once for each style with that style's bot on one seat (seat ``deal
mod players``, as in ``tiers.py``), the heuristic elsewhere. A *style* is the
heuristic bot with one of its habits changed (``--agents heuristic:style=NAME``,
:mod:`sgs_runtime.agents.styles`), so the two games of a deal part only where the
habit makes the seat act otherwise:

* ``focus``: harmful cards go to the enemy with the least HP first (not the most
  hostile first);
* ``finish``: an enemy at 1 HP first, else as the heuristic;
* ``wary`` / ``bold``: harm only players believed enemies above 0.9 / 0.05 (the
  heuristic: 0.3);
* ``no_rescue``: save only oneself when dying, not a friend;
* ``traitor_loyal``: a traitor plays for the lord's side while a rebel may be alive and
  more than one other player is (the heuristic keeps the sides balanced);
* ``traitor_rebel``: a traitor plays for the rebels while it has more than 1 HP;
* ``roles``: ``focus`` for the lord, ``traitor_loyal`` for the traitor, the heuristic's
  habits for the others.

A style that changes nothing for the seat's role is not played for it. A game stopped
by the turn limit counts as lost for the seat (the report counts them: ``limits``).

For each role: the seat's win rate with each style against the heuristic's, the
style's share of the seat's wins (50%: no change), and the *oracle* rate: how often
the seat won in at least one of the deal's games. The oracle is a bound on what
choosing a style per deal could give, and a loose one: it counts as won every deal
where one of the styles was lucky.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sgs_runtime.agents.styles import NAMED, place_of  # noqa: E402
from sgs_runtime.runs.simulate import game_seed, play_one, wilson  # noqa: E402

#: the styles the probe plays: every named style but the heuristic's own
STYLES = [name for name in NAMED if name != "plain"]

_CONTENT: list[Any] = []


def _content() -> Any:
    if not _CONTENT:
        from sgs_dsl.loader import load_content

        _CONTENT.append(load_content())
    return _CONTENT[0]


def _won(summary: Any, seat: int) -> Optional[bool]:
    """Whether the seat won; a game stopped by a limit is not won (None: an error, or no game)."""
    if summary.error is not None or not summary.heroes:
        return None
    return summary.limit is None and bool(summary.heroes[seat][0] in summary.winners)


def play_deal(job: tuple[int, int, int, tuple[str, ...]]) -> dict[str, Any]:
    master, players, index, styles = job
    content = _content()
    seed = game_seed(master, index)
    seat = index % players
    base = play_one(content, "identity", players, seed, index, agents="heuristic")
    role = base.heroes[seat][1] if base.heroes else "?"
    place = place_of(content.ruleset("identity").roles.get(role))
    row: dict[str, Any] = {"index": index, "seat": seat, "role": role, "heuristic": _won(base, seat), "styles": {},
                           "limits": ["heuristic"] if base.limit else []}
    for name in styles:
        if NAMED[name].of(place).plain:  # the seat would play the heuristic's game
            continue
        got = play_one(content, "identity", players, seed, index, agents=f"heuristic:style={name}@{seat},heuristic")
        row["styles"][name] = _won(got, seat)
        if got.limit:
            row["limits"].append(name)
        if got.error:
            row.setdefault("errors", []).append(got.error.splitlines()[0])
    return row


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    roles = sorted({r["role"] for r in rows})
    for role in roles + ["all"]:
        rs = [r for r in rows if (role == "all" or r["role"] == role) and r["heuristic"] is not None]
        if not rs:
            continue
        base = sum(1 for r in rs if r["heuristic"])
        entry: dict[str, Any] = {"deals": len(rs), "heuristic": round(base / len(rs), 3),
                                 "heuristic_limits": sum(1 for r in rs if "heuristic" in r.get("limits", ())),
                                 "heuristic_ci95": wilson(base, len(rs)),
                                 "oracle": round(sum(1 for r in rs if r["heuristic"] or any(r["styles"].values()))
                                                 / len(rs), 3), "styles": {}}
        for name in STYLES:
            got = [r for r in rs if r["styles"].get(name) is not None]
            if not got:
                continue
            won = sum(1 for r in got if r["styles"][name])
            low = sum(1 for r in got if r["heuristic"])
            entry["styles"][name] = {"deals": len(got), "rate": round(won / len(got), 3), "ci95": wilson(won, len(got)),
                                     "heuristic": round(low / len(got), 3),
                                     "share": round(won / (won + low), 3) if won + low else None,
                                     "limits": sum(1 for r in got if name in r.get("limits", ()))}
        out[role] = entry
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--styles", default=",".join(STYLES), help=f"comma-separated, of {', '.join(STYLES)}")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    styles = tuple(s.strip() for s in a.styles.split(",") if s.strip())
    unknown = [s for s in styles if s not in STYLES]
    if unknown:
        ap.error(f"unknown style '{unknown[0]}'; use {', '.join(STYLES)}")
    jobs = [(a.seed, a.players, i, styles) for i in range(a.deals)]
    with ProcessPoolExecutor(max_workers=a.workers) as ex:
        rows = list(ex.map(play_deal, jobs, chunksize=4))
    report = {"players": a.players, "seed": a.seed, "errors": sum(len(r.get("errors", [])) for r in rows),
              "roles": summarise(rows)}
    if a.json:
        print(json.dumps(report, indent=1))
        return
    for role, e in report["roles"].items():
        parts = [f"{name} {s['rate']:.1%} (share {s['share']:.0%})" for name, s in e["styles"].items()
                 if s["share"] is not None]
        print(f"{role:9s} {e['deals']:5d} deals  heuristic {e['heuristic']:.1%}  oracle {e['oracle']:.1%}  "
              + "  ".join(parts))
    print(f"errors: {report['errors']}")


if __name__ == "__main__":
    main()
