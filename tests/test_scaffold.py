"""`sgs new` and `sgs schema`: skeletons that validate as written, and modelines that resolve."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run_cli

SCHEMAS = ROOT / "sgs_dsl" / "schemas"
MODELINE = re.compile(r"^# yaml-language-server: \$schema=(?P<path>\S+)\s*$")
KIND_FILES = {"hero": "heroes", "card": "cards", "rules": "rules", "case": "cases"}


def load(path: Path) -> Any:
    """A YAML file as the engine and the editors read it (YAML 1.2: `on` is a string, not true)."""
    from sgs_dsl.yamlsafe import load_file

    return load_file(path, str(path)).data


def new(pack: Path, kind: str, name: str, *more: str) -> Any:
    return run_cli("new", kind, name, "--pack", str(pack), *more)


def modeline_target(path: Path) -> Path:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    m = MODELINE.match(first)
    assert m, f"{path}: no schema modeline on the first line: {first!r}"
    assert not Path(m["path"]).is_absolute() and "://" not in m["path"], "the modeline must be relative"
    return (path.parent / m["path"]).resolve()


def schema_validator(schema_file: Path) -> Any:
    """A validator of ``schema_file`` whose references resolve to the files beside it (as an editor does)."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    registry: Registry[Any] = Registry()
    for p in schema_file.parent.glob("*.json"):
        registry = registry.with_resource(p.name, Resource.from_contents(
            json.loads(p.read_text(encoding="utf-8")), default_specification=DRAFT202012))
    return Draft202012Validator(json.loads(schema_file.read_text(encoding="utf-8")), registry=registry)


@pytest.fixture()
def pack(tmp_path: Path) -> Path:
    """A pack with one file of each kind, written by `sgs new`."""
    folder = tmp_path / "my_pack"
    for kind in ("hero", "card", "case", "rules"):
        result = new(folder, kind, f"my_{kind}")
        assert result.exit_code == 0, result.output + result.stderr
    return folder


def test_new_writes_each_kind_in_its_folder(pack: Path) -> None:
    for kind, folder in KIND_FILES.items():
        assert (pack / folder / f"my_{kind}.yaml").is_file()
    assert sorted(p.name for p in (pack / ".sgs" / "schemas").iterdir()) == sorted(p.name for p in SCHEMAS.glob("*.json"))


def test_the_generated_pack_validates_strictly(pack: Path) -> None:
    result = run_cli("validate", "--strict", str(pack))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "content is valid"  # no warning either


@pytest.mark.parametrize("kind", list(KIND_FILES))
def test_each_kind_alone_validates_strictly(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "solo"
    assert new(folder, kind, "solo_one").exit_code == 0
    result = run_cli("validate", "--strict", str(folder))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "content is valid"


def test_rules_skeleton_puts_the_pack_in_the_pool(pack: Path) -> None:
    data = load(pack / "rules" / "my_rules.yaml")
    assert data["extends"] == "identity"
    assert data["add_heroes"] == ["my_pack"] and data["add_cards"] == ["my_pack"]  # on top of identity's


def test_the_pack_id_is_the_folders_name_unless_a_builtin_pack_has_it(tmp_path: Path) -> None:
    mine, clash = tmp_path / "My-Wind Pack", tmp_path / "wind"
    for folder in (mine, clash):
        assert new(folder, "hero", f"h_{len(folder.name)}").exit_code == 0
        assert new(folder, "rules", f"r_{len(folder.name)}").exit_code == 0
        result = run_cli("validate", "--strict", str(folder))
        assert result.exit_code == 0, result.output
    assert load(mine / "heroes" / "h_12.yaml")["pack"] == "my_wind_pack"
    assert load(clash / "heroes" / "h_4.yaml")["pack"] == "wind_pack"  # not the built-in wind pack
    assert load(clash / "rules" / "r_4.yaml")["add_heroes"] == ["wind_pack"]


def test_a_new_file_joins_the_pack_its_folder_already_has(tmp_path: Path) -> None:
    folder = tmp_path / "p"
    assert new(folder, "hero", "first").exit_code == 0
    path = folder / "heroes" / "first.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("pack: p\n", "pack: wei_heroes\n"), encoding="utf-8")
    assert new(folder, "hero", "second").exit_code == 0
    assert load(folder / "heroes" / "second.yaml")["pack"] == "wei_heroes"
    assert run_cli("validate", "--strict", str(folder)).exit_code == 0


def test_a_case_alone_uses_builtin_heroes_and_passes(tmp_path: Path) -> None:
    folder = tmp_path / "cases_only"
    assert new(folder, "case", "first_case").exit_code == 0
    case = folder / "cases" / "first_case.yaml"
    assert load(case)["seats"][0]["hero"] == "diaochan"
    result = run_cli("scenario", "run", str(case))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().endswith("1 passed, 0 failed")


def test_a_case_tests_the_packs_hero_with_the_pack_loaded(pack: Path) -> None:
    case = pack / "cases" / "my_case.yaml"
    data = load(case)
    assert data["seats"][0]["hero"] == "my_hero"  # the hero written before the case
    assert data["decisions"] == [{"my_hero": {"invoke": "my_hero_skill"}}]
    result = run_cli("scenario", "run", "--pack", str(pack), str(case), "-v")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().endswith("1 passed, 0 failed")


def test_every_modeline_resolves_and_the_file_validates_against_it(pack: Path) -> None:
    files = sorted(pack.glob("*/*.yaml"))
    assert len(files) == 4
    for path in files:
        target = modeline_target(path)
        assert target.is_file(), f"{path}: the modeline points to {target}, which does not exist"
        assert target.parent == (pack / ".sgs" / "schemas").resolve()
        errors = list(schema_validator(target).iter_errors(load(path)))
        assert not errors, f"{path}: {[e.message for e in errors]}"


def test_modelines_resolve_after_the_pack_is_moved(pack: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    moved = pack.rename(tmp_path / "elsewhere" / "renamed_pack")
    assert len(list(moved.glob("*/*.yaml"))) == 4
    for path in moved.glob("*/*.yaml"):
        assert modeline_target(path).is_file()


def test_default_pack_is_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli("new", "hero", "here_hero")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "heroes" / "here_hero.yaml").is_file()
    assert (tmp_path / ".sgs" / "schemas" / "heroes.schema.json").is_file()
    assert modeline_target(tmp_path / "heroes" / "here_hero.yaml") == (
        tmp_path / ".sgs" / "schemas" / "heroes.schema.json").resolve()


@pytest.mark.parametrize("name", ["Zhao", "zhao-yun", "9lives", "_x", "", "a b", "zhaoyun.yaml"])
def test_a_bad_name_is_a_usage_error(tmp_path: Path, name: str) -> None:
    result = new(tmp_path / "p", "hero", name)
    assert result.exit_code == 2
    assert "is not a valid id" in result.stderr and "lower case letters, digits and _" in result.stderr
    assert not (tmp_path / "p").exists()  # nothing is written


def test_a_bad_name_gets_a_suggestion(tmp_path: Path) -> None:
    result = new(tmp_path / "p", "card", "Fire-Arrow")
    assert "e.g. 'fire_arrow'" in result.stderr


def test_an_existing_file_is_not_overwritten_without_force(tmp_path: Path) -> None:
    folder = tmp_path / "p"
    assert new(folder, "card", "spark").exit_code == 0
    path = folder / "cards" / "spark.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "# my edit\n", encoding="utf-8")
    result = new(folder, "card", "spark")
    assert result.exit_code == 1
    assert "already exists" in result.stderr and "--force" in result.stderr
    assert path.read_text(encoding="utf-8").endswith("# my edit\n")
    forced = new(folder, "card", "spark", "--force")
    assert forced.exit_code == 0, forced.output + forced.stderr
    assert not path.read_text(encoding="utf-8").endswith("# my edit\n")


def test_an_id_already_taken_is_refused(tmp_path: Path) -> None:
    builtin = new(tmp_path / "p", "hero", "caocao")
    assert builtin.exit_code == 1 and "'caocao' is already the id of a hero" in builtin.stderr
    assert new(tmp_path / "p", "hero", "spark").exit_code == 0
    mine = new(tmp_path / "p", "card", "spark")  # ids of cards and heroes are shared
    assert mine.exit_code == 1 and "'spark' is already the id of a hero" in mine.stderr
    rules = new(tmp_path / "p", "rules", "identity")
    assert rules.exit_code == 1 and "rules file" in rules.stderr


def test_schema_out_writes_every_schema(tmp_path: Path) -> None:
    out = tmp_path / "out" / "schemas"
    result = run_cli("schema", "--out", str(out))
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in SCHEMAS.glob("*.json"))
    assert names and sorted(p.name for p in out.iterdir()) == names
    for name in names:
        assert (out / name).read_bytes() == (SCHEMAS / name).read_bytes()


def test_schema_lists_and_prints(tmp_path: Path) -> None:
    listed = run_cli("schema")
    assert listed.exit_code == 0
    assert [Path(line).name for line in listed.stdout.split()] == sorted(p.name for p in SCHEMAS.glob("*.json"))
    assert all(Path(line).is_file() for line in listed.stdout.split())
    one = run_cli("schema", "heroes")
    assert one.exit_code == 0 and json.loads(one.stdout)["title"] == "A hero pack"
    unknown = run_cli("schema", "hero_pack")
    assert unknown.exit_code == 2 and "no schema 'hero_pack'" in unknown.stderr
