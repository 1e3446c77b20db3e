"""Every byte the browser table sends a viewer depends only on what that viewer has seen: for every game, every
seat and the spectator, whole games are played through the real server in twin worlds, two deals that differ
only in cards the viewer has not seen (two cards of the deck swapped, dealt by the session's deal; of many
random swaps, the one whose cards the game's moves move most out of the viewer's sight), with the same random
legal moves, and every answer of every endpoint is compared byte for byte, status, headers, order and length
included, up to the step after which the viewer could tell the worlds apart. Planted leaks (the
marks in the order of card ids, as the server once sent them, and a narration told from another seat among
them) fail the same check."""
import http.client
import json
from contextlib import ExitStack

import numpy as np
import pytest

from quando_env.registry import game_class
from quando_env.tableview import common_view
from quando_env.web import session as session_module
from quando_env.web.session import Session
from web_helpers import served_session, token_of

PLAYERS = {"quando": 3, "cabo": 3, "help": 3}
DEALS = 2           # deals per game; each deal gives one twin per viewer
TRIES = 64          # swaps of two cards tried for each twin deal


def exchange(conn, method: str, path: str, token: str, body=None) -> bytes:
    """The whole answer to one request on a kept-alive connection, as bytes: status, headers in order, body."""
    headers = {"Host": f"127.0.0.1:{conn.port}", "X-Token": token}
    data = None if body is None else json.dumps(body).encode()
    if data is not None:
        headers.update({"Content-Type": "application/json", "Content-Length": str(len(data))})
    conn.request(method, path, data, headers)
    answer = conn.getresponse()
    out = f"{answer.status}\n".encode() + b"".join(f"{k}: {v}\n".encode("latin-1") for k, v in answer.getheaders())
    return out + b"\n" + answer.read()


def apart(a: bytes, b: bytes) -> str:
    """Where two answers first differ, with some bytes around it."""
    k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"lengths {len(a)}, {len(b)}; from byte {k}:\n{a[max(0, k - 150):k + 150]!r}\n{b[max(0, k - 150):k + 150]!r}"


def next_event(answer: bytes) -> int:
    """The number of the next event, from a state answer (exchange's bytes)."""
    return json.loads(answer.split(b"\n\n", 1)[1])["next"]


def known(game, viewer):
    """What `viewer` (a seat; None: a spectator) has seen of game 0 now, written out from the game itself (not
    the server's code): a seat's view, observation and legal moves, a spectator's common view (the games are
    of one round: the round's end, with what its rules reveal, is the game's)."""
    if viewer is None:
        return common_view([game.table_view(0, s) for s in range(game.num_players)])
    return game.table_view(0, viewer), game.observe(players=np.array([viewer])).tobytes(), \
        int(game.current_player[0]) == viewer and game.legal_action_mask[0].tobytes()


def played(name, n, setup, rng) -> list[int]:
    """The actions of a game of random legal moves from deal `setup` (dealt as the session deals it)."""
    game = game_class(name)(1, seed=1, autoreset=False, num_players=n, episode="round")
    game.reset(games=[0], **setup)
    actions = []
    while not game.game_over[0] and not game.truncated[0]:
        actions.append(int(rng.choice(np.flatnonzero(game.legal_action_mask[0]))))
        game.step(np.array(actions[-1:]))
    return actions


def twin_deal(name, n, setup, actions, viewer, rng, tries=TRIES) -> dict:
    """A twin of deal `setup` for `viewer`: two cards of the deck swapped, of `tries` random swaps the one
    under which `actions` keep the viewer unknowing longest while moving the swapped cards most (where game
    0's Game.moved_cards, as identities, differ): what tells a leak of the cards' identities. Judged by the
    observations (a spectator knows no more than any seat); the comparison itself judges by `known`."""
    deck = setup["deck"]
    pairs = [tuple(rng.choice(len(deck), 2, replace=False)) for _ in range(tries)]
    worlds = game_class(name)(tries + 1, seed=[1] * (tries + 1), autoreset=False, num_players=n, episode="round")
    for k, (i, j) in enumerate([(0, 0), *pairs]):
        worlds.reset(games=[k], **{**setup, "deck": [deck[j] if x == i else deck[i] if x == j else c
                                                     for x, c in enumerate(deck)]})
    seats = range(n) if viewer is None else [viewer]
    unknowing = np.ones((tries + 1, len(seats)), bool)
    alive, moved, steps = np.ones(tries + 1, bool), np.zeros(tries + 1), np.zeros(tries + 1)
    for a in actions:
        alive &= worlds.legal_action_mask[:, a] & ~worlds.game_over
        before = worlds.states.copy()
        worlds.step(np.full(alive.sum(), a), games=np.flatnonzero(alive))
        for s, seat in enumerate(seats):
            obs = worlds.observe(players=np.full(tries + 1, seat))
            unknowing[:, s] &= (obs == obs[0]).all(axis=1)
        alive &= unknowing.any(axis=1)
        steps += alive
        if int(before[0]["cur"]) != viewer:        # cards moved out of the viewer's sight, several at once best
            mine = set(worlds.moved_cards(0, before[0], a))
            for k in np.flatnonzero(alive):
                moved[k] += set(worlds.moved_cards(k, before[k], a)) != mine and 1 + len(mine) // 2
    best = max(range(1, tries + 1), key=lambda k: (moved[k], steps[k]))
    i, j = pairs[best - 1]
    return {**setup, "deck": [deck[j] if x == i else deck[i] if x == j else c for x, c in enumerate(deck)]}


def dealt(stack, name, n, setup):
    """A server whose session deals `setup` (its deal, as `serve --deal` gives it), every seat a person's, and
    a connection to it."""
    session = Session(name, {"num_players": n, "episode": "round"}, [], seats=range(n), seed=1, pace=0, deal=setup)
    server = stack.enter_context(served_session(session))
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    stack.callback(conn.close)
    return server, conn


class Twins:
    """The servers of one world and of its twins, and which viewers cannot yet tell each twin from it."""

    def __init__(self, stack, name, n, setup, twins, viewers):
        self.name, self.viewers = name, viewers
        self.worlds, self.conns = zip(*(dealt(stack, name, n, deal) for deal in (setup, *twins)))
        stack.callback(lambda: [w.stop() for w in self.worlds])      # all at once
        self.tokens = [{v: token_of(w, v) for v in w.session.viewers} for w in self.worlds]
        self.games = [w.session.game for w in self.worlds]
        self.comparing = {k: list(viewers) for k in range(1, len(self.games))}
        self.answers = {}
        self.seen()

    def seen(self) -> None:
        """Keep comparing each viewer in each twin it still cannot tell from the first world."""
        g = self.games
        self.comparing = {k: [v for v in seeing if known(g[0], v) == known(g[k], v)]
                          for k, seeing in self.comparing.items()}

    def ask(self, v, method, path, body=None, what=""):
        """None, or where the answers to viewer v's request differ between the first world and a twin."""
        self.answers[v] = a = exchange(self.conns[0], method, path, self.tokens[0][v], body)
        for k in (k for k, seeing in self.comparing.items() if v in seeing):
            if a != (b := exchange(self.conns[k], method, path, self.tokens[k][v], body)):
                return f"{self.name}, viewer {v}, {what or method + ' ' + path}: {apart(a, b)}"
        return None

    def move(self, action) -> str | None:
        """Play `action` in the first world and in each twin where it is legal and compared (the others are
        dropped); None, or where the mover's answers differ."""
        g, mover, turn = self.games, int(self.games[0].current_player[0]), self.worlds[0].session.turn
        played = [k for k, seeing in self.comparing.items()
                  if seeing and int(g[k].current_player[0]) == mover and g[k].legal_action_mask[0, action]]
        self.comparing = {k: self.comparing[k] if k in played else [] for k in self.comparing}
        moved = {k: exchange(self.conns[k], "POST", "/api/move", self.tokens[k][mover],
                             {"action": action, "turn": turn}) for k in (0, *played)}
        self.seen()
        for k in played:
            if mover in self.comparing[k] and moved[k] != moved[0]:
                return f"{self.name}, viewer {mover}, its move {action}: {apart(moved[0], moved[k])}"
        return None


def first_difference(name, n, setup, twins, actions, viewers) -> tuple[str | None, int]:
    """Play `actions` in the world of `setup` and in each of `twins` (while legal in both), and compare every
    answer to each of `viewers` in the first world and in each twin the viewer cannot tell from it: (None, or
    what first differed; how many (viewer, twin, step) triples were compared)."""
    compared = 0
    with ExitStack() as stack:
        table = Twins(stack, name, n, setup, twins, viewers)
        for v in viewers:
            for path in ("/", "/play.js", "/api/state", "/api/state?game=0"):
                if found := table.ask(v, "GET", path):
                    return found, 0
        for step, action in enumerate(actions):
            turn = table.worlds[0].session.turn
            if not any(table.comparing.values()):
                break
            if found := table.move(action):
                return found, compared
            compared += sum(map(len, table.comparing.values()))
            for v in viewers:
                probes = [("GET", f"/api/state?since={next_event(table.answers[v])}", None)]
                if step % 4 == 0 and not table.games[0].game_over[0]:   # refused moves and games, all events
                    probes += [("POST", "/api/move", {"action": action, "turn": turn}),
                               ("POST", "/api/move", {"action": 10**6, "turn": turn + 1}),
                               ("POST", "/api/new", {"game": 1}), ("GET", "/api/record", None),
                               ("GET", "/api/state?since=0", None)]        # the last a state: its next is read
                for method, path, body in probes:
                    if found := table.ask(v, method, path, body, f"{method} {path} {body} after {step + 1} steps"):
                        return found, compared
        for v in viewers:
            if found := table.ask(v, "GET", "/api/state?since=0", what="the whole game"):
                return found, compared
    return None, compared


def check_game(name, deals=DEALS, seed=0) -> tuple[str | None, int]:
    """Twin worlds for every viewer of `deals` deals of game `name`: (the first difference found, or None; how
    many (viewer, twin, step) triples were compared)."""
    n = PLAYERS[name]
    viewers = (*range(n), None)
    rng = np.random.default_rng(seed)
    total = 0
    for deal in range(deals):
        setup = game_class(name)(1, seed=1000 * seed + deal, num_players=n, episode="round").round_setup(0)
        actions = played(name, n, setup, rng)
        twins = [twin_deal(name, n, setup, actions, viewer, rng) for viewer in viewers]
        found, compared = first_difference(name, n, setup, twins, actions, viewers)
        total += compared
        if found:
            return found, total
    return None, total


@pytest.mark.parametrize("name", sorted(PLAYERS))
def test_every_answer_is_the_same_in_worlds_the_viewer_cannot_tell_apart(name):
    found, compared = check_game(name)
    assert found is None, found
    assert compared >= 100


def marks_in_card_order(game, moved, viewer):
    """The marks as the server once built them: in the order of the cards' handles (Cabo's card ids)."""
    found = {}
    for seat, handles in moved.items():
        for handle in handles if seat != viewer else ():
            at = game.card_place(0, handle)
            if at is not None:
                found.pop(at, None)
                found[at] = seat
    return [{"at": at, "seat": seat} for at, seat in found.items()]


@pytest.mark.parametrize("leak", ["marks in card order", "picture", "line", "narration"])
def test_a_planted_leak_makes_the_twin_worlds_differ(monkeypatch, leak):
    if leak == "marks in card order":
        monkeypatch.setattr(session_module, "marks", marks_in_card_order)
    elif leak == "narration":   # every viewer told the game as seat 0 is (its own peeks and draws)
        cls = game_class("cabo")
        narrator = cls.narrator
        monkeypatch.setattr(cls, "narrator", lambda self, labels, seat=0, terminal=True: narrator(
            self, labels, seat=0, terminal=terminal))
    elif leak == "picture":     # every seat's hand drawn (of the real game)
        monkeypatch.setattr(session_module, "seat_view", lambda game, viewer: game.table_view(0, None))
    else:                       # a line with the whole table as text
        told = Session._event
        monkeypatch.setattr(Session, "_event", lambda self, viewer, view, lines, **kw: told(
            self, viewer, view, [*lines, self.game.render_text(0)], **kw))
    assert check_game("cabo", deals=1)[0] is not None
