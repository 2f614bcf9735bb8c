"""A game in the terminal: one person's seat, bots at the others.

The person answers the same requests a bot does, through the presentation model
(:mod:`sgs_runtime.records.present`) of their seat's view: the table, their hand, each
question in words with its choices numbered and what Enter does. Between the
questions the log is told in sentences, as the seat saw it. Commands work at
every prompt (``help`` lists them): ``back`` takes back the last choice not yet
committed, ``why`` explains the last resolution, ``save [FILE]`` saves the game,
``table``, ``hand``, ``log``, ``info N``, ``seat N``, ``quit``.

Nothing a person types ends the game with an error: a choice the game refuses
is told and asked again. The end of input (Ctrl-D) and Ctrl-C save the game
before leaving (:class:`Left`); ``sgs play --resume FILE`` goes on from there
with the same bots in the same state, so a saved game ends as it would have.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Optional, Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sgs_runtime.errors import GameError, IllegalDecision
from sgs_runtime.records import present as P
from sgs_runtime.records.replay import resume, transcript
from sgs_runtime.resolution.game import Game
from sgs_runtime.resolution.requests import PlayRequest, Request
from sgs_runtime.runs.simulate import make_agent
from sgs_runtime.state.definitions import Content, Ruleset
from sgs_runtime.state.seatview import SeatView, ask_agent
from sgs_runtime.state.visibility import log_view

#: what a person may type at any prompt, besides an answer
COMMANDS = {
    "help": "this help (also ?)",
    "back": "take back the last choice of this question (also b), e.g. from the target to the card",
    "why": "explain the last resolution: who was asked what, what they answered, what happened",
    "table": "the table again (also t)",
    "hand": "your hand with the cards' texts (also h)",
    "log [N]": "the last N sentences of the log (default 20)",
    "info N": "the full text of choice N (a card, a skill or a hero)",
    "seat N": "seat N: hero, skills with their texts, equipment, judge area",
    "save [FILE]": "save the game now (default: the --save file, or the autosave file)",
    "quit": "save the game and leave (resume it with sgs play --resume FILE)",
}
ALIASES = {"?": "help", "b": "back", "t": "table", "h": "hand", "exit": "quit"}

SUIT_STYLE = {"red": "bold red", "black": "bold"}
#: how many sentences of the log a resumed game tells again
RECAP = 15


class Left(Exception):
    """The person left the game (quit, the end of input, Ctrl-C); ``saved`` is where it was saved."""

    def __init__(self, saved: Optional[Path]) -> None:
        super().__init__("left the game")
        self.saved = saved


@dataclass
class Session:
    """What the person's commands need from the game beyond their seat's view (saving, explanations, the log)."""

    save: Callable[[Optional[str]], Path]
    why: Callable[[], list[str]]
    log: Callable[[int], list[str]]


def autosave_dir() -> Path:
    """Where a game is saved when no file is named: ``$SGS_SAVE_DIR``, else the user's state folder."""
    env = os.environ.get("SGS_SAVE_DIR")
    if env:
        return Path(env)
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "sgs"


# ------------------------------------------------------------------ drawing


def _card_text(card: dict[str, Any]) -> str:
    """A card model as rich text: its name, and its suit and rank in the suit's colour."""
    if card.get("hidden"):
        return escape(card["label"])
    name = escape(f"{card['name']['zh']} {card['name']['en']}".strip())
    sign = f"{card['suit_sign']}{card['rank_text']}"
    if not sign:
        return name
    style = SUIT_STYLE.get(card.get("color") or "", "")
    return f"{name} [{style}]{escape(sign)}[/]" if style else f"{name} {escape(sign)}"


def _short(text: str, width: int = 72) -> str:
    return text if len(text) <= width else text[:width - 1].rstrip() + "…"


def _hearts(seat: dict[str, Any]) -> str:
    if not seat["alive"]:
        return "[dim]dead[/]"
    hp, top = seat["hp"], seat["max_hp"]
    return f"[red]{'♥' * max(hp, 0)}[/][dim]{'♡' * max(top - max(hp, 0), 0)}[/] {hp}/{top}"


def _role(role: Optional[dict[str, Any]]) -> str:
    return f"{role['name']['zh']} {role['name']['en']}" if role else "?"


def table_view(model: dict[str, Any]) -> Table:
    """The table model as a rich table: one row a seat."""
    t = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    t.add_column("")
    t.add_column("seat", justify="right")
    t.add_column("hero", no_wrap=True)
    t.add_column("role", no_wrap=True)
    t.add_column("HP", no_wrap=True)
    t.add_column("hand", justify="right")
    t.add_column("distance", no_wrap=True)
    t.add_column("equipment, judge area, marks, piles")
    for s in model["seats"]:
        hero = escape(f"{s['hero']['name']['zh']} {s['hero']['name']['en']} ({s['kingdom']})")
        if s["me"]:
            hero = f"[bold cyan]{hero} you[/]"
        extras = [_card_text(c) for c in s["equipment"]]
        extras += ["judge: " + _card_text(c) for c in s["judge"]]
        extras += [f"{escape(m['name'])}×{m['count']}" for m in s["marks"]]
        extras += [escape(f"{p['text']['zh'] or p['name']}: ") + (", ".join(_card_text(c) for c in p["cards"])
                                                                  if p["cards"] else f"{p['count']} face down")
                   for p in s["piles"]]
        if s["chained"]:
            extras.append("chained")
        if s["face_down"]:
            extras.append("turned over")
        if s["me"] or not s["alive"]:
            reach = ""
        elif s["distance"] is None:
            reach = "-"
        else:
            reach = f"{s['distance']}" + (" [green]in range[/]" if s["in_range"] else "")
        t.add_row("[bold yellow]▶[/]" if s["current"] else "", str(s["seat"]), hero,
                  escape(_role(s["role"])), _hearts(s), str(s["hand_count"]), reach, ", ".join(extras))
    return t


def hand_view(model: dict[str, Any], full: bool = False) -> Table:
    """The hand with each card's text (``full``: the whole text, in Chinese and English)."""
    t = Table(box=None, pad_edge=False, show_edge=False, show_header=False)
    t.add_column("card", no_wrap=True)
    t.add_column("text", style="dim")
    for c in model["hand"]:
        en, zh = c["text"]["en"], c["text"]["zh"]
        t.add_row(_card_text(c), escape(f"{zh}\n{en}" if full else _short(en or zh)))
    return t


def _choice_text(choice: dict[str, Any]) -> str:
    if "card" in choice:
        label = _card_text(choice["card"])
        rest = choice["label"][len(choice["card"]["label"]):] if choice["label"].startswith(
            choice["card"]["label"]) else ""
        prefix = "recast " if choice["label"].startswith("recast ") else ""
        return prefix + label + escape(rest)
    return escape(choice["label"])


def _info(choice: dict[str, Any]) -> list[str]:
    """The full texts behind a choice."""
    out = []
    if "card" in choice and not choice["card"].get("hidden"):
        c = choice["card"]
        out.append(f"{_card_text(c)} ({c['type']}): {escape(c['text']['zh'])}")
        out.append(f"  {escape(c['text']['en'])}")
    if "skill" in choice:
        out.extend(_skill_lines(choice["skill"]))
    if "hero" in choice:
        h = choice["hero"]
        out.append(f"{escape(h['name']['zh'])} {escape(h['name']['en'])}: {h['kingdom']}, {h['hp']} HP, {h['gender']}")
        for s in h["skills"]:
            out.extend(_skill_lines(s))
    return out or [escape(choice["label"])]


def _skill_lines(s: dict[str, Any]) -> list[str]:
    kind = " (locked)" if s["locked"] else (" (lord)" if s["lord"] else "")
    return [f"[bold]{escape(s['label'])}[/]{kind}: {escape(s['text']['zh'])}", f"  {escape(s['text']['en'])}"]


# ------------------------------------------------------------------ the person's seat


class HumanAgent:
    """A person at a seat: asked each request step by step through their seat's view."""

    name = "human"

    def __init__(self, seat: int, console: Optional[Console] = None,
                 read: Optional[Callable[[], str]] = None, session: Optional[Session] = None) -> None:
        self.seat = seat
        self.console = console or Console(highlight=False)
        self._read = read or input
        self.session = session

    def say(self, text: str = "") -> None:
        self.console.print(text, highlight=False)

    def show_table(self, view: SeatView) -> None:
        model = P.table_model(view)
        if not model["seated"]:
            self.say(f"[bold]You are {_role(model['role'])}[/] at seat {model['seat']}; the heroes are being "
                     "chosen: the table is shown once everyone has chosen")
            return
        phase = model["phase"]
        current = next((s for s in model["seats"] if s["current"]), None)
        turn = (f" — {current['hero']['name']['zh']}'s {phase['name']['en'].lower()}" if current and phase else "")
        self.say(f"[bold]You are {_role(model['role'])}[/] at seat {model['seat']}; "
                 f"draw pile {model['draw_pile']}{escape(turn)}")
        self.console.print(table_view(model))
        self.say("[bold]Your hand:[/]" + ("" if model["hand"] else " (empty)"))
        if model["hand"]:
            self.console.print(hand_view(model))

    def read(self, prompt: str) -> str:
        """A line typed by the person; the end of input or Ctrl-C leaves the game (after saving)."""
        while True:
            self.console.print(prompt, end="", highlight=False)
            try:
                return self._read()
            except (EOFError, KeyboardInterrupt):
                self.say("")
                raise Left(self._save_quietly()) from None
            except UnicodeDecodeError:
                self.say("that is not text in the terminal's encoding; try again")

    def _save_quietly(self) -> Optional[Path]:
        if self.session is None:
            return None
        try:
            return self.session.save(None)
        except GameError as exc:
            self.say(f"the game could not be saved: {escape(str(exc))}")
            return None

    def decide(self, req: Request, view: SeatView) -> Any:
        self.say("")
        if isinstance(req, PlayRequest):
            self.show_table(view)
        data: dict[str, Any] = {}
        while True:
            try:
                model = P.request_model(req, view, data)
            except P.AnswerError as exc:  # the last choice does not fit: taken back, asked again
                self.say(escape(str(exc)))
                data = P.undo(data)
                continue
            step = model["step"]
            if step is None:
                try:
                    return P.answer_from(req, view, data)
                except P.AnswerError as exc:
                    self.say(escape(str(exc)))
                    data = P.undo(data)
                    continue
            got = self._ask_step(model, step, view)
            if got is _BACK:
                if data:
                    data = P.undo(data)
                    self.say("back: " + ("to the first question" if not data else "one question back"))
                else:
                    self.say("there is nothing to take back: this is the first question")
                continue
            if got is _AGAIN:
                continue
            data = P.give(data, step, got)

    def _ask_step(self, model: dict[str, Any], step: dict[str, Any], view: SeatView) -> Any:
        """Ask one step; its value, or :data:`_BACK` / :data:`_AGAIN` (a command was typed)."""
        self.say(f"[bold]{escape(step['prompt'])}[/]")
        for i, choice in enumerate(step["choices"], 1):
            self.say(f"  {i}. {_choice_text(choice)}")
            for sk in choice.get("hero", {}).get("skills", []):  # a hero to choose: what its skills do
                self.say(f"       [dim]{escape(sk['label'])}: {escape(_short(sk['text']['en'] or sk['text']['zh'], 90))}[/]")
        if step["none_label"]:
            self.say(f"  0. {escape(step['none_label'])}")
        hint = self._hint(step)
        default = f"Enter: {step['default_text']}" if step["default_text"] else "no default"
        back = ", b: back" if model["can_undo"] else ""
        line = self.read(f"{escape(hint)} [dim]({escape(default)}{back}, ?: help)[/] > ")
        text = line.strip()
        word, _, rest = text.partition(" ")
        command = ALIASES.get(word.lower(), word.lower())
        if command in {c.split()[0] for c in COMMANDS}:
            return self._command(command, rest.strip(), step, view)
        try:
            return self._parse(step, text)
        except P.AnswerError as exc:
            self.say(escape(str(exc)))
            return _AGAIN

    @staticmethod
    def _hint(step: dict[str, Any]) -> str:
        n = len(step["choices"])
        if step["field"] == "yes":
            return "y/n"
        if n == 1 and step["min"] == 1:
            return "1 (the only choice)"
        if step["multi"]:
            lo, hi = step["min"], step["max"]
            if hi == 1:
                return f"a number from 1 to {n}" + (" (0: none)" if lo == 0 else "")
            count = f"{lo}" if lo == hi else f"{lo} to {hi}"
            return f"{count} number{'s' if hi != 1 else ''} from 1 to {n}" + (", separated by spaces" if hi > 1 else "") \
                + (" (0: none)" if lo == 0 else "")
        low = 0 if step["none_label"] else 1
        return f"a number from {low} to {n}"

    def _parse(self, step: dict[str, Any], text: str) -> Any:
        """The value a typed line gives a step; :class:`~sgs_runtime.records.present.AnswerError` if it gives none."""
        choices = step["choices"]
        if text == "":
            if not step["default_text"]:
                raise P.AnswerError("this question has no default: type " + self._hint(step))
            return step["default"]
        if step["field"] == "yes":
            low = text.lower()
            if low in ("y", "yes", "1"):
                return True
            if low in ("n", "no", "2"):
                return False
            raise P.AnswerError("type y (yes) or n (no)")
        parts = text.replace(",", " ").split()
        try:
            numbers = [int(p) for p in parts]
        except ValueError:
            raise P.AnswerError(f"type {self._hint(step)} (or ? for help)") from None
        if step["multi"]:
            if numbers == [0] and step["min"] == 0:
                return []
            if any(not 1 <= n <= len(choices) for n in numbers):
                raise P.AnswerError(f"the numbers go from 1 to {len(choices)}")
            if len(set(numbers)) != len(numbers):
                raise P.AnswerError("each number once")
            if not step["min"] <= len(numbers) <= step["max"]:
                raise P.AnswerError(f"choose {P._count_words(step['min'], step['max'], 'one').replace('ones', 'of them')}"
                                    f", not {len(numbers)}")
            return [choices[n - 1]["value"] for n in numbers]
        if len(numbers) != 1:
            raise P.AnswerError(f"type one number: {self._hint(step)}")
        n = numbers[0]
        if n == 0 and step["none_label"]:
            return None
        if not 1 <= n <= len(choices):
            raise P.AnswerError(f"type {self._hint(step)}")
        return choices[n - 1]["value"]

    def _command(self, command: str, arg: str, step: dict[str, Any], view: SeatView) -> Any:
        if command == "back":
            return _BACK
        if command == "help":
            self.say("Answer with the numbers shown; Enter takes the default the prompt states.")
            for name, text in COMMANDS.items():
                self.say(f"  [bold]{escape(name)}[/]: {escape(text)}")
        elif command == "table":
            self.show_table(view)
        elif command == "hand":
            model = P.table_model(view)
            self.console.print(hand_view(model, full=True) if model["hand"] else "your hand is empty")
        elif command == "info":
            choice = self._numbered(arg, step["choices"])
            if choice is not None:
                for line in _info(choice):
                    self.say(line)
        elif command == "seat":
            self._seat(arg, view)
        elif command == "why":
            lines = self.session.why() if self.session else []
            for line in lines or ["nothing has been resolved yet"]:
                self.say(escape(line))
        elif command == "log":
            n = int(arg) if arg.isdecimal() else 20
            for line in (self.session.log(n) if self.session else []):
                self.say(escape(line))
        elif command == "save":
            if self.session is None:
                self.say("this game cannot be saved")
            else:
                try:
                    path = self.session.save(arg or None)
                    self.say(f"saved to {escape(str(path))}: go on later with `sgs play --resume {escape(str(path))}`")
                except GameError as exc:
                    self.say(escape(str(exc)))
        elif command == "quit":
            raise Left(self._save_quietly())
        return _AGAIN

    def _numbered(self, arg: str, choices: Sequence[dict[str, Any]]) -> Optional[dict[str, Any]]:
        if not arg.isdecimal() or not 1 <= int(arg) <= len(choices):
            self.say(f"info takes the number of a choice, from 1 to {len(choices)}" if choices
                     else "there is nothing numbered to tell about here")
            return None
        return choices[int(arg) - 1]

    def _seat(self, arg: str, view: SeatView) -> None:
        model = P.table_model(view)
        if not model["seated"]:
            self.show_table(view)
            return
        if not arg.isdecimal() or not 0 <= int(arg) < len(model["seats"]):
            self.say(f"seat takes a seat number, from 0 to {len(model['seats']) - 1}")
            return
        s = model["seats"][int(arg)]
        self.say(f"[bold]{escape(s['hero']['name']['zh'])} {escape(s['hero']['name']['en'])}[/], {s['kingdom']}, "
                 f"{_hearts(s)}, {s['hand_count']} hand card(s), role {_role(s['role'])}")
        for sk in s["skills"]:
            for line in _skill_lines(sk):
                self.say("  " + line)
        for c in s["equipment"] + s["judge"]:
            self.say(f"  {_card_text(c)}: {escape(c['text']['en'])}")


_BACK = object()
_AGAIN = object()


# ------------------------------------------------------------------ the game


class TerminalGame:
    """A game with a person at ``seat`` and bots of ``agents`` (simulate's spec) elsewhere."""

    def __init__(self, content: Content, rules: Ruleset, *, players: int, seed: int, seat: int,
                 agents: str = "heuristic", console: Optional[Console] = None,
                 read: Optional[Callable[[], str]] = None, save: Optional[Path] = None,
                 log_sink: Optional[IO[str]] = None, record: Optional[dict[str, Any]] = None,
                 hero_pool: Optional[list[str]] = None) -> None:
        self.content = content
        self.rules = rules
        self.players = players
        self.seed = seed
        self.seat = seat
        self.agents_spec = agents
        self.console = console or Console(highlight=False)
        self.save_path = save
        self.log_sink = log_sink
        self.record = record
        self.hero_pool = hero_pool  # the heroes a new game deals from (a resumed game keeps its own)
        self.bots = [make_agent(agents, seed * 31 + i) for i in range(players)]
        self.human = HumanAgent(seat, self.console, read, Session(self.save, self.why, self.log_tail))
        self.game: Optional[Game] = None
        self.shown = 0

    # the person's commands
    def save(self, name: Optional[str]) -> Path:
        """Write the game so far (its transcript and who sits where) and return the file."""
        assert self.game is not None
        path = Path(name) if name else (self.save_path or autosave_dir() / f"game-{self.seed}.json")
        record = transcript(self.game)
        record["table"] = {"seat": self.seat, "agents": self.agents_spec}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
        except (OSError, ValueError) as exc:  # a folder that cannot be made, a name with a NUL ...
            raise GameError(f"the game could not be saved to {path}: "
                            f"{getattr(exc, 'strerror', None) or exc}") from None
        return path

    def why(self) -> list[str]:
        """The last resolution explained, as this seat may know it: from the last thing done in a play
        phase (or the last phase begun), every event, who was asked and what they answered."""
        g = self.game
        assert g is not None
        trace = g.trace or []
        done = [int(t["at"]) for t in trace
                if t.get("event") == "asked" and t.get("kind") == "play" and not t.get("declined")]
        phases = [int(r["seq"]) for r in g.log if r.get("event") == "phase"]
        start = 0
        for at in sorted(set(done + phases), reverse=True):  # the latest start that something followed
            if any(r.get("event") != "phase" for r in g.log[at:]):
                start = at
                break
        notes = [{**t, "at": int(t["at"]) - start} for t in trace if int(t["at"]) >= start]
        view = g.view_for(self.seat)
        return P.log_lines(log_view(g.log[start:], self.seat), view, notes)

    def log_tail(self, n: int) -> list[str]:
        g = self.game
        assert g is not None
        return P.log_lines(log_view(g.log, self.seat), g.view_for(self.seat))[-n:]

    # playing
    def _tell_news(self) -> None:
        g = self.game
        assert g is not None
        for line in P.log_lines(log_view(g.log[self.shown:], self.seat), g.view_for(self.seat)):
            self.console.print(escape(line), highlight=False)
        self.shown = len(g.log)

    def _start(self) -> Optional[Request]:
        if self.record is None:
            self.game = Game(self.content, self.rules, players=self.players, seed=self.seed,
                             log_sink=self.log_sink, trace=True, hero_pool=self.hero_pool)
            return self.game.start()

        def watch(game: Game, req: Request, answer: Any) -> None:
            """A bot sees the saved game again, as it saw it then: it ends up in the state it was in."""
            if req.player.seat != self.seat:
                ask_agent(game, self.bots[req.player.seat], req)

        def warn(note: str) -> None:
            self.console.print(f"warning: {escape(note)}", highlight=False)

        self.game, req = resume(self.content, self.record, warn=warn, watch=watch, trace=True,
                                log_sink=self.log_sink)
        self.console.print(f"resumed after {len(self.record['decisions'])} decisions; the last events:",
                           highlight=False)
        for line in P.log_lines(log_view(self.game.log, self.seat), self.game.view_for(self.seat))[-RECAP:]:
            self.console.print(escape(line), highlight=False)
        self.shown = len(self.game.log)
        return req

    def run(self) -> Game:
        """Play to the end (or until the person leaves: :class:`Left`); return the game.

        Ctrl-C while the bots play saves the game and leaves too (the decisions so far are whole)."""
        try:
            return self._run()
        except KeyboardInterrupt:
            if self.game is None:
                raise Left(None) from None
            self.console.print("")
            raise Left(self.human._save_quietly()) from None

    def _run(self) -> Game:
        req = self._start()
        g = self.game
        assert g is not None
        me = g.players[self.seat]
        self.console.print(f"seed {self.seed}: you are seat {self.seat}", highlight=False)
        told_role = False
        told_death = False
        while req is not None:
            if not told_role and me.role:
                rd = self.rules.roles.get(me.role)
                name = f"{rd.name.zh} {rd.name.en}" if rd else me.role
                self.console.print(f"[bold]Your role: {escape(name)}[/]", highlight=False)
                told_role = True
            self._tell_news()
            if not me.alive and not told_death and g.current is not None:
                self.console.print("[bold]You are dead[/]: the game goes on among the others until it is decided",
                                   highlight=False)
                told_death = True
            if req.player.seat != self.seat:
                req = g.answer(ask_agent(g, self.bots[req.player.seat], req))  # a bot's refusal is an engine error
                continue
            answer = ask_agent(g, self.human, req)
            try:
                req = g.answer(answer)
            except IllegalDecision as exc:  # the same request is still pending: asked again
                self.console.print(f"not allowed: {escape(str(exc))}", highlight=False)
        self._tell_news()
        self._tell_result()
        return g

    def _tell_result(self) -> None:
        g = self.game
        assert g is not None and g.result is not None
        me = g.players[self.seat]
        won = me.name in g.result.winners
        roles = ", ".join(f"{p.hero.name.zh} {self._role_name(p.role)}" for p in g.players)
        self.console.print(f"\n{escape(g.result.reason)}: {', '.join(g.result.winner_roles) or 'nobody'} won — "
                           f"you were {me.role}; you {'won' if won else 'lost'}.", highlight=False)
        self.console.print(f"the roles: {escape(roles)}", highlight=False)

    def _role_name(self, role: str) -> str:
        rd = self.rules.roles.get(role)
        return f"{rd.name.zh} {rd.name.en}" if rd else role


def play_terminal(content: Content, rules: Ruleset, players: int, seed: int, seat: int,
                  log_file: Optional[Path], save: Optional[Path] = None, agents: str = "heuristic",
                  record: Optional[dict[str, Any]] = None, console: Optional[Console] = None,
                  read: Optional[Callable[[], str]] = None, hero_pool: Optional[list[str]] = None) -> Game:
    """Play one game in the terminal (``record``: go on with a saved one); save it at the end to ``save``.
    ``hero_pool``: the heroes the game deals from (None: the rules' own)."""
    try:
        sink = log_file.open("w", encoding="utf-8") if log_file else None
    except OSError as exc:
        raise GameError(f"the event log cannot be written to {log_file}: {exc.strerror or exc}") from None
    try:
        tg = TerminalGame(content, rules, players=players, seed=seed, seat=seat, agents=agents, console=console,
                          read=read, save=save, log_sink=sink, record=record, hero_pool=hero_pool)
        game = tg.run()
        if save is not None:
            path = tg.save(str(save))
            tg.console.print(f"saved: replay it with `sgs replay {escape(str(path))}`", highlight=False)
        return game
    finally:
        if sink:
            sink.close()
