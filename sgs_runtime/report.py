"""A balance report from a simulation: CSV tables and an HTML page with charts.

``sgs simulate ... --report DIR`` writes:

* ``heroes.csv`` — per hero: seats played, games won, win rate, 95% interval;
* ``roles.csv`` — per player count and role: seats, wins, rate, 95% interval;
* ``cards.csv`` — per card kind: times used or played, and per game (most used first);
* ``skills.csv`` — per skill: times used, and per game (most used first);
* ``report.json`` — the simulation's JSON report;
* ``heroes.svg``, ``roles.svg`` — the charts;
* ``index.html`` — the page a designer opens: the run, the charts, the tables.

The charts need matplotlib, an optional extra: ``pip install 'sgs-engine[report]'``.
"""

from __future__ import annotations

import csv
import html
import io
import json
from pathlib import Path
from typing import Any

from .errors import UsageError


def _per_count(rep: dict[str, Any]) -> dict[str, dict[str, Any]]:
    if "by_players" in rep:
        return dict(rep["by_players"])
    return {str(rep["players"]): rep}


def _most_used(counts: dict[str, int]) -> list[tuple[str, int]]:
    """Counts, most first (ties by name)."""
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def _per_game(n: int, games: int) -> float:
    return round(n / games, 3) if games else 0.0


def write_csv(rep: dict[str, Any], out: Path) -> list[Path]:
    heroes = out / "heroes.csv"
    with heroes.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["hero", "played", "won", "rate", "ci95_low", "ci95_high"])
        for hero, v in sorted(rep["heroes"].items(), key=lambda kv: -kv[1]["rate"]):
            w.writerow([hero, v["played"], v["won"], v["rate"], *v["ci95"]])
    roles = out / "roles.csv"
    with roles.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["players", "role", "seats", "won", "rate", "ci95_low", "ci95_high"])
        for n, r in sorted(_per_count(rep).items(), key=lambda kv: int(kv[0])):
            for role, v in r["roles"].items():
                w.writerow([n, role, v["seats"], v["won"], v["rate"], *v["ci95"]])
    written = [heroes, roles]
    for name, key, what in (("cards.csv", "card_uses", "card"), ("skills.csv", "skill_uses", "skill")):
        path = out / name
        with path.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow([what, "uses", "per_game"])
            for item, k in _most_used(rep.get(key, {})):
                w.writerow([item, k, _per_game(k, rep["games"])])
        written.append(path)
    return written


def _plt() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("the report's charts need matplotlib: pip install 'sgs-engine[report]'") from None
    return plt


def hero_chart(rep: dict[str, Any]) -> str:
    """Hero win rates with 95% intervals, as SVG text."""
    plt = _plt()
    items = sorted(rep["heroes"].items(), key=lambda kv: kv[1]["rate"])
    names = [h for h, _ in items]
    rates = [v["rate"] for _, v in items]
    low = [v["rate"] - v["ci95"][0] for _, v in items]
    high = [v["ci95"][1] - v["rate"] for _, v in items]
    fig, ax = plt.subplots(figsize=(7, max(2.5, 0.28 * len(items) + 1)))
    ax.barh(names, rates, xerr=[low, high], color="#4c72b0", ecolor="#333333", capsize=2)
    ax.set_xlim(0, 1)
    ax.set_xlabel("win rate (95% interval)")
    ax.set_title("Hero win rates")
    fig.tight_layout()
    return _svg(plt, fig)


def role_chart(rep: dict[str, Any]) -> str:
    """Role win rates by player count with 95% intervals, as SVG text."""
    plt = _plt()
    per = sorted(_per_count(rep).items(), key=lambda kv: int(kv[0]))
    roles = sorted({role for _, r in per for role in r["roles"]})
    fig, ax = plt.subplots(figsize=(7, 3.5))
    width = 0.8 / max(1, len(roles))
    for i, role in enumerate(roles):
        xs, ys, lo, hi = [], [], [], []
        for j, (_, r) in enumerate(per):
            v = r["roles"].get(role)
            if v is None:
                continue
            xs.append(j + i * width)
            ys.append(v["rate"])
            lo.append(v["rate"] - v["ci95"][0])
            hi.append(v["ci95"][1] - v["rate"])
        ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=role)
    ax.set_xticks([j + width * (len(roles) - 1) / 2 for j in range(len(per))])
    ax.set_xticklabels([f"{n} players" for n, _ in per])
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate per seat (95% interval)")
    ax.set_title("Role win rates by player count")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return _svg(plt, fig)


def _svg(plt: Any, fig: Any) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def write_report(rep: dict[str, Any], out_dir: Path | str) -> list[Path]:
    """Write the CSV tables, the charts and index.html; return the files written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = write_csv(rep, out)
    (out / "report.json").write_text(json.dumps(rep, ensure_ascii=False, indent=2), encoding="utf-8")
    files.append(out / "report.json")
    heroes_svg, roles_svg = hero_chart(rep), role_chart(rep)
    (out / "heroes.svg").write_text(heroes_svg, encoding="utf-8")
    (out / "roles.svg").write_text(roles_svg, encoding="utf-8")
    files += [out / "heroes.svg", out / "roles.svg"]
    counts = rep["players"] if isinstance(rep["players"], list) else [rep["players"]]
    hero_rows = [[h, v["played"], v["won"], f"{v['rate']:.1%}", f"{v['ci95'][0]:.1%}–{v['ci95'][1]:.1%}"]
                 for h, v in sorted(rep["heroes"].items(), key=lambda kv: -kv[1]["rate"])]
    role_rows = [[n, role, v["seats"], v["won"], f"{v['rate']:.1%}", f"{v['ci95'][0]:.1%}–{v['ci95'][1]:.1%}"]
                 for n, r in sorted(_per_count(rep).items(), key=lambda kv: int(kv[0]))
                 for role, v in r["roles"].items()]
    card_rows = [[c, k, _per_game(k, rep["games"])] for c, k in _most_used(rep.get("card_uses", {}))]
    skill_rows = [[sk, k, _per_game(k, rep["games"])] for sk, k in _most_used(rep.get("skill_uses", {}))]
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Balance report — {html.escape(str(rep['rules']))}</title>
<style>
body {{ font-family: sans-serif; max-width: 60em; margin: 2em auto; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
td, th {{ border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }}
th {{ background: #f2f2f2; }} td:first-child, td:nth-child(2) {{ text-align: left; }}
figure {{ margin: 1.5em 0; }}
</style></head><body>
<h1>Balance report</h1>
<p>Rules <b>{html.escape(str(rep['rules']))}</b>, {html.escape(', '.join(map(str, counts)))} players,
{rep['games']} games (seed {rep['seed']}, agents {html.escape(str(rep['agents']))}):
{rep['errors']} errors, {rep['limits']} stopped by a limit, {rep['draws']} draws,
{rep['turns_mean']} turns on average.</p>
<figure id="heroes">{heroes_svg}</figure>
<figure id="roles">{roles_svg}</figure>
<h2>Roles</h2>
{_table(["players", "role", "seats", "won", "rate", "95% interval"], role_rows)}
<h2>Heroes</h2>
{_table(["hero", "played", "won", "rate", "95% interval"], hero_rows)}
<h2 id="cards">Cards</h2>
<p>Times each card kind was used or played (a response counts; a card used as another counts
as the card it is used as), over all games.</p>
{_table(["card", "uses", "per game"], card_rows)}
<h2 id="skills">Skills</h2>
{_table(["skill", "uses", "per game"], skill_rows)}
<p>Rates are per seat; intervals are Wilson score intervals. Tables: heroes.csv, roles.csv,
cards.csv, skills.csv; the full figures: report.json.</p>
</body></html>
"""
    (out / "index.html").write_text(page, encoding="utf-8")
    files.append(out / "index.html")
    return files
