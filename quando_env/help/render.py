"""Readable views of a game: one seat's view (only what that seat knows, K1-K3) or an omniscient one, as text
and as a TableView for pictures (quando_env.picture)."""

from ..tableview import (FACE_DOWN, PILE_SHOWN, Card, TableView, Zone, pile_zone, place, seat_label, status_lines,
                         status_text, title_of)
from . import engine as E
from .cards import (CODES, GIVE, GIVE_BACK, K_NO, K_SWITCH, K_WILD, K_ZAP, KIND_NAMES, NO, NUM_KINDS, SWITCH,
                    WILD, ZAP, a_card)

_PHASES = {E.PH_OPEN: "open with the called card (R6)", E.PH_PLAY: "play a card, or ask for help if none fits",
           E.PH_GIVE: "give the asker a card that fits the row (R17)", E.PH_BACK: "give the helper a card back (R18)",
           E.PH_RECV: "play the card received (R19)", E.PH_OVER: "over"}


def hand_text(s, p) -> str:
    return " ".join(KIND_NAMES[k] for k in range(NUM_KINDS) for _ in range(int(s["hand"][p, k])))


def row_text(s) -> str:
    cards = [f"W({int(s['row_val'][j])})" if s["row_kind"][j] == K_WILD else str(int(s["row_val"][j]))
             for j in range(int(s["nrow"]))]
    return " ".join(cards) if cards else "empty"


def discard_text(s, limit=8) -> str:
    k = int(s["ndisc"])
    top = [CODES[int(c)] for c in s["disc"][:k][::-1][:limit]]
    return f"{k} cards" + (f", from the top: {' '.join(top)}" + (" ..." if k > limit else "") if k else "")


def help_text(s, seat) -> str:
    """The round's latest ask, with the kinds exchanged as far as `seat` knows them (K3)."""
    p, h = int(s["asker"]), int(s["helper"])
    if p < 0:
        return ""
    if h < 0:
        return f"player_{p} asked for help: nobody could help"
    text = f"player_{p} asked player_{h} for help"
    involved = seat is None or seat in (p, h)
    played = s["phase"] in (E.PH_OPEN, E.PH_PLAY)
    if s["given"] >= 0 and (involved or played):
        text += f", received {a_card(int(s['given']))}"
    if s["back"] >= 0:
        text += f", gave back {a_card(int(s['back']))}" if involved else ", gave a card back"
    return text


def refill(before, after) -> tuple[int, str]:
    """R15 as every seat sees it: (the seat that refilled its hand, "N card(s)" it drew, "" for none) in the
    step from state `before` to `after`, a reshuffle or turn-over in between counted through."""
    if after["shuffles"] + after["flips"] > before["shuffles"] + before["flips"]:
        k = int(before["dend"]) - int(before["dpos"]) + int(after["dpos"])
    else:
        k = int(after["dpos"]) - int(before["dpos"])
    return int(before["cur"]), f"{k} card{'s' if k != 1 else ''}" if k > 0 else ""


def seat_tags(s, p) -> list[str]:
    tags = []
    if p == s["active"] and s["phase"] != E.PH_OVER:
        tags.append("turn")
    if s["no"][p]:
        tags.append("No! " + ("fresh" if s["no"][p] == E.NO_FRESH else "spent"))
    if s["calls"][p]:
        tags.append(f"called {int(s['calls'][p])}")
    if p == s["starter"]:
        tags.append("started")
    return tags


def _title(s) -> str:
    way = "+1 (increasing seats)" if int(s["dir"]) == 1 else "-1 (decreasing seats)"
    over = s["phase"] == E.PH_OVER     # the round counter counts finished rounds: the last one is named
    return f"Help!, round {int(s['round']) + (0 if over else 1)}, direction {way}"


def render_text(game, g: int = 0, seat: int | None = None) -> str:
    """The table of game g as seat `seat` knows it (its own hand, the public table, the kinds of its own
    help exchanges), or everything when seat is None."""
    s = game.states[g]
    n = game.num_players
    lines = [title_of(_title(s), seat)]
    for p in range(n):
        tags = seat_tags(s, p)
        cards = f" [{hand_text(s, p)}]" if seat is None or seat == p else ""
        lines.append(f"  {seat_label(p, seat)}: {int(s['hand'][p].sum())} cards{cards} "
                     f"total {int(s['total'][p])}" + (f" <{', '.join(tags)}>" if tags else ""))
    lines.append(f"  row: {row_text(s)}")
    nd = int(s["dend"]) - int(s["dpos"])
    draw = f"{nd} cards" + (f", from the top: {' '.join(game.draw_pile(g)[:8])}" if seat is None and nd else "")
    lines.append(f"  draw pile: {draw}")
    lines.append(f"  discard pile: {discard_text(s)}")
    helped = help_text(s, seat)
    if helped:
        lines.append(f"  {helped}")
    lines += status_lines(game, g, seat, E.PH_OVER, _PHASES)
    return "\n".join(lines)


_INKS = {K_WILD: "purple", K_SWITCH: "green", K_ZAP: "red", K_NO: "orange"}


def kind_card(k: int, value: str | None = None) -> Card:
    """A card of kind k (a Wild in the row shows the value it was given, its kind in the corner)."""
    if value is not None:
        return Card((value,), ink=_INKS[k], corner=KIND_NAMES[k])
    return Card((KIND_NAMES[k],), ink=_INKS.get(k, "black"))


def table_view(game, g: int = 0, seat: int | None = None, pile_cards: int = PILE_SHOWN) -> TableView:
    """The table of game g as a picture shows it to `seat` (what render_text tells, as cards): its own hand,
    the others' hands face down, the row, the piles' tops."""
    s = game.states[g]
    n = game.num_players

    def hand_cards(p):
        if seat is None or seat == p:
            return tuple(kind_card(k) for k in range(NUM_KINDS) for _ in range(int(s["hand"][p, k])))
        return (FACE_DOWN,) * int(s["hand"][p].sum())
    seats = tuple(Zone(seat_label(p, seat), hand_cards(p), count=int(s["hand"][p].sum()),
                       note=" · ".join([f"total {int(s['total'][p])}", *seat_tags(s, p)]), to_move=bool(p == s["cur"]))
                  for p in range(n))
    row = tuple(kind_card(K_WILD, str(int(s["row_val"][j]))) if s["row_kind"][j] == K_WILD
                else kind_card(int(s["row_kind"][j])) for j in range(int(s["nrow"])))
    nd, k = int(s["dend"]) - int(s["dpos"]), int(s["ndisc"])
    draw = tuple(kind_card(int(c)) for c in s["draw"][int(s["dpos"]): int(s["dend"])][:pile_cards]) \
        if seat is None else (FACE_DOWN,) * min(nd, 1)
    table = (Zone("row", row), Zone("draw pile", draw, count=nd),
             pile_zone("discard pile", s["disc"][:k], kind_card, pile_cards))
    helped = help_text(s, seat)
    return TableView(title_of(_title(s), seat), seats, table, status_text(game, g, E.PH_OVER, _PHASES),
                     lines=(helped,) if helped else (),
                     legend="others' hands face down; a Wild in the row shows the value it was given")


# ---------------------------------------------------------------- the cards of a move, for pages
def move_cards(game, g: int, a: int) -> tuple[str, ...]:
    """The hand card a move plays, gives or gives back (the first of its kind: the hand shows kinds in order),
    with the row card a Wild covers or a Switch takes, and the number a Switch puts."""
    s = game.states[g]
    p = int(s["cur"])

    def mine(k):
        return place("s", p, int(s["hand"][p, :k].sum()))
    if a < WILD:
        return (mine(a),)               # the number a + 1: kind a
    if a >= GIVE:
        return (mine(a - (GIVE if a < GIVE_BACK else GIVE_BACK)),)
    if a < SWITCH:
        slot = a - WILD
        return (mine(K_WILD),) + ((place("t", 0, slot),) if slot < s["nrow"] else ())
    if a < ZAP:
        slot, k = divmod(a - SWITCH, 11)
        return mine(K_SWITCH), place("t", 0, slot), mine(k)
    return {ZAP: (mine(K_ZAP),), NO: (mine(K_NO),)}.get(a, ())


def moved_cards(game, g: int, before, a: int) -> tuple[tuple, ...]:
    """The row's new or changed cards (a Switch's slot too: it may put the value it takes) and the discard
    pile's new ones (the public table; a card given or taken into a hand is not marked: where it lies in a
    hand would tell its kind)."""
    s = game.states[g]
    switched = (a - SWITCH) // 11 if SWITCH <= a < ZAP else -1
    row = tuple(("row", j) for j in range(int(s["nrow"])) if j >= before["nrow"] or j == switched or
                (before["row_kind"][j], before["row_val"][j]) != (s["row_kind"][j], s["row_val"][j]))
    turned = _turns(s) != _turns(before)
    return row + tuple(("disc", j, _turns(s)) for j in range(0 if turned else int(before["ndisc"]), int(s["ndisc"])))


def _turns(s) -> int:
    """How often the discard pile has become the draw pile (its cards' positions start anew each time)."""
    return int(s["shuffles"]) + int(s["flips"])


def card_place(game, g: int, handle) -> str | None:
    """A row slot that still holds a card, or a discard pile position still among the shown top cards."""
    s = game.states[g]
    if handle[0] == "row":
        return place("t", 0, handle[1]) if handle[1] < s["nrow"] else None
    top = int(s["ndisc"]) - 1 - handle[1]
    return place("t", 2, top) if handle[2] == _turns(s) and 0 <= top < PILE_SHOWN else None
