"""The browser front end's server under clients that misbehave: stalled and idle connections, bursts, stale and
repeated moves, odd headers and queries, malformed requests (each answered, with the security headers), the
addresses it binds and the names it answers to, and the seed told only at a game's end."""
import re
import socket
from concurrent.futures import ThreadPoolExecutor

import pytest

from quando_env.checks import SEED_MAX
from quando_env.cli import main, parse_args
from quando_env.web.server import CSP, Server, answered, is_loopback
from quando_env.web.session import Session
from web_helpers import request, served, token_of


@pytest.fixture(scope="module")
def server():
    with served("cabo", seed=SEED_MAX) as s:
        yield s


def raw(server, data: bytes) -> tuple[int, dict]:
    """(status, headers) of the answer to bytes sent as they are."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(data)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    head = answer.split(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
    return int(head[0].split()[1]), {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:])}


def test_stalled_and_idle_clients_hold_up_nobody_and_bursts_are_all_answered(server):
    """Three clients stop inside their headers or a body, 150 connections stay open idle: the page and its
    table are served, a move is played, and 200 state reads at once are all answered (each client gives up
    after 10 s, which fails the test)."""
    port = server.port
    host = f"Host: 127.0.0.1:{port}\r\nX-Token: {server.token}\r\n"
    stalled = [b"GET /api/state HTTP/1.1\r\nHost: 127.0.0",
               f"POST /api/move HTTP/1.1\r\n{host}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
               '{"action": '.encode(),
               f"POST /api/replay HTTP/1.1\r\n{host}Content-Type: application/json\r\nContent-Length: 4000000\r\n"
               "\r\n{".encode()]
    sockets = [socket.create_connection(("127.0.0.1", port)) for _ in range(150 + len(stalled))]
    try:
        for s, data in zip(sockets, stalled):
            s.sendall(data)
        assert request(server, "GET", "/", token=False, timeout=10)[0] == 200
        status, state = request(server, "GET", "/api/state", timeout=10)
        assert status == 200 and "<svg" in state["events"][-1]["svg"]
        move = {"action": state["moves"][0]["action"], "turn": state["turn"]}
        status, after = request(server, "POST", "/api/move", move, timeout=10)
        assert status == 200 and after["turn"] > state["turn"]
        with ThreadPoolExecutor(200) as pool:
            answers = list(pool.map(lambda _: request(server, "GET", "/api/state", timeout=10)[0], range(200)))
        assert answers == [200] * 200
    finally:
        for s in sockets:
            s.close()


def test_a_stale_or_repeated_move_is_refused(server):
    state = request(server, "GET", "/api/state")[1]
    if state["over"]:
        state = request(server, "POST", "/api/new", {"game": state["game"]})[1]
    move = {"action": state["moves"][0]["action"], "turn": state["turn"]}
    assert request(server, "POST", "/api/move", {**move, "turn": state["turn"] - 1})[0] == 409
    assert request(server, "GET", "/api/state")[1]["turn"] == state["turn"]
    assert request(server, "POST", "/api/move", move)[0] == 200
    status, answer = request(server, "POST", "/api/move", move)           # the same click again
    assert status == 409 and "turn" in answer["error"]


def test_a_new_game_after_the_largest_seed_deals_and_keeps_its_agents():
    session = Session("cabo", {"num_players": 2, "episode": "round"}, ["random"], seed=SEED_MAX, pace=0)
    session.new_game()
    agents = session.agents
    assert session.seed == SEED_MAX
    session.new_game(game=1)
    assert session.games_played == 2 and session.seed != SEED_MAX and session.agents is not agents
    with pytest.raises(ValueError, match="game 1 is not the one at the table"):
        session.new_game(game=1)


@pytest.mark.parametrize("query", ["since=%C2%B2", "since=" + "9" * 5000, "since=-1", "since=1.5", "game=x",
                                   "since=%00"],
                         ids=["superscript", "5000 digits", "negative", "fraction", "game", "nul"])
def test_a_bad_query_is_refused_with_400(server, query):
    status, answer = request(server, "GET", f"/api/state?{query}")
    assert status == 400 and "is not allowed" in answer["error"]


def test_a_token_header_that_is_not_ascii_is_refused_with_403(server):
    status, answer = request(server, "GET", "/api/state", headers={"X-Token": "t\u00e9" + server.token[2:]})
    assert status == 403 and "token" in answer["error"]


def test_a_spectator_reads_but_cannot_play(server):
    spectator = token_of(server, None)
    status, state = request(server, "GET", "/api/state", token=spectator)
    assert status == 200 and state["seat"] is None and state["moves"] == []
    assert "what every player sees" in state["events"][-1]["svg"]
    assert request(server, "POST", "/api/move", {"action": 0, "turn": state["turn"]}, token=spectator)[0] == 403


@pytest.mark.parametrize("data", [b"GARBAGE\r\n\r\n", b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n",
                                  b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: " + b"b" * 70_000
                                  + b"\r\n\r\n",
                                  b"BREW / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n",
                                  b"GET /nowhere HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"],
                         ids=["garbage", "long line", "long header", "unknown method", "not found"])
def test_every_error_answer_carries_the_security_headers(server, data):
    status, headers = raw(server, data.replace(b"{host}", f"127.0.0.1:{server.port}".encode()))
    assert status in (400, 403, 404, 405) and headers["content-security-policy"] == CSP
    assert headers["x-content-type-options"] == "nosniff" and headers["cache-control"] == "no-store"


def test_the_seed_is_told_to_the_operator_only_once_the_game_is_over(monkeypatch, capsys):
    told = []
    monkeypatch.setattr(Server, "run", lambda self: told.append(self.session.over()))
    argv = ["serve", "--game", "cabo", "--players", "2", "--opponents", "random", "--port", "0", "--seed", "98765432"]
    assert main(argv) == 0 and told == [False]
    assert "98765432" not in capsys.readouterr().out
    session = Session("cabo", {"num_players": 2, "episode": "round"}, ["random"], seed=98765432, pace=0,
                      on_over=lambda k, seed: told.append((k, seed)))
    session.new_game()
    while not session.over():
        session.move(session.state()["moves"][0]["action"])
    assert told[-1] == (1, 98765432) and "98765432" in session.state()["result"]


@pytest.mark.parametrize("host, allowed, shown", [
    ("::1", ["[::1]:{port}", "127.0.0.1:{port}"], "http://[::1]:{port}/"),
    ("0.0.0.0", ["192.168.1.20:{port}", "box.lan:{port}", "127.0.0.1:{port}"], "http://192.168.1.20:{port}/"),
    ("", ["192.168.1.20:{port}", "localhost:{port}"], "http://192.168.1.20:{port}/")])
def test_the_host_names_answered_follow_the_address_bound(host, allowed, shown):
    session = Session("cabo", {"num_players": 2, "episode": "round"}, ["random"], seed=1, pace=0)
    server = Server(session, host, 0, ["192.168.1.20", "box.lan"] if host != "::1" else ())
    try:
        port = server.port
        assert {a.format(port=port) for a in allowed} <= server.allowed_hosts
        assert "evil.example:{port}".format(port=port) not in server.allowed_hosts
        assert server.url(None).startswith(shown.format(port=port))
    finally:
        server.socket.close()


def test_loopback_is_loopback_in_ipv4_and_ipv6():
    assert all(map(is_loopback, ["127.0.0.1", "127.0.0.2", "::1", "localhost"]))
    assert not any(map(is_loopback, ["0.0.0.0", "", "::", "192.168.1.20", "example.com"]))


@pytest.mark.parametrize("argv, message", [(["--host", "0.0.0.0"], "--allow-host NAME"),
                                           (["--host", ""], "--allow-host NAME"),
                                           (["--allow-host", "a b"], "is not a host name"),
                                           (["--humans", "3"], "argument --humans"),
                                           (["--seat", "1", "--humans", "2"], "argument --humans"),
                                           (["--hints", "no-such-agent"], "argument --hints"),
                                           (["--hints", "learned,learned"], "argument --hints")])
def test_serve_refuses_hosts_and_seats_that_cannot_work(argv, message, capsys):
    with pytest.raises(SystemExit):
        parse_args(["serve", "--game", "cabo", "--players", "2", *argv])
    assert message in capsys.readouterr().err


def test_serve_prints_an_address_per_person_and_one_for_spectators(monkeypatch, capsys):
    monkeypatch.setattr(Server, "run", lambda self: None)
    assert main(["serve", "--game", "cabo", "--players", "2", "--humans", "2", "--port", "0", "--pace", "0"]) == 0
    out = capsys.readouterr().out
    tokens = re.findall(r"^Open http://127\.0\.0\.1:\d+/\?token=([\w-]+)  \(player_(\d)\)$", out, re.M)
    watch = re.findall(r"^Watch http://127\.0\.0\.1:\d+/\?token=([\w-]+) ", out, re.M)
    assert [seat for _, seat in tokens] == ["0", "1"] and len({t for t, _ in tokens} | set(watch)) == 3


def test_a_state_read_takes_no_lock(server):
    """Reads go on while the table changes (an agent deciding holds the lock)."""
    with server.session.lock:
        status, state = request(server, "GET", "/api/state", timeout=10)
        assert status == 200
        move = {"action": 0, "turn": state["turn"]}
        status, answer = request(server, "POST", "/api/move", move, timeout=10)
        assert status == 409 and "busy" in answer["error"]


def test_a_record_beyond_the_replay_budget_is_refused_before_any_work(monkeypatch, server, tmp_path, capsys):
    from pathlib import Path

    from quando_env.adapters import record as rec
    from quando_env.web import replay_page

    text = (Path(__file__).parent / "data" / "cabo_record_v2.json").read_bytes()     # 46 positions, 4 views
    monkeypatch.setattr(replay_page, "MAX_FRAMES", 183)
    monkeypatch.setattr(rec, "verify", lambda *a: pytest.fail("replayed"))
    status, answer = request(server, "POST", "/api/replay", text)
    assert status == 400 and "make 184 pictures" in answer["error"]
    record = tmp_path / "r.json"
    record.write_bytes(text)
    assert main(["replay", str(record), "--html", str(tmp_path / "r.html")]) == 2
    assert "more than a replay page draws (183)" in capsys.readouterr().err and not (tmp_path / "r.html").exists()


def test_a_replay_is_built_off_the_games_lock(server):
    from pathlib import Path

    text = (Path(__file__).parent / "data" / "help_record_v2.json").read_bytes()
    with server.session.lock:
        status, replay = request(server, "POST", "/api/replay", text, timeout=30)
    assert status == 200 and replay["proven"]


def test_a_connection_that_never_sends_a_byte_is_closed_by_the_server(server):
    """After the keep-alive timeout (5 s) the server closes it: idle connections cannot pile up."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        assert s.recv(1) == b""


def test_a_lan_address_allowed_is_answered_and_other_names_are_not():
    """--host 0.0.0.0 --allow-host 192.168.1.20: a browser on the LAN sends that Host and Origin."""
    import threading

    session = Session("cabo", {"num_players": 2, "episode": "round"}, ["random"], seed=1, pace=0)
    session.new_game()
    server = Server(session, "0.0.0.0", 0, ["192.168.1.20"])
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        lan = f"192.168.1.20:{server.port}"
        assert request(server, "GET", "/api/state", headers={"Host": lan, "Origin": f"http://{lan}"})[0] == 200
        assert request(server, "GET", "/api/state", headers={"Host": f"10.0.0.9:{server.port}"})[0] == 403
        assert request(server, "GET", "/api/state", headers={"Host": lan, "Origin": "http://10.0.0.9"})[0] == 403
    finally:
        server.stop()
        thread.join()


def test_at_a_table_of_several_people_a_new_game_waits_for_the_end_of_the_one_played():
    session = Session("cabo", {"num_players": 2, "episode": "round"}, [], seats=(0, 1), seed=1, pace=0)
    session.new_game()
    with pytest.raises(ValueError, match="still being played"):
        session.new_game(game=1)
    while not session.over():
        seat = int(session.game.current_player[0])
        session.move(session.state(viewer=seat)["moves"][0]["action"], seat, session.turn)
    session.new_game(game=1)
    assert session.games_played == 2 and not session.over()


def test_serve_without_the_web_extra_says_the_one_line_to_run():
    import subprocess
    import sys

    code = ("import sys; sys.modules['starlette'] = None\n"
            "from quando_env.cli import main; sys.exit(main(['serve', '--game', 'cabo', '--players', '2']))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.splitlines() == [
        "error: serve needs starlette, which the web extra installs: pip install -c constraints.txt -e "
        '".[web]" (in the clone\'s root folder)']


def test_hints_from_an_agent_without_move_scores_are_refused_before_serving(monkeypatch, capsys):
    monkeypatch.setattr(Server, "run", lambda self: pytest.fail("served"))
    assert main(["serve", "--game", "cabo", "--players", "2", "--port", "0", "--hints", "random"]) == 2
    assert "--hints random: this agent gives no move scores" in capsys.readouterr().err


# ---------------------------------------------------------------- deadlines, limits, hosts
def test_a_connection_stalled_inside_its_request_head_is_closed_at_the_head_deadline():
    """uvicorn stops its keep-alive timer at a connection's first byte and has no timeout for the rest of the
    head: the server's own deadline (scaled down here) closes it."""
    with served("cabo", head_seconds=0.3) as server:
        for data in (b"G", b"GET /api/state HTTP/1.1\r\nHost: 127.0.0"):
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
                s.sendall(data)
                assert closed(s)


def test_stalled_sockets_at_the_connection_limit_lock_no_one_out():
    """More connections than the limit (scaled down here) each send one byte and stop: a page load is
    answered at once (a new connection closes the oldest one without a whole request), and the deadline
    closes the rest."""
    with served("cabo", connections=20, head_seconds=1) as server:
        sockets = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(40)]
        try:
            for s in sockets:
                s.sendall(b"G")
            assert request(server, "GET", "/", token=False, timeout=10)[0] == 200
            assert request(server, "GET", "/api/state", timeout=10)[0] == 200
            assert all(map(closed, sockets))
        finally:
            for s in sockets:
                s.close()


def closed(s) -> bool:
    """Whether the server closed socket s (waiting for it at most s's timeout): a clean end or a reset (a
    socket closed with a byte the server never read)."""
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True


def test_a_body_that_stalls_is_refused_at_the_body_deadline():
    with served("cabo", body_seconds=0.3) as server:
        head = (f"POST /api/move HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nX-Token: {server.token}\r\n"
                "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            s.sendall(head.encode())
            assert s.recv(4096).startswith(b"HTTP/1.1 408 ")


def test_a_second_upload_is_refused_before_its_body_is_read():
    """One record is replayed at a time: while an upload holds the turn (its body stalled), another is
    answered 503 without a byte of its body sent."""
    with served("cabo", body_seconds=60) as server:
        head = (f"POST /api/replay HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nX-Token: {server.token}\r\n"
                "Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n")
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as first:
            first.sendall(head.encode() + b"{")
            assert request(server, "GET", "/api/state", timeout=10)[0] == 200     # the first is being read
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as second:
                second.sendall(head.encode())
                assert second.recv(4096).startswith(b"HTTP/1.1 503 ")


def test_a_slow_state_build_holds_up_no_page():
    """Answers are built and serialised in a worker thread: a state read that takes long (here: until the
    test lets it go) does not hold up another person's page."""
    import threading

    with served("cabo") as server:
        started, release = threading.Event(), threading.Event()
        build = server.session.state

        def slow(*args, **kwargs):
            started.set()
            release.wait(60)
            return build(*args, **kwargs)
        server.session.state = slow
        with ThreadPoolExecutor(1) as pool:
            reading = pool.submit(request, server, "GET", "/api/state", timeout=60)
            try:
                assert started.wait(10)
                assert request(server, "GET", "/", token=False, timeout=10)[0] == 200
                assert not reading.done()
            finally:
                release.set()
            assert reading.result()[0] == 200


def test_answers_go_out_without_waiting_for_the_clients_acks(server):
    """TCP_NODELAY on every connection (asyncio sets it only on sockets made with proto=IPPROTO_TCP): else an
    answer's head and body wait on the client's delayed ACK, 40 ms a request on a kept-alive connection."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("GET", "/", headers={"Host": f"127.0.0.1:{server.port}"})
        assert conn.getresponse().read()
        protocols = list(server.uvicorn.server_state.connections)
        assert protocols and all(p.transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP,
                                                                                 socket.TCP_NODELAY)
                                 for p in protocols)
    finally:
        conn.close()


@pytest.mark.parametrize("argv", [["--host", "127.1"], ["--host", "0x7f000001"], ["--host", "::1"],
                                  ["--host", "127.0.0.1"], ["--host", "localhost"],
                                  ["--host", "0", "--allow-host", "127.1"],
                                  ["--host", "::", "--allow-host", "::1"]],
                         ids=["127.1", "0x7f000001", "::1", "127.0.0.1", "localhost", "0", "::"])
def test_every_address_serve_prints_answers(monkeypatch, capsys, argv):
    """Each printed address opened as a browser opens it (its Host as the address names it): the page and the
    state answer 200."""
    import threading
    from urllib.parse import urlsplit

    run, loaded = Server.run, []

    def load(self):
        thread = threading.Thread(target=run, args=(self,), daemon=True)
        thread.start()
        try:
            for line in capsys.readouterr().out.splitlines():
                if line.startswith(("Open ", "Watch ")):
                    url = urlsplit(line.split()[1])
                    for path, token in (("/", None), ("/api/state", url.query.partition("=")[2])):
                        loaded.append(get(url.hostname, url.port, path, {"Host": url.netloc}, token))
        finally:
            self.stop()
            thread.join()
    monkeypatch.setattr(Server, "run", load)
    assert main(["serve", "--game", "cabo", "--players", "2", "--port", "0", *argv]) == 0
    assert loaded == [200] * 4


def get(host, port, path, headers, token) -> int:
    """The status of a GET to host:port with these headers (and the token, if any)."""
    import http.client

    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        conn.request("GET", path, headers={**headers, **({"X-Token": token} if token else {})})
        return conn.getresponse().status
    finally:
        conn.close()


@pytest.mark.parametrize("host", ["0", "0.0.0.0", "", "::", "0x0", "192.168.1.20", "10.1", "box.lan"])
def test_serve_beyond_this_computer_needs_allow_host(host, capsys):
    with pytest.raises(SystemExit):
        parse_args(["serve", "--game", "cabo", "--players", "2", "--host", host])
    assert "--allow-host NAME" in capsys.readouterr().err


@pytest.mark.parametrize("host", ["127.0.0.1", "127.1", "0x7f000001", "127.0.0.2", "::1", "[::1]", "localhost"])
def test_serve_on_this_computer_alone_needs_no_allow_host(host):
    assert is_loopback(parse_args(["serve", "--game", "cabo", "--players", "2", "--host", host]).host)


def test_on_port_80_a_host_without_the_port_is_answered():
    """A browser leaves HTTP's own port out of the Host header and the address."""
    hosts, base = answered("127.0.0.1", (), 80)
    assert {"127.0.0.1", "127.0.0.1:80", "localhost", "[::1]"} <= hosts and base == "http://127.0.0.1/"
    hosts, base = answered("0x7f000001", (), 8000)
    assert "127.0.0.1" not in hosts and "127.0.0.1:8000" in hosts and base == "http://127.0.0.1:8000/"
