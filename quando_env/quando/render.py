"""Readable views of a game: one seat's view (only what that seat has seen) or an omniscient one, as text
and as a TableView for pictures (quando_env.picture)."""

from ..tableview import (PILE_SHOWN, Card, TableView, Zone, pile_zone, place, seat_label, status_lines, status_text,
                         title_of)
from . import engine as E
from .cards import (CARD_VALUES, FLIP_UNKNOWN, NUM_CARDS, PAIR_TO_CARD, TAKE_DOWN, TAKE_UP, flip_back, is_flip, is_set,
                    is_straight, set_count, set_value, straight_low)

_PHASES = {E.PH_ACT: "discard (straight or set), knock or pass", E.PH_DRAW: "draw: take the visible or hidden side",
           E.PH_FLIP: "triplet penalty: flip a 0", E.PH_KNOCK: "knock or not", E.PH_OVER: "over"}


def side_text(s, viewer, c, side):
    """The number on `side` of card c as `viewer` knows it (None if unseen; everything if viewer is None)."""
    if viewer is None or (s["seen"][viewer, c] >> side) & 1:
        return str(int(CARD_VALUES[c, side]))
    return None


def _side(s, viewer, c, side):
    return side_text(s, viewer, c, side) or "?"


def hand(s, p) -> list[int]:
    """Seat p's cards in the order they came into the hand."""
    return sorted((c for c in range(NUM_CARDS) if s["loc"][c] == p), key=lambda c: s["acq"][c])


def seat_tags(s, p) -> list[str]:
    tags = []
    if p == s["active"] and s["phase"] != E.PH_OVER:
        tags.append("turn")
    if p == s["knocker"]:
        tags.append("knocked")
    return tags


def render_text(game, g: int = 0, seat: int | None = None) -> str:
    """The table of game g as seat `seat` sees it (own fronts with known backs, others' backs with known
    fronts, the piles' seen sides), or everything when seat is None. Cards read front/back (up/down)."""
    s = game.states[g]
    n = game.num_players
    lines = [title_of(_title(game, s), seat)]
    for p in range(n):
        cards = hand(s, p)
        txt = " ".join(f"{_side(s, seat, c, s['face'][c])}/{_side(s, seat, c, 1 - s['face'][c])}" for c in cards)
        tags = seat_tags(s, p)
        lines.append(f"  {seat_label(p, seat)}: {len(cards)} cards [{txt}] "
                     f"total {int(s['total'][p])} turns {int(s['turns'][p])}"
                     + (f" <{', '.join(tags)}>" if tags else ""))

    def pile(arr, k, limit=8):
        cards = [int(c) for c in arr[:k][::-1]]
        shown = " ".join(f"{_side(s, seat, c, s['face'][c])}/{_side(s, seat, c, 1 - s['face'][c])}"
                         for c in cards[:limit])
        return f"{k} cards" + (f", from the top: {shown}" + (" ..." if k > limit else "") if k else "")
    lines.append(f"  draw pile: {pile(s['draw'], int(s['ndraw']))}")
    lines.append(f"  discard pile: {pile(s['disc'], int(s['ndisc']))}")
    lines += status_lines(game, g, seat, E.PH_OVER, _PHASES)
    return "\n".join(lines)


def _title(game, s) -> str:
    over = s["phase"] == E.PH_OVER     # the round counter counts finished rounds: the last one is named
    return (f"Quando ({game.config.edition}), round {int(s['round']) + (0 if over else 1)}, "
            f"dealer player_{int(s['dealer'])}")


def table_view(game, g: int = 0, seat: int | None = None, pile_cards: int = PILE_SHOWN) -> TableView:
    """The table of game g as a picture shows it to `seat` (what render_text tells, as cards): each card with
    its front (up face) above its back (down face), an unseen face as a card back."""
    s = game.states[g]

    def card(c):
        f = int(s["face"][c])
        return Card((side_text(s, seat, c, f), side_text(s, seat, c, 1 - f)))

    hands = [hand(s, p) for p in range(game.num_players)]
    seats = tuple(Zone(seat_label(p, seat), tuple(card(c) for c in cards), count=len(cards),
                       note=" · ".join([f"total {int(s['total'][p])}", f"turns {int(s['turns'][p])}",
                                        *seat_tags(s, p)]),
                       to_move=bool(p == s["cur"]))
                  for p, cards in enumerate(hands))
    return TableView(title_of(_title(game, s), seat), seats,
                     (pile_zone("draw pile", s["draw"][:int(s["ndraw"])], card, pile_cards),
                      pile_zone("discard pile", s["disc"][:int(s["ndisc"])], card, pile_cards)),
                     status_text(game, g, E.PH_OVER, _PHASES),
                     legend="cards: front (up face) above, back (down face) below; patterned: not seen")


# ---------------------------------------------------------------- the cards of a move, for pages
def discard_order(s, p, v) -> list[int]:
    """D4: seat p's cards showing v in the order a discard takes them (highest back p knows first, an unseen
    back counting 5.5, then the earliest acquired): what engine._pick chooses, by what p has seen."""
    def key(c):
        back = 1 - int(s["face"][c])
        return (-(float(CARD_VALUES[c, back]) if (s["seen"][p, c] >> back) & 1 else 5.5), int(s["acq"][c]))
    return sorted((c for c in hand(s, p) if CARD_VALUES[c, s["face"][c]] == v), key=key)


def move_cards(game, g: int, a: int) -> tuple[str, ...]:
    """The hand cards a discard or a flip takes (the ones D4 and D5 choose), or the draw pile's top face a draw
    takes: the visible side (face 0 in the view) or the hidden one."""
    s = game.states[g]
    p = int(s["cur"])
    if a in (TAKE_UP, TAKE_DOWN):
        return (place("t", 0, 0, int(a == TAKE_DOWN)),)
    if is_straight(a):
        cards = [discard_order(s, p, v)[0] for v in range(straight_low(a), straight_low(a) + 3)]
    elif is_set(a):
        cards = discard_order(s, p, set_value(a))[:set_count(a)]
    elif is_flip(a):
        zeros = [c for c in hand(s, p) if CARD_VALUES[c, s["face"][c]] == 0]
        cards = [next(c for c in zeros if not (s["seen"][p, c] >> (1 - s["face"][c])) & 1) if a == FLIP_UNKNOWN
                 else int(PAIR_TO_CARD[0, flip_back(a)])]
    else:
        return ()
    mine = hand(s, p)
    return tuple(place("s", p, mine.index(c)) for c in cards)


def moved_cards(game, g: int, before, a: int) -> tuple[int, ...]:
    """The cards that left or joined the mover's hand, or turned in it: every move of Quando is public."""
    s, p = game.states[g], int(before["cur"])
    return tuple(c for c in range(NUM_CARDS) if p in (before["loc"][c], s["loc"][c])
                 and (before["loc"][c], before["face"][c]) != (s["loc"][c], s["face"][c]))


def card_place(game, g: int, c: int) -> str | None:
    """Card c in a hand (acquisition order) or among the discard pile's shown top cards; never in the draw
    pile, whose order a shuffle hides."""
    s = game.states[g]
    loc = int(s["loc"][c])
    if loc < game.num_players:
        return place("s", loc, hand(s, loc).index(c))
    if loc == E.LOC_DISCARD:
        top = int(s["ndisc"]) - 1 - list(s["disc"][:int(s["ndisc"])]).index(c)
        return place("t", 1, top) if top < PILE_SHOWN else None
    return None
