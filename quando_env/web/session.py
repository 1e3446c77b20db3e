"""A game people play in the browser, at one or more seats, against agents at the others; what each page may
be told of it.

The session drives the core `Game` (quando_env.core) of one table directly: every view, card place, narrator
and winner a page is told comes from it, so one layer is read and stepped (the AEC env above it adds agent
names and reward bookkeeping that a table does not use). A `Recorder` follows the game, so every finished
game has its record (`record`). A page gets only `Session.state(viewer)`: its viewer's TableView (a seat's,
or for a spectator what every seat sees alike, quando_env.tableview.common_view) drawn as SVG after every
decision, with the places of the cards each other seat's last turn moved in a way every seat saw
(`Game.moved_cards`, `Game.card_place`: the marks), the narration told to that viewer (the game's narrator
at the viewer's seat, told only what that viewer may know: the public part of every move, a seat's own
private part), the seat's legal moves while it decides, each with the places of the cards it involves
(`Game.move_cards`: what the page makes clickable), and the result. At a round's end, the last one included,
the rules reveal cards: the viewer's view of the round's last state is shown then, with the round's points
as a table. The seed, which determines every card, is told only once the game is over.

An answer is bounded however long the game: at most MAX_EVENTS events, and only the latest PICTURES of them
carry a picture (older ones are told as text; a page shows the newest picture only).

Changes run under one lock, each from a complete, checked request; a request that finds the lock taken is
refused at once (`Busy`), never queued. Reads take no lock: every change publishes a new snapshot.
"""
import os
import secrets
import threading
import time
from contextlib import contextmanager

import numpy as np

from ..adapters import record as rec
from ..files import read_json
from ..opponents import PlayError, make_opponent
from ..registry import game_class
from ..svg import svg
from ..tableview import common_view, over_text, place_order

MAX_EVENTS = 200    # events one answer holds at most (the latest): a page that missed more shows these
PICTURES = 24       # the latest events that keep their picture: a turn of every agent of a 6-player table


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


def checked_deal(game, deal) -> dict:
    """A given first deal (the AEC reset's options: the game's setup keys, e.g. deck and dealer) checked as
    reset checks it, on `game` (which it deals): ValueError naming what is wrong."""
    if not isinstance(deal, dict):
        raise ValueError(f"a deal is a JSON object of {game.name}'s setup {list(game.setup_keys)}, "
                         f"not a {type(deal).__name__}")
    try:
        game.reset(seed=0, **deal)
    except (TypeError, ValueError, OverflowError) as e:
        raise ValueError(str(e)) from None
    return dict(deal)


def load_deal(path, name: str, options: dict) -> dict:
    """The deal in the JSON file `path` for game `name` with `options`, checked (checked_deal): ValueError
    naming the file and what is wrong."""
    deal = read_json(path, "deal")
    try:
        return checked_deal(game_class(name)(1, seed=0, autoreset=False, **options), deal)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None


def keep(record: dict, folder, number: int) -> str:
    """Write a finished game's record into `folder` (created if needed) as GAME-TIME-gNUMBER-SEED.json, whole
    or not at all (quando_env.adapters.record.save); its path. ValueError naming the path where it cannot."""
    name = f"{rec.game_class_of(record).name}-{time.strftime('%Y%m%d-%H%M%S')}-g{number}-{record['seed']}.json"
    path = os.path.join(folder, name)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise ValueError(f"cannot write the game record to {path}: {e.strerror or e}") from None
    rec.save(record, path, follow_symlinks=False)
    return path


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


def hint(agent, observation, mask) -> dict:
    """{legal action: probability, rounded to 0.001} of an agent's move scores for one observation (its own
    seat's) and mask: the softmax over the legal moves."""
    mask = np.asarray(mask, bool)
    scores = agent.scores(np.asarray(observation)[None], mask[None])[0]
    e = np.exp(scores[mask] - scores[mask].max())
    return {int(a): round(float(q), 3) for a, q in zip(np.flatnonzero(mask), e / e.sum())}


def who(p: int, viewer) -> str:
    return "you" if p == viewer else f"player_{p}"


class Session:
    """People at `seats` against `opponents` (agent names for the other seats, in seat order) in game `name`
    with `options` (num_players, edition, episode ...). `seed`: the first game's seed (None: a random one);
    each later game takes a new random one, so a seed told at a game's end says nothing of the next. `deal`:
    every game's first deal (the game's setup keys, checked by checked_deal). `on_over(number, seed)` is
    called as a game ends (the server prints the seed and keeps the game's `record` there). `hints`: an
    agent name with move scores (learned, learned:PATH) whose probabilities for a person's legal moves, from
    that person's own observation, go with the moves (key "p")."""

    def __init__(self, name: str, options: dict, opponents: list[str], seats=(0,), seed: int | None = None,
                 pace: float = 0.6, on_over=None, hints: str | None = None, deal: dict | None = None):
        self.name, self.options, self.pace, self.on_over = name, dict(options), float(pace), on_over
        self.hints, self.hinters = hints, {}
        self.game = game_class(name)(1, seed=0, autoreset=False, **self.options)
        self.deal = {} if deal is None else checked_deal(self.game, deal)
        self.game.keep_round_ends()     # the table a round left, before the engine deals the next in that step
        n = self.game.num_players
        self.seats = tuple(sorted({int(s) for s in seats}))
        if not self.seats or not all(0 <= s < n for s in self.seats) or len(opponents) != n - len(self.seats):
            raise ValueError(f"seats={seats!r} needs seats in 0..{n - 1} and {n - len(set(seats))} opponents, "
                             f"got {len(opponents)}")
        self.viewers = (*self.seats, None)
        self.names = list(opponents)
        self.first_seed = seed
        self.lock = threading.Lock()
        self.action = np.zeros(1, np.int64)
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
        game.reset(seed=seed, **self.deal)
        self.recorder = rec.Recorder(game, seed=seed)
        labels = [self.kind[p] for p in range(n)]
        self.narrators = {v: game.narrator(labels, seat=v, terminal=False) for v in self.viewers}
        self.events, self.result, self.moved, self.last_mover = {v: [] for v in self.viewers}, None, {}, None
        self.rounds = 0
        for v in self.viewers:
            others_told = ", ".join(f"player_{p} {self.kind[p]}" for p in range(n) if p != v)
            intro = [f"{self._title()}, {n} players. " + (f"You are player_{v}; the others: {others_told}."
                                                         if v is not None else f"You watch: {others_told}.")]
            self._event(v, seat_view(game, v), intro + self.narrators[v].intro())
        self._agents_play()

    def _title(self) -> str:
        return self.narrators[self.seat].title()

    def over(self) -> bool:
        return bool(self.game.game_over[0] or self.game.truncated[0])

    def to_move(self, seat: int | None = None) -> bool:
        """Whether the person at `seat` (default: the first) decides now."""
        seat = self.seat if seat is None else seat
        return seat in self.seats and not self.over() and int(self.game.current_player[0]) == seat

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
            if not 0 <= action < self.game.num_actions or not self.game.legal_action_mask[0, action]:
                raise MoveError(f"action {action} is not a legal move now")
            self._step(action)
            self._agents_play()

    def _agents_play(self) -> None:
        game = self.game
        while not self.over() and int(game.current_player[0]) not in self.seats:
            p = int(game.current_player[0])
            mask = game.legal_action_mask[0]
            try:
                a = int(self.agents[p].act(game.observe()[0], mask.view(np.int8)))
            except Exception as e:
                raise PlayError(f"the {self.kind[p]} opponent (player_{p}) failed: {type(e).__name__}: {e}") from None
            if not 0 <= a < game.num_actions or not mask[a]:
                raise PlayError(f"the {self.kind[p]} opponent (player_{p}) chose the illegal action {a}")
            self._step(a)
        # the table waits for a person (or the game is over): each viewer is told the turn being told so far
        lines = {v: self.narrators[v].flush() for v in self.viewers}
        if self.over():
            self.result = {v: self._result(v) for v in self.viewers}
            for v in self.viewers:
                lines[v].append(self.result[v])
        for v in self.viewers:          # a new event: a page may have been sent the last one already
            if lines[v]:
                self._event(v, None, lines[v])
        self._publish()
        if self.over() and self.on_over:
            self.on_over(self.games_played, self.seed)

    def _step(self, a: int) -> None:
        game = self.game
        before, p = game.states.copy(), int(game.current_player[0])
        self.action[0] = a
        game.step(self.action, checked=True)
        self.recorder.after_step(a)
        self.turn += 1
        ended, redealt = bool(game.round_over[0]), bool(game.round_over[0]) and not self.over()
        table = game.at_round_end(0) if redealt else game     # the table the move left, before the next deal
        self._moved(p, table.moved_cards(0, before[0], a))
        self.rounds += ended
        for v in self.viewers:
            lines = self.narrators[v].told(before, a)
            if ended:
                self._event(v, seat_view(table, v), lines + self.narrators[v].flush() + [f"Round {self.rounds} is "
                            "over: the cards are shown."], reveal=True, marked=marks(table, self.moved, v),
                            points=self._points(v))
            if redealt:
                self._event(v, seat_view(game, v), ["A new round is dealt."])
            elif not ended:
                self._event(v, seat_view(game, v), lines, marked=marks(game, self.moved, v))
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

    def _points(self, viewer) -> dict:
        """The round just over as a table: each seat's points and total."""
        points, totals = self.game.round_points[0], self.game.totals[0]
        return {"caption": f"Round {self.rounds}", "head": ["", "points", "total"],
                "rows": [[who(p, viewer), int(points[p]), int(totals[p])] for p in range(self.game.num_players)]}

    def _event(self, viewer, view, lines, reveal=False, marked=(), points=None) -> None:
        """A new event for `viewer`: its picture (None: the last one, with its marks), what it is told, and a
        round's points; the event PICTURES back loses its picture (a page is sent the latest ones only)."""
        events = self.events[viewer]
        last = events[-1] if events else {}
        event = {"svg": svg(view) if view is not None else last.get("svg"), "lines": list(lines),
                 "marks": list(marked) if view is not None else last.get("marks", []), "reveal": reveal}
        if points is not None:
            event["points"] = points
        events.append(event)
        if len(events) > PICTURES:
            events[-PICTURES - 1] = {**events[-PICTURES - 1], "svg": None, "marks": []}

    def _result(self, viewer) -> str:
        seed = (f" The game's seed was {self.seed}: the same options with --seed {self.seed}"
                + (" and --deal" if self.deal else "") + " and the same agents deal it again.")
        totals = ", ".join(f"{who(p, viewer)} {int(t)}" for p, t in enumerate(self.game.totals[0]))
        return f"{over_text(self.game, 0, viewer)}. Final totals: {totals}." + seed

    def record(self) -> dict:
        """The game's record so far (quando_env.adapters.record's format, with the players named: "human" at
        a person's seat); a page is offered it only once the game is over (it holds every card)."""
        return {**self.recorder.record, "players": [self.kind[p] for p in range(self.game.num_players)]}

    def _publish(self) -> None:
        """A new snapshot of what the pages may be told (read without the lock)."""
        moves, game = {}, self.game
        p = int(game.current_player[0])
        if not self.over() and p in self.seats:
            mask = game.legal_action_mask[0]
            hints = hint(self.hinters[p], game.observe()[0], mask) if p in self.hinters else None
            for a in (int(x) for x in np.flatnonzero(mask)):
                name, detail = self.narrators[p].move(a)[:2]
                moves.setdefault(p, []).append({"action": a, "name": name, "detail": detail,
                                                "cards": list(game.move_cards(0, a)),
                                                **({"p": hints[a]} if hints is not None else {})})
        self.snapshot = {"title": self._title(), "game": self.games_played, "turn": self.turn, "over": self.over(),
                         "result": self.result, "moves": moves, "events": self.events,
                         "next": {v: len(self.events[v]) for v in self.viewers},
                         "record": self.record() if self.over() else None}

    # ------------------------------------------------------------------ what a page is told
    def finished_record(self) -> dict | None:
        """The record of the game at the table once it is over (None while it runs): read from the snapshot,
        so a new game dealt meanwhile is never the one sent."""
        return self.snapshot["record"]

    def state(self, since: int = 0, viewer="seat", game: int | None = None) -> dict:
        """What `viewer` (a seat of a person, None: a spectator; default the first person's seat) is told: the
        events from number `since` on (from 0 when `game` is not the one at the table; at most the latest
        MAX_EVENTS, `skipped` says how many before them are left out), the seat's legal moves while it decides,
        the result."""
        viewer = self.seat if viewer == "seat" else viewer
        snap = self.snapshot
        end = snap["next"][viewer]
        since = 0 if game is not None and game != snap["game"] else max(0, min(int(since), end))
        first = max(since, end - MAX_EVENTS)
        return {"title": snap["title"], "seat": viewer, "game": snap["game"], "turn": snap["turn"],
                "events": snap["events"][viewer][first:end], "skipped": first - since, "next": end,
                "moves": snap["moves"].get(viewer, []), "over": snap["over"],
                "result": snap["result"] and snap["result"][viewer], "pace": self.pace}
