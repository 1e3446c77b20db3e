"""One seat's view of a table as plain data: what a picture of any game shows.

Each game builds a `TableView` of game g for a seat (`Game.table_view(g, seat)`) from exactly what that seat
has seen, by the game's K rules; `quando_env.picture` draws any TableView. Keeping the view as data lets one
renderer serve every game, and keeps the information model in the game, next to its text view.
"""
from dataclasses import dataclass

import numpy as np

INKS = ("black", "red", "blue", "green", "purple", "orange")
PILE_SHOWN = 6       # a pile's top cards a view shows


def place(area: str, zone: int, card: int, face: int | None = None) -> str:
    """Where a card lies in a TableView, as a page addresses it (quando_env.svg marks each card with it): area
    "s" (seats) or "t" (table), the zone's index there, the card's index in the zone, and optionally one of its
    faces. "s2.4" is card 4 of seat 2's zone; "t0.0.1" the second face of the first table zone's first card."""
    return f"{area}{zone}.{card}" + ("" if face is None else f".{face}")


def place_order(at: str) -> tuple:
    """A `place`'s key in the table's own order (seats before the table, then zone, card, face): a canonical
    order of places that, unlike the order of card ids, tells nothing of which cards lie there."""
    area, *numbers = at.split(".")
    return (area[0], int(area[1:]), *map(int, numbers))


@dataclass(frozen=True)
class Card:
    """A card as the viewer sees it. `faces`: the printed faces shown, top to bottom (one for most games;
    Quando's two-sided cards show the face toward the holder, or the up face, first); a face the viewer has
    not seen is None and is drawn as a card back. `ink` colours the text; `corner` is a small label (the
    kind of a card whose number is a value it was given, as a Wild in Help!'s row)."""

    faces: tuple = (None,)
    ink: str = "black"
    corner: str = ""

    def __post_init__(self):
        if not self.faces or not all(f is None or isinstance(f, str) for f in self.faces):
            raise ValueError(f"faces={self.faces!r} is not allowed: one or more strings or None (unseen)")
        if self.ink not in INKS:
            raise ValueError(f"ink={self.ink!r} is not allowed: choose one of {INKS}")


FACE_DOWN = Card()


@dataclass(frozen=True)
class Zone:
    """A labelled place on the table: a seat's hand or a pile, the row. `cards` in order, None for an empty
    slot (a pile shows only its top cards); `count`: how many cards the place holds, told with the label
    (None: not told); `note`: the facts that go with it (total, tags); `to_move`: this seat decides now."""

    label: str
    cards: tuple = ()
    count: int | None = None
    note: str = ""
    to_move: bool = False


@dataclass(frozen=True)
class TableView:
    """A whole table from one seat (or omniscient): `seats` one Zone per player, `table` the piles and the
    row, `status` who decides what (or the episode's end), `lines` further public facts, `legend` how to read
    the cards."""

    title: str
    seats: tuple
    table: tuple
    status: str
    lines: tuple = ()
    legend: str = ""

    def _repr_svg_(self) -> str:
        """The view as SVG (quando_env.svg): how notebooks display it."""
        from .svg import svg

        return svg(self)


def seat_label(p: int, viewer: int | None) -> str:
    """'player_2', or 'player_2 (you)' for the viewer's own seat."""
    return f"player_{p}" + (" (you)" if p == viewer else "")


def title_of(text: str, viewer: int | None) -> str:
    """The title with whose view it is."""
    return text + (f", view of player_{viewer}" if viewer is not None else ", omniscient view")


def status_text(game, g: int, over_phase: int, phases: dict) -> str:
    """Who decides what in game g (its `phase` named by `phases`), or how its episode ended."""
    s = game.states[g]
    if s["phase"] == over_phase:
        return over_text(game, g)
    return f"player_{int(s['cur'])} to decide: {phases[int(s['phase'])]}"


def over_text(game, g: int, viewer: int | None = None) -> str:
    """How game g's episode ended, in people's words, told to `viewer` (a seat: "you"): "Game over: player_2
    wins", a tie named, or the step limit. The game says who wins (Help!'s highest total, Quando's and Cabo's
    lowest)."""
    if game.truncated[g]:
        return f"Game stopped at the step limit ({game.config.max_steps} decisions): no winner"
    won = [int(p) for p in np.flatnonzero(game.winners([g])[0])]
    names = ["you" if p == viewer else f"player_{p}" for p in won]
    if len(won) > 1:
        return f"Game over: {', '.join(names[:-1])} and {names[-1]} tie for the win"
    return f"Game over: {names[0]} win{'' if won[0] == viewer else 's'}"


def status_lines(game, g: int, seat: int | None, over_phase: int, phases: dict) -> list[str]:
    """A text view's closing lines: who decides what (or the episode's end), then the legal moves by name when
    `seat` is the one deciding or sees everything."""
    s = game.states[g]
    lines = ["  " + status_text(game, g, over_phase, phases)]
    if s["phase"] != over_phase and (seat is None or seat == int(s["cur"])):
        legal = np.flatnonzero(game.legal_action_mask[g])
        lines.append("  legal: " + ", ".join(f"{a} {game.move_name(g, a)}" for a in legal))
    return lines


def pile_zone(name: str, pile, card, shown: int = PILE_SHOWN) -> Zone:
    """A pile as a Zone: `pile` its cards bottom first, `card(c)` how one card shows; the top `shown` cards,
    top first, and the pile's size."""
    return Zone(name, tuple(card(int(c)) for c in pile[::-1][:shown]), count=len(pile))


def common_view(views) -> TableView:
    """What every one of `views` (one per seat, of the same table) shows: each face, count, note part and line
    that all of them show alike, the rest hidden (a spectator's view: no player learns anything from it)."""
    first = views[0]
    seats = tuple(_common_zone(zones) for zones in zip(*(v.seats for v in views)))
    table = tuple(_common_zone(zones) for zones in zip(*(v.table for v in views)))
    title = first.title.rpartition(", view of ")[0] or first.title
    return TableView(title + ", what every player sees", seats, table, _alike([v.status for v in views], ""),
                     tuple(line for line in first.lines if all(line in v.lines for v in views)), first.legend)


def _alike(values, otherwise):
    return values[0] if all(v == values[0] for v in values) else otherwise


def _common_zone(zones) -> Zone:
    parts = [z.note.split(" · ") for z in zones]
    cards = zip(*(z.cards for z in zones)) if len({len(z.cards) for z in zones}) == 1 else ()
    return Zone(_alike([z.label.removesuffix(" (you)") for z in zones], ""), tuple(map(_common_card, cards)),
                _alike([z.count for z in zones], None), " · ".join(p for p in parts[0] if all(p in q for q in parts)),
                _alike([z.to_move for z in zones], False))


def _common_card(cards) -> Card | None:
    if any(c is None for c in cards):
        return None if all(c is None for c in cards) else FACE_DOWN
    if len({len(c.faces) for c in cards}) > 1:
        return FACE_DOWN
    faces = tuple(f if all(c.faces[i] == f for c in cards) else None for i, f in enumerate(cards[0].faces))
    if faces.count(None) == len(faces):
        return Card(faces)
    return Card(faces, _alike([c.ink for c in cards], "black"), _alike([c.corner for c in cards], ""))
