"""A game record as a replay the browser steps through: every position drawn from the omniscient view and
from each seat's (quando_env.svg), the moves named in their context, and the record's proof status.

`replay_data(record)` is what the server sends for a record chosen in its page; `replay_html(record)` is
one self-contained page with the same data and the same script inline (no network: it opens from disk and
can be shown in a notebook). The frames are packed as gzip-compressed JSON (identical pictures stored once),
since a long game has thousands of them; the page unpacks them with the browser's DecompressionStream.

The work is bounded: a record whose positions times views exceed MAX_FRAMES is refused before anything is
replayed (the terminal's `replay` takes any record), and the pictures are compressed as they are drawn, each
distinct one kept only as a digest, so memory stays near the packed page's size.
"""
import base64
import hashlib
import json
import zlib
from html import escape

from ..adapters import record as rec
from ..options import make_config
from .assets import static_text
from ..svg import svg

PROVEN = "proven: every round's result and digest match the record's proof"
MAX_FRAMES = 30_000    # pictures a replay draws (positions x views): at the cap, 34 s and 250 MB measured
UNPROVEN = ("not proven: a {format} record carries no proof (its actions are legal and its final totals "
            "match)")


def replay_data(record: dict) -> dict:
    """Replay and verify `record` (ValueError where it fails, as `replay` does) and return the replay's
    data: title, proof, viewers, per position the move that led there and the one taken next, and the
    packed frames (frames[viewer][position] indexes the distinct SVGs)."""
    cls = rec.check(record)[0]
    n = make_config(cls.config_class, **record["config"]).num_players
    frames = (len(record["actions"]) + 1) * (n + 1)
    if frames > MAX_FRAMES:
        raise ValueError(f"this record's {len(record['actions'])} actions seen from {n + 1} views make {frames} "
                         f"pictures, more than a replay page draws ({MAX_FRAMES}): replay it in the terminal "
                         "(python -m quando_env replay FILE)")
    pictures, index = Pictures(), [[] for _ in range(n + 1)]
    positions, before, told = [], None, []

    def position(k, g):
        nonlocal before, told
        before = g.states[0].copy()
        for v, viewer in enumerate([None, *range(n)]):
            index[v].append(pictures.add(svg(g.table_view(0, viewer))))
        move = (f"player_{int(g.current_player[0])}: {g.move_name(0, record['actions'][k])}"
                if k < len(record["actions"]) else "")
        positions.append({"told": told, "next": move})
        told = []

    def each(k, seat, a, g):
        nonlocal told
        told = [positions[k]["next"], *g.step_notes(0, before)]
        if g.round_over[0]:
            told.append(f"round over: points {g.round_points[0].tolist()}, totals {g.totals[0].tolist()}")

    proven = rec.verify(record, each, position)
    return {"title": f"{cls.name} replay: {len(record['actions'])} actions, {n} players"
                     + (f" ({', '.join(record['players'])})" if record.get("players") else ""),
            "proof": PROVEN if proven else UNPROVEN.format(format=record["format"]),
            "proven": proven, "viewers": ["omniscient", *(f"player_{p}" for p in range(n))],
            "positions": positions, "packed": pictures.packed(index)}


class Pictures:
    """Distinct pictures gzip-compressed as they come, as the JSON {"svgs": [...], "frames": ...}."""

    def __init__(self):
        self.gzip = zlib.compressobj(6, zlib.DEFLATED, 31)
        self.out, self.seen = [self.gzip.compress(b'{"svgs":[')], {}

    def add(self, picture: str) -> int:
        """The picture's number (a new one is compressed, then kept only as its digest)."""
        key = hashlib.blake2b(picture.encode(), digest_size=16).digest()
        if key not in self.seen:
            self.out.append(self.gzip.compress((b"," if self.seen else b"") + json.dumps(picture).encode()))
            self.seen[key] = len(self.seen)
        return self.seen[key]

    def packed(self, frames) -> str:
        """All of it, frames[viewer][position] naming the pictures, base64-encoded."""
        tail = b'],"frames":' + json.dumps(frames, separators=(",", ":")).encode() + b"}"
        return base64.b64encode(b"".join([*self.out, self.gzip.compress(tail), self.gzip.flush()])).decode()


def replay_html(record: dict) -> str:
    """One self-contained HTML page replaying `record` (see html_page)."""
    return html_page(replay_data(record))


def html_page(data: dict) -> str:
    """The page of a replay's data (replay_data): its script, style and data inline, and a
    Content-Security-Policy that allows no network and runs only these scripts and styles (by their hashes)."""
    data_script = "window.QE_REPLAY = " + json.dumps(data).replace("<", "\\u003c") + ";"
    style, script = static_text("style.css"), static_text("replay.js")
    csp = (f"default-src 'none'; style-src {_hash(style)}; script-src {_hash(data_script)} {_hash(script)}; "
           "img-src data:")
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">"
            f"<meta name=\"viewport\" content=\"width=device-width\"><title>{escape(data['title'])}</title>"
            f"<style>{style}</style></head>\n<body><main><div id=\"replay\"></div></main>\n"
            f"<script>{data_script}</script>\n<script>{script}</script>\n</body></html>\n")


def _hash(text: str) -> str:
    """A CSP source allowing exactly this inline script or style."""
    return f"'sha256-{base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()}'"
