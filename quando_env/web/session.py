"""A game people play in the browser, at one or more seats, against agents at the others; what each page may
be told of it.

The session keeps the whole game; a page gets only `Session.state(viewer)`: its viewer's TableView (a seat's,
or for a spectator what every seat sees alike, quando_env.tableview.common_view) drawn as SVG after every
decision, with the places of the cards each other seat's last turn moved in a way every seat saw
(`Game.moved_cards`, `Game.card_place`: the marks), the narration told to that viewer, the seat's legal moves
while it decides, each with the places of the cards it involves (`Game.move_cards`: what the page makes
clickable), and the result. At a
round's end the rules reveal cards: the viewer's view of the round's last state is shown then. The narrator
tells the game from seat 0 (`Game.narrator`), so a person at another seat (and a spectator) is told their own
moves by name, that the others decided, what every seat saw (`Game.step_notes`) and each round's points. The
seed, which determines every card, is told only once the game is over.

Changes run under one lock, each from a complete, checked request; a request that finds the lock taken is
refused at once (`Busy`), never queued. Reads take no lock: every change publishes a new snapshot.
"""
import secrets
import threading
from contextlib import contextmanager

import numpy as np

from ..opponents import PlayError, make_opponent
from ..registry import game_module
from ..svg import svg
from ..tableview import common_view, place_order


class MoveError(ValueError):
    """A move or new game the page asked for that cannot be made now (answered with 400, nothing changed)."""

    status = 400


class Stale(MoveError):
    """A request for an earlier turn or game (a late or repeated click): answered with 409, nothing changed."""

    status = 409


class Busy(Stale):
    """The table is changing (agents deciding, another request): answered with 409, nothing changed."""


def seat_view(game, viewer):
    """What `viewer` (a seat, or None: a spectator) sees of game 0 now: the one place the session reads the
    table from."""
    if viewer is None:
        return common_view([game.table_view(0, s) for s in range(game.num_players)])
    return game.table_view(0, viewer)


def round_end(game, before, action: int):
    """The table right after `action` ended a round, before the next deal (the engine deals in the same step):
    the step replayed on a copy of the state with the round as the episode."""
    shadow = type(game)(1, seed=0, autoreset=False, **{**game.config.to_dict(), "episode": "round"})
    shadow.states[:] = before
    shadow.step(np.array([action], np.int64), checked=True)
    return shadow


def round_end_view(game, before, action: int, viewer):
    """What `viewer` sees of the table right after `action` ended a round (round_end)."""
    return seat_view(round_end(game, before, action), viewer)


def marks(game, moved: dict, viewer) -> list:
    """[{"at": place, "seat": mover}] of the cards each seat other than `viewer` moved in its last turn
    (`moved`: seat -> handles of Game.moved_cards, the latest mover last), where game 0 shows them now; a
    place two movers touched is the later one's. In the table's order of places: the handles are cards, and
    their order (Cabo's card ids go by rank) would tell the cards."""
    found = {}
    for seat, handles in moved.items():
        for handle in handles if seat != viewer else ():
            at = game.card_place(0, handle)
            if at is not None:
                found[at] = seat
    return [{"at": at, "seat": found[at]} for at in sorted(found, key=place_order)]


def hint(agent, obs) -> dict:
    """{legal action: probability, rounded to 0.001} of an agent's move scores for one observation (its own
    seat's) and mask: the softmax over the legal moves."""
    mask = np.asarray(obs["action_mask"], bool)
    scores = agent.scores(np.asarray(obs["observation"])[None], mask[None])[0]
    e = np.exp(scores[mask] - scores[mask].max())
    return {int(a): round(float(q), 3) for a, q in zip(np.flatnonzero(mask), e / e.sum())}


class Session:
    """People at `seats` against `opponents` (agent names for the other seats, in seat order) in game `name`
    with `options` (num_players, edition, episode ...). `seed`: the first game's seed (None: a random one);
    each later game takes a new random one, so a seed told at a game's end says nothing of the next.
    `on_over(number, seed)` is called as a game ends (the server prints the seed there). `hints`: an agent
    name with move scores (learned, learned:PATH) whose probabilities for a person's legal moves, from that
    person's own observation, go with the moves (key "p")."""

    def __init__(self, name: str, options: dict, opponents: list[str], seats=(0,), seed: int | None = None,
                 pace: float = 0.6, on_over=None, hints: str | None = None):
        self.name, self.options, self.pace, self.on_over = name, dict(options), float(pace), on_over
        self.hints, self.hinters = hints, {}
        self.env = game_module(name).raw_env(**self.options)
        self.game = self.env.game
        n = self.game.num_players
        self.seats = tuple(sorted({int(s) for s in seats}))
        if not self.seats or not all(0 <= s < n for s in self.seats) or len(opponents) != n - len(self.seats):
            raise ValueError(f"seats={seats!r} needs seats in 0..{n - 1} and {n - len(set(seats))} opponents, "
                             f"got {len(opponents)}")
        self.viewers = (*self.seats, None)
        self.names = list(opponents)
        self.first_seed = seed
        self.lock = threading.Lock()
        self.games_played, self.turn, self.seed, self.snapshot = 0, 0, None, None

    @property
    def seat(self) -> int:
        """The first person's seat (the only one at a table for one)."""
        return self.seats[0]

    @contextmanager
    def _changing(self):
        if not self.lock.acquire(blocking=False):
            raise Busy("the table is busy (the agents are deciding): wait for the page to update")
        try:
            yield
        finally:
            self.lock.release()

    # ------------------------------------------------------------------ the game
    def new_game(self, game: int | None = None) -> None:
        """Deal a new game and let the agents play up to a person's turn. `game`: the number of the game the
        page shows (a stale one is refused); a game still running is only left at a table for one person."""
        with self._changing():
            if game is not None and game != self.games_played:
                raise Stale(f"game {game} is not the one at the table (game {self.games_played}): reload the page")
            if len(self.seats) > 1 and self.games_played and not self.over():
                raise MoveError("the game is still being played: a new one starts once it is over")
            self._deal()

    def _deal(self) -> None:
        seed = self.first_seed if self.games_played == 0 and self.first_seed is not None else secrets.randbelow(2**31)
        game, n = self.game, self.game.num_players
        others = [p for p in range(n) if p not in self.seats]
        seeds = np.random.SeedSequence(seed).spawn(n)
        agents = {p: make_opponent(self.names[i], p, int(seeds[p].generate_state(1)[0]), game, self.options)
                  for i, p in enumerate(others)}
        if self.hints and not self.hinters:
            self.hinters = {s: make_opponent(self.hints, s, 0, game, self.options) for s in self.seats}
            if not all(callable(getattr(h, "scores", None)) for h in self.hinters.values()):
                raise PlayError(f"--hints {self.hints}: this agent gives no move scores (learned and learned:PATH do)")
        self.agents, self.seed = agents, seed
        self.games_played += 1
        self.turn += 1
        self.kind = {p: ("human" if p in self.seats else self.names[others.index(p)]) for p in range(n)}
        self.env.reset(seed=seed)
        self.narrator = game.narrator([("you" if p == 0 else self.kind[p]) for p in range(n)]) \
            if 0 in self.seats else None
        self.events, self.result, self.moved, self.last_mover = {v: [] for v in self.viewers}, None, {}, None
        for v in self.viewers:
            who = ", ".join(f"player_{p} {self.kind[p]}" for p in range(n) if p != v)
            intro = [f"{self._title()}, {n} players. " + (f"You are player_{v}; the others: {who}." if v is not None
                                                         else f"You watch: {who}.")]
            intro += self.narrator.intro() if v == 0 and self.narrator else []
            self._event(v, seat_view(game, v), intro)
        self._agents_play()

    def _title(self) -> str:
        return self.narrator.title() if self.narrator else self.name

    def over(self) -> bool:
        return bool(self.game.game_over[0] or self.game.truncated[0])

    def to_move(self, seat: int | None = None) -> bool:
        """Whether the person at `seat` (default: the first) decides now."""
        seat = self.seat if seat is None else seat
        return seat in self.seats and not self.over() and int(self.game.current_player[0]) == seat

    def _mask(self):
        return self.env.observe(self.env.agent_selection)

    def move(self, action, seat: int | None = None, turn: int | None = None) -> None:
        """The move of the person at `seat` (default: the first): an action id (an int, not a bool) legal now,
        for turn `turn` (the state's; None: the current one); MoveError, nothing changed, else."""
        with self._changing():
            seat = self.seat if seat is None else seat
            if turn is not None and turn != self.turn:
                raise Stale(f"this move was for turn {turn}, and the table is at turn {self.turn}: it is not played")
            if not self.to_move(seat):
                raise MoveError("it is not your turn" if not self.over() else "the game is over: start a new one")
            if type(action) is not int:
                raise MoveError(f"action must be an integer, got {type(action).__name__}")
            if not 0 <= action < self.game.num_actions or not self._mask()["action_mask"][action]:
                raise MoveError(f"action {action} is not a legal move now")
            self._step(action)
            self._agents_play()

    def _agents_play(self) -> None:
        while not self.over() and int(self.game.current_player[0]) not in self.seats:
            p = int(self.game.current_player[0])
            obs = self._mask()
            try:
                a = int(self.agents[p].act(obs["observation"], obs["action_mask"]))
            except Exception as e:
                raise PlayError(f"the {self.kind[p]} opponent (player_{p}) failed: {type(e).__name__}: {e}") from None
            if not 0 <= a < self.game.num_actions or not obs["action_mask"][a]:
                raise PlayError(f"the {self.kind[p]} opponent (player_{p}) chose the illegal action {a}")
            self._step(a)
        lines = {v: [] for v in self.viewers}
        if self.narrator and (self.over() or self.to_move(0)):     # as the terminal tells it: before seat 0 decides
            lines[0] += self.narrator.flush()
        if self.over():
            self.result = {v: self._result(v) for v in self.viewers}
            for v in self.viewers:
                lines[v].append(self.result[v])
        for v in self.viewers:          # a new event: a page may have been sent the last one already
            if lines[v]:
                self.events[v].append({**self.events[v][-1], "lines": lines[v], "reveal": False})
        self._publish()
        if self.over() and self.on_over:
            self.on_over(self.games_played, self.seed)

    def _step(self, a: int) -> None:
        game = self.game
        before, p = game.states.copy(), int(game.current_player[0])
        name = game.move_name(0, a)
        self.env.step(a)
        self.turn += 1
        ended = game.round_over[0] and not self.over()
        table = round_end(game, before, a) if ended else game      # the table the move left
        self._moved(p, table.moved_cards(0, before[0], a))
        for v in self.viewers:
            if v == 0 and self.narrator:
                lines = self.narrator.told(before, a)
            else:
                lines = [f"You: {name}." if p == v else f"player_{p} decided."] + game.step_notes(0, before[0])
                if game.round_over[0]:
                    lines.append(f"Round over: points {[int(x) for x in game.round_points[0]]}, totals "
                                 f"{[int(x) for x in game.totals[0]]}.")
            if ended:
                self._event(v, seat_view(table, v), lines, reveal=True, marked=marks(table, self.moved, v))
                lines = ["A new round is dealt."]
            self._event(v, seat_view(game, v), lines, marked=[] if ended else marks(game, self.moved, v))
        if ended:
            self.moved, self.last_mover = {}, None
        self._publish()

    def _moved(self, seat: int, handles) -> None:
        """Keep the cards `seat` moved: added to its turn's while it moves on, else its new turn's (a move
        that moves no card, as a pass, leaves the marks as they were)."""
        if not handles:
            return
        if seat == self.last_mover:
            self.moved[seat] += handles
        else:
            self.moved.pop(seat, None)
            self.moved[seat] = list(handles)
        self.last_mover = seat

    def _event(self, viewer, view, lines, reveal=False, marked=()) -> None:
        self.events[viewer].append({"svg": svg(view), "lines": list(lines), "marks": list(marked), "reveal": reveal})

    def _result(self, viewer) -> str:
        totals = [int(x) for x in self.game.totals[0]]
        seed = (f" The game's seed was {self.seed}: the same options with --seed {self.seed} and the same agents "
                "deal it again.")
        if self.game.truncated[0]:
            return f"The game was stopped after {self.game.config.max_steps} decisions (the step limit)." + seed
        won = [int(p) for p in np.flatnonzero(self.game.winners([0])[0])]
        who = ["you" if p == viewer else f"player_{p}" for p in range(len(totals))]
        told = "Game over. Final totals: " + ", ".join(f"{who[p]} {t}" for p, t in enumerate(totals)) + ". "
        return told + ("You win!" if won == [viewer] else
                       "Winner" + ("s: " if len(won) > 1 else ": ") + ", ".join(who[p] for p in won) + ".") + seed

    def _publish(self) -> None:
        """A new snapshot of what the pages may be told (read without the lock)."""
        moves = {}
        p = int(self.game.current_player[0])
        if not self.over() and p in self.seats:
            obs = self._mask()
            hints = hint(self.hinters[p], obs) if p in self.hinters else None
            for a in (int(x) for x in np.flatnonzero(obs["action_mask"])):
                name, detail = (self.narrator.move(a)[:2] if self.narrator and p == 0
                                else (self.game.move_name(0, a), ""))
                moves.setdefault(p, []).append({"action": a, "name": name, "detail": detail,
                                                "cards": list(self.game.move_cards(0, a)),
                                                **({"p": hints[a]} if hints is not None else {})})
        self.snapshot = {"title": self._title(), "game": self.games_played, "turn": self.turn, "over": self.over(),
                         "result": self.result, "moves": moves, "events": self.events,
                         "next": {v: len(self.events[v]) for v in self.viewers}}

    # ------------------------------------------------------------------ what a page is told
    def state(self, since: int = 0, viewer="seat", game: int | None = None) -> dict:
        """What `viewer` (a seat of a person, None: a spectator; default the first person's seat) is told: the
        events from number `since` on (from 0 when `game` is not the one at the table), the seat's legal moves
        while it decides, the result."""
        viewer = self.seat if viewer == "seat" else viewer
        snap = self.snapshot
        end = snap["next"][viewer]
        since = 0 if game is not None and game != snap["game"] else max(0, min(int(since), end))
        return {"title": snap["title"], "seat": viewer, "game": snap["game"], "turn": snap["turn"],
                "events": snap["events"][viewer][since:end], "next": end, "moves": snap["moves"].get(viewer, []),
                "over": snap["over"], "result": snap["result"] and snap["result"][viewer], "pace": self.pace}
