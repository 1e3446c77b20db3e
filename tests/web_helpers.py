"""A served game in a thread, and HTTP requests with chosen headers, for tests/test_web*.py."""
import http.client
import json
import threading
from contextlib import contextmanager

from quando_env.web.server import Server
from quando_env.web.session import Session

PLAYERS = {"quando": 3, "cabo": 2, "help": 3}


@contextmanager
def served(game: str, seat: int = 0, opponents: str = "random", seed: int = 1, episode: str = "round",
           pace: float = 0.0, humans: int = 1, players: int | None = None, hints: str | None = None, **options):
    """A server on 127.0.0.1 (any free port), run in a thread, holding a new game of `game` with people at
    seats seat..seat+humans-1; `options`: Server's (its deadlines and connection limit)."""
    n = players or PLAYERS[game]
    session = Session(game, {"num_players": n, "episode": episode}, [opponents] * (n - humans),
                      range(seat, seat + humans), seed, pace, hints=hints)
    with served_session(session, **options) as server:
        yield server


@contextmanager
def served_session(session, **options):
    """`session`'s new game served on 127.0.0.1 (any free port) in a thread; `options`: Server's."""
    session.new_game()
    server = Server(session, "127.0.0.1", 0, **options)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stop()
        thread.join()


def token_of(server, seat="seat") -> str:
    """The token of `seat`'s page (None: the spectators')."""
    return server.url(seat).rpartition("=")[2]


def request(server, method: str, path: str, body=None, headers=None, token=True, timeout: float = 60):
    """(status, JSON or text) of one request; headers as a browser on the printed address sends them,
    replaced or removed (value None) by `headers`. token: True (the first person's), False (none), or a
    seat's token (token_of); the client gives up after `timeout` seconds (an error)."""
    port = server.port
    sent = {"Host": f"127.0.0.1:{port}"}
    if token:
        sent["X-Token"] = server.token if token is True else token
    if body is not None:
        body = body if isinstance(body, bytes) else json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
        sent["Content-Length"] = str(len(body))
    sent.update(headers or {})
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    for key, value in sent.items():
        if value is not None:
            conn.putheader(key, value)
    conn.endheaders()
    if body is not None:
        try:
            conn.send(body)
        except (BrokenPipeError, ConnectionResetError):    # refused before the body was read: the answer says why
            pass
    answer = conn.getresponse()
    data = answer.read()
    conn.close()
    kind = answer.getheader("Content-Type", "")
    return answer.status, (json.loads(data) if kind == "application/json" else data.decode())
