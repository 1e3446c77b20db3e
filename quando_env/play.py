"""`python -m quando_env play`: a person plays Quando in the terminal as player_0 against agents.

The table is shown from player_0's seat only (what that seat has seen, spec K1-K4). Cards are written
as the side you see, then "/" and the other side if you know it: `7/10`; a lone `7` means you have not
seen its other side. Every decision of the other players is told in one line; a round ends with everyone's
hand, sums and points; the game record is saved as JSON (also when the game is left early) so that
`python -m quando_env replay FILE` can replay it.
"""
import inspect
import secrets
import shlex
import sys
import time

import numpy as np

from . import engine as E
from . import record as rec
from .aec import raw_env
from .cards import CARD_VALUES, KNOCK, NUM_ACTIONS, NUM_CARDS, PASS, SET, TAKE_DOWN, TAKE_UP, action_name
from .config import make_config

HUMAN = 0
AGENT_NAMES = ("heuristic", "rollout", "ppo", "random")
PILE_SHOWN = 12  # discard pile cards listed, from the top

HELP = """\
How to answer: type the number shown before a move, or its name ("three 7s", "straight 3-4-5",
"knock", "take the hidden side"; case does not matter and a unique beginning is enough, e.g. "hid"),
or #N for the environment's action index N (0-133).
Other commands: "table" shows the table again, "help" shows this, "quit" leaves (the record so far is saved).
Cards: the side you see, then "/" and the other side if you know it (7/10); a lone 7 means you have
not seen its other side. Your hand shows fronts (they count), the others' hands show backs."""


class PlayError(Exception):
    """A problem to report to the user in one line (bad option, opponent not available, agent failure)."""


class RandomOpponent:
    """Uniform over the legal moves, from a seeded numpy Generator."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def act(self, obs, mask) -> int:
        return int(self.rng.choice(np.flatnonzero(mask)))


# ---------------------------------------------------------------- opponents
def _opponent_names(spec: str, n: int) -> list[str]:
    names = [x.strip() for x in str(spec).split(",")]
    names = [key.lower() + sep + arg for key, sep, arg in (x.partition(":") for x in names)]  # ppo:PATH keeps PATH
    if any(not x for x in names) or len(names) not in (1, n - 1):
        raise PlayError(f"--opponents {spec!r}: give one name for all {n - 1} opponents or {n - 1} names "
                        f"separated by commas (names: {', '.join(AGENT_NAMES)})")
    return names * (n - 1) if len(names) == 1 else names


def _make_opponent(name: str, seat: int, seed: int, config):
    if name == "random":
        return RandomOpponent(seed)
    try:
        import agents
        make_agent = agents.make_agent
    except Exception as e:  # the package is missing, broken, or has no make_agent yet
        raise PlayError(f"the {name!r} opponent comes from the agents package (agents.make_agent), which is not "
                        f"available: {type(e).__name__}: {e}. Play against --opponents random instead.") from None
    try:  # pass only the options make_agent names; agents may or may not take them
        params = inspect.signature(make_agent).parameters
    except (TypeError, ValueError):
        params = {}
    offered = {"seed": seed, "num_players": config.num_players, "edition": config.edition, "config": config,
               "seat": seat}
    kwargs = {k: v for k, v in offered.items() if k in params}
    try:
        agent = make_agent(name, **kwargs)
    except Exception as e:
        raise PlayError(f"could not create the {name!r} opponent: {type(e).__name__}: {e}") from None
    if not callable(getattr(agent, "act", None)):
        raise PlayError(f"agents.make_agent({name!r}) returned {type(agent).__name__}, which has no act(obs, mask)")
    return agent


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


def move_name(s, a: int) -> str:
    """The name of legal move `a` in the current phase (the names action_name gives, in context)."""
    if a == PASS and s["phase"] == E.PH_KNOCK:
        return "do not knock"
    return action_name(a)


def move_detail(s, a: int) -> str:
    """What a draw choice gives, as far as player_0 knows it."""
    if a not in (TAKE_UP, TAKE_DOWN) or s["ndraw"] == 0:
        return ""
    c = int(s["draw"][s["ndraw"] - 1])
    up = int(s["face"][c])
    down_known = (s["seen"][HUMAN, c] >> (1 - up)) & 1
    if a == TAKE_UP:
        return f"{_val(c, up)} becomes your front"
    if down_known:
        return f"{_val(c, 1 - up)} becomes your front, {_val(c, up)} your back"
    return f"the unseen side becomes your front, {_val(c, up)} your back"


def _aliases(s, a: int) -> list[str]:
    names = [move_name(s, a), action_name(a)]
    if a == TAKE_UP:
        names += ["visible", "up"]
    elif a == TAKE_DOWN:
        names += ["hidden", "down"]
    elif a == PASS and s["phase"] == E.PH_KNOCK:
        names += ["no"]
    return [" ".join(x.lower().split()) for x in names]


def parse_move(text: str, s, legal: list[int]) -> tuple[int | None, str]:
    """(action, "") for a valid answer, else (None, the reason). Answers: the number shown (1..m), a
    move's name (case-insensitive, a unique beginning suffices) or #N for action index N."""
    t = " ".join(text.strip().lower().split())
    m = len(legal)
    if not t:
        return None, f"Type a move's number (1-{m}) or its name; 'help' explains more."
    if t.isdigit():
        k = int(t)
        if 1 <= k <= m:
            return legal[k - 1], ""
        return None, f"There is no move {k}: the moves are numbered 1-{m} (for an action index type #{k})."
    if t.startswith("#"):
        num = t[1:].strip()
        if not num.isdigit() or not 0 <= int(num) < NUM_ACTIONS:
            return None, f"{text.strip()!r} is not an action index: #N with N in 0-{NUM_ACTIONS - 1}."
        a = int(num)
        if a in legal:
            return a, ""
        return None, f"#{a} ({move_name(s, a)}) is not a legal move now."
    exact = [a for a in legal if t in _aliases(s, a)]
    if exact:
        return exact[0], ""
    prefix = [a for a in legal if any(x.startswith(t) for x in _aliases(s, a))]
    if len(prefix) == 1:
        return prefix[0], ""
    if prefix:
        return None, f"{text.strip()!r} could be: {', '.join(move_name(s, a) for a in prefix)}. Type more of the name."
    return None, f"{text.strip()!r} is not a legal move now; pick one of the {m} moves listed (or type 'help')."


# ---------------------------------------------------------------- what happened
def _refilled(before, after) -> bool:
    return bool(np.any((after["loc"] == E.LOC_DRAW) & (before["loc"] != E.LOC_DRAW)))


def _s(p: int, verb: str) -> str:
    """`verb` for player p: 'take' for you, 'takes' for the others."""
    if p == HUMAN:
        return verb
    return verb + ("es" if verb.endswith(("s", "sh", "ch")) else "s")


def describe(before, after, a: int) -> tuple[str, str]:
    """(kind, phrase) telling player_0 what the decision `a` taken in state `before` (leading to `after`)
    did; the phrase follows the decider's name ("discards three 7s"). A draw's phrase starts at its
    choice ("takes the visible 4")."""
    p = int(before["cur"])
    phase = int(before["phase"])
    if a == KNOCK:
        return "knock", f"{_s(p, 'knock')}: everyone else has one last turn"
    if phase == E.PH_ACT:
        if a == PASS:
            return "pass", _s(p, "pass")
        text = f"{_s(p, 'discard')} {'the ' if a < SET else ''}{action_name(a)}"
        if a >= SET and (a - SET) % 10 == 2:
            text += " (a triplet: every other player must flip a 0 or draw)"
        return "discard", text
    if phase == E.PH_DRAW:
        c = int(before["draw"][before["ndraw"] - 1])
        up = int(before["face"][c])
        if a == TAKE_UP:
            return "draw", f"{_s(p, 'take')} the visible {_val(c, up)}"
        if p == HUMAN:
            return "draw", f"take the hidden side: it is a {_val(c, 1 - up)} (the {_val(c, up)} is its back)"
        known = (before["seen"][HUMAN, c] >> (1 - up)) & 1
        front = f"its front is the {_val(c, 1 - up)} you know" if known else "you see its back"
        return "draw", f"takes the hidden side of the {_val(c, up)} ({front})"
    if phase == E.PH_FLIP:
        flipped = [c for c in range(NUM_CARDS) if after["loc"][c] == p and after["face"][c] != before["face"][c]]
        v = _val(flipped[0], after["face"][flipped[0]]) if flipped else "?"
        return "flip", f"{_s(p, 'flip')} a 0 as the triplet penalty: it now shows {v}"
    return "no-knock", ""  # oya, after the draw: not knocking is told by nothing


def _round_end_state(before, action, config):
    """The state right after `action` ends a round, before the next deal (the engine deals the next round
    in the same step): the step replayed on a copy with the round as the episode."""
    cfg = make_config(**{**config.to_dict(), "episode": "round"}).kernel_vector(False)
    st = before.copy()
    n = config.num_players
    E.step_kernel(st, np.array([action], np.int64), cfg, np.zeros((1, n), np.float32), np.zeros((1, 4), np.uint8),
                  np.zeros((1, NUM_ACTIONS), np.uint8))
    return st[0]


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


# ---------------------------------------------------------------- the session
class _Session:
    def __init__(self, args):
        self.n = int(args.players)
        self.seed = int(args.seed) if args.seed is not None else secrets.randbelow(2**31)
        self.env = raw_env(num_players=self.n, edition=args.edition)
        self.config = self.env.config
        self.game = self.env.game
        names = _opponent_names(args.opponents, self.n)
        seeds = np.random.SeedSequence(self.seed).spawn(self.n)
        self.labels = ["you"] + names
        self.opponents = {p: _make_opponent(names[p - 1], p, int(seeds[p].generate_state(1)[0]), self.config)
                          for p in range(1, self.n)}
        self.path = args.record or time.strftime("quando-%Y%m%d-%H%M%S.json")
        self.pending = None  # (seat, text) of the turn being told, completed by its draw and knock decision
        self.echo = not sys.stdin.isatty()

    def out(self, text=""):
        print(text, flush=True)

    def flush(self):
        if self.pending:
            text = self.pending[1]
            self.out(("Y" + text[1:] if text.startswith("you ") else text) + ".")
            self.pending = None

    def tell(self, before, after, a):
        """One line per decision of the others (and your own), a turn's discard, draw and oya knock
        decision joined in one line."""
        kind, phrase = describe(before, after, a)
        p = int(before["cur"])
        own_turn = p == int(before["active"]) and int(before["phase"]) != E.PH_FLIP and not (
            int(before["phase"]) == E.PH_DRAW and before["drawctx"] == 1)
        joined = self.pending is not None and self.pending[0] == p and own_turn
        if kind == "draw" and own_turn:
            phrase = (", then " if joined else f"{_s(p, 'draw')} and ") + phrase
        elif kind == "draw":
            phrase = f"{_s(p, 'draw')} as the triplet penalty and " + phrase
        elif joined and kind in ("knock", "no-knock"):
            phrase = ", and " + phrase if phrase else ""
        else:
            joined = False
        if joined:
            self.pending = (p, self.pending[1] + phrase)
        else:
            self.flush()
            if phrase:
                self.pending = (p, f"{_who(p)} {phrase}")
        if not own_turn or kind in ("knock", "pass"):
            self.flush()
        if _refilled(before, after) and not self.game.round_over[0]:
            self.flush()
            how = "turned over" if self.config.edition == "kendi" else "shuffled"
            self.out(f"The draw pile ran out: the discard pile, {how}, is the new draw pile.")

    def ask(self, legal) -> int | None:
        """The human's choice among `legal`, or None to leave (end of input or 'quit')."""
        s = self.game.states[0]
        self.flush()
        within_turn = int(s["active"]) == HUMAN and (
            (s["phase"] == E.PH_DRAW and s["drawctx"] == 0) or s["phase"] == E.PH_KNOCK)
        if not within_turn:
            self.out()
        self.out(short_text(self.game) if within_turn else table_text(self.game, self.labels))
        self.show_moves(s, legal)
        while True:
            try:
                line = input(f"Your move (1-{len(legal)}, a name, or help): ")
            except EOFError:
                self.out()
                self.out("End of input: leaving the game.")
                return None
            if self.echo:
                print(line, flush=True)
            cmd = line.strip().lower()
            if cmd in ("quit", "exit", "q"):
                self.out("You leave the game.")
                return None
            if cmd in ("help", "?", "h"):
                self.out(HELP)
                self.show_moves(s, legal)
                continue
            if cmd in ("table", "t"):
                self.out(table_text(self.game, self.labels))
                self.show_moves(s, legal)
                continue
            a, why = parse_move(line, s, legal)
            if a is not None:
                return a
            self.out(why)

    def show_moves(self, s, legal):
        self.out("Your moves:")
        for i, a in enumerate(legal, 1):
            detail = move_detail(s, a)
            self.out(f"  {i:2d}) {move_name(s, a)}" + (f"  -- {detail}" if detail else ""))

    def run(self) -> int:
        env, game = self.env, self.game
        env.reset(seed=self.seed)
        who = ", ".join(f"player_{p} {self.labels[p]}" for p in range(1, self.n))
        self.out(f"Quando ({self.config.edition}), {self.n} players, seed {self.seed}. You are player_0; "
                 f"opponents: {who}.")
        self.out(f"Lowest hand sum wins a round; {_target_text(self.config)}.")
        self.out("Cards read 'the side you see/the other side' (7/10) when you know both sides. Type 'help' for help.")
        while not (game.game_over[0] or game.truncated[0]):
            seat = int(game.current_player[0])
            agent = env.agent_selection
            obs = env.observe(agent)
            legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
            if seat == HUMAN:
                a = self.ask(legal)
                if a is None:
                    return self.finish(complete=False)
            else:
                try:
                    a = int(self.opponents[seat].act(obs["observation"], obs["action_mask"]))
                except Exception as e:
                    raise PlayError(f"the {self.labels[seat]} opponent (player_{seat}) failed: "
                                    f"{type(e).__name__}: {e}") from None
                if a not in legal:
                    raise PlayError(f"the {self.labels[seat]} opponent (player_{seat}) chose the illegal action {a}")
            before = game.states.copy()
            env.step(a)
            ended = bool(game.round_over[0])
            after = _round_end_state(before, a, self.config) if ended else game.states[0]
            self.tell(before[0], after, a)
            if ended:
                self.flush()
                self.out()
                self.out(round_summary(before[0], after, self.n))
        self.flush()
        totals = [int(x) for x in game.totals[0]]
        if game.truncated[0]:
            self.out(f"The game was stopped after {self.config.max_steps} decisions (the step limit).")
        else:
            best = min(totals)
            winners = [_who(p) for p in range(self.n) if totals[p] == best]
            self.out()
            self.out("Game over. Final totals: " + ", ".join(f"{_who(p)} {t}" for p, t in enumerate(totals)))
            self.out(("You win!" if winners == ["you"] else "Winner" + ("s: " if len(winners) > 1 else ": ")
                      + ", ".join(winners)) + f" (lowest total {best}).")
        return self.finish(complete=True)

    def finish(self, complete: bool) -> int:
        record = dict(self.env.game_record())
        record["players"] = ["human"] + self.labels[1:]
        try:
            rec.save(record, self.path)
        except OSError as e:
            self.out(f"error: could not save the game record to {self.path}: {e}")
            return 1
        what = "Game record" if complete else "Record of the game so far"
        self.out(f"{what} saved to {self.path}")
        self.out(f"Replay it with: python -m quando_env replay {shlex.quote(self.path)}")
        return 0


def play(args) -> int:
    """Run one game in the terminal; returns the exit code (0 also when the player leaves early,
    130 on Ctrl-C, 2 for a bad option or an opponent that is not available, 1 for a failure)."""
    session = None
    try:
        session = _Session(args)
        return session.run()
    except PlayError as e:
        if session is not None:
            session.flush()
        print(f"error: {e}", file=sys.stderr)
        if session is not None and session.env.recorder is not None:
            session.finish(complete=False)
            return 1
        return 2
    except KeyboardInterrupt:
        print("\nInterrupted: leaving the game.", flush=True)
        if session is not None and session.env.recorder is not None:
            session.finish(complete=False)
        return 130
    except BrokenPipeError:
        return 1
