"""Any game's TableView (quando_env.tableview) drawn as SVG text: the browser pages, replays and notebooks
(`TableView._repr_svg_`) all show tables through this one function.

The layout is that of quando_env.picture (seats on the left, piles and the row on the right, the status
below), on the same fixed 960x640 canvas in the same colours (quando_env.table_style); a French-suited card
(Cabo's Qh) shows its suit as a symbol. Each card (and each face of a card of several) is a group whose
`data-at` names its place (quando_env.tableview.place), for a page to make cards clickable and to mark
them. Every text comes from the view and is escaped; colours are presentation attributes (no style
attributes or scripts), so the SVG works under a strict Content-Security-Policy.
"""
import re
from html import escape

from . import table_style as P

W, H = P.FRAME_WIDTH, P.FRAME_HEIGHT
CHAR = 0.52          # a character's mean width, in font sizes, for cutting lines to fit (no font metrics here)
SUITED = re.compile(r"(A|[2-9]|10|J|Q|K)([hdcs])")      # a French-suited card's name, as Cabo writes it: Qh
SUITS = {"h": "\u2665", "d": "\u2666", "c": "\u2663", "s": "\u2660"}


def _rgb(c) -> str:
    return "#%02x%02x%02x" % c


FELT, PANEL, PANEL_TO_MOVE, GOLD, WHITE, SOFT = map(_rgb, (P.FELT, P.PANEL, P.PANEL_TO_MOVE, P.GOLD, P.WHITE,
                                                           P.SOFT))
CARD_FACE, CARD_EDGE, BACK, BACK_STRIPE, EMPTY = map(_rgb, (P.CARD_FACE, P.CARD_EDGE, P.BACK, P.BACK_STRIPE,
                                                            P.EMPTY))
INK = {k: _rgb(v) for k, v in P.INK_RGB.items()}
DEFS = (f'<defs><pattern id="qe-back" width="7" height="7" patternUnits="userSpaceOnUse" '
        f'patternTransform="rotate(45)"><rect width="7" height="7" fill="{BACK}"/>'
        f'<rect width="2" height="7" fill="{BACK_STRIPE}"/></pattern></defs>')


def _cut(text: str, size: float, width: float) -> str:
    """`text` cut with '...' to about `width` pixels at font `size`."""
    most = max(int(width / (size * CHAR)), 1)
    return text if len(text) <= most else text[:max(most - 3, 0)] + "..."


def _text(out, text, x, y, size, color, width, anchor="start", weight="") -> None:
    if text:
        out.append(f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size:.0f}" fill="{color}"'
                   + (f' text-anchor="{anchor}"' if anchor != "start" else "")
                   + (f' font-weight="{weight}"' if weight else "") + f">{escape(_cut(text, size, width))}</text>")


def svg(view) -> str:
    """The SVG picture of `view`, a TableView (one <svg> element, 960x640, scaling to its container's width)."""
    if not all(hasattr(view, part) for part in ("title", "seats", "table", "status", "lines", "legend")):
        raise TypeError(f"view must be a quando_env.tableview.TableView, got {type(view).__name__}")
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
           f'font-family="sans-serif" role="img"><title>{escape(view.title)}</title>{DEFS}'
           f'<rect width="{W}" height="{H}" fill="{FELT}"/>']
    m, gap = P.MARGIN, P.GAP
    _text(out, view.title, m, 32, 22, WHITE, W - 2 * m)
    n = len(view.seats)
    h = min(P.MAX_ZONE, (P.BOTTOM - P.TOP - gap * (n - 1)) // max(n, 1))
    for i, zone in enumerate(view.seats):
        _zone(out, zone, f"s{i}", m, P.TOP + i * (h + gap), P.SEATS_WIDTH - m, h)
    x, w = P.SEATS_WIDTH + m, W - P.SEATS_WIDTH - 2 * m
    k = len(view.table)
    h = min(P.MAX_ZONE, (P.BOTTOM - P.TOP - 60 * bool(view.lines) - gap * (k - 1)) // max(k, 1))
    for i, zone in enumerate(view.table):
        _zone(out, zone, f"t{i}", x, P.TOP + i * (h + gap), w, h)
    y = P.TOP + k * (h + gap) + 16
    for line in view.lines:
        for part in _wrap(line, 15, w - 8):
            _text(out, part, x + 8, y, 15, WHITE, w - 8)
            y += 18
    _text(out, view.status, m, P.BOTTOM + 26, 20, GOLD, W - 2 * m)
    _text(out, view.legend, m, P.BOTTOM + 50, 15, SOFT, W - 2 * m)
    out.append("</svg>")
    return "".join(out)


def _wrap(text: str, size: float, width: float) -> list[str]:
    most = max(int(width / (size * CHAR)), 1)
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > most:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return lines + [line] if line else lines


def _zone(out, zone, where, x, y, w, h) -> None:
    """A panel with the zone's label and note, and its cards below them (`where`: the zone's place, "s0")."""
    edge = f' stroke="{GOLD}" stroke-width="3"' if zone.to_move else ""
    out.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="8" '
               f'fill="{PANEL_TO_MOVE if zone.to_move else PANEL}"{edge}/>')
    label = zone.label + (f" · {zone.count} card{'' if zone.count == 1 else 's'}" if zone.count is not None else "")
    label = _cut(label, 18, w - 16)
    _text(out, label, x + 8, y + 21, 18, GOLD if zone.to_move else WHITE, w - 16, weight="bold")
    used = len(label) * 18 * CHAR * 1.08
    if zone.note and w - 28 - used > 40:
        _text(out, zone.note, x + 8 + used + 12, y + 21, 14, SOFT, w - 28 - used)
    _cards(out, zone.cards, where, x + 8, y + 28, w - 16, h - 34)


def _cards(out, cards, where, x, y, w, h) -> None:
    """Cards left to right, overlapping when they do not fit side by side; each keeps a visible strip."""
    ch = min(P.MAX_CARD, h)
    cw = round(ch * 0.68)
    if not cards:
        _card(out, None, None, x, y, cw, ch, cw)
        return
    k = len(cards)
    step = cw + P.GAP if k * (cw + P.GAP) - P.GAP <= w else (w - cw) / max(k - 1, 1)
    for i, card in enumerate(cards):
        _card(out, card, f"{where}.{i}", round(x + i * step), y, cw, ch, min(cw, round(step)))


def _card(out, card, at, x, y, w, h, visible) -> None:
    """One card at place `at`: its faces stacked (an unseen face as a striped back), text centred in the
    visible strip; a card of several faces holds a group per face, its last rect the face's outline."""
    if card is None:
        out.append((f'<g data-at="{at}">' if at else "") + f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" '
                   f'fill="none" stroke="{EMPTY}" stroke-width="2"/>' + ("</g>" if at else ""))
        return
    k = len(card.faces)
    out.append(f'<g data-at="{at}"><rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" fill="{CARD_FACE}"/>')
    for i, face in enumerate(card.faces):
        top, bottom = y + i * h // k, y + (i + 1) * h // k
        if k > 1:
            out.append(f'<g data-at="{at}.{i}">')
        if face is None:
            out.append(f'<rect x="{x + 2}" y="{top + 2}" width="{w - 4}" height="{bottom - top - 4}" rx="3" '
                       f'fill="url(#qe-back)"/>')
        else:
            suited = SUITED.fullmatch(face)
            face = suited[1] + SUITS[suited[2]] if suited else face
            size = min((bottom - top) * (0.5 if k == 1 else 0.72), (visible - 4) / max(len(face) * 0.6, 1))
            _text(out, face, x + visible / 2, (top + bottom) / 2 + size * 0.35, size, INK[card.ink], visible,
                  anchor="middle", weight="bold")
        if i:
            out.append(f'<line x1="{x}" y1="{top}" x2="{x + w}" y2="{top}" stroke="{CARD_EDGE}"/>')
        if k > 1:
            out.append(f'<rect x="{x}" y="{top}" width="{w}" height="{bottom - top}" fill="{CARD_FACE}" '
                       f'fill-opacity="0" stroke="none"/></g>')
    if card.corner:
        _text(out, card.corner, x + visible / 2, y + h * 0.2, h * 0.16, INK[card.ink], visible, anchor="middle")
    out.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="5" fill="none" stroke="{CARD_EDGE}"/></g>')
