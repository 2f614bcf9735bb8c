"""``sgs simulate --compare A B`` and ``--force-hero ID``: the A/B runs of the simulate command.

The runs themselves are :func:`sgs_runtime.runs.abtest.compare`; here the command's folders become
contents and its answer is printed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Optional

import click

from sgs_runtime.errors import did_you_mean
from sgs_runtime.runs.abtest import Arm, compare

#: the sub-folders of a content tree (a folder with all of them is a tree, else a pack on top of the base)
TREE_FOLDERS = ("cards", "heroes", "rules")


def is_tree(folder: Path) -> bool:
    """Whether a folder is a whole content tree (cards/, heroes/ and rules/) rather than a pack."""
    return all((folder / name).is_dir() for name in TREE_FOLDERS)


def _is_content(folder: Path) -> bool:
    """Whether a folder holds content at all: one of the content folders, or YAML files."""
    return any((folder / name).is_dir() for name in TREE_FOLDERS) or any(
        p.suffix in (".yaml", ".yml") for p in folder.iterdir() if p.is_file())


def make_arm(folder: Path, base: Optional[Path], packs: list[Path], load: Callable[..., Any]) -> Arm:
    """One side of ``--compare``: a content tree (with the --pack packs on top), or a pack added on
    top of the base (--content or the built-in content) and the --pack packs."""
    from sgs_dsl.loader import content_spec

    if not folder.exists():
        raise click.UsageError(f"--compare: {folder} does not exist")
    if not folder.is_dir():
        raise click.UsageError(f"--compare: {folder} is not a folder (give a content tree or a pack folder)")
    if not _is_content(folder):
        raise click.UsageError(f"--compare: {folder} is not content: a content tree has cards/, heroes/ and "
                               "rules/; a pack has some of them, or .yaml content files")
    if is_tree(folder):
        return Arm(str(folder), load(folder, packs), content_spec(folder, packs))
    return Arm(str(folder), load(base, [*packs, folder]), content_spec(base, [*packs, folder]))


def check_hero(content: Any, hero: str, where: str) -> str:
    """The id of the ``--force-hero`` hero in a content, or a usage error with the nearest ids."""
    hid = content.canonical(hero)
    if hid not in content.heroes:
        raise click.UsageError(f"--force-hero: {where} has no hero '{hero}'{did_you_mean(hero, content.heroes)}")
    return str(hid)


def print_compare(rep: dict[str, Any]) -> None:
    """The A/B figures as text: each focus, then the roles."""
    c = rep["compare"]
    if c["mode"] == "baseline":
        click.echo(f"A/B: {c['forced']} forced into every game (B) against the heroes of the deal (A), "
                   f"paired by {c['paired_by']}")
    else:
        click.echo(f"A/B: A = {c['a']}, B = {c['b']}, paired by {c['paired_by']}"
                   + (f", {c['forced']} in every game" if c["forced"] else ""))
    if c["changed_heroes"]:
        click.echo(f"  heroes defined differently: {', '.join(c['changed_heroes'])}")
    counts = c.get("players")
    if counts:
        click.echo(f"  all of {', '.join(map(str, counts))} players, pooled:")
    for label, table in (("", c["focus"]), ("role ", c["roles"])):
        for name, d in table.items():
            _line(f"{label}{name}", d)
            het = d.get("counts_differ")
            if het is not None:
                click.echo(f"  {'':<14} between the counts (Cochran's Q): Q {het['q']:.2f}, {het['df']} df, "
                           f"p {het['p']:.4f}")
    for n, sub in rep.get("by_players", {}).items() if counts else ():
        click.echo(f"  {n} players:")
        for name, d in sub["compare"]["focus"].items():
            _line(name, d)
    if rep.get("checked"):
        click.echo(f"  invariants checked after every step of both arms: {rep['violations']} violation(s)")
        for v in rep["violation_samples"]:
            where = f"{v['players']} players, " if "players" in v else ""
            click.echo(f"  violation in {v['arm']}, {where}game {v['game']} (seed {v['seed']}): {v['violation']}")


def _line(name: str, d: dict[str, Any]) -> None:
    """One difference: both rates, B − A with its interval, the p-value and the pairs."""
    lo, hi = d["ci95"]
    mark = "  significant" if d["significant"] else ""
    click.echo(f"  {name:<14} A {d['a']['rate']:.1%}  B {d['b']['rate']:.1%}  "
               f"B−A {d['diff']:+.1%} (95% {lo:+.1%} to {hi:+.1%}), p {d['p']:.4f}, "
               f"{d['pairs']} pairs{mark}")


def run_ab(*, compare_dirs: Optional[tuple[Path, Path]], force_hero: Optional[str], content: Any,
           content_dir: Optional[Path], packs: list[Path], load: Callable[..., Any],
           **run: Any) -> dict[str, Any]:
    """The A/B run the options ask for: two contents (``compare_dirs``), with or without a hero
    forced into every game, or a forced hero against a baseline on the command's content."""
    from sgs_dsl.loader import content_spec

    if compare_dirs is not None:
        a, b = (make_arm(p, content_dir, packs, load) for p in compare_dirs)
        if force_hero is not None:
            force_hero = check_hero(a.content, force_hero, a.label)
            check_hero(b.content, force_hero, b.label)
        return compare(a, b, force=force_hero, **run)
    assert force_hero is not None
    hid = check_hero(content, force_hero, "the content")
    same = Arm("baseline", content, content_spec(content_dir, packs))
    return compare(same, Arm(f"with {hid}", content, same.content_dir), force=hid, baseline=True, **run)
