"""A game record as a replay the browser steps through: every position drawn from the omniscient view and
from each seat's (quando_env.web.svg), the moves named in their context, and the record's proof status.

`replay_data(record)` is what the server sends for a record chosen in its page; `replay_html(record)` is
one self-contained page with the same data and the same script inline (no network: it opens from disk and
can be shown in a notebook). The frames are packed as gzip-compressed JSON (identical pictures stored once),
since a long game has thousands of them; the page unpacks them with the browser's DecompressionStream.
"""
import base64
import gzip
import json
from html import escape

from ..adapters import record as rec
from ..core import make_config
from .assets import static_text
from .svg import svg

PROVEN = "proven: every round's result and digest match the record's proof"
UNPROVEN = ("not proven: a {format} record carries no proof (its actions are legal and its final totals "
            "match)")


def replay_data(record: dict) -> dict:
    """Replay and verify `record` (ValueError where it fails, as `replay` does) and return the replay's
    data: title, proof, viewers, per position the move that led there and the one taken next, and the
    packed frames (frames[viewer][position] indexes the distinct SVGs)."""
    cls = rec.check(record)[0]
    n = make_config(cls.config_class, **record["config"]).num_players
    svgs, index = {}, [[] for _ in range(n + 1)]
    positions, before, told = [], None, []

    def position(k, g):
        nonlocal before, told
        before = g.states[0].copy()
        for v, viewer in enumerate([None, *range(n)]):
            index[v].append(svgs.setdefault(svg(g.table_view(0, viewer)), len(svgs)))
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
    packed = json.dumps({"svgs": list(svgs), "frames": index}, separators=(",", ":")).encode()
    return {"title": f"{cls.name} replay: {len(record['actions'])} actions, {n} players"
                     + (f" ({', '.join(record['players'])})" if record.get("players") else ""),
            "proof": PROVEN if proven else UNPROVEN.format(format=record["format"]),
            "proven": proven, "viewers": ["omniscient", *(f"player_{p}" for p in range(n))],
            "positions": positions, "packed": base64.b64encode(gzip.compress(packed, mtime=0)).decode()}


def replay_html(record: dict) -> str:
    """One self-contained HTML page replaying `record` (see html_page)."""
    return html_page(replay_data(record))


def html_page(data: dict) -> str:
    """The page of a replay's data (replay_data): its script, style and data inline, and a
    Content-Security-Policy that allows no network."""
    inline = json.dumps(data).replace("<", "\\u003c")
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
            "script-src 'unsafe-inline'; img-src data:\">"
            f"<meta name=\"viewport\" content=\"width=device-width\"><title>{escape(data['title'])}</title>"
            f"<style>{static_text('style.css')}</style></head>\n<body><main><div id=\"replay\"></div></main>\n"
            f"<script>window.QE_REPLAY = {inline};</script>\n<script>{static_text('replay.js')}</script>\n"
            "</body></html>\n")
