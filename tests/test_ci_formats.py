"""CI formats of `sgs validate` and `sgs scenario run`: SARIF, GitHub annotations, JUnit, the pre-commit hook."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from conftest import FIXTURES, PASSING_CASE, ROOT, run_cli

from sgs_dsl.errors import CODES, Diagnostic, format_diagnostics, github_data, github_property

SARIF_SCHEMA = json.loads((FIXTURES / "sarif" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))

#: a valid hero pack with one warning (a skill nobody has) ...
WARNING_PACK = (FIXTURES / "lint" / "ci_pack.yaml").read_text(encoding="utf-8")
#: ... and with an error too (a misspelt card)
BAD_PACK = WARNING_PACK.replace("event.pattern == jink", "event.pattern == jnik")


def sarif_of(*args: str) -> dict[str, Any]:
    result = run_cli("validate", "--format", "sarif", *args)
    log = json.loads(result.stdout)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    return {"exit": result.exit_code, "log": log}


def validator_errors(log: Any) -> list[str]:
    return [e.message for e in jsonschema.Draft4Validator(SARIF_SCHEMA).iter_errors(log)]


# ------------------------------------------------------------------ SARIF


def test_the_vendored_schema_is_the_official_one() -> None:
    jsonschema.Draft4Validator.check_schema(SARIF_SCHEMA)
    assert SARIF_SCHEMA["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    # the check is real: a log that breaks the schema is refused
    assert validator_errors({"version": "2.1.0", "runs": [{"tool": {}}]})
    assert validator_errors({"version": "2.0.0", "runs": []})


def test_sarif_of_the_builtin_content_is_valid_and_empty() -> None:
    got = sarif_of()
    assert got["exit"] == 0
    (run,) = got["log"]["runs"]
    assert got["log"]["version"] == "2.1.0"
    assert run["results"] == []
    driver = run["tool"]["driver"]
    assert driver["name"] == "sgs" and driver["version"]
    ids = [r["id"] for r in driver["rules"]]
    assert set(ids) == set(CODES)
    for rule in driver["rules"]:
        assert rule["help"]["text"] and rule["shortDescription"]["text"] == CODES[rule["id"]]
        assert rule["defaultConfiguration"]["level"] == ("warning" if rule["id"].startswith("W") else "error")


def test_sarif_results_have_rule_level_message_and_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pack = tmp_path / "heroes" / "ci.yaml"
    pack.parent.mkdir()
    pack.write_text(BAD_PACK, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    got = sarif_of("heroes/ci.yaml")
    assert got["exit"] == 1
    (run,) = got["log"]["runs"]
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == tmp_path.resolve().as_uri() + "/"
    rules = run["tool"]["driver"]["rules"]
    by_rule = {r["ruleId"]: r for r in run["results"]}
    # an error: the misspelt card, where it is written
    err = by_rule["E300"]
    assert err["level"] == "error" and "jnik" in err["message"]["text"]
    assert rules[err["ruleIndex"]]["id"] == "E300"
    (loc,) = err["locations"]
    assert loc["physicalLocation"]["artifactLocation"] == {"uri": "heroes/ci.yaml", "uriBaseId": "SRCROOT"}
    line = BAD_PACK.splitlines().index("      if: event.pattern == jnik") + 1
    region = loc["physicalLocation"]["region"]
    assert region["startLine"] == line
    assert region["startColumn"] == BAD_PACK.splitlines()[line - 1].index("jnik") + 1
    # warnings are not reported while there are errors (they may follow from them) ...
    assert "W402" not in by_rule
    # ... and once the errors are fixed, a warning is a result of level warning, with where it ends
    pack.write_text(WARNING_PACK, encoding="utf-8")
    got = sarif_of("heroes/ci.yaml")
    assert got["exit"] == 0
    (warn,) = got["log"]["runs"][0]["results"]
    assert warn["ruleId"] == "W402" and warn["level"] == "warning" and "ci_lonely" in warn["message"]["text"]
    region = warn["locations"][0]["physicalLocation"]["region"]
    line = WARNING_PACK.splitlines().index("  - id: ci_lonely") + 1
    assert (region["startLine"], region["startColumn"]) == (line, 9)
    assert (region["endLine"], region["endColumn"]) == (line, 9 + len("ci_lonely"))
    assert sarif_of("heroes/ci.yaml", "--strict")["exit"] == 1


def test_sarif_uris_are_encoded_and_absolute_outside_the_working_folder(tmp_path: Path) -> None:
    odd = Diagnostic("a b,c:d/ü.yaml", 3, 4, "E300", "x")
    outside = Diagnostic(str(tmp_path / "pack.yaml"), 1, 1, "W401", "y", "warning")
    log = json.loads(format_diagnostics([odd, outside], "sarif"))  # sorted: the absolute path first
    assert not validator_errors(log)
    b, a = (r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"])
    assert a == {"uri": "a%20b%2Cc%3Ad/%C3%BC.yaml", "uriBaseId": "SRCROOT"}
    assert b == {"uri": (tmp_path / "pack.yaml").as_uri()}


def test_every_code_is_documented() -> None:
    language = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    cli = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for code in CODES:
        assert f"| {code} |" in (cli if code.startswith("W") else language), code


# ------------------------------------------------------------------ GitHub annotations


def test_github_escapes_properties_and_data() -> None:
    assert github_property("a%b\r\nc:d,e") == "a%25b%0D%0Ac%3Ad%2Ce"
    assert github_data("50% done\r\nnext: a,b") == "50%25 done%0D%0Anext: a,b"
    d = Diagnostic("dir/a,b:c.yaml", 2, 5, "E300", "unknown card 'x'\nsecond line 100%")
    assert d.github() == ("::error file=dir/a%2Cb%3Ac.yaml,line=2,col=5::"
                          "E300 unknown card 'x'%0Asecond line 100%25")


def test_validate_github_with_an_odd_file_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a,b:c.yaml").write_text(BAD_PACK, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run_cli("validate", "a,b:c.yaml", "--format", "github")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines and all(line.startswith("::error file=a%2Cb%3Ac.yaml,line=") for line in lines), lines
    m = re.match(r"^::error file=([^,]*),line=(\d+),col=(\d+)::(E\d{3}) (.*)$", lines[0])
    assert m and m.group(4) == "E300"
    # a warning is a ::warning annotation
    (tmp_path / "a,b:c.yaml").write_text(WARNING_PACK, encoding="utf-8")
    result = run_cli("validate", "a,b:c.yaml", "--format", "github")
    assert result.exit_code == 0
    assert result.stdout.startswith("::warning file=a%2Cb%3Ac.yaml,line=")
    assert "W402" in result.stdout


# ------------------------------------------------------------------ warnings in every format


def test_warnings_in_text_and_json_and_strict(tmp_path: Path) -> None:
    pack = tmp_path / "ci.yaml"
    pack.write_text(WARNING_PACK, encoding="utf-8")
    result = run_cli("validate", str(pack))
    assert result.exit_code == 0
    *found, summary = result.stdout.splitlines()
    assert summary == "content is valid, with 1 warning(s)"
    assert len(found) == 1 and ": W402 skill 'ci_lonely' is not used" in found[0]
    result = run_cli("validate", str(pack), "--strict")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == "1 warning(s) (--strict: warnings fail the check)"
    result = run_cli("validate", str(pack), "--format", "json")
    assert result.exit_code == 0
    (d,) = json.loads(result.stdout)
    assert d["code"] == "W402" and d["severity"] == "warning" and d["line"] > 1


def test_the_builtin_content_has_no_warning() -> None:
    result = run_cli("validate", "--strict")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "content is valid"


# ------------------------------------------------------------------ rule cases in sgs validate


def test_validate_a_rule_case_file(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(PASSING_CASE, encoding="utf-8")
    result = run_cli("validate", str(good))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "content is valid"
    bad = tmp_path / "bad.yaml"
    bad.write_text(PASSING_CASE.replace("hero: guanyu", "hero: guanyuu").replace("stop:", "stopp:"),
                   encoding="utf-8")
    result = run_cli("validate", str(bad))
    assert result.exit_code == 1
    assert "cannot tell what this file is" not in result.stdout
    assert "E110 unknown key 'stopp'" in result.stdout  # its schema first
    bad.write_text(PASSING_CASE.replace("hero: guanyu", "hero: guanyuu"), encoding="utf-8")
    result = run_cli("validate", str(bad))
    assert result.exit_code == 1
    line = PASSING_CASE.splitlines().index("  - hero: guanyu") + 1
    assert f"bad.yaml:{line}:11: E300 unknown hero 'guanyuu' (did you mean 'guanyu'?)" in result.stdout


def test_validate_a_folder_of_rule_cases_and_a_pack_with_cases(tmp_path: Path) -> None:
    result = run_cli("validate", str(ROOT / "tests" / "scenarios" / "cards"))
    assert result.exit_code == 0, result.output
    pack = tmp_path / "pack"
    (pack / "heroes").mkdir(parents=True)
    (pack / "heroes" / "ci.yaml").write_text(WARNING_PACK.replace("[ci_steady]", "[ci_steady, ci_lonely]"),
                                             encoding="utf-8")
    (pack / "cases").mkdir()
    (pack / "cases" / "one.yaml").write_text(PASSING_CASE.replace("hero: guanyu", "hero: ci_tester"),
                                             encoding="utf-8")
    assert run_cli("validate", str(pack)).exit_code == 0
    (pack / "cases" / "two.yaml").write_text(PASSING_CASE.replace("hero: guanyu", "hero: ci_testr"),
                                             encoding="utf-8")
    result = run_cli("validate", str(pack))
    assert result.exit_code == 1
    assert "two.yaml" in result.stdout and "did you mean 'ci_tester'" in result.stdout


# ------------------------------------------------------------------ sgs scenario run


@pytest.fixture()
def two_cases(tmp_path: Path) -> Path:
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "ok.yaml").write_text(PASSING_CASE, encoding="utf-8")
    (folder / "a,b:c.yaml").write_text(PASSING_CASE.replace("name: Ex Nihilo draws two", "name: fails % here")
                                       .replace("hand: [slash S7, jink D2]", "hand: [slash S7]"), encoding="utf-8")
    return folder


def test_scenario_run_github(two_cases: Path) -> None:
    result = run_cli("scenario", "run", str(two_cases), "--format", "github")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    (ann,) = [line for line in lines if line.startswith("::")]
    assert re.match(r"^::error file=[^,]*a%2Cb%3Ac\.yaml,line=\d+,title=rule case failed::fails %25 here: ", ann), ann
    assert lines[-1] == "1 passed, 1 failed"


def test_scenario_run_junit(two_cases: Path, tmp_path: Path) -> None:
    result = run_cli("scenario", "run", str(two_cases), "--format", "junit")
    assert result.exit_code == 1
    root = ET.fromstring(result.stdout)  # stdout holds the XML alone
    assert root.tag == "testsuites" and root.get("tests") == "2" and root.get("failures") == "1"
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 2
    failing = [c for c in cases if c.find("failure") is not None]
    (bad,) = failing
    assert bad.get("name") == "fails % here" and bad.get("file", "").endswith("a,b:c.yaml")
    failure = bad.find("failure")
    assert failure is not None and "zhangfei" in failure.get("message", "")
    out = tmp_path / "report.xml"
    result = run_cli("scenario", "run", str(two_cases), "--format", "junit", "--output", str(out))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == "1 passed, 1 failed"  # the text report still goes to stdout
    assert ET.parse(out).getroot().get("failures") == "1"


def test_scenario_run_usage_errors(two_cases: Path, tmp_path: Path) -> None:
    assert run_cli("scenario", "run", str(two_cases), "--json", "--format", "junit").exit_code == 2
    assert run_cli("scenario", "run", str(two_cases), "--output", str(tmp_path / "x")).exit_code == 2
    assert run_cli("scenario", "run", str(two_cases), "--format", "junit",
                   "--output", str(tmp_path / "no" / "x.xml")).exit_code == 2
    result = run_cli("scenario", "run", str(two_cases), "--format", "json")
    assert json.loads(result.stdout)["failed"] == 1


# ------------------------------------------------------------------ the pre-commit hook


HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))


def _content_repo(root: Path, pack: str) -> Path:
    (root / "heroes").mkdir(parents=True)
    (root / "heroes" / "ci.yaml").write_text(pack, encoding="utf-8")
    (root / "README.md").write_text("a content repository\n", encoding="utf-8")
    return root


def test_the_hook_definition() -> None:
    (hook,) = HOOKS
    assert hook["id"] == "sgs-validate" and hook["entry"] == "sgs validate" and hook["language"] == "python"
    files = re.compile(hook["files"])
    for name in ("cards/a.yaml", "heroes/b.yml", "rules/c.yaml", "mod/heroes/d.yaml"):
        assert files.search(name), name
    for name in ("README.md", "tests/scenarios/x.yaml", "heroes/notes.txt"):
        assert not files.search(name), name


def test_the_hook_entry_runs_on_a_content_repository(tmp_path: Path) -> None:
    """The hook as pre-commit runs it: its entry and args, in the repository's top folder."""
    (hook,) = HOOKS
    exe = shutil.which("sgs") or str(Path(sys.executable).with_name("sgs"))
    command = [exe, *hook["entry"].split()[1:], *hook.get("args", [])]
    good = _content_repo(tmp_path / "good", WARNING_PACK.replace("[ci_steady]", "[ci_steady, ci_lonely]"))
    proc = subprocess.run(command, cwd=good, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    bad = _content_repo(tmp_path / "bad", BAD_PACK)
    proc = subprocess.run(command, cwd=bad, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "heroes/ci.yaml:" in proc.stdout and "jnik" in proc.stdout


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=sgs-test", "-c", "user.email=sgs-test@example.invalid",
                    "-c", "commit.gpgsign=false", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def test_pre_commit_try_repo(tmp_path: Path) -> None:
    """A real `pre-commit try-repo` of this repository's hook in a content repository."""
    pre_commit = shutil.which("pre-commit") or str(Path(sys.executable).with_name("pre-commit"))
    if not Path(pre_commit).exists() or shutil.which("git") is None:
        pytest.skip("pre-commit is not installed (pip install pre-commit, or the 'test' extra): "
                    "test_the_hook_entry_runs_on_a_content_repository runs the hook's entry instead")
    # the hook's repository: this project's files as they are now, committed in a fresh repository
    hook_repo = tmp_path / "hook"
    hook_repo.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md", ".pre-commit-hooks.yaml", "tools/build_backend.py"):
        (hook_repo / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, hook_repo / name)
    for name in ("sgs_dsl", "sgs_runtime", "sgs_cli", "sgs_web", "sgs_content", "cards", "heroes", "rules"):
        shutil.copytree(ROOT / name, hook_repo / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _git("init", "-q", cwd=hook_repo)
    _git("add", "-A", cwd=hook_repo)
    _git("commit", "-q", "-m", "hook", cwd=hook_repo)
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))  # SGS_CACHE_DIR: the tests' own

    def try_repo(repo: Path) -> subprocess.CompletedProcess[str]:
        _git("init", "-q", cwd=repo)
        _git("add", "-A", cwd=repo)
        return subprocess.run([pre_commit, "try-repo", str(hook_repo), "sgs-validate", "--all-files", "--verbose"],
                              cwd=repo, capture_output=True, text=True, timeout=240, env=env)

    good = try_repo(_content_repo(tmp_path / "good", WARNING_PACK))
    assert good.returncode == 0, good.stdout + good.stderr
    assert "W402" in good.stdout  # the warning is shown, and does not fail the commit
    bad = try_repo(_content_repo(tmp_path / "bad", BAD_PACK))
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "E300" in bad.stdout and "jnik" in bad.stdout
