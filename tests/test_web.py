"""The browser table's server (sgs_web): its API, websockets, seats, saving and fair play."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import threading
import urllib.request
import warnings
from typing import Any, Optional

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("httpx", reason="the web extra is not installed (pip install -e '.[web]')")

with warnings.catch_warnings():  # (newer Starlette would rather have httpx2: httpx still works)
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from conftest import run_cli  # noqa: E402

from sgs_runtime.errors import SgsError  # noqa: E402
from sgs_runtime.records.replay import replay  # noqa: E402
from sgs_runtime.state.visibility import visible  # noqa: E402
from sgs_web.app import create_app  # noqa: E402
from sgs_web.tables import Lobby, Table  # noqa: E402


def pick(model: dict[str, Any], rng: random.Random) -> Optional[dict[str, Any]]:
    """A page's next answer to a request model: the data with one more field (None when complete)."""
    step = model["step"]
    if step is None:
        return None
    data = dict(model["data"])
    if step["default"] is not None and rng.random() < 0.5:
        value: Any = step["default"]
    elif step["none_label"] and (not step["choices"] or rng.random() < 0.4):
        value = None
    elif step["multi"]:
        values = [c["value"] for c in step["choices"]]
        value = rng.sample(values, min(len(values), max(step["min"], 1 if step["max"] else 0)))
    else:
        value = rng.choice(step["choices"])["value"] if step["choices"] else step["default"]
    if step["field"] == "secondary":
        data["secondary"] = [*data.get("secondary", []), value]
    else:
        data[step["field"]] = value
    return data


def lobby_for(content: Any, rules: str = "two_players", players: int = 2, seed: int = 3, **kw: Any) -> Lobby:
    lobby = Lobby(content, content.ruleset(rules), players, seed, **kw)
    lobby.new_table()
    return lobby


@pytest.fixture()
def two(content: Any) -> Any:
    lobby = lobby_for(content)
    with TestClient(create_app(lobby)) as client:
        yield lobby, client
    lobby.close()


def test_the_lobby_lists_its_table_with_bot_seats(two: Any) -> None:
    lobby, client = two
    info = client.get("/api/tables").json()
    assert info["rules"] == "two_players" and info["players_min"] == info["players_max"] == 2
    (table,) = info["tables"]
    assert table["state"] == "waiting" and [s["bot"] for s in table["seats"]] == [True, True]
    assert "token" not in json.dumps(info)
    page = client.get("/")
    assert page.status_code == 200 and "sgs table" in page.text
    assert client.get("/static/app.js").status_code == 200


def test_seats_are_taken_with_a_name_and_a_token(two: Any) -> None:
    lobby, client = two
    tid = next(iter(lobby.tables))
    first = client.post(f"/api/tables/{tid}/join", json={"name": "  Ann  "}).json()
    assert first["seat"] == 0 and len(first["token"]) > 16
    assert first["table"]["seats"][0]["name"] == "Ann" and not first["table"]["seats"][0]["bot"]
    taken = client.post(f"/api/tables/{tid}/join", json={"name": "Bo", "seat": 0})
    assert taken.status_code == 400 and "taken by Ann" in taken.json()["error"]
    assert client.post(f"/api/tables/{tid}/join", json={"name": "Bo"}).json()["seat"] == 1
    full = client.post(f"/api/tables/{tid}/join", json={"name": "Cy"})
    assert full.status_code == 400 and full.json()["error"] == "every seat is taken"
    me = client.get(f"/api/tables/{tid}/me", params={"token": first["token"]}).json()
    assert me["seat"] == 0


@pytest.mark.parametrize("body, message", [
    ({"name": ""}, "give a name"),
    ({"name": "Ann", "seat": 7}, "there is no seat 7"),
    ({"name": 5}, "'name' must be a text"),
    ([1, 2], "must be a JSON object"),
])
def test_a_wrong_join_is_told_in_a_sentence(two: Any, body: Any, message: str) -> None:
    lobby, client = two
    tid = next(iter(lobby.tables))
    res = client.post(f"/api/tables/{tid}/join", json=body)
    assert res.status_code == 400 and message in res.json()["error"]


def test_unknown_tables_bad_json_and_strangers_are_refused(two: Any) -> None:
    lobby, client = two
    tid = next(iter(lobby.tables))
    assert client.get("/api/tables/nope").status_code == 404
    bad = client.post(f"/api/tables/{tid}/join", content=b"{not json")
    assert bad.status_code == 400 and bad.json()["error"] == "the request is not JSON"
    stranger = client.post(f"/api/tables/{tid}/start", json={"token": "guess"})
    assert stranger.status_code == 400 and "only a player seated" in stranger.json()["error"]
    unsaved = client.get(f"/api/tables/{tid}/transcript")
    assert unsaved.status_code == 400 and "nothing to save" in unsaved.json()["error"]
    with client.websocket_connect(f"/ws/tables/{tid}?token=guess") as ws:
        assert ws.receive_json() == {"type": "error", "message": "that token holds no seat at this table"}


def play_over_socket(client: TestClient, tid: str, token: str, rng: random.Random,
                     frames: list[dict[str, Any]], stop_after: Optional[int] = None) -> dict[str, Any]:
    """Answer every request the seat's page is sent until the game ends (or ``stop_after`` answers)."""
    answers = 0
    with client.websocket_connect(f"/ws/tables/{tid}?token={token}") as ws:
        rid = None
        while True:
            msg = ws.receive_json()
            frames.append(msg)
            if msg["type"] == "state":
                if msg.get("result") or msg["state"] in ("failed", "closed"):
                    return msg
                if msg["request"] is None or msg["request_id"] == rid:
                    continue
                rid, model = msg["request_id"], msg["request"]
            elif msg["type"] in ("request", "refused") and msg["request_id"] == rid:
                model = msg["request"]
            else:
                continue
            if stop_after is not None and answers >= stop_after:
                return msg
            data = pick(model, rng)
            assert data is not None
            ws.send_json({"type": "answer", "request_id": rid, "answer": data})
            answers += 1


def test_a_whole_two_player_game_over_a_websocket_and_its_transcript_replays(two: Any, content: Any) -> None:
    lobby, client = two
    tid = next(iter(lobby.tables))
    token = client.post(f"/api/tables/{tid}/join", json={"name": "Ann"}).json()["token"]
    assert client.post(f"/api/tables/{tid}/start", json={"token": token}).json()["state"] == "playing"
    frames: list[dict[str, Any]] = []
    last = play_over_socket(client, tid, token, random.Random(1), frames)
    assert last["state"] == "over" and last["result"]["winner_roles"], last.get("error")
    assert last["result"]["your_role"] in ("lord", "rebel")
    assert any(f.get("why") for f in frames if f["type"] == "state")
    assert all(f["table"]["seat"] == 0 for f in frames if f["type"] == "state")
    record = client.get(f"/api/tables/{tid}/transcript").json()
    assert record["rules"] == "two_players" and record["decisions"]
    again = replay(content, record)
    assert again.result is not None and again.result.winners == last["result"]["winners"]
    # the replay viewer steps through the same game, forward and back
    rep = client.post("/api/replays", json=record).json()
    assert rep["steps"] == len(record["decisions"]) + 1
    end = client.get(f"/api/replays/{rep['id']}/{rep['steps'] - 1}", params={"seat": 0}).json()
    assert end["result"]["winners"] == last["result"]["winners"]
    start = client.get(f"/api/replays/{rep['id']}/0", params={"seat": 1}).json()
    assert start["decision"] is None and start["table"]["seat"] == 1
    assert client.get(f"/api/replays/{rep['id']}/{rep['steps']}").status_code == 400


def test_a_wrong_answer_is_refused_and_asked_again(two: Any) -> None:
    lobby, client = two
    tid = next(iter(lobby.tables))
    token = client.post(f"/api/tables/{tid}/join", json={"name": "Ann"}).json()["token"]
    client.post(f"/api/tables/{tid}/start", json={"token": token})
    with client.websocket_connect(f"/ws/tables/{tid}?token={token}") as ws:
        while True:
            msg = ws.receive_json()
            if msg["type"] == "state" and msg["request"] is not None:
                break
        rid = msg["request_id"]
        for wrong in ("yes", {"option": 99}, {"option": "first"}, {"option": [0]}, {"option": None, "x": 1}):
            ws.send_json({"type": "answer", "request_id": rid, "answer": wrong})
            got = ws.receive_json()
            while got["type"] == "table":  # (who is at the table: told to every seat)
                got = ws.receive_json()
            assert got["type"] == "refused" and got["message"] and got["request"]["step"] is not None
            assert got["request_id"] == rid
        for odd in ("not json at all", '{"type": "cheat"}', "[1, 2]"):
            ws.send_text(odd)
            got = ws.receive_json()
            while got["type"] == "table":
                got = ws.receive_json()
            assert got["type"] == "notice" and "reads only answers" in got["message"]
    table = lobby.tables[tid]
    assert table.state == "playing" and table.seats[0].connections == 0


def test_a_reconnecting_browser_gets_its_seat_and_its_request_back(two: Any) -> None:
    lobby, client = two
    tid = next(iter(lobby.tables))
    token = client.post(f"/api/tables/{tid}/join", json={"name": "Ann"}).json()["token"]
    client.post(f"/api/tables/{tid}/start", json={"token": token})
    frames: list[dict[str, Any]] = []
    waiting = play_over_socket(client, tid, token, random.Random(2), frames, stop_after=3)
    with client.websocket_connect(f"/ws/tables/{tid}?token={token}") as ws:
        msg = ws.receive_json()
        while msg["type"] != "state":
            msg = ws.receive_json()
        assert msg["seat"] == 0 and msg["request"] is not None
        assert msg["request_id"] == waiting["request_id"]
    assert lobby.tables[tid].public()["seats"][0]["name"] == "Ann"


def test_a_player_who_left_is_played_by_the_seats_bot_after_the_takeover_time(content: Any) -> None:
    lobby = lobby_for(content, takeover=0.0)
    table = next(iter(lobby.tables.values()))
    table.join("Ann")
    table.start()  # nobody ever connects: the seat's bot answers at once
    assert table.thread is not None
    table.thread.join(60)
    assert table.state == "over" and table.seats[0].stand_in
    lobby.close()


def test_closing_a_table_ends_its_waiting_game_thread(content: Any) -> None:
    lobby = lobby_for(content, takeover=3600.0)
    table = next(iter(lobby.tables.values()))
    table.join("Ann")
    table.start()
    assert table.thread is not None and table.thread.is_alive()
    lobby.close()
    assert not table.thread.is_alive() and table.state == "closed"


def test_no_frame_shows_a_card_its_seat_may_not_see(content: Any) -> None:
    """At the moment each frame is built (in the game's thread), every card it shows is visible to its seat."""
    lobby = lobby_for(content, rules="identity", players=5, seed=11)
    table: Table = next(iter(lobby.tables.values()))
    table.join("Ann", 0)
    table.join("Bo", 3)
    table.start()
    game = table.game
    assert game is not None
    cards = {c.id: c for c in game.cards}
    rng = random.Random(5)
    checked = {0: 0, 3: 0}
    problems: list[str] = []
    done = threading.Event()

    def shown(value: Any, out: list[int]) -> None:
        if isinstance(value, dict):
            if value.get("hidden") is False and isinstance(value.get("id"), int) and "kind" in value:
                out.append(value["id"])
            for v in value.values():
                shown(v, out)
        elif isinstance(value, list):
            for v in value:
                shown(v, out)

    def listener_for(seat: int) -> Any:
        def listen(msg: dict[str, Any]) -> None:
            ids: list[int] = []
            shown(msg, ids)
            for i in ids:
                if i in cards and not visible(cards[i], seat):
                    problems.append(f"seat {seat} was shown card {i} ({cards[i].label()})")
            if msg["type"] == "state":
                checked[seat] += 1
                if msg.get("result") or msg["state"] != "playing" or game.turn_number > 12:
                    done.set()
            model = msg.get("request")
            if model is not None and msg["type"] in ("state", "request", "refused") and not done.is_set():
                data = pick(model, rng)
                if data is not None:
                    table.submit(seat, msg["request_id"], data)
        return listen

    table.connect(0, listener_for(0))
    table.connect(3, listener_for(3))
    done.wait(120)
    lobby.close()
    assert not problems, problems[:5]
    assert checked[0] > 3 and checked[3] > 3, checked


def test_the_why_panel_tells_another_seats_answers_only_as_answered_or_declined(content: Any) -> None:
    from sgs_runtime.agents import RandomAgent
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.state.seatview import ask_agent
    from sgs_web.frames import SeatLog

    game = Game(content, content.ruleset("identity"), players=5, seed=4, trace=True)
    bots = [RandomAgent(i) for i in range(5)]
    log = SeatLog(0)
    req = game.start()
    told = 0
    for _ in range(400):
        if req is None:
            break
        me = game.players[0].hero.name.zh  # (the log names players by their hero's name)
        for line in log.why(game):
            if line.startswith("? ") and not line.startswith(f"? {me} "):
                how = line.rsplit("→ ", 1)[1].split(" (")[0]  # (a forced answer says so after it)
                assert how in ("answers", "declines"), line
                told += 1
        if req.player.seat == 0:
            log.mark(game)
        req = game.answer(ask_agent(game, bots[req.player.seat], req))
    assert told > 20


def test_sgs_serve_refuses_what_it_cannot_do() -> None:
    result = run_cli("serve", "--rules", "nope")
    assert result.exit_code == 2 and "nope" in result.output
    result = run_cli("serve", "--rules", "two_players", "--players", "5")
    assert result.exit_code == 2 and "play 2 to 2 players" in result.output
    result = run_cli("serve", "--agents", "clever")
    assert result.exit_code == 2 and "unknown agents 'clever'" in result.output
    result = run_cli("serve", "--host", "nosuch.invalid")
    assert result.exit_code == 2 and "'nosuch.invalid' is not an address of this machine" in result.output
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        result = run_cli("serve", "--port", str(port))
    assert result.exit_code == 2 and f"the port {port} is in use" in result.output


def test_new_tables_take_the_rules_player_counts(content: Any) -> None:
    lobby = lobby_for(content, rules="identity", players=5)
    with TestClient(create_app(lobby)) as client:
        made = client.post("/api/tables", json={"players": 4})
        assert made.status_code == 201 and made.json()["players"] == 4 and len(made.json()["seats"]) == 4
        wrong = client.post("/api/tables", json={"players": 12})
        assert wrong.status_code == 400 and "play 2 to 10 players" in wrong.json()["error"]
        assert len(client.get("/api/tables").json()["tables"]) == 2
        bad = client.post("/api/replays", json={"rules": "identity"})
        assert bad.status_code == 400 and "not a saved game" in bad.json()["error"]
    lobby.close()


def test_tables_deal_from_the_servers_hero_pool_and_save_it(content: Any) -> None:
    pool = ["caocao", "liubei", "sunquan", "guanyu", "zhangfei", "zhaoyun"]
    lobby = lobby_for(content, hero_pool=pool)
    with TestClient(create_app(lobby)) as client:
        tid = next(iter(lobby.tables))
        token = client.post(f"/api/tables/{tid}/join", json={"name": "Ann"}).json()["token"]
        client.post(f"/api/tables/{tid}/start", json={"token": token})
        last = play_over_socket(client, tid, token, random.Random(2), [])
        assert last["state"] == "over", last.get("error")
        game = lobby.tables[tid].game
        assert game is not None and all(p.hero.id in pool for p in game.players)
        record = client.get(f"/api/tables/{tid}/transcript").json()
        assert record["hero_pool"] == pool and replay(content, record).result.winners == game.result.winners
        made = client.post("/api/tables", json={})  # a new table deals from the same pool
        assert made.status_code == 201 and lobby.tables[made.json()["id"]].hero_pool == pool
    lobby.close()
    small = Lobby(content, content.ruleset("identity"), 5, 1, hero_pool=["caocao", "liubei"])
    with pytest.raises(SgsError, match="the hero pool has 2 hero"):
        small.new_table()
    result = run_cli("serve", "--players", "5", "--heroes", "caocao,liubei")
    assert result.exit_code == 2 and "the hero pool has 2 hero(es) for 5 players" in result.output


def test_sgs_serve_prints_its_address_serves_the_page_and_stops_on_ctrl_c() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "sgs_cli.main", "serve", "--port", "0", "--rules", "two_players",
                             "--seed", "5"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("sgs table (two_players, 2 players): open http://127.0.0.1:"), line
        url = line.split("open ")[1].strip()
        with urllib.request.urlopen(url + "api/tables", timeout=30) as res:
            tables = json.loads(res.read())["tables"]
        assert len(tables) == 1 and tables[0]["players"] == 2

        def post(path: str, body: dict[str, Any]) -> Any:
            req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=30) as res:
                return json.loads(res.read())

        tid = tables[0]["id"]
        token = post(f"api/tables/{tid}/join", {"name": "Ann"})["token"]
        assert post(f"api/tables/{tid}/start", {"token": token})["state"] == "playing"
        proc.send_signal(signal.SIGINT)  # a game waits for Ann's browser: stopping the server ends it
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_saved_game_goes_on_at_a_new_table_where_it_was_left(two: Any, content: Any) -> None:
    lobby, client = two
    tid = next(iter(lobby.tables))
    token = client.post(f"/api/tables/{tid}/join", json={"name": "Ann"}).json()["token"]
    client.post(f"/api/tables/{tid}/start", json={"token": token})
    play_over_socket(client, tid, token, random.Random(2), [], stop_after=6)
    record = client.get(f"/api/tables/{tid}/transcript").json()
    lobby.get(tid).close()
    made = client.post("/api/tables", json={"resume": record})
    assert made.status_code == 201, made.text
    new = made.json()
    assert new["state"] == "waiting" and new["players"] == record["players"] and new["rules"] == record["rules"]
    token2 = client.post(f"/api/tables/{new['id']}/join", json={"name": "Ann", "seat": 0}).json()["token"]
    assert client.post(f"/api/tables/{new['id']}/start", json={"token": token2}).json()["state"] == "playing"
    last = play_over_socket(client, new["id"], token2, random.Random(3), [])
    assert last["state"] == "over", last.get("error")
    done = client.get(f"/api/tables/{new['id']}/transcript").json()
    assert done["decisions"][:len(record["decisions"])] == record["decisions"]  # it went on from there
    assert len(done["decisions"]) > len(record["decisions"])
    assert replay(content, done).result is not None


@pytest.mark.parametrize("resume, message", [
    ("not a game", "'resume' must be a saved game"),
    ({"seed": 1}, "no 'rules'"),
])
def test_a_wrong_saved_game_is_told_in_a_sentence(two: Any, resume: Any, message: str) -> None:
    _, client = two
    got = client.post("/api/tables", json={"resume": resume})
    assert got.status_code == 400 and message in got.json()["error"], got.text


def test_a_saved_game_that_is_over_cannot_go_on(two: Any, content: Any) -> None:
    lobby, client = two
    tid = next(iter(lobby.tables))
    token = client.post(f"/api/tables/{tid}/join", json={"name": "Ann"}).json()["token"]
    client.post(f"/api/tables/{tid}/start", json={"token": token})
    play_over_socket(client, tid, token, random.Random(1), [])
    record = client.get(f"/api/tables/{tid}/transcript").json()
    new = client.post("/api/tables", json={"resume": record}).json()
    token2 = client.post(f"/api/tables/{new['id']}/join", json={"name": "Ann", "seat": 0}).json()["token"]
    got = client.post(f"/api/tables/{new['id']}/start", json={"token": token2})
    assert got.status_code == 400 and "the saved game is over" in got.json()["error"]
