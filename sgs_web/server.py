"""Running the table's web server: a listening socket, its addresses, uvicorn in the foreground or a thread."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator

import click

if TYPE_CHECKING:  # pragma: no cover
    from .tables import Lobby


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


def server_for(lobby: "Lobby") -> Any:
    """A uvicorn server of the lobby's application (the game threads end when it stops)."""
    import uvicorn

    from .app import create_app

    return uvicorn.Server(uvicorn.Config(create_app(lobby), log_level="warning", lifespan="on"))


@contextmanager
def serving(lobby: "Lobby", host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """The lobby's server in a background thread (browser tests, screenshots): yields its address."""
    sock = open_socket(host, port)
    server = server_for(lobby)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="sgs-serve", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield addresses(host, sock.getsockname()[1])[0]
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()
        lobby.close()
