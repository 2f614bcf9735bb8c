"""``sgs serve``: the browser table, for one person against bots or friends on the same network."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Optional

import click

from .server import addresses, open_socket, server_for


def command() -> click.Command:
    """The ``sgs serve`` command, with the content options every ``sgs`` command has.

    Made when sgs_cli/main.py adds it (the content options are defined there)."""
    from sgs_cli.main import _content_option, _pool_options

    return click.command("serve")(_options(_pool_options(_content_option(serve))))


def _options(f: Any) -> Any:
    """The options of ``sgs serve`` (besides the content options)."""
    options = [
        click.option("--host", default="127.0.0.1", show_default=True,
                     help="the address to listen on (0.0.0.0: every network of this machine, for friends on the "
                          "same network)"),
        click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="0: a free port"),
        click.option("--rules", "rules_id", default=None,
                     help="rules file id (default: the rules file marked default)"),
        click.option("--players", type=click.IntRange(2, 10), default=None,
                     help="seats at each table (default: the rules file's count when it fixes one, else 5)"),
        click.option("--agents", default="heuristic", show_default=True,
                     help="the bots of the empty seats, as in `sgs simulate --agents` (heuristic, random, "
                          "heuristic@rebel ...)"),
        click.option("--seed", type=int, default=None, help="the first table's seed (default: random)"),
        click.option("--takeover", type=click.FloatRange(0, None), default=60.0, show_default=True,
                     help="seconds a player who left is waited for at each decision before the seat's bot answers"),
        click.option("--pace", type=click.FloatRange(0, 10), default=0.3, show_default=True,
                     help="seconds each bot move is shown before the next one"),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def serve(host: str, port: int, rules_id: Optional[str], players: Optional[int], agents: str, seed: Optional[int],
          takeover: float, pace: float, heroes: Optional[str], hero_packs: Optional[str], heroes_from: Optional[str],
          content_dir: Optional[Path], pack_dirs: tuple[Path, ...]) -> None:
    """Play in a browser: start the table's web server and print its address.

    Open the address, take a seat with a name and start; the empty seats are bots. Friends on the
    same network open the same address (use --host 0.0.0.0) and take the other seats. Stop the
    server with Ctrl-C (its games end with it: save them first from the page)."""
    from sgs_cli.main import _hero_pool, _load, _packs
    from sgs_runtime.errors import SgsError
    from sgs_runtime.runs.simulate import check_agents

    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401

        from .tables import Lobby
    except ImportError as exc:
        raise click.UsageError(f"sgs serve needs the web extra ({exc.name} is missing): "
                               "pip install 'sgs-engine[web]'") from None
    content = _load(content_dir, _packs(pack_dirs))
    try:
        rules = content.ruleset(rules_id)
        check_agents(agents, rules)
    except SgsError as exc:
        raise click.UsageError(str(exc)) from None
    if players is None:
        players = rules.players_min if rules.players_min == rules.players_max else max(rules.players_min,
                                                                                         min(5, rules.players_max))
    if not rules.players_min <= players <= rules.players_max:
        raise click.UsageError(f"the rules '{rules.id}' play {rules.players_min} to {rules.players_max} players")
    lobby = Lobby(content, rules, players, seed if seed is not None else random.randrange(1 << 30), agents,
                  takeover, pace, hero_pool=_hero_pool(content, rules, heroes, hero_packs, heroes_from))
    try:
        lobby.new_table()  # (a pool that cannot seat the table is refused here)
    except SgsError as exc:
        raise click.UsageError(str(exc)) from None
    sock = open_socket(host, port)
    actual = sock.getsockname()[1]
    click.echo(f"sgs table ({rules.id}, {players} players): open " + " or ".join(addresses(host, actual)))
    click.echo("stop it with Ctrl-C", err=True)
    try:
        server_for(lobby).run(sockets=[sock])
    except KeyboardInterrupt:  # pragma: no cover - uvicorn handles the signal itself
        pass
    finally:
        lobby.close()
        sock.close()

