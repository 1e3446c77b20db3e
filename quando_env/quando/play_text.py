"""Quando told to a person at the terminal: the table from one seat, move names and details, and one line
per decision (a turn's discard, draw and oya knock decision joined), used by `python -m quando_env play`.

Cards are written as the side the viewer sees, then "/" and the other side if the viewer knows it: `7/10`;
a lone `7` means the viewer has not seen its other side. Only what the viewer has seen is shown (K1-K4).
"""
import numpy as np

from ..narration import Narrator as BaseNarrator
from . import engine as E
from .cards import CARD_VALUES, KNOCK, NUM_CARDS, PASS, TAKE_DOWN, TAKE_UP, action_name, is_set, is_straight, set_count

HUMAN = 0
PILE_SHOWN = 12  # discard pile cards listed, from the top

HELP = """\
How to answer: type the number shown before a move, or its name ("three 7s", "straight 3-4-5",
"knock", "take the hidden side"; case does not matter and a unique beginning is enough, e.g. "hid"),
or #N for the environment's action index N (0-133).
Other commands: "table" shows the table again, "help" shows this, "quit" leaves (the record so far is saved).
Cards: the side you see, then "/" and the other side if you know it (7/10); a lone 7 means you have
not seen its other side. Your hand shows fronts (they count), the others' hands show backs."""


# ---------------------------------------------------------------- what the human sees
def _hand(s, p):
    return sorted((c for c in range(NUM_CARDS) if s["loc"][c] == p), key=lambda c: s["acq"][c])


def _val(c, side) -> int:
    return int(CARD_VALUES[c, side])


def _card(s, c, side, viewer=HUMAN) -> str:
    """Card c, seen side `side` first, then its other side if `viewer` has seen it."""
    other = 1 - side
    known = (s["seen"][viewer, c] >> other) & 1
    return f"{_val(c, side)}/{_val(c, other)}" if known else str(_val(c, side))


def _who(p: int) -> str:
    return "you" if p == HUMAN else f"player_{p}"


def _target_text(config) -> str:
    op = ">=" if config.edition == "kendi" else ">"
    return f"the game ends after a round in which a total is {op} {config.target_score}; the lowest total wins"


def _draw_line(s) -> str:
    nd = int(s["ndraw"])
    if not nd:
        return "  draw pile: empty"
    top = int(s["draw"][nd - 1])
    return f"  draw pile: {nd} card{'s' if nd != 1 else ''}, the top shows {_card(s, top, s['face'][top])}"


def _hand_line(s) -> str:
    mine = sorted(_hand(s, HUMAN), key=lambda c: (_val(c, s["face"][c]), s["acq"][c]))
    total = sum(_val(c, s["face"][c]) for c in mine)
    return f"  YOUR HAND ({len(mine)} cards, sum {total}): " + "  ".join(_card(s, c, s["face"][c]) for c in mine)


def _hint(game) -> str:
    s = game.states[0]
    legal = np.flatnonzero(game.legal_action_mask[0])
    active, phase = int(s["active"]), int(s["phase"])
    if phase == E.PH_FLIP:
        return f"Triplet penalty (player_{active} discarded three of a kind): flip one of your 0s."
    if phase == E.PH_DRAW and active != HUMAN:
        return f"Triplet penalty (player_{active} discarded three of a kind): you hold no 0, so you draw."
    if phase == E.PH_DRAW:
        return "Draw: decide which side of the top card becomes your front before you see the other side."
    if phase == E.PH_KNOCK:
        return "Knock now? Then everyone else has one last turn and the round ends."
    text = "Discard a straight or a set" + (", or knock" if KNOCK in legal else "") \
        + (", or pass" if PASS in legal else "") + "."
    if game.config.edition == "kendi" and s["knocker"] < 0 and KNOCK not in legal:
        text += f" (Knocking is allowed once everyone has discarded in {game.config.knock_min_turns} turns.)"
    return text


def table_text(game, labels) -> str:
    """player_0's view of the table: the others' backs and card counts, the piles, totals, whose turn,
    your hand (fronts and the backs you know) and what to decide."""
    s = game.states[0]
    n = game.num_players
    active, knocker = int(s["active"]), int(s["knocker"])
    turn = "your turn" if active == HUMAN else f"player_{active}'s turn"
    lines = [f"---- Round {int(s['round']) + 1} - dealer {_who(int(s['dealer']))} - {turn} ----",
             "Totals: " + ", ".join(f"{_who(p)} {int(s['total'][p])}" for p in range(n))]
    for p in range(1, n):
        cards = _hand(s, p)
        tags = [labels[p]] + (["on turn"] if p == active else []) + (["KNOCKED"] if p == knocker else [])
        lines.append(f"  player_{p} ({', '.join(tags)}): {len(cards)} cards, backs "
                     + " ".join(_card(s, c, 1 - s["face"][c]) for c in cards))
    lines.append(_draw_line(s))
    nc = int(s["ndisc"])
    disc = [int(c) for c in s["disc"][:nc][::-1]]
    shown = " ".join(_card(s, c, s["face"][c]) for c in disc[:PILE_SHOWN])
    more = f" ... ({nc - PILE_SHOWN} more)" if nc > PILE_SHOWN else ""
    lines.append(f"  discard pile: {nc} card{'s' if nc != 1 else ''}"
                 + (f", from the top: {shown}{more}" if nc else ""))
    lines.append(_hand_line(s))
    if knocker >= 0:
        lines.append(f"  {_who(knocker)} knocked: everyone else has one last turn")
    lines.append(_hint(game))
    return "\n".join(lines)


def short_text(game) -> str:
    """The part of the view that changed within your own turn: your hand, the draw pile, the decision."""
    s = game.states[0]
    return "\n".join([_hand_line(s), _draw_line(s), _hint(game)])


def move_detail(s, a: int, seat: int = HUMAN) -> str:
    """What a draw choice gives, as far as `seat` knows it."""
    if a not in (TAKE_UP, TAKE_DOWN) or s["ndraw"] == 0:
        return ""
    c = int(s["draw"][s["ndraw"] - 1])
    up = int(s["face"][c])
    down_known = (s["seen"][seat, c] >> (1 - up)) & 1
    if a == TAKE_UP:
        return f"{_val(c, up)} becomes your front"
    if down_known:
        return f"{_val(c, 1 - up)} becomes your front, {_val(c, up)} your back"
    return f"the unseen side becomes your front, {_val(c, up)} your back"


def _aliases(s, a: int, name: str) -> list[str]:
    names = [name, action_name(a)]
    if a == TAKE_UP:
        names += ["visible", "up"]
    elif a == TAKE_DOWN:
        names += ["hidden", "down"]
    elif a == PASS and s["phase"] == E.PH_KNOCK:
        names += ["no"]
    return [" ".join(x.lower().split()) for x in names]


# ---------------------------------------------------------------- what happened
def _refilled(before, after) -> bool:
    return bool(np.any((after["loc"] == E.LOC_DRAW) & (before["loc"] != E.LOC_DRAW)))


def describe(narrator, before, after, a: int) -> tuple[str, str]:
    """(kind, phrase) telling the narrator's viewer what the decision `a` taken in state `before` (leading to
    `after`) did, from what that viewer may know; the phrase follows the decider's name ("discards three 7s").
    A draw's phrase starts at its choice ("takes the visible 4")."""
    p = int(before["cur"])
    phase = int(before["phase"])
    s = narrator.verb
    if a == KNOCK:
        return "knock", f"{s(p, 'knock')}: everyone else has one last turn"
    if phase == E.PH_ACT:
        if a == PASS:
            return "pass", s(p, "pass")
        text = f"{s(p, 'discard')} {'the ' if is_straight(a) else ''}{action_name(a)}"
        if is_set(a) and set_count(a) == 3:
            text += " (a triplet: every other player must flip a 0 or draw)"
        return "discard", text
    if phase == E.PH_DRAW:
        c = int(before["draw"][before["ndraw"] - 1])
        up = int(before["face"][c])
        if a == TAKE_UP:
            return "draw", f"{s(p, 'take')} the visible {_val(c, up)}"
        if p == narrator.seat:
            return "draw", f"take the hidden side: it is a {_val(c, 1 - up)} (the {_val(c, up)} is its back)"
        if narrator.seat is None:
            return "draw", f"takes the hidden side of the {_val(c, up)}"
        known = narrator.knows(before, c, 1 << (1 - up))
        front = f"its front is the {_val(c, 1 - up)} you know" if known else "you see its back"
        return "draw", f"takes the hidden side of the {_val(c, up)} ({front})"
    if phase == E.PH_FLIP:
        flipped = [c for c in range(NUM_CARDS) if after["loc"][c] == p and after["face"][c] != before["face"][c]]
        v = _val(flipped[0], after["face"][flipped[0]]) if flipped else "?"
        return "flip", f"{s(p, 'flip')} a 0 as the triplet penalty: it now shows {v}"
    return "no-knock", ""  # oya, after the draw: not knocking is told by nothing


def round_summary(before, after, n: int) -> str:
    knocker = int(before["knocker"])
    active = int(before["active"])
    hands = [_hand(after, p) for p in range(n)]
    fronts = [[_val(c, after["face"][c]) for c in h] for h in hands]
    sums = [sum(f) for f in fronts]
    if all(v == 0 for v in fronts[active]):
        why = f"{_who(active)} hold{'' if active == HUMAN else 's'} only zeros"
    else:
        why = f"the last turns after {_who(knocker)} knocked are over"
    low = min(sums)
    lines = [f"==== Round {int(after['round'])} over: {why} ====",
             f"  {'':10} {'hand (fronts)':30} {'sum':>4} {'points':>7} {'total':>6}"]
    for p in range(n):
        note = ""
        if p == knocker:
            note = "  knocked, lowest alone" if after["points"][p] == 0 else \
                "  knocked, not lowest alone: sum + penalty"
        elif sums[p] == low:
            note = "  lowest"
        lines.append(f"  {_who(p):10} {' '.join(map(str, sorted(fronts[p]))):30} {sums[p]:>4} "
                     f"{int(after['points'][p]):>7} {int(after['total'][p]):>6}{note}")
    return "\n".join(lines)




class Narrator(BaseNarrator):
    """What `python -m quando_env play` shows the person at seat 0 of game 0 (the contract's narrator)."""

    help = HELP


    def intro(self) -> list[str]:
        return [f"Lowest hand sum wins a round; {_target_text(self.game.config)}."] + (
            ["Cards read 'the side you see/the other side' (7/10) when you know both sides. Type 'help' for help."]
            if self.terminal else [])

    def title(self) -> str:
        return f"Quando ({self.game.config.edition})"

    def view(self) -> tuple[bool, str]:
        """(a new screen?, the view before the person decides): the whole table, or within the person's own
        turn only what changed."""
        s = self.game.states[0]
        within_turn = int(s["active"]) == HUMAN and (
            (s["phase"] == E.PH_DRAW and s["drawctx"] == 0) or s["phase"] == E.PH_KNOCK)
        return (not within_turn, short_text(self.game) if within_turn else table_text(self.game, self.labels))

    def table(self) -> str:
        return table_text(self.game, self.labels)

    def move(self, a: int) -> tuple[str, str, list[str]]:
        """(name, detail, aliases) of legal move a now."""
        s = self.game.states[0]
        name = self.game.move_name(0, a)
        return name, move_detail(s, a, self.seat), _aliases(s, a, name)

    def told(self, before, a) -> list[str]:
        """The lines to print after decision `a` taken in state `before` (game 0's states before the step):
        one line per decision, a turn's discard, draw and oya knock decision joined in one line, and a
        summary when the round ended."""
        game = self.game
        ended = bool(game.round_over[0])
        after = game.at_round_end_of(before, [a])[0] if ended else game.states[0]
        out = []
        before = before[0]
        kind, phrase = describe(self, before, after, a)
        p = int(before["cur"])
        own_turn = p == int(before["active"]) and int(before["phase"]) != E.PH_FLIP and not (
            int(before["phase"]) == E.PH_DRAW and before["drawctx"] == 1)
        joined = self.pending is not None and self.pending[0] == p and own_turn
        if kind == "draw" and own_turn:
            phrase = (", then " if joined else f"{self.verb(p, 'draw')} and ") + phrase
        elif kind == "draw":
            phrase = f"{self.verb(p, 'draw')} as the triplet penalty and " + phrase
        elif joined and kind in ("knock", "no-knock"):
            phrase = ", and " + phrase if phrase else ""
        else:
            joined = False
        if joined:
            self.pending = (p, self.pending[1] + phrase)
        else:
            out += self.flush()
            if phrase:
                self.pending = (p, f"{self.who(p)} {phrase}")
        if not own_turn or kind in ("knock", "pass"):
            out += self.flush()
        if _refilled(before, after) and not ended:
            out += self.flush()
            how = "turned over" if game.config.edition == "kendi" else "shuffled"
            out.append(f"The draw pile ran out: the discard pile, {how}, is the new draw pile.")
        if ended:
            out += self.flush() + (["", round_summary(before, after, game.num_players)] if self.terminal else [])
        return out


