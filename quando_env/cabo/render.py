"""Readable views of a Cabo game: one seat's view (only the cards that seat has seen) or an omniscient one, as
text and as a TableView for pictures (quando_env.picture). A card is written as its short name ("Qh", "10c",
"Kd") when known, "??" when not; empty slots are "--"."""

from ..tableview import (PILE_SHOWN, Card, TableView, Zone, pile_zone, place, seat_label, status_lines, status_text,
                         title_of)
from . import engine as E
from .cards import (DIAMONDS, DISCARD_DRAWN, DRAW_STOCK, HEARTS, JACK_SWAP, NUM_CARDS, NUM_SLOTS, PASS, PLACE,
                    QUEEN_LOOK, SNAP, TAKE_DISCARD, card_name, decode_jack, suit, value)

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


def seat_tags(s, p) -> list[str]:
    tags = []
    if p == s["active"] and s["phase"] != E.PH_OVER:
        tags.append("turn" if s["in_turn"] or s["phase"] != E.PH_SNAP else "dealer")
    if p == s["knocker"]:
        tags.append("knocked")
    if s["out"][p]:
        tags.append("out")
    return tags


def known_value(s, viewer, p) -> str:
    """What `viewer` knows of seat p's hand value ("" for an empty hand)."""
    known = [value(c) for c in s["slot"][p] if c >= 0 and (viewer is None or s["seen"][viewer, c])]
    held = int(s["nhand"][p])
    if not held:
        return ""
    return f"known value {sum(known)}" + ("" if len(known) == held else f" ({len(known)} of {held} cards known)")


def _title(s) -> str:
    over = s["phase"] == E.PH_OVER
    return (f"Cabo, round {int(s['round']) + (0 if over else 1)}, dealer player_{int(s['dealer'])}, "
            f"{int(s['turns'])} turns")


def render_text(game, g: int = 0, seat: int | None = None) -> str:
    """The table of game g as seat `seat` knows it (the cards it has seen, where they are now), or
    everything when seat is None."""
    s = game.states[g]
    n = game.num_players
    lines = [title_of(_title(s), seat)]
    for p in range(n):
        tags = seat_tags(s, p)
        kv = known_value(s, seat, p)
        lines.append(f"  {seat_label(p, seat)}: [{slots_text(s, seat, p)}] {int(s['nhand'][p])} "
                     f"cards{', ' + kv if kv else ''}, total {int(s['total'][p])}"
                     + (f" <{', '.join(tags)}>" if tags else ""))
    if s["drawn"] >= 0:
        lines.append(f"  {_drawn_label(s)}: {card_text(s, seat, int(s['drawn']))}")
    nd = int(s["ndisc"])
    disc = [int(c) for c in s["disc"][:nd][::-1]]
    lines.append(f"  discard pile: {nd} cards" + (f", from the top: {' '.join(card_name(c) for c in disc[:10])}"
                                                  + (" ..." if nd > 10 else "") if nd else ""))
    ns = int(s["nstock"])
    stock = [int(c) for c in s["stock"][:ns][::-1]]
    shown = " ".join(card_text(s, seat, c) for c in stock[:6])
    lines.append(f"  stock: {ns} cards" + (f", from the top: {shown}" + (" ..." if ns > 6 else "") if ns else ""))
    lines += status_lines(game, g, seat, E.PH_OVER, PHASES)
    return "\n".join(lines)


def _drawn_label(s) -> str:
    return f"drawn from {'the stock' if s['from_stock'] else 'the discard pile'}"


def table_view(game, g: int = 0, seat: int | None = None, pile_cards: int = PILE_SHOWN) -> TableView:
    """The table of game g as a picture shows it to `seat` (what render_text tells, as cards): every seat's
    eight slots (None: empty), a card it has not seen face down; red suits in red."""
    s = game.states[g]

    def card(c):
        if seat is None or s["seen"][seat, c]:
            return Card((card_name(c),), ink="red" if suit(c) in (DIAMONDS, HEARTS) else "black")
        return Card()

    seats = tuple(Zone(seat_label(p, seat), tuple(None if c < 0 else card(int(c)) for c in s["slot"][p][:NUM_SLOTS]),
                       count=int(s["nhand"][p]),
                       note=" · ".join(x for x in [known_value(s, seat, p), f"total {int(s['total'][p])}",
                                                   *seat_tags(s, p)] if x),
                       to_move=bool(p == s["cur"]))
                  for p in range(game.num_players))
    table = ((Zone(_drawn_label(s), (card(int(s["drawn"])),)),) if s["drawn"] >= 0 else ()) + \
        (pile_zone("discard pile", s["disc"][:int(s["ndisc"])], card, pile_cards),
         pile_zone("stock", s["stock"][:int(s["nstock"])], card, pile_cards))
    return TableView(title_of(_title(s), seat), seats, table, status_text(game, g, E.PH_OVER, PHASES),
                     legend="slots 0-7 left to right; face down: not seen")


# ---------------------------------------------------------------- the cards of a move, for pages
def _piles(s) -> tuple[int, int]:
    """The table zones' indices of the discard pile and the stock (after the drawn card's zone, if shown)."""
    k = int(s["drawn"] >= 0)
    return k, k + 1


def move_cards(game, g: int, a: int) -> tuple[str, ...]:
    """The pile top a draw takes, the drawn card and the slot a placing uses, the slots a Queen, a Jack or a
    snap names."""
    s = game.states[g]
    p, n = int(s["cur"]), game.num_players
    disc, stock = _piles(s)
    if a in (DRAW_STOCK, TAKE_DISCARD):
        return (place("t", stock if a == DRAW_STOCK else disc, 0),)
    if PLACE <= a <= DISCARD_DRAWN:
        return (place("t", 0, 0),) + ((place("s", p, a - PLACE),) if a < DISCARD_DRAWN else ())
    if QUEEN_LOOK <= a < JACK_SWAP or SNAP <= a < PASS:
        return (place("s", p, a - (QUEEN_LOOK if a < JACK_SWAP else SNAP)),)
    if JACK_SWAP <= a < SNAP:
        r, i, j = decode_jack(a)
        return place("s", p, i), place("s", (p + r) % n, j)
    return ()


def moved_cards(game, g: int, before, a: int) -> tuple[int, ...]:
    """The cards that changed place (out of the stock, into a slot, the drawn card's place or the discard
    pile; every seat sees where a card goes, not always what it is), and the slot a Queen looks at or a snap
    names."""
    s = game.states[g]
    slot = a - QUEEN_LOOK if QUEEN_LOOK <= a < JACK_SWAP else a - SNAP if SNAP <= a < PASS else None
    named = () if slot is None else (int(before["slot"][before["cur"], slot]),)
    return named + tuple(c for c in range(NUM_CARDS) if s["loc"][c] != E.LOC_STOCK
                          and (before["loc"][c], before["pos"][c]) != (s["loc"][c], s["pos"][c]))


def card_place(game, g: int, c: int) -> str | None:
    """Card c in a slot, as the drawn card, or among the discard pile's shown top cards (not in the stock)."""
    s = game.states[g]
    loc = int(s["loc"][c])
    if loc < game.num_players:
        return place("s", loc, int(s["pos"][c]))
    if loc == E.LOC_DRAWN:
        return place("t", 0, 0)
    if loc == E.LOC_DISC:
        top = int(s["ndisc"]) - 1 - list(s["disc"][:int(s["ndisc"])]).index(c)
        return place("t", _piles(s)[0], top) if top < PILE_SHOWN else None
    return None
