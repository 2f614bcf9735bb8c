"""A balance report from a simulation: CSV tables and an HTML page with charts.

``sgs simulate ... --report DIR`` writes:

* ``heroes.csv`` — per hero: seats played, games won, win rate, 95% interval;
* ``roles.csv`` — per player count and role: seats, wins, rate, 95% interval;
* ``cards.csv`` — per card kind: times used or played, and per game (most used first), the seats
  that used it and their win rate;
* ``skills.csv`` — the same per skill;
* ``hero_roles.csv`` — per hero and role (and ``not_lord``, ``all``): seats, wins, rate, interval;
* ``fair_pool.csv`` — with ``--fair-pool``: the seats of each role each hero was dealt;
* ``compare.csv``, ``compare.svg`` — with ``--compare`` or ``--force-hero``: B minus A for each
  focus, role and hero, with intervals and p-values (``players``: ``all`` for the run's pooled
  figures, and with several player counts each count's rows too, and the pooled focus and role
  rows' ``counts_differ_p``, stats.heterogeneity);
* ``report.json`` — the simulation's JSON report;
* ``heroes.svg``, ``roles.svg``, ``hero_roles.svg`` — the charts (the last: each hero's rate against
  its roles' average);
* ``index.html`` — the page a designer opens: what produced it, its warnings, the charts, the tables.

The charts need matplotlib, an optional extra: ``pip install 'sgs-engine[report]'``.
"""

from __future__ import annotations

import csv
import html
import io
import json
from pathlib import Path
from typing import Any, Iterable, Optional

from sgs_runtime.errors import UsageError
from sgs_runtime.runs.stats import MIN_SAMPLE


def _per_count(rep: dict[str, Any]) -> dict[str, dict[str, Any]]:
    if "by_players" in rep:
        return dict(rep["by_players"])
    return {str(rep["players"]): rep}


def _most_used(counts: dict[str, int]) -> list[tuple[str, int]]:
    """Counts, most first (ties by name)."""
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def _per_game(n: int, games: int) -> float:
    return round(n / games, 3) if games else 0.0


def _rows(path: Path, header: list[str], rows: Iterable[list[Any]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


def _role_order(rep: dict[str, Any]) -> list[str]:
    """The roles of the hero × role table: the lord's first."""
    roles = sorted({r for v in rep.get("hero_roles", {}).values() for r in v["roles"]})
    lord = rep.get("lord_role")
    return ([lord] if lord in roles else []) + [r for r in roles if r != lord]


def _balance_csv(rep: dict[str, Any], out: Path) -> list[Path]:
    """hero_roles.csv, fair_pool.csv and compare.csv, as far as the report has them."""
    written = []
    if "hero_roles" in rep:
        rows = [[h, key, e["played"], e["won"], e["rate"], *e["ci95"], e["small"]]
                for h, v in rep["hero_roles"].items()
                for key, e in [*v["roles"].items(), ("not_lord", v["not_lord"]), ("all", v["all"])]]
        written.append(_rows(out / "hero_roles.csv", ["hero", "role", "played", "won", "rate", "ci95_low",
                                                      "ci95_high", "small_sample"], rows))
    if "fair_pool" in rep:
        roles = sorted(rep["fair_pool"]["spread"])
        written.append(_rows(out / "fair_pool.csv", ["hero", *roles],
                             [[h, *(c.get(r, 0) for r in roles)] for h, c in rep["fair_pool"]["counts"].items()]))
    if "compare" in rep:
        c = rep["compare"]
        # (the pooled figures over every player count, "all", then with several counts each count's)
        tables = [("all", c)] + [(n, sub["compare"]) for n, sub in _compare_counts(rep)]
        rows = [[kind, name, d["a"]["rate"], d["b"]["rate"], d["diff"], *d["ci95"], d["z"], d["p"], d["pairs"],
                 d["significant"], players, (d.get("counts_differ") or {}).get("p", "")] for players, fig in tables
                for kind, table in (("focus", fig["focus"]), ("role", fig["roles"]), ("hero", fig["heroes"]))
                for name, d in table.items()]
        written.append(_rows(out / "compare.csv", ["kind", "name", "rate_a", "rate_b", "diff", "ci95_low",
                                                   "ci95_high", "z", "p", "pairs", "significant", "players",
                                                   "counts_differ_p"], rows))
    return written


def write_csv(rep: dict[str, Any], out: Path) -> list[Path]:
    heroes = out / "heroes.csv"
    with heroes.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        adjusted = rep.get("hero_roles", {})
        w.writerow(["hero", "played", "won", "rate", "ci95_low", "ci95_high", "expected_from_roles", "vs_roles"])
        for hero, v in sorted(rep["heroes"].items(), key=lambda kv: -kv[1]["rate"]):
            vs = adjusted[hero]["vs_roles"] if hero in adjusted else {"expected": "", "excess": ""}
            w.writerow([hero, v["played"], v["won"], v["rate"], *v["ci95"], vs["expected"], vs["excess"]])
    roles = out / "roles.csv"
    with roles.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["players", "role", "seats", "won", "rate", "ci95_low", "ci95_high"])
        for n, r in sorted(_per_count(rep).items(), key=lambda kv: int(kv[0])):
            for role, v in r["roles"].items():
                w.writerow([n, role, v["seats"], v["won"], v["rate"], *v["ci95"]])
    written = [heroes, roles]
    for name, key, what in (("cards.csv", "card_uses", "card"), ("skills.csv", "skill_uses", "skill")):
        when = rep.get(f"{what}_stats", {})
        written.append(_rows(out / name, [what, "uses", "per_game", "seats_used", "won_when_used", "rate_when_used",
                                          "ci95_low", "ci95_high"],
                             ([item, k, _per_game(k, rep["games"]), *_when_used(when.get(item))]
                              for item, k in _most_used(rep.get(key, {})))))
    return written + _balance_csv(rep, out)


def _when_used(entry: Optional[dict[str, Any]]) -> list[Any]:
    """The seats that used a card or skill, their wins, rate and interval (blank without the figures)."""
    if entry is None:
        return ["", "", "", "", ""]
    return [entry["seats"], entry["won"], entry["rate"], *entry["ci95"]]


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


def compare_chart(rep: dict[str, Any]) -> str:
    """B minus A for each focus and role, with 95% intervals, as SVG text."""
    plt = _plt()
    c = rep["compare"]
    items = [(f"{n}", d) for n, d in c["focus"].items()] + [(f"role {n}", d) for n, d in c["roles"].items()]
    items.reverse()
    fig, ax = plt.subplots(figsize=(7, max(2.5, 0.35 * len(items) + 1)))
    diffs = [d["diff"] for _, d in items]
    ax.barh([n for n, _ in items], diffs, xerr=[[d["diff"] - d["ci95"][0] for _, d in items],
                                                 [d["ci95"][1] - d["diff"] for _, d in items]],
            color=["#c44e52" if d["significant"] else "#8c8c8c" for _, d in items], ecolor="#333333", capsize=2)
    ax.axvline(0, color="#333333", linewidth=0.8)
    ax.set_xlabel(f"B − A win rate (95% interval; red: p < {c['alpha']})")
    ax.set_title("A/B: differences of win rates")
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


def _pct(e: dict[str, Any]) -> str:
    """A rate with its interval and sample, ``*`` when the sample is small."""
    lo, hi = e["ci95"]
    n = e.get("played", e.get("seats", e.get("n", 0)))
    return f"{e['rate']:.0%} ({lo:.0%}–{hi:.0%}) n={n}" + ("*" if e.get("small") else "")


def _produced_by(rep: dict[str, Any]) -> str:
    """Which bots, rules, seeds and engine made the figures."""
    p = rep.get("produced_by")
    if p is None:
        return ""
    pool = ("a balanced deal (--fair-pool: each hero about as many seats in each role)"
            if rep.get("pool") == "fair" else "the bots' choices from the rules' offers")
    return (f"<p id=\"produced-by\">Produced by the agents <b>{html.escape(str(p['agents']))}</b> on the rules "
            f"<b>{html.escape(str(p['rules']))}</b>, {p['games']} games from the seed {p['seed']} "
            f"({html.escape(p['game_seeds'])}); heroes from {pool}; engine sgs-engine "
            f"{html.escape(str(p['engine_version']))}, content {html.escape(str(p['content_fingerprint']))}.</p>")


def _warnings(rep: dict[str, Any]) -> str:
    items = rep.get("warnings", [])
    if not items:
        return ""
    body = "".join(f"<li>{html.escape(w)}</li>" for w in items)
    return f'<div class="warnings" id="warnings"><h2>Warnings</h2><ul>{body}</ul></div>'


def _hero_roles_html(rep: dict[str, Any]) -> str:
    if "hero_roles" not in rep:
        return ""
    roles = _role_order(rep)
    rows = [[h, *(_pct(v["roles"][r]) if r in v["roles"] else "" for r in roles), _pct(v["not_lord"]), _pct(v["all"]),
             _excess(v["vs_roles"])]
            for h, v in sorted(rep["hero_roles"].items(), key=lambda kv: -kv[1]["vs_roles"]["excess"])]
    lord = rep.get("lord_role")
    return ('<h2 id="hero-roles">Heroes by role</h2><p>Each hero\'s win rate in each role'
            + (f", the {html.escape(str(lord))}'s seat apart, and over every other seat (<i>not lord</i>)" if lord
               else "") + f"; 95% intervals and the number of seats; * marks fewer than {MIN_SAMPLE} seats. "
            "<i>vs roles</i> is the hero's rate minus the average rate of the roles it played (each seat's role "
            "as won by all heroes), with its interval: above 0, the hero wins more than its roles do, whatever "
            'mix of roles it was dealt. Sorted by it; the chart is <a href="hero_roles.svg">hero_roles.svg</a>.</p>'
            '<p><img src="hero_roles.svg" alt="heroes against their roles\' average"></p>'
            + _table(["hero", *roles, "not lord", "all", "vs roles"], rows))


def _excess(v: dict[str, Any]) -> str:
    lo, hi = v["ci95"]
    return f"{v['excess']:+.1%} ({lo:+.0%} to {hi:+.0%})"


def hero_roles_chart(rep: dict[str, Any]) -> str:
    """Each hero's rate minus its roles' average, with 95% intervals, as SVG text."""
    plt = _plt()
    items = sorted(rep["hero_roles"].items(), key=lambda kv: kv[1]["vs_roles"]["excess"])
    v = [e["vs_roles"] for _, e in items]
    fig, ax = plt.subplots(figsize=(7, max(2.5, 0.28 * len(items) + 1)))
    ax.barh([h for h, _ in items], [x["excess"] for x in v],
            xerr=[[x["excess"] - x["ci95"][0] for x in v], [x["ci95"][1] - x["excess"] for x in v]],
            color="#55a868", ecolor="#333333", capsize=2)
    ax.axvline(0, color="#333333", linewidth=0.8)
    ax.set_xlabel("win rate minus the average of its roles (95% interval)")
    ax.set_title("Heroes against their roles")
    fig.tight_layout()
    return _svg(plt, fig)


def _fair_pool_html(rep: dict[str, Any]) -> str:
    if "fair_pool" not in rep:
        return ""
    fp = rep["fair_pool"]
    roles = sorted(fp["spread"])
    per = []
    for r in roles:
        got = [c[r] for c in fp["counts"].values() if c.get(r)]
        per.append([r, len(got), min(got) if got else 0, max(got) if got else 0, fp["spread"][r]])
    forced = rep.get("compare", {}).get("forced")
    note = (f" Here {html.escape(str(forced))} was put into every game, in the place of one hero of the deal "
            "each game: the others' counts are the deal's less those places." if forced else "")
    return ('<h2 id="fair-pool">The balanced deal</h2><p>Seats of each role dealt to each hero '
            "(fair_pool.csv has every hero): in a run of the deal alone, the heroes that may take a role "
            f"differ by at most one seat of it.{note}</p>"
            + _table(["role", "heroes", "fewest seats", "most seats", "spread"], per))


def _compare_html(rep: dict[str, Any], svg: str) -> str:
    if "compare" not in rep:
        return ""
    c = rep["compare"]
    if c["mode"] == "baseline":
        what = (f"<b>{html.escape(str(c['forced']))}</b> forced into every game (B) against the heroes the deal "
                "puts at its seat (A)")
    else:
        what = (f"A = <b>{html.escape(c['a'])}</b>, B = <b>{html.escape(c['b'])}</b>"
                + (f", <b>{html.escape(str(c['forced']))}</b> in every game of both" if c["forced"] else ""))
    changed = (f"<p>Heroes defined differently in A and B: {html.escape(', '.join(c['changed_heroes']))}.</p>"
               if c["changed_heroes"] else "")

    def rows(table: dict[str, Any]) -> list[list[Any]]:
        return [[n, _pct(d["a"]), _pct(d["b"]), f"{d['diff']:+.1%}", f"{d['ci95'][0]:+.1%} to {d['ci95'][1]:+.1%}",
                 f"{d['p']:.4f}", d["pairs"], "yes" if d["significant"] else "no",
                 f"{d['unpaired']['diff']:+.1%}, p {d['unpaired']['p']:.4f}"] for n, d in table.items()]

    head = ["", "A", "B", "B − A", "95% interval", "p (paired)", "pairs", f"p < {c['alpha']}", "unpaired"]
    counts = c.get("players")
    pooled = (f" The figures pool the games of {html.escape(', '.join(map(str, counts)))} players; each "
              "count's own are below." if counts else "")
    differ = [(n, d["counts_differ"]) for n, d in [*c["focus"].items(), *((f"role {r}", d) for r, d in
                                                                          c["roles"].items())]
              if d.get("counts_differ")]
    if differ:
        pooled += (" Whether the counts' differences differ more than their noise (Cochran's Q): "
                   + "; ".join(f"{html.escape(n)} p {h['p']:.4f}" for n, h in differ) + ".")
    per_count = "".join(f"<h3>{html.escape(str(n))} players</h3>"
                        + _table(head, rows(sub["compare"]["focus"])
                                 + [[f"role {r[0]}", *r[1:]] for r in rows(sub["compare"]["roles"])])
                        for n, sub in _compare_counts(rep))
    return (f'<h2 id="compare">A/B</h2><p>{what}; the same games (seeds, roles, deal) in both, paired by '
            f"{html.escape(c['paired_by'])}. The test is McNemar's over the pairs; the unpaired two-proportion "
            f"test is beside it.{pooled}</p>{changed}<figure id=\"compare-chart\">{svg}</figure>"
            + _table(head, rows(c["focus"])) + "<h3>Roles</h3>" + _table(head, rows(c["roles"]))
            + "<h3>Heroes</h3>" + _table(head, rows(c["heroes"])) + per_count)


def _compare_counts(rep: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """With an A/B run over several player counts, each count's report (which has its own A/B figures)."""
    if not rep.get("compare", {}).get("players"):
        return []
    return [(n, sub) for n, sub in rep.get("by_players", {}).items() if "compare" in sub]


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
    if "hero_roles" in rep:  # a chart file the page shows as an image
        (out / "hero_roles.svg").write_text(hero_roles_chart(rep), encoding="utf-8")
        files.append(out / "hero_roles.svg")
    compare_svg = ""
    if "compare" in rep:
        compare_svg = compare_chart(rep)
        (out / "compare.svg").write_text(compare_svg, encoding="utf-8")
        files.append(out / "compare.svg")
    counts = rep["players"] if isinstance(rep["players"], list) else [rep["players"]]
    hero_rows = [[h, v["played"], v["won"], f"{v['rate']:.1%}", f"{v['ci95'][0]:.1%}–{v['ci95'][1]:.1%}"]
                 for h, v in sorted(rep["heroes"].items(), key=lambda kv: -kv[1]["rate"])]
    role_rows = [[n, role, v["seats"], v["won"], f"{v['rate']:.1%}", f"{v['ci95'][0]:.1%}–{v['ci95'][1]:.1%}"]
                 for n, r in sorted(_per_count(rep).items(), key=lambda kv: int(kv[0]))
                 for role, v in r["roles"].items()]
    card_stats, skill_stats = rep.get("card_stats", {}), rep.get("skill_stats", {})
    card_rows = [[c, k, _per_game(k, rep["games"]), _pct(card_stats[c]) if c in card_stats else ""]
                 for c, k in _most_used(rep.get("card_uses", {}))]
    skill_rows = [[sk, k, _per_game(k, rep["games"]), _pct(skill_stats[sk]) if sk in skill_stats else ""]
                  for sk, k in _most_used(rep.get("skill_uses", {}))]
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Balance report — {html.escape(str(rep['rules']))}</title>
<style>
body {{ font-family: sans-serif; max-width: 60em; margin: 2em auto; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
td, th {{ border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }}
th {{ background: #f2f2f2; }} td:first-child, td:nth-child(2) {{ text-align: left; }}
figure {{ margin: 1.5em 0; }}
.warnings {{ border: 1px solid #d9a400; background: #fff8e0; padding: 0.2em 1em; }}
</style></head><body>
<h1>Balance report</h1>
<p>Rules <b>{html.escape(str(rep['rules']))}</b>, {html.escape(', '.join(map(str, counts)))} players,
{rep['games']} games (seed {rep['seed']}, agents {html.escape(str(rep['agents']))}):
{rep['errors']} errors, {rep['limits']} stopped by a limit, {rep['draws']} draws,
{rep['turns_mean']} turns on average.</p>
{_produced_by(rep)}
{_warnings(rep)}
{_compare_html(rep, compare_svg)}
<figure id="heroes">{heroes_svg}</figure>
<figure id="roles">{roles_svg}</figure>
<h2>Roles</h2>
{_table(["players", "role", "seats", "won", "rate", "95% interval"], role_rows)}
<h2>Heroes</h2>
{_table(["hero", "played", "won", "rate", "95% interval"], hero_rows)}
{_hero_roles_html(rep)}
{_fair_pool_html(rep)}
<h2 id="cards">Cards</h2>
<p>Times each card kind was used or played (a response counts; a card used as another counts
as the card it is used as), over all games; and the win rate of the seats that used it (each seat once
a game), to set beside the seats' overall rate.</p>
{_table(["card", "uses", "per game", "win rate when used"], card_rows)}
<h2 id="skills">Skills</h2>
{_table(["skill", "uses", "per game", "win rate when used"], skill_rows)}
<p>Rates are per seat; intervals are Wilson score intervals. Tables: heroes.csv, roles.csv,
cards.csv, skills.csv; the full figures: report.json.</p>
</body></html>
"""
    (out / "index.html").write_text(page, encoding="utf-8")
    files.append(out / "index.html")
    return files
