"""Help! told to a person at the terminal: the table from seat 0, move names and one line per decision,
used by `python -m quando_env play --game help`. Only what seat 0 knows is shown (K1-K3): the others' hands
are counts, and the kinds of a help exchange are named only when seat 0 gave or received them (or once the
received card is played)."""

from ..narration import Narrator as BaseNarrator, sentence
from . import engine as E
from .cards import ASK, GIVE, GIVE_BACK, K_WILD, NO, SWITCH, WILD, ZAP, a_card, action_name
from .render import discard_text, hand_text, help_text, refill, row_text

HUMAN = 0

HELP = """\
How to answer: type the number shown before a move, or its name ("play 7", "Wild at slot 2", "Zap",
"ask"; case does not matter and a unique beginning is enough), or #N for the environment's action index N
(0-104). Other commands: "table" shows the table again, "help" shows this, "quit" leaves (the record so
far is saved).
Rules in short: play one card a turn onto the row, whose values must rise from left to right; a Wild takes
the value one above its left neighbour (1 at the start); a Switch swaps a row card for a number from your
hand; a Zap removes the row's last card; a No! makes you skip your next turn and protects you from being
asked. Who cannot play asks the previous player for help, receives a card that fits the row, gives one back
and must play the received card. If the help fails, everyone else scores a point; if nobody can help, the
asker scores. Reach the target first to win."""

_DECIDE = {E.PH_OPEN: "Open the round with the card you called.",
           E.PH_PLAY: "Play a card onto the row (or ask for help when nothing fits).",
           E.PH_GIVE: "You were asked for help: give a card that fits the row.",
           E.PH_BACK: "Give your helper one card back (not the one you just received).",
           E.PH_RECV: "Play the card you received."}


def _who(p: int) -> str:
    return "you" if p == HUMAN else f"player_{p}"


def table_text(game, labels) -> str:
    s = game.states[0]
    n = game.num_players
    active = int(s["active"])
    d = "increasing seats" if s["dir"] == 1 else "decreasing seats"
    lines = [f"---- Round {int(s['round']) + 1} - direction: {d} - "
             + ("your turn" if active == HUMAN else f"player_{active}'s turn") + " ----",
             "Totals: " + ", ".join(f"{_who(p)} {int(s['total'][p])}" for p in range(n))
             + f" (target {game.config.target})"]
    for p in range(1, n):
        tags = [labels[p]] + (["on turn"] if p == active else [])
        if s["no"][p]:
            tags.append("No! in front" + (", spent" if s["no"][p] == E.NO_SPENT else ""))
        if s["calls"][p]:
            tags.append(f"called {int(s['calls'][p])}")
        lines.append(f"  player_{p} ({', '.join(tags)}): {int(s['hand'][p].sum())} cards")
    lines.append(f"  ROW: {row_text(s)}")
    lines.append(f"  draw pile: {int(s['dend']) - int(s['dpos'])} cards; discard pile: {discard_text(s)}")
    helped = help_text(s, HUMAN)
    if helped:
        lines.append(f"  latest help: {helped}")
    mine = f"  YOUR HAND: {hand_text(s, HUMAN)}"
    if s["no"][HUMAN]:
        mine += " (a No! in front of you" + (", spent)" if s["no"][HUMAN] == E.NO_SPENT else ")")
    lines.append(mine)
    if s["phase"] != E.PH_OVER and s["cur"] == HUMAN:
        lines.append(_DECIDE[int(s["phase"])])
    return "\n".join(lines)


def short_text(game) -> str:
    s = game.states[0]
    return "\n".join([f"  ROW: {row_text(s)}", f"  YOUR HAND: {hand_text(s, HUMAN)}", _DECIDE[int(s["phase"])]])


def play_phrase(narrator, s, p, a) -> str:
    """What playing action a in state s does, told to the narrator's viewer after the player's name ('plays
    a Wild at slot 1 (value 4)')."""
    v = narrator.verb
    if a < WILD:
        return f"{v(p, 'play')} {a + 1}"
    if a < SWITCH:
        slot = a - WILD
        w = 1 if slot == 0 else int(s["row_val"][slot - 1]) + 1
        return f"{v(p, 'play')} a Wild at slot {slot} (value {w})"
    if a < ZAP:
        slot, k = divmod(a - SWITCH, 11)
        taken = "the Wild" if s["row_kind"][slot] == K_WILD else f"the {int(s['row_val'][slot])}"
        return f"{v(p, 'play')} a Switch: {v(p, 'take')} {taken} and {v(p, 'put')} {a_card(k)} in its place"
    if a == ZAP:
        return f"{v(p, 'zap')} the {int(s['row_val'][int(s['nrow']) - 1])}"
    return f"{v(p, 'play')} a No!: {'your' if p == narrator.seat else 'their'} next turn is skipped"


def _helper(s, p, n) -> int:
    """R16: the seat p asks in state s (-1: nobody)."""
    for i in range(1, n):
        q = (p - i * int(s["dir"])) % n
        if s["no"][q] == E.NO_NONE:
            return q
    return -1


class Narrator(BaseNarrator):
    """What `python -m quando_env play --game help` shows the person at seat 0 of game 0."""

    help = HELP

    def intro(self) -> list[str]:
        c = self.game.config
        return [f"Build rising rows; who cannot play asks for help. The game ends when a total reaches {c.target}; "
                "the highest total wins."] + (["Type 'help' for the rules in short and how to answer."]
                                              if self.terminal else [])

    def title(self) -> str:
        return "Help!"

    def view(self) -> tuple[bool, str]:
        s = self.game.states[0]
        within = s["phase"] in (E.PH_BACK, E.PH_RECV) and s["asker"] == HUMAN
        return (not within, short_text(self.game) if within else table_text(self.game, self.labels))

    def table(self) -> str:
        return table_text(self.game, self.labels)

    def move(self, a: int) -> tuple[str, str, list[str]]:
        name = self.game.move_name(0, a)
        aliases = [name, action_name(a)]
        if a == ASK:
            aliases.append("ask")
        elif a == NO:
            aliases.append("no")
        return name, "", aliases

    def told(self, before, a) -> list[str]:
        game = self.game
        b = before[0]
        after = game.states[0]
        p = int(b["cur"])
        ph = int(b["phase"])
        n = game.num_players
        who, s, me = self.who, self.verb, self.seat
        if ph == E.PH_GIVE:
            asker = int(b["asker"])
            what = a_card(a - GIVE) if me in (p, asker) else "a card"
            text = f"{who(p)} {s(p, 'give')} {who(asker)} {what}"
        elif ph == E.PH_BACK:
            helper = int(b["helper"])
            what = a_card(a - GIVE_BACK) if me in (p, helper) else "a card"
            text = f"{who(p)} {s(p, 'give')} {what} back to {who(helper)}"
        elif a == ASK:
            h = _helper(b, p, n)
            text = f"{who(p)} {s(p, 'ask')} " + (f"{who(h)} for help" if h >= 0 else "for help: nobody can help")
        else:
            text = f"{who(p)} {play_phrase(self, b, p, a)}" + (" (the card received)" if ph == E.PH_RECV else "")
        out = [sentence(text) + "."]
        if game.round_over[0]:
            if self.terminal:
                out += ["", self.round_summary(p, _helper(b, int(b["asker"]) if ph == E.PH_BACK else p, n))]
            return out
        if after["nrow"] == 0 and b["nrow"] > 0 and a < SWITCH:
            out.append("The row is full: it goes to the discard pile; the next player starts a new row.")
        if game.reshuffles(0) > int(b["shuffles"]) or int(after["flips"]) > int(b["flips"]):
            how = "shuffled" if game.config.reshuffle == "shuffle" else "turned over"
            out.append(f"The draw pile ran out: the discard pile, {how}, is the new draw pile.")
        q, drawn = refill(b, after)
        if drawn:
            out.append(f"{sentence(who(q))} {s(q, 'draw')} {drawn}.")
        for q in range(n):
            if b["no"][q] == E.NO_FRESH and after["no"][q] == E.NO_SPENT:
                out.append(f"{sentence(who(q))} {'are' if q == me else 'is'} skipped (No!).")
        return out

    def round_summary(self, p, h) -> str:
        game = self.game
        s = game.states[0]
        n = game.num_players
        if s["end_reason"] == E.END_NO_HELPER:
            why = f"nobody could help {_who(p)}, who scores a point"
        else:
            why = f"{_who(p)} could not be helped: everyone but {_who(p)} and {_who(h)} scores a point"
        lines = [f"==== Round {int(s['round'])} over: {why} ===="]
        for q in range(n):
            lines.append(f"  {_who(q):10} points {int(s['points'][q])}  total {int(s['total'][q])}")
        return "\n".join(lines)

