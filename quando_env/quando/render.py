"""Readable text views of a game: one seat's view (only what that seat has seen) or an omniscient one."""
import numpy as np

from . import engine as E
from .cards import CARD_VALUES, NUM_CARDS, action_name

_PHASES = {E.PH_ACT: "discard (straight or set), knock or pass", E.PH_DRAW: "draw: take the visible or hidden side",
           E.PH_FLIP: "triplet penalty: flip a 0", E.PH_KNOCK: "knock or not", E.PH_OVER: "over"}


def _side(s, viewer, c, side):
    """The number on `side` of card c as `viewer` knows it ('?' if unseen; everything if viewer is None)."""
    if viewer is None or (s["seen"][viewer, c] >> side) & 1:
        return str(int(CARD_VALUES[c, side]))
    return "?"


def render_text(game, g: int = 0, seat: int | None = None) -> str:
    """The table of game g as seat `seat` sees it (own fronts with known backs, others' backs with known
    fronts, the piles' seen sides), or everything when seat is None. Cards read front/back (up/down)."""
    s = game.states[g]
    n = game.num_players
    cfg = game.config
    lines = [f"Quando ({cfg.edition}), round {int(s['round']) + 1}, dealer player_{int(s['dealer'])}"
             + (f", view of player_{seat}" if seat is not None else ", omniscient view")]
    for p in range(n):
        cards = sorted((c for c in range(NUM_CARDS) if s["loc"][c] == p), key=lambda c: s["acq"][c])
        f = [int(s["face"][c]) for c in cards]
        txt = " ".join(f"{_side(s, seat, c, fc)}/{_side(s, seat, c, 1 - fc)}" for c, fc in zip(cards, f))
        tags = []
        if p == s["active"] and s["phase"] != E.PH_OVER:
            tags.append("turn")
        if p == s["knocker"]:
            tags.append("knocked")
        lines.append(f"  player_{p}{' (you)' if p == seat else ''}: {len(cards)} cards [{txt}] "
                     f"total {int(s['total'][p])} turns {int(s['turns'][p])}"
                     + (f" <{', '.join(tags)}>" if tags else ""))

    def pile(arr, k, limit=8):
        cards = [int(c) for c in arr[:k][::-1]]
        shown = " ".join(f"{_side(s, seat, c, s['face'][c])}/{_side(s, seat, c, 1 - s['face'][c])}"
                         for c in cards[:limit])
        return f"{k} cards" + (f", from the top: {shown}" + (" ..." if k > limit else "") if k else "")
    lines.append(f"  draw pile: {pile(s['draw'], int(s['ndraw']))}")
    lines.append(f"  discard pile: {pile(s['disc'], int(s['ndisc']))}")
    if s["phase"] == E.PH_OVER:
        lines.append(f"  episode over; last round's points {[int(x) for x in s['points'][:n]]}")
    else:
        who = int(s["cur"])
        legal = np.flatnonzero(game.legal_action_mask[g])
        lines.append(f"  player_{who} to decide: {_PHASES[int(s['phase'])]}")
        if seat is None or seat == who:
            lines.append("  legal: " + ", ".join(f"{a} {action_name(a)}" for a in legal))
    return "\n".join(lines)
