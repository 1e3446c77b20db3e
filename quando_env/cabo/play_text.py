"""Cabo told to a person at the terminal (`python -m quando_env play --game cabo`): the table from seat 0,
move names and details, one line per turn (draw, Jack or Queen, placing joined), one line per snap and
knock, and a summary at each round's end. Only what seat 0 has seen is shown (K1-K9): an unseen card is
"??" in the table and "a card" in the story.
"""
from ..narration import Narrator as BaseNarrator, sentence
from . import engine as E
from .cards import (DISCARD_DRAWN, DRAW_STOCK, KNOCK, NO_KNOCK, PASS, PLACE, SNAP, TAKE_DISCARD, card_name, decode_jack,
                    rank, value)
from .render import slots_text

HUMAN = 0

HELP = """\
How to answer: type the number shown before a move, or its name ("draw from the stock", "swap into slot 2",
"snap slot 1", "pass", "knock"; case does not matter and a unique beginning is enough, e.g. "dr"), or #N for
the environment's action index N (0-349).
Other commands: "table" shows the table again, "help" shows this, "quit" leaves (the record so far is saved).
Cards: Ah 2c ... 10d Jc Qs Kh (h hearts, d diamonds, c clubs, s spades); ?? is a card you have not seen,
-- an empty slot. Values: ace 1 .. queen 12, red king 0, black king 13; the lowest hand wins a round.
When a card is discarded, anyone may snap a card of the same rank from their own slots onto the pile;
a wrong snap costs a penalty card. Knocking gives everyone else one more turn."""


def _who(p: int) -> str:
    return "you" if p == HUMAN else f"player_{p}"


def _card(s, c, seat=HUMAN) -> str:
    """Card c as `seat` knows it in state s."""
    return card_name(c) if s["seen"][seat, c] else "a card"


def _hint(game) -> str:
    s = game.states[0]
    ph = int(s["phase"])
    if ph == E.PH_DRAW:
        return "Your turn: draw from the stock or take the discard."
    if ph == E.PH_JACK:
        return "Jack: exchange one of your cards with another player's (nobody looks)."
    if ph == E.PH_QUEEN:
        return "Queen: look at one of your cards."
    if ph == E.PH_PLACE:
        return f"You hold the {card_name(int(s['drawn']))}: swap it into a slot" + \
            (" or discard it." if s["from_stock"] else ".")
    if ph == E.PH_SNAP:
        top = int(s["disc"][s["ndisc"] - 1])
        return f"Snap window: snap a card of rank {card_name(top)[:-1]} from your slots, or pass."
    if ph == E.PH_KNOCK:
        return "Knock now? Everyone else then has one more turn" + \
            (", and you one last turn." if game.config.knocker_final_turn else ".")
    return ""


def _my_line(s) -> str:
    known = [value(c) for c in s["slot"][HUMAN] if c >= 0 and s["seen"][HUMAN, c]]
    held = int(s["nhand"][HUMAN])
    return f"  YOUR SLOTS: [{slots_text(s, HUMAN, HUMAN)}] {held} cards, known value {sum(known)}" + \
        ("" if len(known) == held else f" ({held - len(known)} unknown)")


def _top_line(s) -> str:
    nd, ns = int(s["ndisc"]), int(s["nstock"])
    top = card_name(int(s["disc"][nd - 1])) if nd else "none"
    return f"  discard pile: {nd} cards, top {top}; stock: {ns} cards"


def table_text(game, labels) -> str:
    s = game.states[0]
    n = game.num_players
    lines = [f"---- Round {int(s['round']) + 1} - dealer {_who(int(s['dealer']))} - turn {int(s['turns']) + 1} ----",
             "Totals: " + ", ".join(f"{_who(p)} {int(s['total'][p])}" for p in range(n))]
    for p in range(1, n):
        tags = [labels[p]] + (["on turn"] if p == s["active"] and s["in_turn"] else []) + \
            (["KNOCKED"] if p == s["knocker"] else []) + (["OUT"] if s["out"][p] else [])
        lines.append(f"  player_{p} ({', '.join(tags)}): [{slots_text(s, HUMAN, p)}]")
    lines += [_top_line(s), _my_line(s)]
    if s["knocker"] >= 0:
        lines.append(f"  {_who(int(s['knocker']))} knocked: the round ends after the last turns")
    lines.append(_hint(game))
    return "\n".join(lines)


def short_text(game) -> str:
    s = game.states[0]
    return "\n".join([_top_line(s), _my_line(s), _hint(game)])


def round_summary(before, after, n) -> str:
    knocker = int(before["knocker"])
    lines = [f"==== Round {int(after['round'])} over ====",
             f"  {'':10} {'cards':34} {'hand':>4} {'points':>7} {'total':>6}"]
    for p in range(n):
        cards = " ".join(card_name(int(c)) for c in after["slot"][p] if c >= 0) or "(out)"
        hand = sum(value(int(c)) for c in after["slot"][p] if c >= 0)
        note = "  knocked" + (", doubled" if after["points"][p] > hand else "") if p == knocker else ""
        points, total = int(after['points'][p]), int(after['total'][p])
        lines.append(f"  {_who(p):10} {cards:34} {hand:>4} {points:>7} {total:>6}{note}")
    return "\n".join(lines)


class Narrator(BaseNarrator):
    """What `python -m quando_env play --game cabo` shows the person at seat 0 of game 0."""

    help = HELP


    def title(self) -> str:
        return "Cabo"

    def intro(self) -> list[str]:
        c = self.game.config
        return [f"Lowest hand total wins a round; the game ends after a round in which a total exceeds {c.target}, "
                "and the lowest total wins.",
                *([f"You looked at your slots 0..{c.peek - 1} at the deal." if self.seat is not None else
                   f"Each player looked at their slots 0..{c.peek - 1} at the deal."] if c.peek else []),
                *(["Type 'help' for help."] if self.terminal else [])]

    def view(self) -> tuple[bool, str]:
        s = self.game.states[0]
        new_screen = int(s["phase"]) == E.PH_DRAW or (int(s["phase"]) == E.PH_SNAP and s["in_turn"] == 0)
        return new_screen, table_text(self.game, self.labels) if new_screen else short_text(self.game)

    def table(self) -> str:
        return table_text(self.game, self.labels)

    def move(self, a: int) -> tuple[str, str, list[str]]:
        s = self.game.states[0]
        name = self.game.move_name(0, a)
        aliases = [name]
        detail = ""
        if a == DRAW_STOCK:
            detail, aliases = f"{int(s['nstock'])} cards", aliases + ["stock"]
        elif a == TAKE_DISCARD:
            detail, aliases = card_name(int(s["disc"][s["ndisc"] - 1])), aliases + ["discard"]
        elif PLACE <= a < DISCARD_DRAWN:
            c = int(s["slot"][self.seat, a - PLACE])
            detail, aliases = f"gives away {_card(s, c, self.seat)}", aliases + [f"slot {a - PLACE}"]
        elif SNAP <= a < PASS:
            detail = _card(s, int(s["slot"][self.seat, a - SNAP]), self.seat)
        elif a == NO_KNOCK:
            aliases.append("no")
        return name, detail, aliases

    def told(self, before, a) -> list[str]:
        game = self.game
        ended = bool(game.round_over[0])
        after = game.at_round_end_of(before, [a])[0] if ended else game.states[0]
        b = before[0]
        p, ph = int(b["cur"]), int(b["phase"])
        who, s, me = self.who, self.verb, self.seat
        out = []
        if ph == E.PH_DRAW:
            if a == DRAW_STOCK:
                c = int(after["drawn"]) if after["drawn"] >= 0 else int(b["stock"][b["nstock"] - 1]) \
                    if b["nstock"] else -1
                special = int(after["phase"]) in (E.PH_JACK, E.PH_QUEEN)
                what = card_name(c) if c >= 0 and (special or p == me) and self.knows(after, c) else "a card"
                self.pending = (p, f"{who(p)} {s(p, 'draw')} {what} from the stock")
            else:
                self.pending = (p, f"{who(p)} {s(p, 'take')} the {card_name(int(b['disc'][b['ndisc'] - 1]))}"
                                   " from the discard pile")
        elif ph == E.PH_JACK:
            r, i, j = decode_jack(a)
            t = (p + r) % game.num_players
            self._add(p, f", and with the Jack {s(p, 'exchange')} slot {i} with {who(t)}'s slot {j}")
        elif ph == E.PH_QUEEN:
            c = int(b["slot"][p, a - 11])
            self._add(p, f", and with the Queen {s(p, 'look')} at slot {a - 11}"
                         + (f" ({card_name(c)})" if p == me else ""))
        elif ph == E.PH_PLACE:
            if a == DISCARD_DRAWN:
                self._add(p, f", then {s(p, 'discard')} it ({card_name(int(b['drawn']))})")
            else:
                self._add(p, f", {s(p, 'put')} it into slot {a - PLACE} and {s(p, 'discard')} the "
                             f"{card_name(int(b['slot'][p, a - PLACE]))}")
            out += self.flush()
        elif ph == E.PH_SNAP and a != PASS:
            out += self.flush()
            c = int(b["slot"][p, a - SNAP])
            if rank(c) == rank(int(b["disc"][b["ndisc"] - 1])):
                line = f"{who(p)} {s(p, 'snap')} the {card_name(c)} from slot {a - SNAP}"
                if b["nhand"][p] == 1:
                    line += f": {'you are' if p == me else 'is'} out"
            else:
                line = f"{who(p)} {s(p, 'snap')} the {card_name(c)} from slot {a - SNAP}: wrong, it goes back " \
                       "and a penalty card is added"
            out.append(line + ".")
        elif ph == E.PH_KNOCK and a == KNOCK:
            out += self.flush() + [f"{sentence(who(p))} {s(p, 'knock')}: everyone else has one more turn."]
        if ended:
            out += self.flush() + (["", round_summary(b, after, game.num_players)] if self.terminal else [])
        return out

    def _add(self, p, text):
        if self.pending is not None and self.pending[0] == p:
            self.pending = (p, self.pending[1] + text)




__all__ = ["Narrator"]
