"""The terminal game (sgs_cli/terminal.py), driven by typed lines through the real terminal code."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, Callable, Optional

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from sgs_cli.main import main
from sgs_cli.terminal import Left, TerminalGame, autosave_dir
from sgs_dsl.loader import load_content
from sgs_runtime.records.replay import replay


class Typist:
    """Types lines into the game: ``answer(i, screen)`` gives line ``i`` from what the screen shows so far."""

    def __init__(self, answer: Callable[[int, str], str], limit: int = 30000) -> None:
        self.answer = answer
        self.limit = limit
        self.count = 0
        self.buffer = io.StringIO()
        self.console = Console(file=self.buffer, width=140, color_system=None, highlight=False)

    @property
    def screen(self) -> str:
        return self.buffer.getvalue()

    def last_prompt(self) -> str:
        return self.screen.rsplit("\n", 1)[-1]

    def read(self) -> str:
        if self.count >= self.limit:
            raise AssertionError("the game asked for more lines than the script has")
        line = self.answer(self.count, self.screen)
        self.count += 1
        self.buffer.write(line + "\n")
        return line


def picks(i: int, screen: str) -> str:
    """A player who picks the first choice now and then and takes the stated default otherwise."""
    return "1" if i % 3 == 0 else ""


def game(content: Any, typist: Typist, *, rules: str = "identity", players: int = 5, seed: int = 7,
         record: Optional[dict[str, Any]] = None, save: Optional[Path] = None) -> TerminalGame:
    return TerminalGame(content, content.ruleset(rules), players=players, seed=seed, seat=0, console=typist.console,
                        read=typist.read, record=record, save=save)


def test_a_whole_five_player_game_is_played_to_the_end(content: Any) -> None:
    typist = Typist(picks)
    g = game(content, typist, seed=20).run()  # a long game: the person lives through many turns
    assert g.result is not None and len(g.players) == 5
    screen = typist.screen
    assert "you won." in screen or "you lost." in screen
    assert "Your play phase: use a card or a skill, or end the phase" in screen
    assert "Enter: end the play phase" in screen
    # cards are read by name, not by id; the table tells distances and reach
    assert "杀 Slash" in screen and "slash ♠" not in screen
    assert "in range" in screen and "distance" in screen
    assert "Traceback" not in screen and typist.count > 60


def test_the_role_is_told_before_anything_else(content: Any) -> None:
    typist = Typist(lambda i, s: "")
    tg = game(content, typist, seed=11)
    tg.run()
    me = tg.game.players[0] if tg.game else None
    assert me is not None
    role = content.ruleset("identity").roles[me.role].name
    screen = typist.screen
    told = screen.index(f"Your role: {role.zh} {role.en}")
    assert told < screen.index("Choose your hero")
    assert f"You are {role.zh} {role.en} at seat 0" in screen  # and with the table, every turn


def test_the_hero_choice_shows_hp_kingdom_and_skills(content: Any) -> None:
    typist = Typist(lambda i, s: "info 1" if i == 0 else "")
    game(content, typist, seed=5).run()
    screen = typist.screen
    choice = screen[screen.index("Choose your hero"):]
    first = choice.splitlines()[1]
    assert " HP: " in first and any(k in first for k in ("wei", "shu", "wu", "qun", "god"))
    offered = [h for h in content.heroes.values() if f"{h.name.zh} {h.name.en}" in first]
    # info 1: the skills' texts
    assert any(content.skills[s].text.zh[:20] in choice for h in offered for s in h.skills)


def test_save_mid_game_and_resume_ends_as_the_uninterrupted_game(content: Any, tmp_path: Path) -> None:
    whole = Typist(picks)
    uninterrupted = game(content, whole, seed=23).run()

    # the same player saves at the 6th first question (nothing half chosen there), and leaves
    path = tmp_path / "saved.json"
    state: dict[str, Any] = {"firsts": 0, "at": None}

    def saving(i: int, screen: str) -> str:
        if state["at"] is not None:
            return "quit"
        if "b: back" not in screen.rsplit("\n", 1)[-1]:
            state["firsts"] += 1
            if state["firsts"] == 6:
                state["at"] = i
                return f"save {path}"
        return picks(i, screen)

    first_part = Typist(saving)
    with pytest.raises(Left) as left:
        game(content, first_part, seed=23).run()
    assert left.value.saved is not None and path.is_file()
    assert f"saved to {path}" in first_part.screen
    at = state["at"]
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["table"] == {"seat": 0, "agents": "heuristic"}

    rest = Typist(lambda i, s: picks(at + i, s))
    resumed = game(content, rest, seed=23, record=record).run()
    assert "resumed after" in rest.screen
    assert resumed.result is not None and uninterrupted.result is not None
    assert resumed.result.winners == uninterrupted.result.winners
    assert resumed.log == uninterrupted.log


def test_the_end_of_input_and_ctrl_c_save_the_game(content: Any, tmp_path: Path) -> None:
    for stop in (EOFError, KeyboardInterrupt):
        def reader(i: int, screen: str, stop: type[BaseException] = stop) -> str:
            if i == 25:
                raise stop()
            return picks(i, screen)

        typist = Typist(reader)
        with pytest.raises(Left) as left:
            game(content, typist, seed=29).run()
        saved = left.value.saved
        assert saved is not None and saved.parent == autosave_dir() and saved.is_file()
        record = json.loads(saved.read_text(encoding="utf-8"))
        assert record["decisions"] and record["seed"] == 29
        finish = Typist(picks)
        assert game(content, finish, seed=29, record=record).run().result is not None


def test_back_takes_back_the_target_choice(content: Any) -> None:
    state = {"backed": False, "after": False}

    def reader(i: int, screen: str) -> str:
        prompt = screen.rsplit("\n", 1)[-1]
        tail = screen[-600:]
        if not state["backed"]:
            if "on whom?" in tail and "b: back" in prompt:
                state["backed"] = True
                return "back"
            if "Your play phase" in tail and "b: back" not in prompt:
                # a card with targets: the first whose choice asks for them
                return str(1 + (i // 2) % 3)
            return ""
        return "0" if "Your play phase" in tail and not state["after"] and state.update(after=True) is None else ""

    typist = Typist(reader)
    game(content, typist, seed=23).run()
    screen = typist.screen
    assert state["backed"]
    after = screen[screen.index("back: to the first question"):]
    assert after.index("Your play phase: use a card or a skill, or end the phase") < after.index("0. end the play phase")


def test_why_explains_the_last_resolution(content: Any) -> None:
    asked = {"why": 0}

    def reader(i: int, screen: str) -> str:
        prompt = screen.rsplit("\n", 1)[-1]
        phases = screen.split("Your play phase: use")
        # back at the play phase's menu after using a card: why?
        if len(phases) > 2 and " uses " in phases[-2] and "b: back" not in prompt and "Enter: end the play phase" \
                in prompt and asked["why"] < 1:
            asked["why"] += 1
            return "why"
        return picks(i, screen)

    typist = Typist(reader)
    tg = game(content, typist, seed=23)
    tg.run()
    screen = typist.screen
    assert asked["why"] == 1
    told = screen[screen.index("> why"):].split("Your play phase")[0]
    me = tg.game.players[0].hero.name.zh if tg.game else ""
    assert f"? {me} is asked: play phase" in told and f"{me} uses " in told
    assert "snatch" not in told and "guojia" not in told  # names, not ids


def test_help_lists_the_commands(content: Any) -> None:
    typist = Typist(lambda i, s: "help" if i == 0 else "")
    game(content, typist, seed=2, rules="two_players", players=2).run()
    for word in ("back", "why", "save [FILE]", "quit", "info N"):
        assert word in typist.screen


def test_two_players_from_the_rules_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["play", "--rules", "two_players", "--seed", "4"], input="\n" * 20000)
    assert result.exit_code == 0, result.output[-600:]
    roles = next(line for line in result.output.splitlines() if line.startswith("the roles: "))
    assert roles.count(",") == 1
    result = CliRunner().invoke(main, ["simulate", "--rules", "two_players", "--games", "2"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("2 games, 2 players, rules two_players")


def test_sgs_play_agents_and_resume_through_the_cli(tmp_path: Path) -> None:
    bad = CliRunner().invoke(main, ["play", "--agents", "clever"])
    assert bad.exit_code == 2 and "unknown agents 'clever'" in bad.output
    path = tmp_path / "g.json"
    first = CliRunner().invoke(main, ["play", "--players", "4", "--seed", "8", "--agents", "random",
                                      "--save", str(path)], input="\n" * 3 + f"save {path}\nquit\n")
    assert first.exit_code == 3, first.output[-600:]
    assert f"sgs play --resume {path}" in first.output
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["table"] == {"seat": 0, "agents": "random"} and record["players"] == 4
    again = CliRunner().invoke(main, ["play", "--resume", str(path)], input="\n" * 20000)
    assert again.exit_code == 0, again.output[-600:]
    assert "resumed after" in again.output and ("you won." in again.output or "you lost." in again.output)
    path.write_text("{", encoding="utf-8")
    broken = CliRunner().invoke(main, ["play", "--resume", str(path)])
    assert broken.exit_code == 1 and "is not a game transcript" in broken.output


def test_sgs_play_deals_from_the_pool_asked_for_and_resumes_with_it(tmp_path: Path) -> None:
    """A designer playtests a pack's hero: --heroes-from adds it to the pool, the saved game keeps the pool."""
    pack = Path(__file__).parent.parent / "docs" / "tutorial" / "my_pack"
    heroes = "caocao,liubei,sunquan,guanyu,zhangfei,zhaoyun,machao"
    path = tmp_path / "g.json"
    args = ["play", "--players", "4", "--seed", "8", "--agents", "random", "--pack", str(pack),
            "--heroes", heroes, "--heroes-from", str(pack), "--save", str(path)]
    first = CliRunner().invoke(main, args, input="\n" * 3 + f"save {path}\nquit\n")
    assert first.exit_code == 3, first.output[-600:]
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["hero_pool"] == [*heroes.split(","), "wen_ping"]
    again = CliRunner().invoke(main, ["play", "--pack", str(pack), "--resume", str(path)], input="\n" * 20000)
    assert again.exit_code == 0, again.output[-600:]
    finished = json.loads(path.read_text(encoding="utf-8"))
    game = replay(load_content(packs=[pack]), finished)
    assert game.hero_pool == record["hero_pool"]
    assert all(p.hero.id in record["hero_pool"] for p in game.players)
    refused = CliRunner().invoke(main, ["play", "--pack", str(pack), "--resume", str(path), "--heroes", "caocao"])
    assert refused.exit_code == 2 and "the saved game's own heroes" in refused.output
    small = CliRunner().invoke(main, ["play", "--players", "5", "--heroes", "caocao,liubei"])
    assert small.exit_code == 2 and "the hero pool has 2 hero(es) for 5 players" in small.output


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.text(max_size=12) | st.sampled_from(
    ["b", "back", "0", "-1", "99", "1 1", "1 2 3", "y", "n", "why", "log x", "info 99", "seat 9", "seat -1", "?",
     "table", "hand", "info", "save", "log 5", "info ²", "log ²", "seat ²", "1²", "log 99999999999999999999"]),
    max_size=40))
def test_whatever_is_typed_the_game_goes_on(content: Any, lines: list[str], tmp_path_factory: Any,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path_factory.mktemp("typed"))  # a `save NAME` typed writes here
    typed = [line.replace("\n", " ").replace("\r", " ") for line in lines]
    typist = Typist(lambda i, s: typed[i] if i < len(typed) else "")
    try:
        result = game(content, typist, rules="two_players", players=2, seed=3).run().result
        assert result is not None
    except Left:  # a typed `quit`: the game was saved first
        assert "quit" in [t.strip().lower() for t in typed] or "exit" in [t.strip().lower() for t in typed]


def test_ctrl_c_while_the_bots_play_saves_the_game(content: Any) -> None:
    typist = Typist(picks)
    tg = game(content, typist, seed=29)
    bot = tg.bots[2]
    asked = {"n": 0}
    decide = bot.decide

    def interrupted(req: Any, view: Any) -> Any:
        asked["n"] += 1
        if asked["n"] == 30:
            raise KeyboardInterrupt()
        return decide(req, view)

    bot.decide = interrupted
    with pytest.raises(Left) as left:
        tg.run()
    assert left.value.saved is not None
    record = json.loads(left.value.saved.read_text(encoding="utf-8"))
    finish = Typist(picks)
    assert game(content, finish, seed=29, record=record).run().result is not None
