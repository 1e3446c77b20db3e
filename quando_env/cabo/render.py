"""Readable text views of a Cabo game: one seat's view (only the cards that seat has seen) or an
omniscient one. A card is written as its short name ("Qh", "10c", "Kd") when known, "??" when not;
empty slots are "--"."""
import numpy as np

from . import engine as E
from .cards import NUM_SLOTS, action_name, card_name, value

PHASES = {E.PH_DRAW: "draw from the stock or take the discard", E.PH_PLACE: "place the drawn card",
          E.PH_QUEEN: "Queen: look at an own card", E.PH_JACK: "Jack: exchange two cards",
          E.PH_SNAP: "snap a card of the top's rank, or pass", E.PH_KNOCK: "knock or not", E.PH_OVER: "over"}


def card_text(s, viewer, c) -> str:
    """Card c as `viewer` knows it ("??" if unseen; everything if viewer is None)."""
    if viewer is None or s["seen"][viewer, c]:
        return card_name(c)
    return "??"


def slots_text(s, viewer, p) -> str:
    return " ".join("--" if c < 0 else card_text(s, viewer, int(c)) for c in s["slot"][p][:NUM_SLOTS])


def render_text(game, g: int = 0, seat: int | None = None) -> str:
    """The table of game g as seat `seat` knows it (the cards it has seen, where they are now), or
    everything when seat is None."""
    s = game.states[g]
    n = game.num_players
    over = s["phase"] == E.PH_OVER
    lines = [f"Cabo, round {int(s['round']) + (0 if over else 1)}, dealer player_{int(s['dealer'])}, "
             f"{int(s['turns'])} turns" + (f", view of player_{seat}" if seat is not None else ", omniscient view")]
    for p in range(n):
        tags = []
        if p == s["active"] and not over:
            tags.append("turn" if s["in_turn"] or s["phase"] != E.PH_SNAP else "dealer")
        if p == s["knocker"]:
            tags.append("knocked")
        if s["out"][p]:
            tags.append("out")
        known = [value(c) for c in s["slot"][p] if c >= 0 and (seat is None or s["seen"][seat, c])]
        held = int(s["nhand"][p])
        kv = (f", known value {sum(known)}" + ("" if len(known) == held else f" ({len(known)} of {held} cards known)")
              if held else "")
        lines.append(f"  player_{p}{' (you)' if p == seat else ''}: [{slots_text(s, seat, p)}] {held} cards{kv}, "
                     f"total {int(s['total'][p])}" + (f" <{', '.join(tags)}>" if tags else ""))
    if s["drawn"] >= 0:
        src = "the stock" if s["from_stock"] else "the discard pile"
        lines.append(f"  drawn from {src}: {card_text(s, seat, int(s['drawn']))}")
    nd = int(s["ndisc"])
    disc = [int(c) for c in s["disc"][:nd][::-1]]
    lines.append(f"  discard pile: {nd} cards" + (f", from the top: {' '.join(card_name(c) for c in disc[:10])}"
                                                  + (" ..." if nd > 10 else "") if nd else ""))
    ns = int(s["nstock"])
    stock = [int(c) for c in s["stock"][:ns][::-1]]
    shown = " ".join(card_text(s, seat, c) for c in stock[:6])
    lines.append(f"  stock: {ns} cards" + (f", from the top: {shown}" + (" ..." if ns > 6 else "") if ns else ""))
    if over:
        lines.append(f"  episode over; last round's points {[int(x) for x in s['points'][:n]]}")
    else:
        who = int(s["cur"])
        lines.append(f"  player_{who} to decide: {PHASES[int(s['phase'])]}")
        if seat is None or seat == who:
            legal = np.flatnonzero(game.legal_action_mask[g])
            lines.append("  legal: " + ", ".join(f"{a} {action_name(a)}" for a in legal))
    return "\n".join(lines)
