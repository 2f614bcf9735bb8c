"""The web application: the page, a JSON API and one websocket per browser seat (Starlette).

=====================================  ==================================================
``GET /``                              the page (sgs_web/static: plain HTML, CSS and JS)
``GET /api/tables``                    the tables and their seats (the lobby)
``POST /api/tables``                   a new table ``{players?, seed?}``
``GET /api/tables/{id}``               one table
``POST /api/tables/{id}/join``         take a seat ``{name, seat?}`` → ``{seat, token}``
``POST /api/tables/{id}/start``        start the game ``{token}`` (empty seats: bots)
``GET /api/tables/{id}/transcript``    the game's seed and decisions (``sgs replay`` reads it)
``POST /api/replays``                  open a saved game (a transcript) in the viewer
``GET /api/replays/{id}/{step}``       one step of it, as ``?seat=N`` saw it
``WS /ws/tables/{id}?token=T``         the seat's pages; the page sends ``{request_id, answer}``
=====================================  ==================================================

Every error is a JSON ``{"error": sentence}`` with status 400 (404 for an unknown table).
"""

from __future__ import annotations

import asyncio
import json
import secrets
from contextlib import asynccontextmanager
from importlib.resources import files
from typing import Any, AsyncIterator, Awaitable, Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from sgs_runtime.errors import SgsError, UsageError

from .replays import Replay, load
from .tables import Lobby

#: the largest request body read (a saved game of a long 10-player game fits)
MAX_BODY = 8 * 1024 * 1024
#: the saved games the replay viewer holds at once (the oldest is dropped first)
MAX_REPLAYS = 16


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> Any:
    """The request's JSON body ({} when empty); a :class:`UsageError` when it is not JSON."""
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise UsageError(f"the request is too large ({len(raw)} bytes; at most {MAX_BODY})")
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise UsageError("the request is not JSON") from None


def _field(body: Any, name: str, kind: type, default: Any = None) -> Any:
    """A field of a JSON object body, of the given type (a :class:`UsageError` otherwise)."""
    if not isinstance(body, dict):
        raise UsageError("the request must be a JSON object")
    value = body.get(name, default)
    if value is None:
        return default
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise UsageError(f"'{name}' must be {'a number' if kind is int else 'a text'}")
    return value


Handler = Callable[[Request], Awaitable[Response]]


def _guarded(handler: Handler) -> Handler:
    """Turn a usage error into a JSON error: a person's mistake is told, never a traceback."""
    async def run(request: Request) -> Response:
        try:
            return await handler(request)
        except UsageError as exc:
            missing = str(exc).startswith("there is no table")
            return _error(str(exc), 404 if missing else 400)
        except SgsError as exc:
            return _error(str(exc))
    return run


def create_app(lobby: Lobby) -> Starlette:
    """The application serving ``lobby``'s tables (``sgs serve`` runs it under uvicorn)."""
    replays: dict[str, Replay] = {}
    static = files("sgs_web") / "static"

    async def index(request: Request) -> Response:
        return FileResponse(str(static / "index.html"), media_type="text/html")

    async def list_tables(request: Request) -> Response:
        return JSONResponse({"tables": [t.public() for t in lobby.tables.values()],
                             "rules": lobby.rules.id, "players": lobby.players,
                             "players_min": lobby.rules.players_min, "players_max": lobby.rules.players_max})

    async def new_table(request: Request) -> Response:
        body = await _body(request)
        record = body.get("resume") if isinstance(body, dict) else None
        if record is not None and not isinstance(record, dict):
            raise UsageError("'resume' must be a saved game (the JSON a table's save gives)")
        table = lobby.new_table(_field(body, "players", int), _field(body, "seed", int), record)
        return JSONResponse(table.public(), status_code=201)

    async def get_table(request: Request) -> Response:
        return JSONResponse(lobby.get(request.path_params["tid"]).public())

    async def join(request: Request) -> Response:
        table = lobby.get(request.path_params["tid"])
        body = await _body(request)
        seat, token = table.join(_field(body, "name", str, ""), _field(body, "seat", int))
        return JSONResponse({"seat": seat, "token": token, "table": table.public()})

    async def start(request: Request) -> Response:
        table = lobby.get(request.path_params["tid"])
        body = await _body(request)
        if table.seat_of(_field(body, "token", str)) is None:
            raise UsageError("only a player seated at the table can start its game (take a seat first)")
        table.start()
        return JSONResponse(table.public())

    async def seat_of(request: Request) -> Response:
        table = lobby.get(request.path_params["tid"])
        seat = table.seat_of(request.query_params.get("token"))
        if seat is None:
            raise UsageError("that token holds no seat at this table")
        return JSONResponse({"seat": seat, "table": table.public()})

    async def save(request: Request) -> Response:
        table = lobby.get(request.path_params["tid"])
        record = table.transcript()
        name = f"sgs-{table.rules.id}-{table.id}.json"
        return JSONResponse(record, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def open_replay(request: Request) -> Response:
        rid = secrets.token_hex(4)
        rep = load(rid, lobby.content, await _body(request))
        while len(replays) >= MAX_REPLAYS:
            replays.pop(next(iter(replays)))
        replays[rid] = rep
        return JSONResponse(rep.summary(), status_code=201)

    async def replay_step(request: Request) -> Response:
        rep = replays.get(request.path_params["rid"])
        if rep is None:
            raise UsageError("there is no such replay (open the saved game again)")
        try:
            seat = int(request.query_params.get("seat", "0"))
            step = int(request.path_params["step"])
        except ValueError:
            raise UsageError("the seat and the step are numbers") from None
        data = await asyncio.to_thread(rep.step, seat, step)  # the first view of a seat replays the game
        return JSONResponse(data)

    async def seat_socket(ws: WebSocket) -> None:
        """One browser holding one seat: the seat's pages out, the page's answers in."""
        await ws.accept()
        try:
            table = lobby.get(ws.path_params["tid"])
        except UsageError as exc:
            await ws.send_json({"type": "error", "message": str(exc)})
            await ws.close(code=4404)
            return
        seat = table.seat_of(ws.query_params.get("token"))
        if seat is None:
            await ws.send_json({"type": "error", "message": "that token holds no seat at this table"})
            await ws.close(code=4403)
            return
        loop = asyncio.get_running_loop()
        outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

        def listener(message: dict[str, Any]) -> None:  # called from the game's thread
            loop.call_soon_threadsafe(outbox.put_nowait, message)

        async def send() -> None:
            while True:
                await ws.send_json(await outbox.get())

        sender = asyncio.create_task(send())
        table.connect(seat, listener)
        try:
            await ws.send_json({"type": "table", "table": table.public(), "you": seat})
            while True:
                text = await ws.receive_text()
                try:
                    message = json.loads(text)
                except (ValueError, RecursionError):
                    message = None
                if isinstance(message, dict) and message.get("type") == "answer":
                    table.submit(seat, message.get("request_id"), message.get("answer"))
                else:
                    await ws.send_json({"type": "notice", "message": "the table reads only answers: "
                                        '{"type": "answer", "request_id": N, "answer": {...}}'})
        except (WebSocketDisconnect, RuntimeError):
            pass  # the browser left: the seat waits for it
        finally:
            table.disconnect(seat, listener)
            sender.cancel()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await asyncio.to_thread(lobby.close)  # the server stops: every game's thread ends

    routes = [
        Route("/", index),
        Route("/api/tables", _guarded(list_tables), methods=["GET"]),
        Route("/api/tables", _guarded(new_table), methods=["POST"]),
        Route("/api/tables/{tid}", _guarded(get_table)),
        Route("/api/tables/{tid}/join", _guarded(join), methods=["POST"]),
        Route("/api/tables/{tid}/start", _guarded(start), methods=["POST"]),
        Route("/api/tables/{tid}/me", _guarded(seat_of)),
        Route("/api/tables/{tid}/transcript", _guarded(save)),
        Route("/api/replays", _guarded(open_replay), methods=["POST"]),
        Route("/api/replays/{rid}/{step}", _guarded(replay_step)),
        WebSocketRoute("/ws/tables/{tid}", seat_socket),
        Mount("/static", StaticFiles(directory=str(static)), name="static"),
    ]
    return Starlette(routes=routes, lifespan=lifespan)
