"""`python -m quando_env serve`: the browser front end, a Starlette app on uvicorn (the `web` extra).

Safe by default: it binds 127.0.0.1; each person's page has its own token (a seat's, or the spectator's), sent
as X-Token with every API call; a request whose Host is not one this server answers to (DNS rebinding) or whose
Origin is another site or port is refused, so a page elsewhere can neither play nor read the game; POSTs must be
application/json, are size-capped before they are read and must arrive whole within a few seconds (a record
upload by the record module's own cap, and only one at a time: a second is refused before its body is read; it is
loaded and verified by the record module, never run); agents are chosen on the command line only, never by a page.

No client can hold up another: uvicorn serves every connection on one event loop (its backlog, keep-alive
timeout and connection limit are set here); a connection must send a whole request head within a few seconds of
its first byte, and at the connection limit a new connection closes the oldest one without a whole request (so
stalled sockets never lock people out); every answer is built and serialised in a worker thread, never on the
loop; the game is changed only in a worker thread, from a complete and checked request, under the session's lock
(a request that finds it taken is refused, not queued); state reads take no lock; replays are built in a worker
thread, one at a time, within the replay page's budget.
"""
import asyncio
import json
import re
import secrets
import socket
import tempfile
import threading

import h11
import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..adapters import record as rec
from ..argtypes import bind_host, is_loopback
from ..opponents import PlayError
from .assets import static_text
from .replay_page import replay_data
from .session import MoveError

MAX_BODY = 4096                    # a move or a new game: a few bytes of JSON
MAX_UPLOAD = rec.MAX_RECORD_BYTES  # a record to replay
BODY_SECONDS = 10                  # a body that has not arrived whole by then is refused (408)
HEAD_SECONDS = 5                   # a request head (line and headers) not whole by then: the connection is closed
CONNECTIONS = 1000                 # uvicorn's limit_concurrency: beyond it, 503 at once
BACKLOG = 2048                     # connections the kernel queues before they are accepted
KEEP_ALIVE = 5                     # seconds an idle kept-alive connection stays open
STATIC = {"/": ("play.html", "text/html; charset=utf-8"), "/play.js": ("play.js", "text/javascript"),
          "/replay.js": ("replay.js", "text/javascript"), "/table.js": ("table.js", "text/javascript"),
          "/style.css": ("style.css", "text/css")}
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = [("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
           ("Content-Security-Policy", CSP)]           # on every answer, uvicorn's own error answers included
LOOPBACK = ("127.0.0.1", "localhost", "::1")
EVERYWHERE = ("0.0.0.0", "::")
NUMBER = re.compile(r"[0-9]{1,9}")


class Refused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def _named(host: str) -> str:
    """A host as it appears in a URL and a Host header (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host else host


def answered(host: str, allow_hosts, port: int) -> tuple[set, str]:
    """(the Host values, the address printed) of a server bound to `host` and `port`, opened at `allow_hosts`
    too, spelled as a browser spells them: names and addresses as bind_host spells them, with the port, and
    without it when it is HTTP's own (80), as a browser sends it then."""
    host = bind_host(host)
    names = [bind_host(h) for h in allow_hosts] + ([] if host in EVERYWHERE else [host])
    names += [h for h in LOOPBACK if h not in names] if host in EVERYWHERE or is_loopback(host) else []
    ports = (f":{port}", "") if port == 80 else (f":{port}",)
    return {f"{_named(h)}{p}" for h in names for p in ports}, f"http://{_named(names[0])}{ports[-1]}/"


class Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, so that no connection without a whole request holds a place: its keep-alive
    timeout runs from the connection's start too (a connection that never sends a byte is closed like an idle
    kept-alive one); a request head must be whole within `head_seconds` of its first byte (uvicorn stops its
    keep-alive timer there and has no timeout of its own); and a connection that fills the connection limit
    closes the oldest connection that is waiting for a request (`waiting`: the server's, oldest first). Its
    answer to a malformed request (too long a line or headers, bad syntax) carries the security headers.
    Server makes one subclass per server, with its own `head_seconds` and `waiting`."""

    head_seconds = HEAD_SECONDS
    waiting: dict = {}

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        # asyncio sets TCP_NODELAY only on sockets made with proto=IPPROTO_TCP, which socket.create_server's
        # are not: without it an answer's head and body wait on the client's delayed ACK (40 ms a request)
        transport.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.head_timer = None
        self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)
        if len(self.connections) >= self.limit_concurrency:
            oldest = next(iter(self.waiting), None)
            if oldest is not None:
                oldest.close_idle()
        self.waiting[self] = None

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self.waiting.pop(self, None)
            self.waiting[self] = None       # kept alive: the newest waiting
            self._follow()

    def connection_lost(self, exc) -> None:
        self.waiting.pop(self, None)
        if self.head_timer is not None:
            self.head_timer.cancel()
        super().connection_lost(exc)

    def _follow(self) -> None:
        """After bytes arrived or an answer went: a head begun starts the head deadline, a whole one ends it and
        the wait."""
        if self.conn.their_state is h11.IDLE and self.conn.trailing_data[0]:
            if self.head_timer is None:
                self.head_timer = self.loop.call_later(self.head_seconds, self.close_idle)
        elif self.conn.their_state is not h11.IDLE:
            self.waiting.pop(self, None)
            if self.head_timer is not None:
                self.head_timer.cancel()
                self.head_timer = None

    def close_idle(self) -> None:
        """Close a connection that has no whole request (uvicorn's own way for an idle one)."""
        self.waiting.pop(self, None)
        if self.conn.their_state is h11.IDLE:
            self.timeout_keep_alive_handler()

    def send_400_response(self, msg: str) -> None:
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close"),
                   *((k.encode(), v.encode()) for k, v in HEADERS)]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
                      h11.Data(data=msg.encode("ascii")), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event))
        self.transport.close()


class Server:
    """One session served: its tokens (one per person's seat, one for spectators), the Host values it answers
    to, and the uvicorn server bound to `host` and `port` (0: any free port). `host` and `allow_hosts` (further
    names or addresses others open it at: a LAN address, with host 0.0.0.0) in any spelling bind_host reads:
    the address printed and the Host values answered are spelled as a browser spells them (127.1 is
    127.0.0.1; port 80 is also named without it). `head_seconds`, `body_seconds`, `connections`: the deadlines
    for a request's head and body, and the connection limit."""

    def __init__(self, session, host: str = "127.0.0.1", port: int = 0, allow_hosts=(),
                 head_seconds: float = HEAD_SECONDS, body_seconds: float = BODY_SECONDS,
                 connections: int = CONNECTIONS):
        self.session = session
        self.viewers = {secrets.token_urlsafe(24): seat for seat in session.seats}
        self.viewers[secrets.token_urlsafe(24)] = None
        host = bind_host(host)
        self.socket = socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET,
                                           backlog=BACKLOG, dualstack_ipv6=host == "::")
        self.port = self.socket.getsockname()[1]
        self.server_address = (host, self.port)
        self.allowed_hosts, self.base = answered(host, allow_hosts, self.port)
        self.body_seconds = body_seconds
        self.replaying = threading.BoundedSemaphore(1)
        protocol = type("Protocol", (Protocol,), {"head_seconds": head_seconds, "waiting": {}})
        config = uvicorn.Config(self.app(), http=protocol, ws="none", lifespan="off", log_config=None,
                                log_level="warning", access_log=False, server_header=False, date_header=False,
                                headers=HEADERS, backlog=BACKLOG, limit_concurrency=connections,
                                timeout_keep_alive=KEEP_ALIVE, timeout_graceful_shutdown=1)
        self.uvicorn = uvicorn.Server(config)

    def url(self, seat="seat") -> str:
        """The address of `seat`'s page (default: the first person's; None: the spectators')."""
        seat = self.session.seat if seat == "seat" else seat
        return f"{self.base}?token={next(t for t, v in self.viewers.items() if v == seat)}"

    @property
    def token(self) -> str:
        """The first person's token."""
        return self.url().rpartition("=")[2]

    def run(self) -> None:
        """Serve until stopped (Ctrl-C, or `stop` from another thread)."""
        self.uvicorn.run(sockets=[self.socket])

    def stop(self) -> None:
        self.uvicorn.should_exit = True

    # ------------------------------------------------------------------ the app
    def app(self):
        routes = [Route(path, self._static, methods=["GET"]) for path in STATIC]
        routes += [Route("/api/state", self._state, methods=["GET"]), Route("/api/move", self._move, methods=["POST"]),
                   Route("/api/new", self._new, methods=["POST"]), Route("/api/replay", self._replay, methods=["POST"]),
                   Route("/api/record", self._record, methods=["GET"])]
        return self._guard(Starlette(routes=routes))

    def _guard(self, app):
        """The app behind the Host and Origin checks."""
        async def guarded(scope, receive, send):
            if scope["type"] == "http":
                headers = dict(scope["headers"])
                origin = headers.get(b"origin")
                host = headers.get(b"host", b"").decode("latin-1").lower()
                if host not in self.allowed_hosts:
                    return await _error(403, "Host not allowed: open the address the server printed")(scope, receive,
                                                                                                        send)
                if origin is not None and origin.decode("latin-1") not in {f"http://{h}" for h in self.allowed_hosts}:
                    return await _error(403, "cross-origin requests are refused")(scope, receive, send)
            await app(scope, receive, send)
        return guarded

    def _viewer(self, request):
        """The seat (None: a spectator) of the request's token; Refused(403) without a valid one."""
        given = request.headers.get("x-token", "").encode("latin-1")
        for token, seat in self.viewers.items():
            if secrets.compare_digest(given, token.encode()):
                return seat
        raise Refused(403, "the token is missing or wrong: open the address the server printed")

    async def _static(self, request):
        name, kind = STATIC[request.url.path]
        return Response(static_text(name), media_type=kind)

    async def _state(self, request):
        async def state():
            since, game = self._since(request)
            viewer = self._viewer(request)
            return lambda: self.session.state(since, viewer, game)
        return await _answer(state)

    @staticmethod
    def _since(request) -> tuple[int, int | None]:
        """?since=N (the first event wanted) and ?game=K (the game the page shows), or Refused(400)."""
        found = {}
        for key in ("since", "game"):
            text = request.query_params.get(key)
            if text is not None and not NUMBER.fullmatch(text):
                raise Refused(400, f"{key}={text[:20]!r} is not allowed: a number 0..999999999")
            found[key] = None if text is None else int(text)
        return found["since"] or 0, found["game"]

    async def _move(self, request):
        async def move():
            seat = self._viewer(request)
            if seat is None:
                raise Refused(403, "a spectator's page cannot play")
            body = await _json_body(request, self.body_seconds)
            action, turn = body.get("action"), body.get("turn")
            if type(turn) is not int:
                raise Refused(400, f"turn must be an integer (the state's turn), got {type(turn).__name__}")

            def played():
                since = self.session.state(viewer=seat)["next"]
                self.session.move(action, seat, turn)
                return self.session.state(since, viewer=seat)
            return played
        return await _answer(move)

    async def _new(self, request):
        async def new():
            seat = self._viewer(request)
            if seat is None:
                raise Refused(403, "a spectator's page cannot start a game")
            game = (await _json_body(request, self.body_seconds)).get("game")
            if game is not None and type(game) is not int:
                raise Refused(400, f"game must be an integer (the state's game), got {type(game).__name__}")

            def dealt():
                self.session.new_game(game)
                return self.session.state(viewer=seat)
            return dealt
        return await _answer(new)

    async def _record(self, request):
        """The game's record, offered to a page once the game is over (it holds every card)."""
        async def record():
            self._viewer(request)
            record = self.session.finished_record()
            if record is None:
                raise Refused(409, "the record is offered once the game is over (it holds every hidden card)")
            return record
        return await _answer(record)

    async def _replay(self, request):
        async def replay():
            self._viewer(request)
            if not self.replaying.acquire(blocking=False):      # before the body is read into memory
                raise Refused(503, "another record is being replayed: try again in a moment")
            try:
                data = await _body(request, MAX_UPLOAD, self.body_seconds)
                return await run_in_threadpool(_replay_upload, data)
            finally:
                self.replaying.release()
        return await _answer(replay)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status)


async def _answer(work) -> JSONResponse:
    """The answer to a request as JSON, or its refusal with the status it names. `work`, a coroutine function,
    reads and checks the request and returns the answer's data, or a function that builds it: that function
    and the serialising run in a worker thread, never on the event loop, where they would hold up every
    other connection (a long game's state, say)."""
    try:
        out = await work()
        return await run_in_threadpool(lambda: JSONResponse(out() if callable(out) else out))
    except Refused as e:
        return _error(e.status, str(e))
    except MoveError as e:
        return _error(e.status, str(e))
    except PlayError as e:      # an agent failed: said, not a traceback
        return _error(500, str(e))


async def _body(request, cap: int, seconds: float) -> bytes:
    """The whole body of a JSON request, at most `cap` bytes, arrived within `seconds`; Refused else."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise Refused(415, "Content-Type must be application/json")
    length = request.headers.get("content-length", "")
    if not NUMBER.fullmatch(length):
        raise Refused(411, "Content-Length is required")
    if int(length) > cap:
        raise Refused(413, f"the body is larger than {cap} bytes")

    async def read() -> bytes:
        data = b""
        async for chunk in request.stream():
            data += chunk
        return data
    try:
        return await asyncio.wait_for(read(), seconds)
    except asyncio.TimeoutError:
        raise Refused(408, f"the body did not arrive whole within {seconds:g} s") from None
    except ClientDisconnect:
        raise Refused(400, "the body ended early") from None


async def _json_body(request, seconds: float) -> dict:
    try:
        body = json.loads(await _body(request, MAX_BODY, seconds) or b"{}")
    except (ValueError, RecursionError):
        raise Refused(400, "the body is not JSON (or nests too deep)") from None
    if not isinstance(body, dict):
        raise Refused(400, "the body must be a JSON object")
    return body


def _replay_upload(data: bytes) -> dict:
    """A record sent by a page: written to a temporary file and loaded by the record module (which checks its
    size and fields), then replayed and verified within the replay page's budget."""
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        f.write(data)
        f.flush()
        try:
            return replay_data(rec.load(f.name, max_bytes=MAX_UPLOAD))
        except ValueError as e:
            raise Refused(400, str(e).replace(f.name, "the record")) from None


def serve(args, say=print) -> int:
    """Run the server until Ctrl-C (the options were checked by the command line)."""
    import sys

    from ..argtypes import rule_options
    from ..opponents import opponent_names
    from .session import Session, keep

    n, humans = int(args.players), int(args.humans)
    options = {"num_players": n, "episode": args.episode, **rule_options(args)}
    seats = range(args.seat, args.seat + humans)

    def over(k, seed):
        say(f"Game {k} is over; its seed was {seed}.", flush=True)
        if args.record:
            try:
                say(f"Its record: {keep(session.record(), args.record, k)}", flush=True)
            except ValueError as e:
                print(f"error: {e}", file=sys.stderr)

    session = Session(args.game, options, opponent_names(args.opponents, n, humans), seats, args.seed, args.pace,
                      on_over=over, hints=args.hints, deal=args.deal)
    try:
        session.new_game()
    except PlayError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not is_loopback(args.host):
        where = args.host + (" (every address)" if args.host in EVERYWHERE else "")
        print(f"warning: serving on {where}, not only on this computer: anyone who can reach it at "
              f"{', '.join(args.allow_host or [args.host])} and has an address with its token can play",
              file=sys.stderr)
    try:
        server = Server(session, args.host, args.port, args.allow_host or ())
    except OSError as e:      # the port is taken, the address is not this computer's ...
        print(f"error: cannot serve on {args.host} port {args.port}: {e.strerror or e}", file=sys.stderr)
        return 2
    for seat in session.seats:
        say(f"Open {server.url(seat)}  (player_{seat})")
    say(f"Watch {server.url(None)}  (spectators: no hands while the game runs)")
    say("Ctrl-C stops the server.", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    say("Stopped.")
    return 0
