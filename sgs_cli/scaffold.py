"""``sgs new`` and ``sgs schema``: start a content pack, and give the JSON Schemas.

``sgs new hero|card|rules|case NAME [--pack DIR]`` writes a commented skeleton that is
valid as written (``sgs validate --strict DIR`` passes) into a pack folder:

============  ======================  ==========================
kind          file                    schema
============  ======================  ==========================
``hero``      ``heroes/NAME.yaml``    ``heroes.schema.json``
``card``      ``cards/NAME.yaml``     ``cards.schema.json``
``rules``     ``rules/NAME.yaml``     ``rules.schema.json``
``case``      ``cases/NAME.yaml``     ``scenario.schema.json``
============  ======================  ==========================

Each time, the schemas are written (or refreshed) into ``DIR/.sgs/schemas/``, and the
file's ``# yaml-language-server: $schema=`` modeline points there relatively, so that an
editor finds them wherever the pack lives. ``sgs schema --out DIR`` writes the schemas
anywhere; ``sgs schema`` alone lists them where the package holds them.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from importlib.resources import files
from pathlib import Path
from typing import Optional

import click

#: a canonical id (sgs_dsl/schemas/common.schema.json, ``$defs/id``)
ID_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")

#: where ``sgs new`` writes the schemas, below the pack folder
SCHEMA_SUBDIR = Path(".sgs") / "schemas"

#: kind -> (folder in the pack, schema file, template)
KINDS: dict[str, tuple[str, str, str]] = {
    "hero": ("heroes", "heroes.schema.json", "hero.yaml"),
    "card": ("cards", "cards.schema.json", "card.yaml"),
    "rules": ("rules", "rules.schema.json", "rules.yaml"),
    "case": ("cases", "scenario.schema.json", "case.yaml"),
}


def schema_dir() -> Path:
    """The folder of the JSON Schemas shipped with the package (sgs_dsl/schemas)."""
    from sgs_dsl.loader import SCHEMA_DIR

    return SCHEMA_DIR


def schema_files() -> list[Path]:
    """Every schema file the package ships, sorted by name."""
    return sorted(p for p in schema_dir().glob("*.json") if p.is_file())


def write_schemas(out: Path) -> list[Path]:
    """Copy every schema into ``out`` (created if needed); the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for src in schema_files():
        dest = out / src.name
        shutil.copyfile(src, dest)
        written.append(dest)
    return written


def suggest_id(text: str) -> str:
    """``text`` made into an id (lower case, ``_`` for anything else), or '' if nothing is left."""
    out = re.sub(r"[^a-z0-9_]+", "_", text.strip().lower()).strip("_")
    out = re.sub(r"^[0-9_]+", "", out)
    return out


def pack_id(pack: Path) -> str:
    """The pack id of the files ``sgs new`` writes: the pack folder's name as an id.

    A name that is the id of a built-in pack (a folder named ``standard``) gets ``_pack``
    added: a pack may not share the id of a pack below it (E310)."""
    from sgs_dsl.loader import default_content_dir

    base = suggest_id(Path(os.path.abspath(pack)).name) or "my_pack"
    builtin = {p for kind in ("cards", "heroes") for p in _packs_in(default_content_dir() / kind)}
    return base if base not in builtin else f"{base}_pack"


def _template(name: str) -> str:
    return files("sgs_cli").joinpath("templates", name).read_text(encoding="utf-8")


def _fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def _packs_in(folder: Path) -> list[str]:
    """The ``pack`` ids of the YAML files in ``folder`` (files that cannot be read are skipped)."""
    from sgs_dsl.errors import ContentError
    from sgs_dsl.yamlsafe import load_file

    out: list[str] = []
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.yaml")):
        try:
            data = load_file(path, str(path)).data
        except (ContentError, OSError, UnicodeDecodeError):
            continue
        pack = data.get("pack") if isinstance(data, dict) else None
        if isinstance(pack, str) and ID_PATTERN.match(pack) and pack not in out:
            out.append(pack)
    return out


def _identity_pool(key: str) -> list[str]:
    """The built-in identity rules' ``heroes`` or ``cards`` (what a rules file extending it inherits)."""
    from sgs_dsl.errors import ContentError
    from sgs_dsl.loader import default_content_dir
    from sgs_dsl.yamlsafe import load_file

    path = default_content_dir() / "rules" / "identity.yaml"
    try:
        value = load_file(path, str(path)).data.get(key)
    except (ContentError, OSError, UnicodeDecodeError, AttributeError):
        value = None
    return [str(v) for v in value] if isinstance(value, list) and value else ["standard"]


def _pools(pack: Path) -> str:
    """The ``add_heroes:`` and ``add_cards:`` lines of a rules skeleton: the pack's own packs, added to identity's."""
    lines = []
    for key, kind in (("heroes", "hero"), ("cards", "card")):
        builtin = _identity_pool(key)
        mine = [p for p in _packs_in(pack / key) if p not in builtin]
        what = "hero packs to choose heroes from" if key == "heroes" else "card packs whose decks are shuffled"
        lines.append(f"# {what}: these are added to identity's [{', '.join(builtin)}] ('{key}:' would replace them)")
        if mine:
            lines.append(f"add_{key}: [{', '.join(mine)}]")
        else:
            lines.append(f"# add_{key}: [{pack_id(pack)}]  # once the pack has {key} (sgs new {kind} NAME)")
    return "\n".join(lines)


#: the trigger of the skill ``sgs new hero`` writes (templates/hero.yaml), which a new case tests
_SKELETON_TRIGGER = {"on": "phase_start", "if": "event.phase == finish", "do": "draw 1\n"}


def _case_hero(pack: Path) -> Optional[tuple[str, str]]:
    """A hero of the pack and its skill, as ``sgs new hero`` wrote them (unchanged), or None."""
    from sgs_dsl.errors import ContentError
    from sgs_dsl.yamlsafe import load_file

    folder = pack / "heroes"
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        try:
            data = load_file(path, str(path)).data
        except (ContentError, OSError, UnicodeDecodeError):
            continue
        if not isinstance(data, dict):
            continue
        skills = {s.get("id"): s for s in data.get("skills") or [] if isinstance(s, dict)}
        for hero in data.get("heroes") or []:
            if not isinstance(hero, dict) or not isinstance(hero.get("id"), str):
                continue
            skill = skills.get(f"{hero['id']}_skill")
            if skill is not None and skill.get("trigger") == _SKELETON_TRIGGER \
                    and f"{hero['id']}_skill" in (hero.get("skills") or []):
                return hero["id"], f"{hero['id']}_skill"
    return None


_CASE_BUILTIN = """\
# It tests a built-in hero, 貂蝉 (diaochan) and her 闭月 (biyue): at the start of her
# finish phase she may draw a card. To test a hero of your pack, put its id in place
# of diaochan, its skill in place of biyue, and run the case with --pack."""

_CASE_PACK = """\
# It tests {hero} of this pack and its skill {skill} as `sgs new hero` wrote them (at
# the start of the finish phase, draw a card): the pack must be loaded (--pack), and
# when you change the skill, change what the case expects."""


def _case_values(pack: Path, target: Path) -> dict[str, str]:
    found = _case_hero(pack)
    if found is None:
        hero, skill = "diaochan", "biyue"
        about = _CASE_BUILTIN
        run_hint = _display(target)
    else:
        hero, skill = found
        about = _CASE_PACK.format(hero=hero, skill=skill)
        run_hint = f"--pack {_display(pack)} {_display(target)}"
    return {"hero": hero, "skill": skill, "about": about, "run_hint": run_hint,
            "title": f"{skill} - at the start of the finish phase {hero} draws a card"}


def _taken_ids(pack: Path, skip: Path) -> dict[str, str]:
    """Every card, hero, skill and rules id (and alias) of the built-in content and of the pack's
    files but ``skip`` (the file about to be written): id -> what it is."""
    from sgs_dsl.loader import KINDS as CONTENT_KINDS
    from sgs_dsl.loader import build

    mine = [f for k in CONTENT_KINDS if (pack / k).is_dir() for f in sorted((pack / k).glob("*.yaml"))
            if f.resolve() != skip.resolve()]
    try:
        content, _ = build(None, mine)
    except Exception:  # a pack that cannot be loaded at all: the built-in ids still count
        try:
            content, _ = build(None)
        except Exception:
            return {}
    taken: dict[str, str] = {}
    for what, table in (("card", content.cards), ("hero", content.heroes), ("skill", content.skills),
                        ("rules file", content.rulesets)):
        for key in table:
            taken.setdefault(str(key), what)
    for alias in getattr(content, "aliases", {}) or {}:
        taken.setdefault(str(alias), "alias")
    return taken


def _display(path: Path) -> str:
    rel = os.path.relpath(path)
    return rel if not rel.startswith("..") else str(path)


def new_file(kind: str, name: str, pack: Path, force: bool = False) -> Path:
    """Write the skeleton of ``kind`` named ``name`` into ``pack``; the file written.

    Raises :class:`click.UsageError` for a bad name and :class:`click.ClickException`
    when the file exists (without ``force``) or the id is taken.
    """
    if not ID_PATTERN.match(name):
        hint = suggest_id(name)
        raise click.UsageError(
            f"'{name}' is not a valid id: use lower case letters, digits and _, starting with a letter"
            + (f" (e.g. '{hint}')" if hint else ""))
    if pack.exists() and not pack.is_dir():
        raise click.UsageError(f"--pack: {pack} is not a folder")
    folder, schema, template = KINDS[kind]
    target = pack / folder / f"{name}.yaml"
    if (target.exists() or target.is_symlink()) and not force:
        raise click.ClickException(f"{_display(target)} already exists; use --force to overwrite it")
    skill = f"{name}_skill"
    if kind in ("hero", "card", "rules"):
        taken = _taken_ids(pack, target)  # the file being replaced (--force) does not count
        for ident in sorted({name, skill} if kind == "hero" else {name}):
            if ident in taken:
                raise click.ClickException(f"'{ident}' is already the id of a {taken[ident]} (ids of cards, "
                                           f"heroes, skills and rules files are shared); choose another name")
    modeline = Path(os.path.relpath(pack / SCHEMA_SUBDIR / schema, target.parent)).as_posix()
    pack_hint = _display(pack)
    existing = _packs_in(pack / folder) if kind in ("hero", "card") else []  # a pack the folder already has
    values = {"schema": modeline, "name": name, "skill": skill, "pack": existing[0] if existing else pack_id(pack),
              "pack_hint": pack_hint}
    if kind == "rules":
        values["pools"] = _pools(pack)
    elif kind == "case":
        values.update(_case_values(pack, target))  # its own hero and skill
    text = _fill(_template(template), values)
    write_schemas(pack / SCHEMA_SUBDIR)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


# ---------------------------------------------------------------------- commands


@click.command("new")
@click.argument("kind", type=click.Choice(list(KINDS)))
@click.argument("name")
@click.option("--pack", "pack", type=click.Path(path_type=Path), default=Path("."), show_default=True,
              help="the pack folder (created if needed)")
@click.option("--force", is_flag=True, help="overwrite the file if it exists")
def new(kind: str, name: str, pack: Path, force: bool) -> None:
    """Write a commented, valid skeleton of a hero, card, rules file or rule case into a pack.

    \b
    hero  -> PACK/heroes/NAME.yaml   (a hero and a skill NAME_skill)
    card  -> PACK/cards/NAME.yaml    (a trick card and its deck)
    rules -> PACK/rules/NAME.yaml    (extends identity)
    case  -> PACK/cases/NAME.yaml    (a rule case: sgs scenario run)

    The JSON Schemas are written (or refreshed) into PACK/.sgs/schemas/, and the file's
    schema modeline points there. NAME must be an id: lower case letters, digits and _.
    Exit 1 if the file exists (unless --force) or the id is taken, 2 on usage errors.
    """
    try:
        target = new_file(kind, name, pack, force)
    except OSError as exc:
        click.echo(f"error: cannot write into {pack}: {exc.strerror or exc}", err=True)
        sys.exit(1)
    click.echo(f"wrote {_display(target)}")
    click.echo(f"schemas in {_display(pack / SCHEMA_SUBDIR)}", err=True)
    if kind == "case":
        pack_arg = f"--pack {_display(pack)} " if _case_hero(pack) is not None else ""
        click.echo(f"run it: sgs scenario run {pack_arg}{_display(target)}", err=True)
    else:
        click.echo(f"check it: sgs validate --strict {_display(pack)}", err=True)


@click.command("schema")
@click.argument("which", required=False, default=None)
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="write every schema into this folder (created if needed)")
def schema(which: Optional[str], out: Optional[Path]) -> None:
    """The JSON Schemas of content files and rule cases.

    \b
    sgs schema               list the schema files where the package holds them
    sgs schema heroes        print one schema (cards, common, heroes, rules, scenario)
    sgs schema --out DIR     write every schema into DIR
    """
    available = {p.name.removesuffix(".schema.json"): p for p in schema_files()}
    if which is not None and out is not None:
        raise click.UsageError("give a schema to print or --out DIR, not both")
    if which is not None:
        key = which.removesuffix(".json").removesuffix(".schema")
        if key not in available:
            raise click.UsageError(f"no schema '{which}'; schemas: {', '.join(sorted(available))}")
        click.echo(available[key].read_text(encoding="utf-8"), nl=False)
        return
    if out is None:
        for p in available.values():
            click.echo(str(p))
        return
    try:
        written = write_schemas(out)
    except OSError as exc:
        click.echo(f"error: cannot write the schemas to {out}: {exc.strerror or exc}", err=True)
        sys.exit(1)
    for p in written:
        click.echo(_display(p))
    click.echo(f"{len(written)} schema(s) written to {_display(out)}", err=True)

