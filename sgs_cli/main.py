"""The ``sgs`` command: validate content, list it, run rule cases, simulate, play.

Every command takes ``--content DIR`` (a content tree with cards/, heroes/ and
rules/) instead of the built-in content, and ``--pack DIR`` (repeatable) to add a pack
on top of it; without ``--pack``, the packs listed in ``sgs.yaml`` of the working folder
are added. Errors are printed as sentences (or
``file:line:col`` diagnostics), never as tracebacks. Exit codes: 0 success,
1 a failure (content errors, failed cases, games with errors or broken invariants, a
transcript that does not fit), 2 usage; ``sgs play`` exits 3 when the player leaves.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Optional

import click

from sgs_dsl.errors import FORMATS, ContentError, Diagnostic, format_diagnostics
from sgs_runtime.errors import SgsError

CONTENT_HELP = "a content tree (cards/, heroes/, rules/) to use instead of the built-in one"
PACK_HELP = ("a pack folder (cards/, heroes/, rules/ or content files) added on top of the content (repeatable; "
             "default: the packs of sgs.yaml in the working folder)")


def _content_option(f: Any) -> Any:
    f = click.option("--pack", "pack_dirs", multiple=True, type=click.Path(path_type=Path), help=PACK_HELP)(f)
    return click.option("--content", "content_dir", type=click.Path(file_okay=False, path_type=Path),
                        default=None, help=CONTENT_HELP)(f)


def _packs(pack_dirs: tuple[Path, ...]) -> list[Path]:
    """The packs to add: those given with --pack, or else those of the working folder's config file."""
    from sgs_dsl.loader import config_packs, find_config

    for p in pack_dirs:
        if not p.is_dir():
            raise click.UsageError(f"--pack: {p} " + ("is not a folder" if p.exists() else "does not exist"))
    if pack_dirs:
        return list(pack_dirs)
    config = find_config()
    if config is None:
        return []
    packs, diags = config_packs(config)
    if diags:
        click.echo(format_diagnostics(sorted(diags), "text"), err=True)
        click.echo(f"{len(diags)} error(s) in the config file {config.name}; fix it, or give --pack", err=True)
        sys.exit(2)
    return packs


def _load(content_dir: Optional[Path], packs: Optional[list[Path]] = None) -> Any:
    from sgs_dsl.loader import load_content

    if content_dir is not None and not content_dir.is_dir():
        raise click.UsageError(f"the content folder {content_dir} does not exist")
    try:
        with _settling():
            content = load_content(content_dir, packs=packs or [])
    except ContentError as exc:
        click.echo(format_diagnostics(exc.diagnostics, "text"), err=True)
        click.echo(f"{len(exc.errors)} error(s) in the content; fix them first (sgs validate).", err=True)
        sys.exit(1)
    return content


@contextmanager
def _settling() -> Iterator[None]:
    """While content is loaded the cyclic collector waits, and then every object alive (the content, which
    lives as long as the command) is moved out of its way (``gc.freeze``) before it runs again: neither
    the first collection after loading, nor later ones, nor the one at exit walk it."""
    import gc

    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if collecting:
            gc.enable()


def _fail(message: str, code: int = 1) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sgs-engine")
def main() -> None:
    """A declarative rules engine for Sanguosha (三国杀)."""
    from sgs_dsl.cache import write_behind

    # the command does not wait for the content cache to be written: a forked writer does it
    click.get_current_context().with_resource(write_behind())


# ---------------------------------------------------------------------- validate


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="text",
              help="text: path:line:col: CODE message; github: workflow annotations; json: a list of objects; "
                   "sarif: a SARIF 2.1.0 log (code scanning)")
@click.option("--strict", is_flag=True, help="warnings (W...) fail the check too (exit 1)")
@_content_option
def validate(paths: tuple[Path, ...], fmt: str, strict: bool, content_dir: Optional[Path],
             pack_dirs: tuple[Path, ...]) -> None:
    """Check content files: the built-in content, a --content tree, --pack folders, or PATHs of a pack.

    A PATH (file or folder) is checked together with the built-in packs it uses; a rule
    case (or a folder of them) is checked against the content: its schema and its names.
    Errors (E...) exit 1; warnings (W...) are printed and exit 0 unless --strict.
    Exit 2 on usage errors.
    """
    from sgs_dsl.loader import build

    for p in paths:
        if not p.exists():
            raise click.UsageError(f"{p} does not exist")
    if content_dir is not None and not content_dir.is_dir():
        raise click.UsageError(f"the content folder {content_dir} does not exist")
    added = _packs(pack_dirs)
    packs: list[Path] = []
    cases: list[Path] = []
    for p in paths:
        more_packs, more_cases = _split_cases(p)
        packs.extend(more_packs)
        cases.extend(more_cases)
    with _settling():
        content, diags = build(content_dir, packs, lint=True, packs=added)
    diags = list(diags) + [d for c in cases for d in _check_case_file(content, c)]
    errors = [d for d in diags if d.severity == "error"]
    warnings = len(diags) - len(errors)
    if diags or fmt in ("json", "sarif"):  # those two print an empty report too
        click.echo(format_diagnostics(diags, fmt))
    if fmt == "text":
        noted = f"{warnings} warning(s)"
        if errors:
            click.echo(f"{len(errors)} error(s)" + (f", {noted}" if warnings else ""))
        elif warnings and strict:
            click.echo(f"{noted} (--strict: warnings fail the check)")
        else:
            click.echo("content is valid" + (f", with {noted}" if warnings else ""))
    sys.exit(1 if errors or (strict and warnings) else 0)


def _split_cases(path: Path) -> tuple[list[Path], list[Path]]:
    """``path`` as content to load and rule cases to check.

    A content tree (cards/, heroes/, rules/ holding content files) is loaded as a tree, and
    the rule cases beside those folders are checked; another folder is split file by file.
    """
    from sgs_dsl.scenarios import scenario_files

    if not path.is_dir():
        return ([], [path]) if _is_rule_case(path) else ([path], [])
    files = scenario_files([path])
    cases = [f for f in files if _is_rule_case(f)]
    if not cases:
        return [path], []
    kinds = [path / k for k in ("cards", "heroes", "rules") if (path / k).is_dir()]

    def in_kinds(f: Path) -> bool:
        return any(f.is_relative_to(k) for k in kinds)

    known = set(cases)
    if any(in_kinds(f) and f not in known for f in files):
        return [path], [f for f in cases if not in_kinds(f)]
    return [f for f in files if f not in known], cases


#: keys only a rule case has (docs/scenarios.md)
_CASE_KEYS = frozenset({"seats", "decisions", "expect", "events", "state", "draw_pile", "stop", "turn"})


def _is_rule_case(path: Path) -> bool:
    """Whether a file reads as a rule case (keys only a rule case has, and none that make a content file)."""
    from sgs_dsl.yamlsafe import load_file

    try:
        data = load_file(path, str(path)).data
    except (ContentError, OSError, UnicodeDecodeError):
        return False
    return _is_rule_case_data(data)


def _is_rule_case_data(data: Any) -> bool:
    """Whether a file's YAML data reads as a rule case (see :func:`_is_rule_case`)."""
    from sgs_dsl.loader import _guess_kind

    return isinstance(data, dict) and not _CASE_KEYS.isdisjoint(data) and _guess_kind(data) is None


def _check_case_file(content: Any, path: Path, text: Optional[str] = None) -> list[Diagnostic]:
    """What is wrong in a rule case, without playing it: its schema, then its names and table.

    ``text``: the case's text, read instead of the file (an editor's buffer, sgs lsp)."""
    from sgs_dsl.loader import _display, schema_errors
    from sgs_dsl.scenarios import check_case
    from sgs_dsl.yamlsafe import load_file, load_text

    display = _display(path)
    try:
        doc = load_file(path, display) if text is None else load_text(text, display)
    except ContentError as exc:
        return list(exc.diagnostics)
    errs = schema_errors(doc, "scenario")
    if errs:
        return errs
    try:
        return check_case(content, doc)
    except Exception as exc:  # a bug of the checker (or content with errors): a finding, not a traceback
        return [Diagnostic(display, 1, 1, "E330", f"the case could not be checked: {type(exc).__name__}: {exc}")]


# ---------------------------------------------------------------------- list


@main.command("list")
@click.argument("what", type=click.Choice(["cards", "deck", "heroes", "skills", "rules"]))
@click.option("--pack", "pack_args", multiple=True,
              help="a pack id: list only that pack; or a pack folder: add it to the content (repeatable; "
                   "default: the packs of sgs.yaml)")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@click.option("--content", "content_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help=CONTENT_HELP)
def list_(what: str, pack_args: tuple[str, ...], as_json: bool, content_dir: Optional[Path]) -> None:
    """List cards, the deck, heroes, skills or rules files.

    --pack takes a pack id (only that pack is listed) or a pack folder (added to the content)."""
    from sgs_runtime.records.catalog import LISTS

    folders = tuple(Path(a) for a in pack_args if Path(a).is_dir())
    ids = [a for a in pack_args if not Path(a).is_dir()]
    for a in ids:
        if "/" in a or "\\" in a or Path(a).exists():  # meant as a folder: not a pack id
            raise click.UsageError(f"--pack: {a} " + ("is not a folder" if Path(a).exists() else "does not exist"))
    if len(ids) > 1:
        raise click.UsageError(f"--pack: one pack id to list at a time, not {', '.join(ids)} "
                               "(a pack folder is added; no folder of these names exists)")
    pack = ids[0] if ids else None
    content = _load(content_dir, _packs(folders))
    rows = LISTS[what](content, pack)
    if pack is not None and not rows and what != "rules":
        _fail(f"no pack '{pack}' has {what}", 1)
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    for r in rows:
        click.echo(_row_text(what, r))
    click.echo(f"{len(rows)} {what}", err=True)


def _row_text(what: str, r: dict[str, Any]) -> str:
    if what == "deck":
        from sgs_runtime.state.model import SUIT_SIGN, rank_text

        return f"{r['name_zh']:<6} {r['id']:<18} {SUIT_SIGN[r['suit']]}{rank_text(r['rank'])}"
    if what == "heroes":
        return (f"{r['name_zh']:<5} {r['id']:<16} {r['kingdom']:<5} {r['gender']:<7} hp {r['hp']}  "
                f"{', '.join(r['skills'])}")
    if what == "skills":
        flags = ("locked " if r["locked"] else "") + ("lord " if r["lord"] else "")
        return f"{r['name_zh']:<6} {r['id']:<22} {flags}{'/'.join(r['kinds'])}"
    if what == "rules":
        ext = f" (extends {r['extends']})" if r["extends"] else ""
        mark = " [default]" if r["default"] else ""
        return f"{r['id']:<16} {r['name_zh']} / {r['name_en']}{ext}{mark}"
    return f"{r['name_zh']:<8} {r['id']:<18} {r['type']:<6} x{r['in_deck']}"


# ---------------------------------------------------------------------- scenarios


@main.group()
def scenario() -> None:
    """Rule cases (tests/scenarios): tables set by hand and what must hold."""


@scenario.command("run")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github", "junit"]), default=None,
              help="text (default); json: a JSON report; github: an ::error annotation per failing case; "
                   "junit: a JUnit XML report")
@click.option("--output", "-o", "output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="write the --format report to this file (the text report still goes to stdout)")
@click.option("--json", "as_json", is_flag=True, help="print a JSON report (--format json)")
@click.option("--verbose", "-v", is_flag=True, help="print passing cases too")
@click.option("--explain", is_flag=True,
              help="tell what happened in each failing case (with -v: every case): every request and its answer, "
                   "every skill offered and declined, every event")
@click.option("--why", "why", multiple=True, metavar="SKILL",
              help="tell each point where SKILL could have fired and what held it back (implies --explain; "
                   "told for the failing cases and those where SKILL waited; repeatable)")
@_content_option
def scenario_run(paths: tuple[Path, ...], fmt: Optional[str], output: Optional[Path], as_json: bool, verbose: bool,
                 explain: bool, why: tuple[str, ...], content_dir: Optional[Path],
                 pack_dirs: tuple[Path, ...]) -> None:
    """Run rule cases; print each failure and end with 'N passed, M failed'."""
    from sgs_dsl.scenarios import github_annotations, junit_xml, run_path, scenario_files

    if as_json and fmt not in (None, "json"):
        raise click.UsageError(f"--json and --format {fmt} cannot be used together")
    fmt = "json" if as_json else fmt or "text"
    if output is not None and fmt == "text":
        raise click.UsageError("--output takes the report of --format json, github or junit")
    if output is not None and not output.parent.is_dir():
        raise click.UsageError(f"--output: the folder {output.parent} does not exist")
    for p in paths:
        if not p.exists():
            raise click.UsageError(f"{p} does not exist")
    if not scenario_files(list(paths)):
        raise click.UsageError("no rule-case files (*.yaml) were found")
    content = _load(content_dir, _packs(pack_dirs))
    watched = _why_skills(content, why)
    explain = explain or bool(watched)
    results = run_path(content, list(paths), explain=explain, why=watched)
    passed = sum(1 for r in results if r.passed)
    failed = len(results) - passed
    report = ""
    if fmt == "json":
        report = json.dumps({"passed": passed, "failed": failed,
                             "cases": [r.as_dict(records=explain) for r in results]},
                            ensure_ascii=False, indent=2) + "\n"
    elif fmt == "junit":
        report = junit_xml(results)
    elif fmt == "github":
        report = "".join(line + "\n" for line in github_annotations(results))
    if output is not None:
        try:
            output.write_text(report, encoding="utf-8")
        except OSError as exc:
            _fail(f"cannot write {output}: {exc.strerror or exc}")
    elif fmt in ("json", "junit"):  # stdout holds the report alone
        click.echo(report, nl=False)
        if fmt == "junit":
            click.echo(f"{passed} passed, {failed} failed", err=True)
    if fmt in ("text", "github") or output is not None:
        if fmt == "github" and output is None:
            click.echo(report, nl=False)
        for r in results:
            if not r.passed:
                click.echo(f"FAIL {r.file}: {r.name}: {r.reason}")
            elif verbose:
                click.echo(f"ok   {r.file}: {r.name}")
            if explain and (verbose or not r.passed or any(t.get("event") == "why" for t in r.trace)):
                if r.passed and not verbose:  # told for --why: say which case it is
                    click.echo(f"ok   {r.file}: {r.name}")
                for line in r.explain():
                    click.echo(f"     {line}")
        click.echo(f"{passed} passed, {failed} failed")
    sys.exit(0 if failed == 0 else 1)


def _why_skills(content: Any, names: tuple[str, ...]) -> list[str]:
    """The skills of ``--why``, by their ids; an unknown one is a usage error (with the nearest ids)."""
    from sgs_runtime.errors import did_you_mean

    out = []
    for name in names:
        sid = content.canonical(name)
        skill = content.skills.get(sid)
        if skill is None:
            raise click.UsageError(f"--why: unknown skill '{name}'{did_you_mean(name, content.skills)}")
        if not skill.triggers:
            click.echo(f"note: {sid} has no trigger (it is used, not fired): the requests that offered it "
                       "are told with --explain", err=True)
        out.append(sid)
    return out


# ---------------------------------------------------------------------- simulate


def _player_counts(text: str) -> list[int]:
    try:
        counts = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise click.UsageError(f"--players takes a number or numbers separated by commas, not '{text}'") from None
    if not counts or any(not 2 <= n <= 10 for n in counts):
        raise click.UsageError("--players must be between 2 and 10")
    return counts


def _pack_pool(content: Any, packs_text: str, pool: Optional[list[str]]) -> list[str]:
    """The heroes of the named packs (a group's choice of the pool), within ``pool`` if given."""
    packs = [p.strip() for p in packs_text.split(",") if p.strip()]
    unknown = [p for p in packs if p not in content.hero_packs]
    if unknown:
        raise click.UsageError(f"unknown hero pack(s): {', '.join(unknown)}; packs: {', '.join(sorted(content.hero_packs))}")
    out = [h for p in packs for h in content.hero_packs[p]]
    return [h for h in out if pool is None or h in pool]


def _pool_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--heroes``, ``--hero-packs`` and ``--heroes-from``: the heroes a game deals from (:func:`_hero_pool`)."""
    for option in reversed([
            click.option("--heroes", default=None, help="comma-separated hero ids to choose from (default: the "
                                                        "rules' packs)"),
            click.option("--hero-packs", "hero_packs", default=None,
                         help="comma-separated hero packs for the pool, e.g. standard,wind (default: the rules' packs)"),
            click.option("--heroes-from", "heroes_from", default=None,
                         help="comma-separated hero pack ids or pack folders (loaded with --pack or sgs.yaml) whose "
                              "heroes join the pool (of the rules, or of --heroes/--hero-packs)")]):
        command = option(command)
    return command


def _hero_pool(content: Any, rules: Any, heroes: Optional[str], hero_packs: Optional[str],
               heroes_from: Optional[str]) -> Optional[list[str]]:
    """The pool the three options ask for (None: the rules' own): ``--heroes`` ids, narrowed to the
    ``--hero-packs``, then the heroes of ``--heroes-from`` added (to the rules' pool when nothing else
    was given)."""
    pool = [h.strip() for h in heroes.split(",") if h.strip()] if heroes else None
    if pool:
        unknown = [h for h in pool if content.canonical(h) not in content.heroes]
        if unknown:
            raise click.UsageError(f"unknown hero(es): {', '.join(unknown)}")
        pool = [content.canonical(h) for h in pool]
    if hero_packs:
        pool = _pack_pool(content, hero_packs, pool)
    if heroes_from:
        base = pool if pool is not None else [h for p in rules.hero_packs for h in content.hero_packs.get(p, [])]
        pool = list(dict.fromkeys(base + _heroes_from(content, heroes_from)))
    return pool


def _heroes_from(content: Any, text: str) -> list[str]:
    """The heroes of the hero packs named (ids, as --hero-packs) or of the pack folders named (loaded ones)."""
    from sgs_runtime.errors import did_you_mean

    out: list[str] = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            continue
        if item in content.hero_packs:
            out.extend(content.hero_packs[item])
            continue
        folder = Path(item)
        if not folder.is_dir():
            raise click.UsageError(f"--heroes-from: '{item}' is neither a hero pack{did_you_mean(item, content.hero_packs)} "
                                   f"nor a folder; hero packs: {', '.join(sorted(content.hero_packs))}")
        root = folder.resolve()
        found = [hid for hid, hero in content.heroes.items() if Path(hero.source.file).resolve().is_relative_to(root)]
        if not found:
            raise click.UsageError(f"--heroes-from: no hero of the content comes from the folder {item} "
                                   f"(add the pack with --pack {item}, or list it in sgs.yaml)")
        out.extend(found)
    return out


AGENTS_HELP = ("bots: random, heuristic or search (search:N: N rollouts per decision; search:N:hero=40:kinds=response "
               "and other settings), per role or seat: "
               "heuristic@rebel+traitor (heuristic for those roles, random for the rest), search@rebel,heuristic "
               "(the rebels search, the rest heuristic), search@0+3,heuristic (seats 0 and 3 search); "
               "see docs/cli.md")


@main.command()
@click.option("--players", "players_text", default=None,
              help="number of players, or several separated by commas (5,8,10): each count plays --games games "
                   "(default: the rules' own when they fix one, else 5)")
@click.option("--games", type=click.IntRange(1, None), default=100, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--rules", "rules_id", default=None, help="rules file id (default: the rules file marked default, identity)")
@click.option("--workers", type=click.IntRange(1, 256), default=1, show_default=True)
@click.option("--backend", type=click.Choice(["process", "dask"]), default="process", show_default=True,
              help="process: a local process pool; dask: a Dask cluster (pip install 'sgs-engine[distributed]')")
@click.option("--scheduler", default=None, help="with --backend dask: a scheduler address (default: a local cluster)")
@_pool_options
@click.option("--agents", default="random", show_default=True, help=AGENTS_HELP)
@click.option("--option", "option_pairs", multiple=True, metavar="NAME=VALUE",
              help="set a rules option, e.g. --option role_table=double_traitor (repeatable)")
@click.option("--report", "report_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="write a balance report (CSV, charts, index.html) to this folder (pip install 'sgs-engine[report]')")
@click.option("--json", "as_json", is_flag=True, help="print the JSON report")
@click.option("--progress/--no-progress", default=None, help="a progress bar on stderr (default: for long runs)")
@click.option("--check", is_flag=True,
              help="test the invariants after every step of every game and report the seed of any failure")
@click.option("--fair-pool", "fair_pool", is_flag=True,
              help="deal the heroes by a balanced design: each hero about as many games in each role (lord "
                   "choices respected) instead of the bots choosing from the rules' offers")
@click.option("--compare", "compare_dirs", nargs=2, type=click.Path(path_type=Path), default=None,
              metavar="A B", help="play the same games with two content trees or packs and compare them "
                                  "(B minus A, paired by seed; implies --fair-pool)")
@click.option("--force-hero", "force_hero", default=None, metavar="ID",
              help="put this hero into every game: with --compare in both, else against a baseline where the "
                   "deal's hero plays that seat")
@click.option("--save-game", "save_game", nargs=2, type=(click.IntRange(min=0), click.Path(path_type=Path)),
              default=None, metavar="N FILE",
              help="play only game N of this run again (the same seed, deal and bots) and write its transcript "
                   "to FILE, for sgs replay")
@_content_option
def simulate(players_text: Optional[str], games: int, seed: int, rules_id: Optional[str], workers: int, backend: str,
             scheduler: Optional[str], heroes: Optional[str], hero_packs: Optional[str], heroes_from: Optional[str],
             agents: str, option_pairs: tuple[str, ...],
             report_dir: Optional[Path], as_json: bool, progress: Optional[bool], check: bool,
             fair_pool: bool, compare_dirs: Optional[tuple[Path, Path]], force_hero: Optional[str],
             save_game: Optional[tuple[int, Path]], content_dir: Optional[Path], pack_dirs: tuple[Path, ...]) -> None:
    """Play bot games and report win rates; the same seed gives the same result.

    Balance runs (docs/balance-reports.md): --fair-pool, --compare A B, --force-hero ID."""
    from sgs_dsl.loader import content_spec
    from sgs_runtime.errors import UsageError
    from sgs_runtime.runs.simulate import check_agents, check_pool, combine, fair_deals, table_size
    from sgs_runtime.runs.simulate import simulate as run

    counts = _player_counts(players_text) if players_text is not None else None
    packs = _packs(pack_dirs)
    content = _load(content_dir, packs)
    try:
        rules = content.ruleset(rules_id)
        if counts is None:
            counts = [table_size(rules, None)]
        for players in counts:
            check_agents(agents, rules, players)
    except SgsError as exc:
        raise click.UsageError(str(exc)) from None
    pool = _hero_pool(content, rules, heroes, hero_packs, heroes_from)
    options = _options(rules, option_pairs)
    table = (options or {}).get("role_table", rules.options.get("role_table"))
    if table not in (None, "standard") and table not in rules.role_table_variants:
        raise click.UsageError(f"the rules '{rules.id}' have no role table '{table}'; tables: standard, "
                               f"{', '.join(sorted(rules.role_table_variants))}")
    tables = dict(rules.role_tables)
    tables.update(rules.role_table_variants.get(str(table), {}))
    for players in counts:
        if not rules.players_min <= players <= rules.players_max or players not in tables:
            raise click.UsageError(f"the rules '{rules.id}' play {rules.players_min} to {rules.players_max} players "
                                   f"(role tables for {sorted(tables)})")
    try:
        for players in counts:
            check_pool(content, rules, players, pool)
            if fair_pool:  # a pool that cannot be dealt fairly is known before any game
                fair_deals(content, rules.id, players, 1, seed, pool, options)
    except SgsError as exc:
        raise click.UsageError(str(exc)) from None
    ab = compare_dirs is not None or force_hero is not None
    if save_game is not None:
        if ab or len(counts) > 1:
            raise click.UsageError("--save-game plays one game of a run of one player count, without --compare or "
                                   "--force-hero")
        _save_game(content, save_game, rules_id=rules.id, players=counts[0], games=games, seed=seed, agents=agents,
                   hero_pool=pool, options=options, fair_pool=fair_pool, check=check)
        return
    total = games * len(counts) * (2 if ab else 1)
    show = progress if progress is not None else (total >= 200 and sys.stderr.isatty())
    reports: dict[int, Any] = {}
    try:
        with click.progressbar(length=total, label="games", file=sys.stderr) if show else _nothing() as bar:
            if ab:
                from .balance import run_ab

                try:
                    rep = run_ab(compare_dirs=compare_dirs, force_hero=force_hero, content=content,
                                 content_dir=content_dir, packs=packs, load=_load, rules_id=rules.id,
                                 players=counts, games=games, seed=seed, agents=agents, hero_pool=pool,
                                 options=options, workers=workers, backend=backend, scheduler=scheduler,
                                 progress=bar.update if bar is not None else None, check=check)
                except UsageError as exc:
                    raise click.UsageError(str(exc)) from None
            for players in counts if not ab else ():
                reports[players] = run(content, rules_id=rules.id, players=players, games=games, seed=seed,
                                       workers=workers, content_dir=content_spec(content_dir, packs),
                                       agents=agents, hero_pool=pool, options=options, backend=backend,
                                       scheduler=scheduler, progress=bar.update if bar is not None else None,
                                       check=check, fair_pool=fair_pool)
    except SgsError as exc:
        _fail(str(exc))
        return
    if not ab:
        rep = combine(reports)
    if report_dir is not None:
        from sgs_runtime.runs.report import write_report

        try:
            files = write_report(rep, report_dir)
        except SgsError as exc:
            _fail(str(exc))
            return
        except OSError as exc:
            _fail(f"cannot write the report to {report_dir}: {exc.strerror or exc}")
            return
        click.echo(f"report written: {files[-1]}", err=True)
    if as_json:
        click.echo(json.dumps(rep, ensure_ascii=False, indent=2))
    else:
        _print_report(rep)
        if ab:
            from .balance import print_compare

            print_compare(rep)
    sys.exit(1 if rep["errors"] or rep.get("violations") or rep.get("baseline", {}).get("errors") else 0)


class _nothing:
    """A stand-in for the progress bar when none is shown."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def _options(rules: Any, pairs: tuple[str, ...]) -> Optional[dict[str, Any]]:
    """Parse --option NAME=VALUE pairs against the rules' declared options."""
    from sgs_dsl.yamlsafe import resolve_plain
    from sgs_runtime.errors import did_you_mean

    out: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise click.UsageError(f"--option takes NAME=VALUE, not '{pair}'")
        if name not in rules.options:
            raise click.UsageError(f"the rules '{rules.id}' have no option '{name}'{did_you_mean(name, rules.options)}; "
                                   f"options: {', '.join(sorted(rules.options))}")
        out[name] = resolve_plain(value)
    return out or None


def _print_report(rep: dict[str, Any]) -> None:
    players = rep["players"] if not isinstance(rep["players"], list) else ",".join(map(str, rep["players"]))
    click.echo(f"{rep['games']} games, {players} players, rules {rep['rules']}, seed {rep['seed']}: "
               f"{rep['errors']} errors, {rep['limits']} hit a limit, {rep['draws']} draws")
    for role, w in rep["win_rates"].items():
        lo, hi = w["ci95"]
        click.echo(f"  {role:<10} won {rep['wins'][role]:>5}  {w['rate']:.1%}  (95% {lo:.1%}–{hi:.1%})")
    click.echo(f"  mean turns {rep['turns_mean']}, {rep['games_per_second']} games/s")
    for label, key in (("cards", "card_uses"), ("skills", "skill_uses")):
        top = sorted(rep.get(key, {}).items(), key=lambda kv: (-kv[1], kv[0]))[:8]
        if top:
            click.echo(f"  most used {label}: " + ", ".join(f"{k} {n}" for k, n in top))
    for s in rep["error_samples"]:
        click.echo(f"  error in game {s['game']} (seed {s['seed']}): {s['error'].splitlines()[0]}")
    if rep.get("checked"):
        click.echo(f"  invariants checked after every step: {rep['violations']} violation(s)")
        for s in rep["violation_samples"]:
            click.echo(f"  violation in game {s['game']} (seed {s['seed']}): {s['violation']}")
    for warning in rep.get("warnings", []):
        click.echo(f"  warning: {warning}")


def _save_game(content: Any, save: tuple[int, Path], **run: Any) -> None:
    """``sgs simulate --save-game N FILE``: game N of the run played again, its transcript written."""
    from sgs_runtime.errors import UsageError
    from sgs_runtime.runs.simulate import game_record

    index, path = save
    try:
        summary, record = game_record(content, index=index, **run)
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None
    try:
        path.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot write {path}: {exc.strerror or exc}")
        return
    if summary.error is not None:
        outcome = f"stopped by an engine error: {summary.error.splitlines()[0]}"
    elif summary.violation is not None:
        outcome = f"stopped at a broken invariant: {summary.violation}"
    elif summary.limit is not None:
        outcome = f"stopped by the {summary.limit} limit"
    else:
        outcome = f"won by {', '.join(summary.winners) or 'nobody'} ({', '.join(summary.winner_roles)})"
    click.echo(f"game {index} (seed {summary.seed}), {summary.turns} turns, {outcome}")
    click.echo(f"transcript of {len(record['decisions'])} decisions written to {path}; `sgs replay {path}` tells it")
    sys.exit(1 if summary.error is not None or summary.violation is not None else 0)


# ---------------------------------------------------------------------- play


#: `sgs play`'s exit code when the player leaves the game (the end of input, Ctrl-D, or Ctrl-C)
ABANDONED = 3


@main.command()
@click.option("--players", type=click.IntRange(2, 10), default=None,
              help="number of players (default: the rules' own when they fix one, else 5)")
@click.option("--seed", type=int, default=None, help="seed (default: random)")
@click.option("--rules", "rules_id", default=None, help="rules file id (default: the rules file marked default, identity)")
@click.option("--seat", type=int, default=0, show_default=True, help="your seat")
@click.option("--agents", default="heuristic", show_default=True,
              help="the bots at the other seats, as in `sgs simulate`; " + AGENTS_HELP)
@click.option("--log", "log_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="write the JSON-lines event log here")
@click.option("--save", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="the file the game is saved to (with `save` at any prompt, on leaving, and at the end)")
@click.option("--resume", "resume_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="go on with a game saved with `save` (or when you left it)")
@_pool_options
@_content_option
def play(players: Optional[int], seed: Optional[int], rules_id: Optional[str], seat: int, agents: str,
         log_file: Optional[Path], save: Optional[Path], resume_file: Optional[Path], heroes: Optional[str],
         hero_packs: Optional[str], heroes_from: Optional[str], content_dir: Optional[Path],
         pack_dirs: tuple[Path, ...]) -> None:
    """Play a game in the terminal against bots (type ? at any prompt for help).

    Exit 0 when the game ends, 1 on an engine error, 2 on usage errors, 3 when you leave it
    (quit, the end of input, Ctrl-D, or Ctrl-C: the game is saved first)."""
    import random

    from sgs_runtime.records.replay import TranscriptError, check_record
    from sgs_runtime.runs.simulate import check_agents, check_pool, table_size

    from .terminal import Left, play_terminal

    content = _load(content_dir, _packs(pack_dirs))
    record = None
    if resume_file is not None:
        record = _read_transcript(resume_file)
        try:
            check_record(content, record)
        except TranscriptError as exc:
            _fail(f"{resume_file} is not a saved game this engine can go on with: {exc}")
        table = record.get("table") or {}
        rules_id, players, seed = record["rules"], record["players"], record["seed"]
        seat = table.get("seat", seat)
        agents = table.get("agents", agents)
        save = save or resume_file
    try:
        rules = content.ruleset(rules_id)
        check_agents(agents, rules)
    except SgsError as exc:
        raise click.UsageError(str(exc)) from None
    players = table_size(rules, players)
    if not rules.players_min <= players <= rules.players_max:
        raise click.UsageError(f"the rules '{rules.id}' play {rules.players_min} to {rules.players_max} players")
    if not 0 <= seat < players:
        raise click.UsageError(f"--seat must be between 0 and {players - 1}")
    if record is not None and (heroes or hero_packs or heroes_from):
        raise click.UsageError("--resume goes on with the saved game's own heroes: give no --heroes, --hero-packs "
                               "or --heroes-from")
    pool = _hero_pool(content, rules, heroes, hero_packs, heroes_from)
    try:
        check_agents(agents, rules, players)
        check_pool(content, rules, players, pool)
    except SgsError as exc:
        raise click.UsageError(str(exc)) from None
    for option, path in (("--save", save), ("--log", log_file)):
        if path is not None and not path.parent.is_dir():  # known before the game, not after it
            raise click.UsageError(f"{option}: the folder {path.parent} does not exist")
    seed = seed if seed is not None else random.randrange(1 << 30)
    try:
        play_terminal(content, rules, players, seed, seat, log_file, save, agents=agents, record=record,
                      hero_pool=pool)
    except SgsError as exc:
        _fail(str(exc))
    except Left as left:
        where = (f"; it is saved: go on with `sgs play --resume {left.saved}`" if left.saved
                 else "; nothing was saved")
        click.echo("\ngame abandoned: you left it before the end" + where)
        sys.exit(ABANDONED)


# ---------------------------------------------------------------------- replay


def _read_transcript(path: Path) -> Any:
    """A saved game's JSON, read safely; a file that is not one ends with a clear message (exit 1)."""
    from sgs_dsl.yamlsafe import read_file

    try:
        # a bounded read of a regular file only (a FIFO or a device is refused, never read for ever)
        return json.loads(read_file(path))
    except ContentError as exc:
        _fail(f"{path} cannot be read: {exc.diagnostics[0].message}" if exc.diagnostics
              else f"{path} cannot be read")
    except OSError as exc:
        _fail(f"{path} cannot be read: {exc.strerror or exc}")
    except UnicodeDecodeError:
        _fail(f"{path} is not a game transcript (it is not UTF-8 text)")
    except json.JSONDecodeError as exc:
        _fail(f"{path} is not a game transcript (not JSON: {exc.msg} at line {exc.lineno}, "
              f"column {exc.colno})")
    except (ValueError, RecursionError) as exc:  # numbers too long, nesting too deep
        _fail(f"{path} is not a game transcript (it cannot be read as JSON: "
              f"{str(exc) or type(exc).__name__})")


@main.command()
@click.argument("transcript_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="print the event log as JSON lines")
@click.option("--seat", type=int, default=None, help="tell the game as this seat saw it (hidden cards as counts)")
@click.option("--spectator", is_flag=True, help="tell the game as a spectator saw it (no hand card shown)")
@click.option("--force", is_flag=True,
              help="replay even a transcript played with other content (it may not fit, or tell another game)")
@click.option("--explain", is_flag=True,
              help="tell every request and its answer, every skill offered and declined, between the events")
@click.option("--why", "why", multiple=True, metavar="SKILL",
              help="tell each point where SKILL could have fired and what held it back (implies --explain)")
@_content_option
def replay(transcript_file: Path, as_json: bool, seat: Optional[int], spectator: bool, force: bool, explain: bool,
           why: tuple[str, ...], content_dir: Optional[Path], pack_dirs: tuple[Path, ...]) -> None:
    """Play a saved game back from its seed and decisions, and tell what happened.

    By default everything is told (for explanations); --seat N tells only what seat N saw.
    A transcript played with other content is refused unless --force is given."""
    from sgs_runtime.records.narrate import explain as explained
    from sgs_runtime.records.narrate import merged, story
    from sgs_runtime.records.replay import ContentMismatch, TranscriptError
    from sgs_runtime.records.replay import replay as run
    from sgs_runtime.state.visibility import log_view

    if (explain or why) and (seat is not None or spectator):
        raise click.UsageError("--explain and --why tell everything: they cannot be used with --seat or --spectator")
    content = _load(content_dir, _packs(pack_dirs))
    watched = _why_skills(content, why)
    explain = explain or bool(watched)
    record = _read_transcript(transcript_file)

    def warn(note: str) -> None:
        click.echo(f"warning: {transcript_file}: {note}", err=True)

    explained_args: dict[str, Any] = {"trace": True, "why": watched} if explain else {}
    try:
        game = run(content, record, force=force, warn=warn, **explained_args)
    except TranscriptError as exc:
        _fail(f"{transcript_file} is not a game transcript this engine can replay: {exc}")
        return
    except ContentMismatch as exc:
        _fail(f"{transcript_file}: {exc}")
        return
    except SgsError as exc:
        _fail(f"{transcript_file}: {exc}")
        return
    if seat is not None and not 0 <= seat < len(game.players):
        raise click.UsageError(f"--seat must be between 0 and {len(game.players) - 1}")
    records = log_view(game.log, -1 if spectator else seat)
    if explain:
        records = merged(game.log, game.trace or [])
    if explain and not as_json:
        for line in explained(game.log, game.trace or []):
            click.echo(line)
    elif as_json:
        for rec in records:
            click.echo(json.dumps(rec, ensure_ascii=False))
    else:
        for line in story(records):
            click.echo(line)


from .scaffold import new, schema  # noqa: E402  (sgs new, sgs schema: sgs_cli/scaffold.py)


@main.command("lsp")
def lsp_command() -> None:
    """A language server for content files, over stdio (for an editor; pip install 'sgs-engine[lsp]').

    Diagnostics as you type (those of sgs validate), completion of ids, timings, attributes and
    statements, and hover with a card's, hero's or skill's name and text. docs/designers.md tells
    how to set up an editor. Exits 1 when pygls is not installed."""
    from .lsp import serve

    serve()


main.add_command(new)
main.add_command(schema)

from sgs_web.cli import command as serve_command  # noqa: E402  (sgs serve: the browser table, sgs_web/)

main.add_command(serve_command())


if __name__ == "__main__":  # pragma: no cover
    main()
