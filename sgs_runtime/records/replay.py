"""Reproducing a game from its seed and its decision log.

Every answered request is recorded in :attr:`Game.decisions` in a form that names
cards by their id and players by their seat, so it can be written as JSON and
played back exactly::

    >>> from sgs_dsl.loader import load_content
    >>> from sgs_runtime.agents import RandomAgent
    >>> from sgs_runtime.resolution.game import Game
    >>> content = load_content()
    >>> g = Game(content, content.ruleset(), players=4, seed=5)
    >>> _ = g.play([RandomAgent(i) for i in range(4)])
    >>> again = replay(content, transcript(g))
    >>> again.log == g.log
    True

The transcript (:func:`transcript`) holds the engine version, the content's
fingerprint (:func:`content_fingerprint`), the rules id, the number of players,
the seed, the options and the decisions; ``sgs play --save FILE`` writes one and
``sgs replay FILE`` plays it back. A transcript is checked field by field before
it is played (:class:`TranscriptError` names the decision at fault), and it is
refused against content other than the one it was played with
(:class:`ContentMismatch`) unless ``force`` is given.
"""

from __future__ import annotations

import copy
import hashlib
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

from sgs_runtime.errors import GameError, IllegalDecision, SgsError, did_you_mean
from sgs_runtime.native import mypyc_attr
from sgs_runtime.resolution.requests import (
    ArrangeRequest,
    CardsRequest,
    CheckedAction,
    CheckedResponse,
    ConfirmRequest,
    OptionRequest,
    PlayAction,
    PlayersRequest,
    PlayRequest,
    Request,
    RespondRequest,
    Response,
)
from sgs_runtime.state.model import Card, Player
from sgs_runtime.version import engine_version

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.state.definitions import Content


def encode(answer: Any) -> Any:
    """An answer in JSON form: cards by id, players by seat."""
    if answer is None or isinstance(answer, (bool, int, str)):  # (most answers: end the phase, decline, yes, an index)
        return answer
    if isinstance(answer, Card):
        return answer.id
    if isinstance(answer, Player):
        return answer.seat
    if isinstance(answer, (PlayAction, CheckedAction)):  # (an agent's action, or the form the game took it in)
        given: Any = answer  # (each field read once)
        out: dict[str, Any] = {"card": encode(given.card), "skill": given.skill, "cards": encode(given.cards),
                               "targets": encode(given.targets), "secondary": encode(given.secondary),
                               "view_as": given.view_as}
        if given.recast:
            out["recast"] = True
        as_card = given.as_card
        if as_card:
            out["as"] = as_card
        return out
    if isinstance(answer, (Response, CheckedResponse)):
        given = answer
        out = {"card": encode(given.card), "skill": given.skill, "cards": encode(given.cards),
               "view_as": given.view_as}
        as_card = given.as_card
        if as_card:
            out["as"] = as_card
        return out
    if isinstance(answer, (list, tuple)):  # (cards and players, the most common items, at once)
        return [a.id if isinstance(a, Card) else a.seat if isinstance(a, Player) else encode(a) for a in answer]
    return answer


# How the decision log keeps an answer (the tag of a kept decision): encode()'s form frozen into tuples
# of plain values (which the cyclic collector stops walking after its first look), or the checked form
# of a play action or a response itself, read back into encode()'s form.
_ATOM = 0  # None, a bool, an int (an index, a card id, a seat) or a string: the answer itself
_IDS = 1  # a list of cards or players: their ids and seats
_NESTED = 2  # lists of cards (an arrangement: top and bottom)
_CHECKED = 3  # a play action's CheckedAction or a response's CheckedResponse (which do not change)
_JSON = 4  # anything else: encode()'s form as it is


def _ints(value: Any) -> bool:
    """Whether ``value`` is a list of ints (an encoded list of cards and players)."""
    return isinstance(value, list) and all(type(v) is int for v in value)


@mypyc_attr(serializable=True)
class DecisionLog:
    """Every answered request of a game, in order (:attr:`Game.decisions`): a sequence of
    ``{"player": seat, "kind": request kind, "answer": ...}`` in their JSON form (:func:`encode`).

    Each decision is kept as one tuple (of plain values, or the :class:`CheckedAction` or
    :class:`CheckedResponse` the request made of the answer, which does not change) and read back into
    that form when asked for: the log, which lives as long as its game, is made of few objects, and what
    it gives out is a fresh copy, which the reader may change.

    >>> log = DecisionLog()
    >>> log.add(2, "option", 1); log.add(0, "play", None)
    >>> len(log), log[0], log[-1]["kind"]
    (2, {'player': 2, 'kind': 'option', 'answer': 1}, 'play')
    >>> log == [{"player": 2, "kind": "option", "answer": 1}, {"player": 0, "kind": "play", "answer": None}]
    True
    """

    def __init__(self) -> None:
        self._kept: list[tuple[int, str, int, Any]] = []

    def add(self, seat: int, kind: str, answer: Any) -> None:
        """Keep ``seat``'s ``answer`` to a request of ``kind`` (as :func:`encode` writes it)."""
        if isinstance(answer, (CheckedAction, CheckedResponse)):  # (itself: its fields are tuples; ids and seats stay)
            self._kept.append((seat, kind, _CHECKED, answer))
            return
        got = encode(answer)
        if not isinstance(got, (list, dict)):
            self._kept.append((seat, kind, _ATOM, got))
        elif _ints(got):
            self._kept.append((seat, kind, _IDS, tuple(got)))
        elif isinstance(got, list) and all(_ints(part) for part in got):
            self._kept.append((seat, kind, _NESTED, tuple([tuple(part) for part in got])))
        else:
            self._kept.append((seat, kind, _JSON, got))

    def __len__(self) -> int:
        return len(self._kept)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [_decision(k) for k in self._kept[index]]
        return _decision(self._kept[index])

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for k in self._kept:
            yield _decision(k)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (DecisionLog, list)):
            return list(self) == list(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        if isinstance(other, (DecisionLog, list)):
            return list(self) != list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # (changes as the game goes on, as a list)

    def __repr__(self) -> str:
        return repr(list(self))


Sequence.register(DecisionLog)


def _decision(kept: tuple[int, str, int, Any]) -> dict[str, Any]:
    """A kept decision in its JSON form."""
    seat, kind, tag, got = kept
    answer: Any
    if tag == _ATOM:
        answer = got
    elif tag == _IDS:
        answer = list(got)
    elif tag == _NESTED:
        answer = [list(part) for part in got]
    elif tag == _CHECKED:
        answer = encode(got)
    else:
        answer = copy.deepcopy(got)  # (what the log gives out is the reader's)
    return {"player": seat, "kind": kind, "answer": answer}


#: the fields of a transcript, and what each holds
FIELDS = {
    "engine_version": "the version of the engine that played it (sgs-engine)",
    "content_fingerprint": "a hash of the content files it was played with",
    "rules": "the rules file id",
    "players": "the number of players",
    "seed": "the game's seed",
    "options": "the rules options that differ from the rules file's",
    "decisions": "every answered request: {player: seat, kind: request kind, answer}",
    "table": "who sat where, for resuming a saved game (optional): {seat: the person's seat, agents: the bots' spec}",
    "hero_pool": "the hero ids the heroes were chosen from, when not the rules' whole pool (optional)",
    "deal": "a designed deal of the heroes (a fair pool): role -> the heroes its seats got, in seat order (optional)",
}
REQUIRED = ("rules", "players", "seed", "decisions")
#: request kinds a decision may name
KINDS = ("play", "respond", "confirm", "cards", "players", "option", "order", "arrange")
PLAY_FIELDS = {"card", "skill", "cards", "targets", "secondary", "view_as"}
PLAY_OPTIONAL = {"recast", "as"}
RESPOND_FIELDS = {"card", "skill", "cards", "view_as"}
RESPOND_OPTIONAL = {"as"}


class TranscriptError(GameError):
    """A transcript that is not well formed: a field of the wrong type, a missing key, an unknown seat ..."""


class ContentMismatch(GameError):
    """A transcript played with other content than the one it is replayed against."""


class TranscriptWarning(UserWarning):
    """Something a replay should tell its user (an old transcript, another engine version, ``force``)."""


def content_fingerprint(content: "Content") -> Optional[str]:
    """A stable hash of the content: of every loaded file's bytes, in load order (``sha256:...``).

    The same files give the same fingerprint in every process and on every machine: file names and
    folders do not count, line endings are normalised (a checkout with CRLF is the same content), and
    the order is the loader's (sorted within each folder), which is the order that decides the deck.
    ``None`` when a loaded file cannot be read back (it was moved since it was loaded)."""
    cached = content.__dict__.get("_fingerprint", False)
    if cached is not False:
        return cached  # type: ignore[no-any-return]
    digest = hashlib.sha256(b"sgs-content-fingerprint/1\n")
    fp: Optional[str] = None
    try:
        for name in content.files:
            data = Path(name).read_bytes().replace(b"\r\n", b"\n")
            if data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
            digest.update(hashlib.sha256(data).digest())
        fp = "sha256:" + digest.hexdigest()
    except OSError:
        fp = None
    content.__dict__["_fingerprint"] = fp
    return fp


def _fail(where: str, message: str) -> TranscriptError:
    return TranscriptError(f"{where}: {message}" if where else message)


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _what(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def decode(game: "Game", request: Request, data: Any, where: str = "the answer") -> Any:
    """The answer ``data`` (from :func:`encode`) to ``request`` in ``game``.

    Raise :class:`TranscriptError` (prefixed with ``where``) when ``data`` is not the JSON form of an
    answer to such a request: a wrong type, a missing or unknown key, a card id or a seat that the game
    does not have. Whether the answer is *legal* is the request's to say (:meth:`Request.check`)."""
    cards = {c.id: c for c in game.cards}
    n = len(game.players)

    def card(i: Any, field: str) -> Card:
        if not _int(i):
            raise _fail(where, f"{field} must be a card id (an integer), not {_what(i)}")
        if i not in cards:
            raise _fail(where, f"{field} names card {i}, which this game does not have "
                               f"(ids {min(cards, default=0)} to {max(cards, default=-1)})")
        return cards[i]

    def card_list(v: Any, field: str) -> list[Card]:
        if not isinstance(v, list):
            raise _fail(where, f"{field} must be a list of card ids, not {_what(v)}")
        return [card(i, f"{field}[{k}]") for k, i in enumerate(v)]

    def player(s: Any, field: str) -> Player:
        if not _int(s):
            raise _fail(where, f"{field} must be a seat (an integer), not {_what(s)}")
        if not 0 <= s < n:
            raise _fail(where, f"{field} names seat {s}, but the seats are 0 to {n - 1}")
        return game.players[s]

    def player_list(v: Any, field: str) -> list[Player]:
        if not isinstance(v, list):
            raise _fail(where, f"{field} must be a list of seats, not {_what(v)}")
        return [player(s, f"{field}[{k}]") for k, s in enumerate(v)]

    def fields(d: Any, required: set[str], optional: set[str], what: str) -> dict[str, Any]:
        if not isinstance(d, dict):
            raise _fail(where, f"{what} must be an object or null, not {_what(d)}")
        missing = sorted(required - set(d))
        if missing:
            raise _fail(where, f"{what} has no {', '.join(repr(m) for m in missing)}")
        unknown = sorted(set(d) - required - optional)
        if unknown:
            raise _fail(where, f"{what} has unknown field(s) {', '.join(repr(str(u)) for u in unknown)}")
        return d

    def common(d: dict[str, Any]) -> dict[str, Any]:
        skill = d["skill"]
        if skill is not None and not isinstance(skill, str):
            raise _fail(where, f"'skill' must be a skill id or null, not {_what(skill)}")
        if not _int(d["view_as"]):
            raise _fail(where, f"'view_as' must be an integer, not {_what(d['view_as'])}")
        as_card = d.get("as")
        if as_card is not None and not isinstance(as_card, str):
            raise _fail(where, f"'as' must be a card kind id, not {_what(as_card)}")
        return {"card": None if d["card"] is None else card(d["card"], "'card'"), "skill": skill,
                "cards": card_list(d["cards"], "'cards'"), "view_as": d["view_as"], "as_card": as_card}

    if isinstance(request, PlayRequest):
        if data is None:
            return None
        d = fields(data, PLAY_FIELDS, PLAY_OPTIONAL, "a play answer")
        recast = d.get("recast", False)
        if not isinstance(recast, bool):
            raise _fail(where, f"'recast' must be true or false, not {_what(recast)}")
        return PlayAction(**common(d), targets=player_list(d["targets"], "'targets'"),
                          secondary=player_list(d["secondary"], "'secondary'"), recast=recast)
    if isinstance(request, RespondRequest):
        if data is None:
            return None
        return Response(**common(fields(data, RESPOND_FIELDS, RESPOND_OPTIONAL, "a response")))
    if isinstance(request, CardsRequest):
        return card_list(data, "the cards")
    if isinstance(request, PlayersRequest):
        return player_list(data, "the players")
    if isinstance(request, ArrangeRequest):
        if not isinstance(data, list) or len(data) != 2:
            raise _fail(where, f"an arrangement must be [top card ids, bottom card ids], not {_what(data)}")
        return (card_list(data[0], "the top cards"), card_list(data[1], "the bottom cards"))
    if isinstance(request, ConfirmRequest):
        if not isinstance(data, bool):
            raise _fail(where, f"a yes-or-no answer must be true or false, not {_what(data)}")
        return data
    if isinstance(request, OptionRequest):  # an order too
        if not _int(data):
            raise _fail(where, f"the option chosen must be an index (an integer), not {_what(data)}")
        return data
    raise _fail(where, f"a {request.kind} request cannot be answered from a transcript")


def transcript(game: "Game") -> dict[str, Any]:
    """What reproduces ``game``: engine version, content fingerprint, rules, players, seed, options, decisions."""
    record: dict[str, Any] = {
        "engine_version": engine_version(), "content_fingerprint": content_fingerprint(game.content),
        "rules": game.rules.id, "players": game.num_players, "seed": game.seed,
        "options": {k: v for k, v in game.options.items() if game.rules.options.get(k) != v},
        "decisions": list(game.decisions)}
    if game.hero_pool is not None:
        record["hero_pool"] = list(game.hero_pool)
    if game.deal is not None:
        record["deal"] = {role: list(heroes) for role, heroes in game.deal.items()}
    return record


def check_content(content: "Content", record: dict[str, Any], force: bool = False) -> list[str]:
    """Whether ``record`` was played with ``content``: the warnings to tell, or :class:`ContentMismatch`."""
    notes: list[str] = []
    recorded = record.get("content_fingerprint")
    here = content_fingerprint(content)
    if recorded is None:
        notes.append("the transcript has no content fingerprint (it was saved by an older engine): it is replayed "
                     "against this content, which may not be the content it was played with")
    elif here is None:
        notes.append("this content's fingerprint cannot be computed (a content file can no longer be read): "
                     "the transcript is replayed without knowing whether it was played with this content")
    elif recorded != here:
        text = (f"the transcript was played with other content than this one (its content fingerprint is "
                f"{recorded}, this content's is {here})")
        if not force:
            raise ContentMismatch(text + "; replay it with the content it was played with (--content DIR), "
                                         "or pass --force to try anyway")
        notes.append(text + "; trying anyway (--force): the replay may stop at a decision that does not fit, "
                            "or tell another game")
    version = record.get("engine_version")
    if version is not None and version != engine_version():
        notes.append(f"the transcript was saved by engine {version}; this is engine {engine_version()}")
    return notes


def check_record(content: "Content", record: Any) -> None:
    """Raise :class:`TranscriptError` unless ``record``'s fields have the right types and fit the content."""
    if not isinstance(record, dict):
        raise TranscriptError(f"a transcript is a JSON object with {', '.join(REQUIRED)}, not {_what(record)}")
    missing = [k for k in REQUIRED if k not in record]
    if missing:
        raise TranscriptError(f"the transcript has no {', '.join(repr(m) for m in missing)} "
                              f"(a transcript holds {', '.join(FIELDS)})")
    unknown = sorted(str(k) for k in record if k not in FIELDS)
    if unknown:
        raise TranscriptError(f"the transcript has unknown field(s) {', '.join(repr(u) for u in unknown)} "
                              f"(a transcript holds {', '.join(FIELDS)})")
    for key in ("engine_version", "content_fingerprint"):
        if record.get(key) is not None and not isinstance(record[key], str):
            raise TranscriptError(f"'{key}' must be a string, not {_what(record[key])}")
    if not isinstance(record["rules"], str):
        raise TranscriptError(f"'rules' must be a rules file id, not {_what(record['rules'])}")
    try:
        rules = content.ruleset(record["rules"])
    except SgsError as exc:
        raise TranscriptError(f"'rules': {exc}") from None
    players = record["players"]
    if not _int(players):
        raise TranscriptError(f"'players' must be a number of players, not {_what(players)}")
    if not rules.players_min <= players <= rules.players_max:
        raise TranscriptError(f"'players' is {players}, but the rules '{rules.id}' play "
                              f"{rules.players_min} to {rules.players_max} players")
    if not _int(record["seed"]):
        raise TranscriptError(f"'seed' must be an integer, not {_what(record['seed'])}")
    options = record.get("options")
    if options is not None:
        if not isinstance(options, dict):
            raise TranscriptError(f"'options' must be an object of option values, not {_what(options)}")
        for name, value in options.items():
            if name not in rules.options:
                raise TranscriptError(f"'options' sets '{name}', which the rules '{rules.id}' do not have"
                                      f"{did_you_mean(str(name), rules.options)}; options: "
                                      f"{', '.join(sorted(rules.options))}")
            default = rules.options[name]
            if default is not None and not (type(value) is type(default) or (
                    _int(value) and isinstance(default, float))):
                raise TranscriptError(f"'options': '{name}' must be a {type(default).__name__} like its default "
                                      f"{default!r}, not {_what(value)}")
        table = options.get("role_table")
        if table is not None and table not in rules.role_table_variants:
            raise TranscriptError(f"'options': the rules '{rules.id}' have no role table {table!r}; tables: "
                                  f"{', '.join(sorted(rules.role_table_variants))}")
    table = record.get("table")
    if table is not None:
        if not isinstance(table, dict) or set(table) - {"seat", "agents"}:
            raise TranscriptError(f"'table' must be an object {{seat, agents}}, not {_what(table)}")
        if "seat" in table and (not _int(table["seat"]) or not 0 <= table["seat"] < players):
            raise TranscriptError(f"'table': 'seat' must be a seat from 0 to {players - 1}, not {_what(table['seat'])}")
        if "agents" in table and not isinstance(table["agents"], str):
            raise TranscriptError(f"'table': 'agents' must be an agents spec (a string), not {_what(table['agents'])}")
    _check_heroes(content, rules, record)
    if not isinstance(record["decisions"], list):
        raise TranscriptError(f"'decisions' must be a list, not {_what(record['decisions'])}")
    for i, d in enumerate(record["decisions"]):
        where = f"decision {i}"
        if not isinstance(d, dict):
            raise _fail(where, f"a decision is an object {{player, kind, answer}}, not {_what(d)}")
        missing = [k for k in ("player", "kind", "answer") if k not in d]
        if missing:
            raise _fail(where, f"it has no {', '.join(repr(m) for m in missing)}")
        unknown = sorted(str(k) for k in d if k not in ("player", "kind", "answer"))
        if unknown:
            raise _fail(where, f"it has unknown field(s) {', '.join(repr(u) for u in unknown)}")
        if not _int(d["player"]):
            raise _fail(where, f"'player' must be a seat (an integer), not {_what(d['player'])}")
        if not 0 <= d["player"] < players:
            raise _fail(where, f"'player' names seat {d['player']}, but the seats are 0 to {players - 1}")
        if d["kind"] not in KINDS:
            raise _fail(where, f"'kind' is {_what(d['kind'])}, which is no kind of request "
                               f"(kinds: {', '.join(KINDS)})")


def _check_heroes(content: "Content", rules: Any, record: dict[str, Any]) -> None:
    """``hero_pool`` and ``deal``, when given: hero ids of the content, and a deal of the rules' roles."""
    def heroes(value: Any, where: str) -> None:
        if not isinstance(value, list) or not all(isinstance(h, str) for h in value):
            raise TranscriptError(f"{where} must be a list of hero ids, not {_what(value)}")
        unknown = [h for h in value if h not in content.heroes]
        if unknown:
            raise TranscriptError(f"{where} names the hero '{unknown[0]}', which the content does not have"
                                  f"{did_you_mean(unknown[0], content.heroes)}")

    if record.get("hero_pool") is not None:
        heroes(record["hero_pool"], "'hero_pool'")
    deal = record.get("deal")
    if deal is not None:
        if not isinstance(deal, dict):
            raise TranscriptError(f"'deal' must be an object: role -> hero ids, not {_what(deal)}")
        for role, got in deal.items():
            if role not in rules.roles:
                raise TranscriptError(f"'deal' names the role '{role}', which the rules '{rules.id}' do not have"
                                      f"{did_you_mean(str(role), rules.roles)}")
            heroes(got, f"'deal': '{role}'")


def replay(content: "Content", record: Any, *, force: bool = False,
           warn: Optional[Callable[[str], None]] = None, **game_args: Any) -> "Game":
    """Play a transcript back; raise :class:`GameError` if it does not fit the game.

    * :class:`TranscriptError`: a malformed transcript (its message names the decision at fault);
    * :class:`ContentMismatch`: it was played with other content (``force=True``: try anyway);
    * :class:`GameError`: a decision does not fit what the game asks, or the game refuses it.

    ``warn`` is told what a user should know (an old transcript, ``force``); by default, a
    :class:`TranscriptWarning`."""
    game, req = resume(content, record, force=force, warn=warn, **game_args)
    if req is not None:
        raise GameError(f"the transcript ends while seat {req.player.seat} is asked to {req.prompt}")
    return game


def resume(content: "Content", record: Any, *, force: bool = False,
           warn: Optional[Callable[[str], None]] = None,
           watch: Optional[Callable[["Game", Request, Any], None]] = None,
           **game_args: Any) -> tuple["Game", Optional[Request]]:
    """Play a transcript's decisions back, and return the game with the request it waits for
    (None when the game is over): a game saved in the middle goes on from there.

    ``watch`` is told each request with the answer the transcript gives it, before it is
    answered (to let a bot of that seat see the same game again). Errors as :func:`replay`."""
    from sgs_runtime.resolution.game import Game

    check_record(content, record)
    for note in check_content(content, record, force):
        if warn is not None:
            warn(note)
        else:
            warnings.warn(note, TranscriptWarning, stacklevel=3)
    for key in ("hero_pool", "deal"):  # (a caller's own choice wins)
        if record.get(key) is not None:
            game_args.setdefault(key, record[key])
    game = Game(content, content.ruleset(record["rules"]), players=record["players"],
                seed=record["seed"], options=record.get("options") or None, **game_args)
    return game, follow(game, list(record["decisions"]), watch)


def follow(game: "Game", decisions: list[dict[str, Any]],
           watch: Optional[Callable[["Game", Request, Any], None]] = None) -> Optional[Request]:
    """Start ``game`` and answer its requests with ``decisions`` (:attr:`Game.decisions`' form);
    return the request pending after the last one (``None``: the game is over). ``watch``: as
    :func:`resume`'s.

    Raise :class:`GameError` when a decision does not fit what the game asks."""
    req = game.start()
    for i, d in enumerate(decisions):
        if req is None:
            raise GameError(f"the game ended before decision {i} of {len(decisions)}: the transcript does not fit")
        if d["player"] != req.player.seat or d["kind"] != req.kind:
            raise GameError(f"decision {i} answers a {d['kind']} request of seat {d['player']}, but the game "
                            f"asks seat {req.player.seat} for a {req.kind}: the transcript does not fit")
        answer = decode(game, req, d["answer"], where=f"decision {i} ({d['kind']} of seat {d['player']})")
        if watch is not None:
            watch(game, req, answer)
        try:
            req = game.answer(answer)
        except IllegalDecision as exc:
            raise GameError(f"decision {i} ({d['kind']} of seat {d['player']}) is refused by the game: {exc}; "
                            f"the transcript does not fit") from None
    return req
