"""``sgs serve``: the browser table, for one person against bots or friends on the same network."""

from __future__ import annotations

import random
import socket
from pathlib import Path
from typing import Any, Optional

import click


def open_socket(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one); a clear :class:`click.UsageError` if it cannot be."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        raise click.UsageError(f"--host: '{host}' is not an address of this machine") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno in (98, 48):  # EADDRINUSE (Linux, macOS)
            raise click.UsageError(f"the port {port} is in use on {host}; give another one with --port") from None
        raise click.UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def addresses(host: str, port: int) -> list[str]:
    """The addresses to open in a browser: the host's, or this machine's on its networks for 0.0.0.0."""
    if host not in ("0.0.0.0", "::", ""):
        shown = f"[{host}]" if ":" in host else host
        return [f"http://{shown}:{port}/"]
    found = ["127.0.0.1"]
    try:
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
        found.append(probe.getsockname()[0])
        probe.close()
    except OSError:
        pass
    return [f"http://{a}:{port}/" for a in dict.fromkeys(found)]


def _content_options(f: Any) -> Any:
    from sgs_cli.main import _content_option

    return _content_option(f)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="the address to listen on (0.0.0.0: every network of this machine, for friends on the same network)")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="0: a free port")
@click.option("--rules", "rules_id", default=None, help="rules file id (default: the rules file marked default)")
@click.option("--players", type=click.IntRange(2, 10), default=None,
              help="seats at each table (default: the rules file's count when it fixes one, else 5)")
@click.option("--agents", default="heuristic", show_default=True,
              help="the bots of the empty seats, as in `sgs simulate --agents` (heuristic, random, heuristic@rebel ...)")
@click.option("--seed", type=int, default=None, help="the first table's seed (default: random)")
@click.option("--takeover", type=click.FloatRange(0, None), default=60.0, show_default=True,
              help="seconds a player who left is waited for at each decision before the seat's bot answers")
@click.option("--pace", type=click.FloatRange(0, 10), default=0.4, show_default=True,
              help="seconds each bot move is shown before the next one")
@_content_options
def serve(host: str, port: int, rules_id: Optional[str], players: Optional[int], agents: str, seed: Optional[int],
          takeover: float, pace: float, content_dir: Optional[Path], pack_dirs: tuple[Path, ...]) -> None:
    """Play in a browser: start the table's web server and print its address.

    Open the address, take a seat with a name and start; the empty seats are bots. Friends on the
    same network open the same address (use --host 0.0.0.0) and take the other seats. Stop the
    server with Ctrl-C (its games end with it: save them first from the page)."""
    from sgs_cli.main import _load, _packs
    from sgs_runtime.errors import SgsError
    from sgs_runtime.simulate import check_agents

    try:
        import uvicorn

        from .app import create_app
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
                  takeover, pace)
    lobby.new_table()
    sock = open_socket(host, port)
    actual = sock.getsockname()[1]
    click.echo(f"sgs table ({rules.id}, {players} players): open " + " or ".join(addresses(host, actual)))
    click.echo("stop it with Ctrl-C", err=True)
    config = uvicorn.Config(create_app(lobby), log_level="warning", lifespan="on")
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # pragma: no cover - uvicorn handles the signal itself
        pass
    finally:
        lobby.close()
        sock.close()

