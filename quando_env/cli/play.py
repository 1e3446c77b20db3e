"""`python -m quando_env play`: a person plays any game in the terminal as player_0 against agents.

The table is shown from player_0's seat only (what that seat has seen); the game's narrator (the
contract's `narrator`) tells every decision in one line and each round's end. The game record is saved as
JSON (also when the game is left early) so that `python -m quando_env replay FILE` can replay it.

The agents, random included, come from the `quando_env.agents` entry point (quando_env.named_agents: the
package's own agents package registers its `make_agent` there), so quando_env itself never imports them. Their
names are checked before the game starts by the entry point module's `check_agent(name, game, num_players)`; the
names it takes are its NAMES_HELP, your own agents (FILE.py:NAME) among them.
ppo:PATH and rllib:CHECKPOINT opponents run code from their file as it loads (pickle), and a plug-in's file runs
as it is imported: load only files you trust.
"""
import argparse
import secrets
import shlex
import sys
import time

import numpy as np

from ..checks import printable
from .. import record as rec
from ..registry import game_module
from ..argtypes import output_file, rule_options
from ..opponents import PlayError, make_opponent, opponent_names
from .first_use import notice

HUMAN = 0


# ---------------------------------------------------------------- answers
def parse_move(text: str, moves: dict) -> tuple[int | None, str]:
    """(action, "") for a valid answer, else (None, the reason). moves: {legal action: (name, aliases)} in
    the order listed. Answers: the number shown (1..m), a move's name or alias (case-insensitive, a unique
    beginning suffices) or #N for action index N."""
    t = " ".join(text.strip().lower().split())
    legal = list(moves)
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
        limit = moves.num_actions
        if not num.isdigit() or not 0 <= int(num) < limit:
            return None, f"{text.strip()!r} is not an action index: #N with N in 0-{limit - 1}."
        a = int(num)
        if a in moves:
            return a, ""
        return None, f"#{a} ({moves.name_of(a)}) is not a legal move now."
    exact = [a for a in legal if t in moves[a][1]]
    if exact:
        return exact[0], ""
    prefix = [a for a in legal if any(x.startswith(t) for x in moves[a][1])]
    if len(prefix) == 1:
        return prefix[0], ""
    if prefix:
        return None, f"{text.strip()!r} could be: {', '.join(moves[a][0] for a in prefix)}. Type more of the name."
    return None, f"{text.strip()!r} is not a legal move now; pick one of the {m} moves listed (or type 'help')."


class Moves(dict):
    """{legal action: (name, aliases)} of the current decision, in order, with the game's naming."""

    def __init__(self, game, narrator, legal):
        self.num_actions = game.num_actions
        self.name_of = lambda a: game.move_name(0, a)
        self.details = {}
        for a in legal:
            name, detail, aliases = narrator.move(a)
            self[a] = (name, [" ".join(x.lower().split()) for x in aliases])
            self.details[a] = detail


# ---------------------------------------------------------------- the session
class _Session:
    def __init__(self, args):
        self.n = int(args.players)
        self.path = args.record or time.strftime(f"{args.game}-%Y%m%d-%H%M%S.json")
        try:    # --record was checked with the options; the default name is checked here, before anything else
            output_file(self.path)
        except argparse.ArgumentTypeError as e:
            raise PlayError(f"cannot save the game record: {e}") from None
        self.seed = int(args.seed) if args.seed is not None else secrets.randbelow(2**31)
        names = opponent_names(args.opponents, self.n)
        notice(args.game, agents=set(names) != {"random"})
        module = game_module(args.game)
        options = rule_options(args)
        self.env = module.raw_env(num_players=self.n, **options)
        self.config = self.env.config
        self.game = self.env.game
        seeds = np.random.SeedSequence(self.seed).spawn(self.n)
        self.labels = ["you"] + names
        self.opponents = {p: make_opponent(names[p - 1], p, int(seeds[p].generate_state(1)[0]), self.game, options)
                          for p in range(1, self.n)}
        self.narrator = self.game.narrator(self.labels)
        self.echo = not sys.stdin.isatty()

    def out(self, text=""):
        print(text, flush=True)

    def say(self, lines):
        for line in lines:
            self.out(line)

    def ask(self, legal) -> int | None:
        """The human's choice among `legal`, or None to leave (end of input or 'quit')."""
        self.say(self.narrator.flush())
        new_screen, view = self.narrator.view()
        if new_screen:
            self.out()
        self.out(view)
        moves = Moves(self.game, self.narrator, legal)
        self.show_moves(moves)
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
                self.out(self.narrator.help)
                self.show_moves(moves)
                continue
            if cmd in ("table", "t"):
                self.out(self.narrator.table())
                self.show_moves(moves)
                continue
            a, why = parse_move(line, moves)
            if a is not None:
                return a
            self.out(why)

    def show_moves(self, moves):
        self.out("Your moves:")
        for i, (a, (name, _)) in enumerate(moves.items(), 1):
            detail = moves.details[a]
            self.out(f"  {i:2d}) {name}" + (f"  -- {detail}" if detail else ""))

    def run(self) -> int:
        env, game = self.env, self.game
        env.reset(seed=self.seed)
        who = ", ".join(f"player_{p} {self.labels[p]}" for p in range(1, self.n))
        self.out(f"{self.narrator.title()}, {self.n} players, seed {self.seed}. You are player_0; opponents: {who}.")
        self.say(self.narrator.intro())
        while not (game.game_over[0] or game.truncated[0]):
            seat = int(game.current_player[0])
            obs = env.observe(env.agent_selection)
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
            self.say(self.narrator.told(before, a))
        self.say(self.narrator.flush())
        totals = [int(x) for x in game.totals[0]]
        if game.truncated[0]:
            self.out(f"The game was stopped after {self.config.max_steps} decisions (the step limit).")
        else:
            won = np.flatnonzero(game.winners([0])[0])
            winners = [_who(p) for p in won]
            best = totals[int(won[0])]
            self.out()
            self.out("Game over. Final totals: " + ", ".join(f"{_who(p)} {t}" for p, t in enumerate(totals)))
            self.out(("You win!" if winners == ["you"] else "Winner" + ("s: " if len(winners) > 1 else ": ")
                      + ", ".join(winners)) + f" ({self.narrator.result} {best}).")
        return self.finish(complete=True)

    def finish(self, complete: bool) -> int:
        record = dict(self.env.game_record())
        record["players"] = ["human"] + self.labels[1:]
        try:
            rec.save(record, self.path)
        except ValueError as e:    # names the path
            self.out(f"error: {e}")
            return 1
        what = "Game record" if complete else "Record of the game so far"
        self.out(f"{what} saved to {self.path}")
        self.out(f"Replay it with: python -m quando_env replay {shlex.quote(self.path)}")
        return 0


def _who(p: int) -> str:
    return "you" if p == HUMAN else f"player_{p}"


def play(args) -> int:
    """Run one game in the terminal; returns the exit code (0 also when the player leaves early,
    130 on Ctrl-C, 2 for a bad option or an opponent that is not available, 1 for a failure)."""
    session = None
    try:
        session = _Session(args)
        return session.run()
    except PlayError as e:
        if session is not None:
            session.say(session.narrator.flush())
        print(f"error: {printable(e)}", file=sys.stderr)
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
