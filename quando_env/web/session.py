"""A game a person plays in the browser against agents, and what the page may be told of it.

The session keeps the whole game; the page gets only `Session.state`: the person's seat's TableView drawn as
SVG after every decision (the agents' decisions one at a time), the narration of the game's terminal
narrator, the person's legal moves while it is their turn, and the result. At a round's end the rules reveal
cards: the seat's view of the round's last state (before the next deal) is shown then. The narrator tells
the game from seat 0 (`Game.narrator`), so a person at another seat is told only their own moves by name,
that the others decided, what every seat saw (`Game.step_notes`) and each round's points.
"""
import secrets

import numpy as np

from ..cli.play import PlayError, make_opponent
from ..registry import game_module
from .svg import svg


class MoveError(ValueError):
    """A move the page sent that cannot be played now (answered with 400, the game unchanged)."""


def seat_view(game, seat: int):
    """What `seat` sees of game 0 now: the one place the session reads the table from."""
    return game.table_view(0, seat)


def round_end_view(game, before, action: int, seat: int):
    """What `seat` sees of the state right after `action` ended a round, before the next deal (the engine
    deals in the same step): the step replayed on a copy of the state with the round as the episode."""
    shadow = type(game)(1, seed=0, autoreset=False, **{**game.config.to_dict(), "episode": "round"})
    shadow.states[:] = before
    shadow.step(np.array([action], np.int64), checked=True)
    return seat_view(shadow, seat)


class Session:
    """One person at `seat` against `opponents` (agent names for the other seats, in seat order) in game
    `name` with `options` (num_players, edition, episode ...). `seed`: the first game's seed (None: random);
    each new game takes the next one."""

    def __init__(self, name: str, options: dict, opponents: list[str], seat: int = 0, seed: int | None = None,
                 pace: float = 0.6):
        self.name, self.options, self.seat, self.pace = name, dict(options), int(seat), float(pace)
        self.env = game_module(name).raw_env(**self.options)
        self.game = self.env.game
        n = self.game.num_players
        if not 0 <= self.seat < n or len(opponents) != n - 1:
            raise ValueError(f"seat={seat!r} needs 0..{n - 1} and {n - 1} opponents, got {len(opponents)}")
        self.names = list(opponents)
        self.seed = secrets.randbelow(2**31) if seed is None else int(seed)
        self.events, self.result = [], None
        self.games_played = 0

    # ------------------------------------------------------------------ the game
    def new_game(self) -> None:
        """Deal a new game (the next seed after the first) and let the agents play up to the person's turn."""
        seed = self.seed + self.games_played
        self.games_played += 1
        game, n = self.game, self.game.num_players
        others = [p for p in range(n) if p != self.seat]
        seeds = np.random.SeedSequence(seed).spawn(n)
        self.agents = {p: make_opponent(self.names[i], p, int(seeds[p].generate_state(1)[0]), game, self.options)
                       for i, p in enumerate(others)}
        self.labels = [("you" if p == self.seat else self.names[others.index(p)]) for p in range(n)]
        self.env.reset(seed=seed)
        self.narrator = game.narrator(self.labels) if self.seat == 0 else None
        who = ", ".join(f"player_{p} {self.labels[p]}" for p in others)
        intro = [f"{self._title()}, {n} players, seed {seed}. You are player_{self.seat}; opponents: {who}."]
        intro += self.narrator.intro() if self.narrator else []
        self.events, self.result = [], None
        self._event(seat_view(game, self.seat), intro)
        self._agents_play()

    def _title(self) -> str:
        return self.narrator.title() if self.narrator else self.name

    def over(self) -> bool:
        return bool(self.game.game_over[0] or self.game.truncated[0])

    def to_move(self) -> bool:
        return not self.over() and int(self.game.current_player[0]) == self.seat

    def _mask(self):
        return self.env.observe(self.env.agent_selection)

    def move(self, action) -> None:
        """The person's move: an action id (an int, not a bool) legal now; MoveError, nothing changed, else."""
        if not self.to_move():
            raise MoveError("it is not your turn" if not self.over() else "the game is over: start a new one")
        if type(action) is not int:
            raise MoveError(f"action must be an integer, got {type(action).__name__}")
        if not 0 <= action < self.game.num_actions or not self._mask()["action_mask"][action]:
            raise MoveError(f"action {action} is not a legal move now")
        self._step(action)
        self._agents_play()

    def _agents_play(self) -> None:
        while not self.over() and not self.to_move():
            p = int(self.game.current_player[0])
            obs = self._mask()
            try:
                a = int(self.agents[p].act(obs["observation"], obs["action_mask"]))
            except Exception as e:
                raise PlayError(f"the {self.labels[p]} opponent (player_{p}) failed: {type(e).__name__}: {e}") from None
            if not 0 <= a < self.game.num_actions or not obs["action_mask"][a]:
                raise PlayError(f"the {self.labels[p]} opponent (player_{p}) chose the illegal action {a}")
            self._step(a)
        lines = self.narrator.flush() if self.narrator else []
        if self.over():
            self.result = self._result()
            lines.append(self.result)
        if lines:
            self.events[-1]["lines"] += lines

    def _step(self, a: int) -> None:
        game = self.game
        before, p = game.states.copy(), int(game.current_player[0])
        name = game.move_name(0, a) if p == self.seat else ""
        self.env.step(a)
        if self.narrator:
            lines = self.narrator.told(before, a)
        else:
            lines = [f"You: {name}." if p == self.seat else f"player_{p} decided."] + game.step_notes(0, before[0])
            if game.round_over[0]:
                lines.append(f"Round over: points {[int(x) for x in game.round_points[0]]}, totals "
                             f"{[int(x) for x in game.totals[0]]}.")
        if game.round_over[0] and not self.over():
            self._event(round_end_view(game, before, a, self.seat), lines, reveal=True)
            lines = ["A new round is dealt."]
        self._event(seat_view(game, self.seat), lines)

    def _event(self, view, lines, reveal=False) -> None:
        self.events.append({"svg": svg(view), "lines": list(lines), "reveal": reveal})

    def _result(self) -> str:
        totals = [int(x) for x in self.game.totals[0]]
        if self.game.truncated[0]:
            return f"The game was stopped after {self.game.config.max_steps} decisions (the step limit)."
        won = [int(p) for p in np.flatnonzero(self.game.winners([0])[0])]
        who = ["you" if p == self.seat else f"player_{p}" for p in range(len(totals))]
        told = "Game over. Final totals: " + ", ".join(f"{who[p]} {t}" for p, t in enumerate(totals)) + ". "
        return told + ("You win!" if won == [self.seat] else
                       "Winner" + ("s: " if len(won) > 1 else ": ") + ", ".join(who[p] for p in won) + ".")

    # ------------------------------------------------------------------ what the page is told
    def state(self, since: int = 0) -> dict:
        """The events from number `since` on, the person's legal moves (while it is their turn), the result."""
        since = max(0, min(int(since), len(self.events)))
        moves = []
        if self.to_move():
            mask = self._mask()["action_mask"]
            for a in (int(x) for x in np.flatnonzero(mask)):
                name, detail = (self.narrator.move(a)[:2] if self.narrator else (self.game.move_name(0, a), ""))
                moves.append({"action": a, "name": name, "detail": detail})
        return {"title": self._title(), "seat": self.seat, "events": self.events[since:], "next": len(self.events),
                "moves": moves, "over": self.over(), "result": self.result, "pace": self.pace}
