"""`python -m quando_env serve`: the browser front end on http.server (standard library only).

Safe by default: it binds 127.0.0.1; every API call needs the launch token (header X-Token); a request whose
Host is not this server's address (DNS rebinding) or whose Origin is another site or port is refused, so a
page elsewhere can neither play nor read the game; POSTs must be application/json and are size-capped
before they are read (a record upload by the record module's own cap, and it is loaded and verified by the
record module, never run); agents are chosen on the command line only, never by the page.
"""
import json
import secrets
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from ..adapters import record as rec
from ..cli.argtypes import rule_options
from ..cli.play import PlayError
from .replay_page import replay_data
from .assets import static_text
from .session import MoveError

MAX_BODY = 4096                    # a move or a new game: a few bytes of JSON
MAX_UPLOAD = rec.MAX_RECORD_BYTES  # a record to replay
STATIC = {"/": ("play.html", "text/html; charset=utf-8"), "/play.js": ("play.js", "text/javascript"),
          "/replay.js": ("replay.js", "text/javascript"), "/style.css": ("style.css", "text/css")}
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
LOOPBACK = ("127.0.0.1", "localhost")
ENDPOINTS = ("/api/state", "/api/move", "/api/new", "/api/replay")


class Refused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class Handler(BaseHTTPRequestHandler):
    server_version = "quando_env"
    sys_version = ""

    def log_message(self, format, *args):      # quiet: the terminal shows the address only
        pass

    # ------------------------------------------------------------------ checks
    def _check_origin(self) -> None:
        hosts = self.server.allowed_hosts
        if self.headers.get("Host", "") not in hosts:
            raise Refused(403, "Host not allowed: open the address the server printed")
        origin = self.headers.get("Origin")
        if origin is not None and origin not in {f"http://{h}" for h in hosts}:
            raise Refused(403, "cross-origin requests are refused")

    def _check_token(self) -> None:
        if not secrets.compare_digest(self.headers.get("X-Token", ""), self.server.token):
            raise Refused(403, "the launch token is missing or wrong: open the address the server printed")

    def _body(self, cap: int) -> bytes:
        kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise Refused(415, "Content-Type must be application/json")
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            raise Refused(411, "Content-Length is required") from None
        if not 0 <= length <= cap:
            raise Refused(413, f"the body is larger than {cap} bytes")
        return self.rfile.read(length)

    def _json_body(self) -> dict:
        try:
            body = json.loads(self._body(MAX_BODY) or b"{}")
        except ValueError:
            raise Refused(400, "the body is not JSON") from None
        if not isinstance(body, dict):
            raise Refused(400, "the body must be a JSON object")
        return body

    # ------------------------------------------------------------------ answers
    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Content-Security-Policy", CSP)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _handle(self, method: str) -> None:
        try:
            self._check_origin()
            path = urlsplit(self.path)
            if method == "GET" and path.path in STATIC:
                name, kind = STATIC[path.path]
                return self._send(200, static_text(name).encode(), kind)
            if not path.path.startswith("/api/"):
                raise Refused(404, "not found")
            self._check_token()
            with self.server.lock:
                self._json(200, self._api(method, path))
        except Refused as e:
            self._json(e.status, {"error": str(e)})
        except (PlayError, ValueError) as e:     # an agent failed, or the game refused: said, not a traceback
            self._json(500, {"error": str(e)})

    def _api(self, method: str, path) -> dict:
        session = self.server.session
        if method == "GET" and path.path == "/api/state":
            since = parse_qs(path.query).get("since", ["0"])[0]
            return session.state(int(since) if since.isdigit() else 0)
        if method == "POST" and path.path == "/api/move":
            body = self._json_body()
            since = session.state()["next"]
            try:
                session.move(body.get("action"))
            except MoveError as e:
                raise Refused(400, str(e)) from None
            return session.state(since)
        if method == "POST" and path.path == "/api/new":
            self._json_body()
            session.new_game()
            return session.state()
        if method == "POST" and path.path == "/api/replay":
            return self._replay(self._body(MAX_UPLOAD))
        raise Refused(405 if path.path in ENDPOINTS else 404, f"{method} {path.path} is not served")

    @staticmethod
    def _replay(data: bytes) -> dict:
        """A record sent by the page: written to a temporary file and loaded by the record module (which
        checks its size and fields), then replayed and verified."""
        with tempfile.NamedTemporaryFile(suffix=".json") as f:
            f.write(data)
            f.flush()
            try:
                return replay_data(rec.load(f.name, max_bytes=MAX_UPLOAD))
            except ValueError as e:
                raise Refused(400, str(e).replace(f.name, "the record")) from None

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")


class Server(ThreadingHTTPServer):
    """The HTTP server holding one session, its token and the Host values it answers to."""

    daemon_threads = True

    def __init__(self, session, host: str = "127.0.0.1", port: int = 0, token: str | None = None):
        super().__init__((host, port), Handler)
        self.session, self.lock = session, threading.Lock()
        self.token = token or secrets.token_urlsafe(24)
        port = self.server_address[1]
        names = set(LOOPBACK) | {host}
        self.allowed_hosts = {f"{h}:{port}" for h in names}
        self.url = f"http://{'127.0.0.1' if host in ('127.0.0.1', '0.0.0.0') else host}:{port}/?token={self.token}"


def serve(args) -> int:
    """Run the server until Ctrl-C (the options were checked by the command line)."""
    from ..cli.play import opponent_names
    from ..cli.first_use import notice
    from .session import Session

    n = int(args.players)
    options = {"num_players": n, "episode": args.episode, **rule_options(args)}
    names = opponent_names(args.opponents, n)
    notice(args.game, agents=set(names) != {"random"})
    session = Session(args.game, options, names, args.seat, args.seed, args.pace)
    try:
        session.new_game()
    except PlayError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.host not in LOOPBACK:
        print(f"warning: serving on {args.host}, not only on this computer (127.0.0.1): anyone who can reach it "
              "and has the address with its token can play", file=sys.stderr)
    try:
        server = Server(session, args.host, args.port)
    except OSError as e:      # the port is taken, the address is not this computer's ...
        print(f"error: cannot serve on {args.host} port {args.port}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"Open {server.url}  (Ctrl-C stops the server)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nStopped.")
    finally:
        server.server_close()
    return 0
