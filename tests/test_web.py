"""The browser front end at the HTTP level: what a seat is sent (every response of whole games compared
with what that seat may know; a planted leak fails), each security check, the replay page's data, and the
command lines. The pages themselves run in a real browser in test_web_browser.py."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from quando_env import record as rec
from quando_env.cli import main, parse_args
from quando_env.registry import game_class, game_module
from quando_env.web import session as session_module
from quando_env.web.replay_page import html_page, replay_data
from quando_env.web.session import Session, hint
from quando_env.svg import svg
from quando_env.tableview import common_view, place_order
from web_helpers import PLAYERS, request, served, token_of

GAMES = sorted(PLAYERS)
DATA = Path(__file__).parent / "data"
KEYS = {"title", "seat", "game", "turn", "events", "skipped", "next", "moves", "over", "result", "pace"}
SEED = 7_406_113_029    # a seed no picture or line holds by chance: nothing before a game's end may contain it


# ---------------------------------------------------------------- what a seat is sent
def play_over_http(server, seed: int) -> dict:
    """A whole game played through the API with random legal moves by every person's page, each page (the
    spectators' too) reading the state after every move; every response, by viewer."""
    rng = np.random.default_rng(seed)
    tokens = {v: token_of(server, v) for v in server.session.viewers}
    answers = {v: [request(server, "GET", "/api/state", token=t)[1]] for v, t in tokens.items()}
    while not answers[server.session.seat][-1]["over"]:
        seat = next(v for v in answers if answers[v][-1]["moves"])
        state = answers[seat][-1]
        move = int(rng.choice(state["moves"])["action"])
        status, state = request(server, "POST", "/api/move", {"action": move, "turn": state["turn"]},
                                token=tokens[seat])
        assert status == 200, state
        answers[seat].append(state)
        for v, t in tokens.items():
            status, state = request(server, "GET", f"/api/state?since={answers[v][-1]['next']}", token=t)
            assert status == 200, state
            answers[v].append(state)
    return answers


def view_of(g, viewer):
    """The view the viewer may be shown (written out here, not taken from the session)."""
    if viewer is None:
        return common_view([g.table_view(0, s) for s in range(g.num_players)])
    return g.table_view(0, viewer)


def last_turns_marked(table, steps, viewer) -> list:
    """The marks `viewer` may be shown: `steps`, the (seat, handles) of the round's moves that moved cards in
    order, cut into turns (a seat's consecutive moves); each other seat's last turn's cards where `table`
    shows them, a place taken by the later turn."""
    last = {}
    for i, (seat, handles) in enumerate(steps):
        last[seat] = (last[seat][0], last[seat][1] + list(handles)) if i and steps[i - 1][0] == seat else \
            (i, list(handles))
    found = {}
    for seat, (_, handles) in sorted(last.items(), key=lambda item: item[1][0]):
        for at in (table.card_place(0, h) for h in handles if seat != viewer):
            if at is not None:
                found[at] = seat
    return sorted(found.items(), key=lambda item: place_order(item[0]))     # the table's order


def table_left(g, before, a):
    """The table action `a` left in state `before` of g, before the next round's deal: the step played again
    with the round as the episode."""
    table = type(g)(1, seed=0, autoreset=False, **{**g.config.to_dict(), "episode": "round"})
    table.load_states(before)
    table.step(np.array([a]), checked=True)
    return table


def what_the_viewer_may_know(session, viewer) -> tuple[set, set, dict, set]:
    """(pictures with their marks, texts, legal moves, round tables) `viewer` (a person's seat, None: a
    spectator) may be shown in the game just played, found by replaying its record: the viewer's view at every
    position with the cards the other seats' last turns moved, and at every round's end; the narration (the
    game's narrator at the viewer's seat, told what was played up to each person's decision); the seat's legal
    moves when deciding with their cards; each round's points and totals."""
    record = session.record()
    n = session.game.num_players
    labels = [session.kind[p] for p in range(n)]
    pictures, texts, moves, tables = set(), {session.result[viewer]}, {}, set()
    narrator, before, steps, rounds = None, None, [], 0

    def position(k, g):
        nonlocal narrator, before
        if narrator is None:
            narrator = g.narrator(labels, seat=viewer, terminal=False)
            texts.update(narrator.intro())
        before = g.states.copy()
        pictures.add((svg(view_of(g, viewer)), json.dumps(last_turns_marked(g, steps, viewer))))
        if k < len(record["actions"]) and int(g.current_player[0]) in session.seats:     # the table waits
            texts.update(narrator.flush())
        if k < len(record["actions"]) and int(g.current_player[0]) == viewer:
            legal = [int(a) for a in np.flatnonzero(g.legal_action_mask[0])]
            hints = (hint(session.hinters[viewer], g.observe()[0], g.legal_action_mask[0]) if session.hinters
                     else {})
            for a in legal:
                name, detail = narrator.move(a)[:2]
                moves.setdefault(a, set()).add((name, detail, hints.get(a), g.move_cards(0, a)))

    def each(k, p, a, g):
        nonlocal rounds
        ended = g.round_over[0] and not (g.game_over[0] or g.truncated[0])
        table = table_left(g, before, a) if ended else g
        handles = table.moved_cards(0, before[0], a)
        steps.extend([(p, handles)] if handles else [])
        told = narrator.told(before, a)
        texts.update(told)
        if g.round_over[0]:
            rounds += 1
            pictures.add((svg(view_of(table, viewer)), json.dumps(last_turns_marked(table, steps, viewer))))
            steps.clear()
            texts.update(narrator.flush())
            tables.add(json.dumps({"caption": f"Round {rounds}", "head": ["", "points", "total"], "rows": [
                ["you" if q == viewer else f"player_{q}", int(g.round_points[0][q]), int(g.totals[0][q])]
                for q in range(n)]}))
    rec.verify(record, each, position)
    texts.update(narrator.flush())
    return pictures, texts, moves, tables


def check_told(answers, session, viewer="seat") -> None:
    """Every field of every answer is one `viewer` may be shown, and nothing before the game's end holds its
    seed (AssertionError naming the first that is not)."""
    viewer = session.seat if viewer == "seat" else viewer
    pictures, texts, moves, tables = what_the_viewer_may_know(session, viewer)
    for state in answers:
        assert set(state) == KEYS
        assert state["seat"] == viewer and isinstance(state["over"], bool)
        assert state["title"] == session.game.narrator([], 0).title()
        if not state["over"]:
            assert str(session.seed) not in json.dumps(state), "the seed before the game's end"
        for event in state["events"]:
            assert set(event) - {"points"} == {"svg", "lines", "reveal", "marks"}
            marked = json.dumps([(m["at"], m["seat"]) for m in event["marks"]])
            assert event["svg"] is None and not event["marks"] or (event["svg"], marked) in pictures, \
                "a picture or marks the viewer never saw"
            assert "points" not in event or json.dumps(event["points"]) in tables, event["points"]
            for line in event["lines"]:
                assert line in texts or re.fullmatch(r".*, \d players\. (You are player_\d; the others|You watch): .*",
                                                     line) or re.fullmatch(
                    r"A new round is dealt\.|Round \d+ is over: the cards are shown\.", line), line
        for move in state["moves"]:
            assert set(move) == {"action", "name", "detail", "cards"} | ({"p"} if session.hinters else set())
            assert (move["name"], move["detail"], move.get("p"), tuple(move["cards"])) in moves.get(move["action"],
                                                                                                   ()), move
        assert state["result"] in (None, session.result[viewer])
    assert answers[-1]["over"] and f"seed was {session.seed}" in answers[-1]["result"]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seat", [0, 1])
def test_every_response_of_a_whole_game_holds_only_what_the_seat_may_know(game, seat):
    with served(game, seat=seat, seed=SEED + seat) as server:
        answers = play_over_http(server, seed=seat)
        for viewer in server.session.viewers:
            check_told(answers[viewer], server.session, viewer)


@pytest.mark.parametrize("game", GAMES)
def test_two_people_at_one_table_are_each_sent_only_their_seats_view(game):
    """Every answer to each person's page, and to the spectators', against what that viewer may know."""
    with served(game, seed=SEED, humans=2) as server:
        answers = play_over_http(server, seed=5)
        assert server.session.seats == (0, 1) and len(answers) == 3
        for viewer in server.session.viewers:
            check_told(answers[viewer], server.session, viewer)
        assert all(len(answers[v]) >= 2 for v in answers)


@pytest.mark.parametrize("leak", [None, "other seat"])
def test_the_hints_are_a_learned_agents_probabilities_from_the_seats_own_observation(monkeypatch, leak):
    """--hints learned at a 4-player table: each move's probability, against the model's scores of the seat's
    own observation; hints from another seat's observation fail the check."""
    if leak:        # the hints of the next seat's observation
        told, publish, tables = session_module.hint, Session._publish, []
        monkeypatch.setattr(Session, "_publish", lambda self: (tables.append(self), publish(self)))
        monkeypatch.setattr(session_module, "hint", lambda agent, observation, mask: told(agent, tables[
            -1].game.observe(players=[(int(tables[-1].game.current_player[0]) + 1) % 4])[0], mask))
    with served("cabo", seat=0, seed=SEED, players=4, hints="learned") as server:
        session = server.session
        answers = play_over_http(server, seed=2)
        assert all("p" in m for state in answers[0] for m in state["moves"])
        assert any(state["moves"] for state in answers[0])
        if leak:
            with pytest.raises(AssertionError):
                check_told(answers[0], session)
        else:
            check_told(answers[0], session)
            check_told(answers[None], session, None)


@pytest.mark.parametrize("seat", [0, 1])
def test_a_whole_game_of_rounds_with_reveals_between_them_holds_only_what_the_seat_may_know(seat):
    with served("cabo", seat=seat, seed=SEED + 3, episode="game") as server:
        answers = play_over_http(server, seed=seat)
        check_told(answers[seat], server.session)
        check_told(answers[None], server.session, None)
        rounds = int(server.session.game.states[0]["round"])
    reveals = [e for state in answers[seat] for e in state["events"] if e["reveal"]]
    assert rounds >= 2 and len(reveals) == rounds


def told(session, viewer) -> list:
    """Every line told to `viewer` so far, and the round tables, in order."""
    return [(e["lines"], e.get("points")) for e in session.events[viewer]]


def picture(session, viewer) -> str:
    return next(e["svg"] for e in reversed(session.events[viewer]) if e["svg"] is not None)


@pytest.mark.parametrize("game", GAMES)
def test_the_second_seat_and_the_spectator_are_told_every_public_move(game):
    """At a table of two people, the second person and the spectator are told what each seat did (the moves
    the table shows them anyway), never just that someone decided."""
    n = PLAYERS[game]
    session = Session(game, {"num_players": n, "episode": "round"}, ["random"] * (n - 2), (0, 1), seed=3, pace=0)
    session.new_game()
    rng = np.random.default_rng(1)
    while not session.over():
        seat = int(session.game.current_player[0])
        session.move(int(rng.choice(np.flatnonzero(session.game.legal_action_mask[0]))), seat)
    verbs = {"quando": ("discards", "takes the"), "cabo": ("draws", "from the stock"), "help": ("plays",)}[game]
    for viewer in (1, None):
        lines = [line for lines, _ in told(session, viewer) for line in lines]
        assert not any("decided" in line for line in lines)
        for other in (0, 2) if n > 2 else (0,):
            mine = [line for line in lines if line.startswith(f"player_{other} ")]
            assert mine and any(verb in line for line in mine for verb in verbs), (viewer, lines)
        assert any(line.startswith("You ") for line in lines) == (viewer == 1)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("viewer", [1, None])
def test_the_narration_is_the_same_in_worlds_the_viewer_cannot_tell_apart(game, viewer):
    """Twin deals that swap two cards the viewer has not seen (its picture is the same) are played with the
    same moves: as long as the viewer's picture stays the same in both, so does everything it is told."""
    twins_told_alike(game, viewer)


@pytest.mark.parametrize("game, viewer, leak", [("quando", 1, "narrator"), ("cabo", None, "text"), ("help", 1, "text")])
def test_a_narration_told_from_another_seat_fails_the_twin_worlds(monkeypatch, game, viewer, leak):
    """Planted leaks: every viewer told the game as seat 0 knows it (its narrator), or each line followed by
    seat 0's text view of the table."""
    cls = game_module(game).VectorGame
    narrator = cls.narrator
    if leak == "narrator":
        monkeypatch.setattr(cls, "narrator", lambda self, labels, seat=0, terminal=True: narrator(self, labels, 0,
                                                                                                   terminal))
    else:
        def leaky(self, labels, seat=0, terminal=True):
            told = narrator(self, labels, seat, terminal)
            tell = told.told
            told.told = lambda before, a: [*tell(before, a), self.render_text(0, 0)]
            return told
        monkeypatch.setattr(cls, "narrator", leaky)
    with pytest.raises(AssertionError):
        twins_told_alike(game, viewer)


def twin_deals(game, n: int, seed: int, viewer, count: int):
    """Up to `count` pairs of first deals of `game` that differ in two of the deck's first 30 cards (those a
    short game plays) where `viewer` sees no difference (its picture is the same) and another seat does."""
    g = game_class(game)(1, seed=0, autoreset=False, num_players=n, episode="round")
    g.reset(seed=seed)
    deal = g.round_setup(0)

    def pictures(deck):
        g.reset(seed=seed, **{**deal, "deck": deck})
        return {v: svg(view_of(g, v)) for v in (*range(n), None)}
    first, found = pictures(deal["deck"]), 0
    for i, j in np.random.default_rng(seed).permutation([(i, j) for i in range(30) for j in range(i)]):
        deck = list(deal["deck"])
        deck[i], deck[j] = deck[j], deck[i]
        shown = pictures(deck) if deck[i] != deck[j] else first
        if shown[viewer] == first[viewer] and shown != first:
            yield deal, {**deal, "deck": deck}
            found += 1
            if found == count:
                return


def twins_told_alike(game, viewer) -> None:
    n = PLAYERS[game]
    rng = np.random.default_rng(7)
    compared = 0
    for seed in range(3):
        for deals in twin_deals(game, n, seed, viewer, 4):
            a, b = (Session(game, {"num_players": n, "episode": "round"}, [], range(n), seed=seed, pace=0, deal=deal)
                    for deal in deals)
            a.new_game()
            b.new_game()
            while not a.over() and picture(a, viewer) == picture(b, viewer):
                assert told(a, viewer) == told(b, viewer)
                compared += 1
                move = int(rng.choice(np.flatnonzero(a.game.legal_action_mask[0])))
                if not b.game.legal_action_mask[0, move] or a.game.current_player[0] != b.game.current_player[0]:
                    break
                a.move(move, int(a.game.current_player[0]))
                b.move(move, int(b.game.current_player[0]))
            if picture(a, viewer) == picture(b, viewer):
                assert told(a, viewer) == told(b, viewer)
    assert compared > 50


def test_a_state_answer_is_bounded_however_long_the_game(monkeypatch):
    """A reload (since=0) of a long game gets the latest MAX_EVENTS events, the latest PICTURES of them with
    their picture, and how many are left out: its size stops growing with the game (caps made small here)."""
    monkeypatch.setattr(session_module, "MAX_EVENTS", 12)
    monkeypatch.setattr(session_module, "PICTURES", 3)
    session = Session("cabo", {"num_players": 2, "episode": "game"}, [], (0, 1), seed=2, pace=0)
    session.new_game()
    rng, sizes = np.random.default_rng(0), []
    while not session.over():
        session.move(int(rng.choice(np.flatnonzero(session.game.legal_action_mask[0]))),
                     int(session.game.current_player[0]))
        for viewer in session.viewers:
            state = session.state(0, viewer)
            assert len(state["events"]) <= 12 and state["skipped"] == state["next"] - len(state["events"])
            assert sum(e["svg"] is not None for e in state["events"]) <= 3
            if state["skipped"]:
                sizes.append(len(json.dumps(state)))
    assert len(session.events[0]) > 40 and sizes
    assert max(sizes) < 3 * max(len(e["svg"] or "") for e in session.events[0]) + 12 * 2000
    assert all(e["svg"] is None for e in session.events[0][:-3])      # nor are older pictures kept
    late = session.state(len(session.events[0]) - 2, 0)
    assert late["skipped"] == 0 and len(late["events"]) == 2        # a page that keeps up misses nothing


def finished(game="cabo", **options):
    """A session of `game` played to its end by random moves at every seat."""
    n = PLAYERS[game]
    session = Session(game, {"num_players": n, "episode": "round", **options}, ["random"] * (n - 1), (0,),
                      seed=4, pace=0)
    session.new_game()
    rng = np.random.default_rng(0)
    while not session.over():
        session.move(int(rng.choice(np.flatnonzero(session.game.legal_action_mask[0]))))
    return session


@pytest.mark.parametrize("game", GAMES)
def test_serve_record_keeps_every_finished_game_replayable_with_the_people_named(game, monkeypatch, tmp_path,
                                                                                   capsys):
    """serve --record DIR: each game's record is written as it ends (whole, by the record module), proves its
    game, and replays in the terminal and as a page."""
    from quando_env.web.server import Server

    folder = tmp_path / "games"
    n = PLAYERS[game]

    def play(self):      # the person plays the game to its end, then starts another and plays it too
        rng = np.random.default_rng(1)
        for k in range(2):
            while not self.session.over():
                self.session.move(int(rng.choice(np.flatnonzero(self.session.game.legal_action_mask[0]))))
            if k == 0:
                self.session.new_game()
        raise KeyboardInterrupt
    monkeypatch.setattr(Server, "run", play)
    assert main(["serve", "--game", game, "--players", str(n), "--opponents", "random", "--port", "0", "--pace", "0",
                 "--episode", "round", "--record", str(folder)]) == 0
    out = capsys.readouterr().out
    kept = sorted(folder.iterdir())
    assert len(kept) == 2 and all(f"Its record: {path}" in out for path in kept)
    for path in kept:
        record = rec.load(path)
        assert record["players"] == ["human"] + ["random"] * (n - 1) and "result" in record
        assert rec.verify(record) is True
        assert main(["replay", str(path)]) == 0
        assert main(["replay", str(path), "--html", str(tmp_path / "replay.html")]) == 0
    assert "proven" in capsys.readouterr().out


def test_the_record_is_offered_to_a_page_only_once_the_game_is_over():
    with served("help", seed=3) as server:
        status, answer = request(server, "GET", "/api/record")
        assert status == 409 and "over" in answer["error"]
        assert request(server, "GET", "/api/record", token=False)[0] == 403
        rng = np.random.default_rng(0)
        while not server.session.over():
            state = server.session.state()
            request(server, "POST", "/api/move", {"action": int(rng.choice([m["action"] for m in state["moves"]])),
                                                  "turn": state["turn"]})
        for viewer in server.session.viewers:
            status, record = request(server, "GET", "/api/record", token=token_of(server, viewer))
            assert status == 200 and record == server.session.record() and rec.verify(record) is True


@pytest.mark.parametrize("game", GAMES)
def test_serve_deal_deals_every_game_from_the_file(game, tmp_path):
    """serve --deal FILE: the reset's options (the game's setup) as JSON deal each game's first round."""
    n = PLAYERS[game]
    deal = finished(game).record()["rounds"][0]
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(deal))
    args = parse_args(["serve", "--game", game, "--players", str(n), "--deal", str(path)])
    assert args.deal == deal
    session = Session(game, {"num_players": n, "episode": "round"}, ["random"] * (n - 1), seed=99, deal=args.deal)
    for _ in range(2):
        session.new_game()
        assert session.record()["rounds"][0] == deal


@pytest.mark.parametrize("text, message", [("[1, 2]", "JSON object"), ('{"deck": [1, 2]}', "deck"),
                                           ('{"dealer": 7}', "dealer"), ('{"cards": []}', "unknown setup"),
                                           ("{", "not"), (None, "no such file")])
def test_serve_refuses_a_bad_deal_in_one_line_naming_what_is_wrong(text, message, tmp_path, capsys):
    path = tmp_path / "deal.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(SystemExit) as e:
        parse_args(["serve", "--game", "cabo", "--players", "2", "--deal", str(path)])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert e.value.code == 2 and err.startswith("python -m quando_env serve: error: argument --deal: ")
    assert message in err and "Traceback" not in err, err


def plant(monkeypatch, leak: str) -> None:
    """A leak of the kind named, planted in the session."""
    told = Session._event
    if leak == "picture":
        monkeypatch.setattr(session_module, "seat_view", lambda game, viewer: game.table_view(0, None))
    elif leak == "line":
        monkeypatch.setattr(Session, "_event", lambda self, viewer, view, lines, **kw: told(
            self, viewer, view, [*lines, self.game.render_text(0)], **kw))
    elif leak == "seed":       # the narration's first line names the seed, as it once did
        monkeypatch.setattr(Session, "_event", lambda self, viewer, view, lines, **kw: told(
            self, viewer, view, [f"seed {self.seed}", *lines], **kw))
    elif leak == "mark":       # each other seat's highest-ranked card marked (Cabo's card ids grow with the rank)
        monkeypatch.setattr(session_module, "marks", lambda game, moved, viewer: [
            {"at": f"s{q}.{int(np.argmax(game.states[0]['slot'][q]))}", "seat": q}
            for q in range(game.num_players) if q != viewer])
    elif leak == "other seat":     # a person is sent the other person's view
        monkeypatch.setattr(session_module, "seat_view", lambda game, viewer: game.table_view(
            0, None if viewer is None else 1 - viewer))
    else:                      # the spectators are sent seat 0's view
        monkeypatch.setattr(session_module, "seat_view", lambda game, viewer: game.table_view(0, viewer or 0))


@pytest.mark.parametrize("leak", ["picture", "line", "seed", "mark", "other seat", "spectator"])
def test_a_planted_leak_fails_the_check(monkeypatch, leak):
    plant(monkeypatch, leak)
    with served("cabo", seat=0, seed=SEED, humans=2) as server:
        answers = play_over_http(server, seed=0)
        viewer = None if leak == "spectator" else 1
        with pytest.raises(AssertionError):
            check_told(answers[viewer], server.session, viewer)


@pytest.mark.parametrize("game", GAMES)
def test_every_round_is_revealed_as_it_ends_the_last_one_included(game):
    """Every seat and the spectator are shown, as each round ends, their view of the table the round left
    (the view a game played as that one round shows at its end), with the round's points as a table; the
    last round too, then the game's result in words. The header names the round played, not the next."""
    n = PLAYERS[game]
    session = Session(game, {"num_players": n, "episode": "game"}, [], range(n), seed=5, pace=0)
    session.new_game()
    one = game_module(game).VectorGame(1, seed=0, autoreset=False, num_players=n, episode="round")
    one.load_states(session.game.states)       # the round being played, as a game of one round
    rng, rounds = np.random.default_rng(0), 0
    while not session.over():
        seen = {v: len(session.events[v]) for v in session.viewers}
        a = int(rng.choice(np.flatnonzero(session.game.legal_action_mask[0])))
        one.step(np.array([a]), checked=True)
        session.move(a, int(session.game.current_player[0]))
        if one.game_over[0]:
            rounds += 1
            for v in session.viewers:
                reveal, = [e for e in session.events[v][seen[v]:] if e["reveal"]]
                assert reveal["svg"] == svg(view_of(one, v)) and reveal["points"]["caption"] == f"Round {rounds}"
                assert f"round {rounds}," in reveal["svg"] and f"round {rounds + 1}," not in reveal["svg"]
            if not session.over():
                one.load_states(session.game.states)
    assert rounds == int(session.game.states[0]["round"]) >= 1
    for v in session.viewers:
        reveals = [e for e in session.events[v] if e["reveal"]]
        assert len(reveals) == rounds and session.events[v][-1]["lines"][-1] == session.result[v]
        assert session.result[v].startswith("Game over: ") and "points [" not in session.events[v][-1]["svg"]


def test_the_result_is_told_in_words_as_the_game_says_who_wins():
    """Help!'s highest total wins, Quando's and Cabo's lowest; a tie names every winner."""
    from quando_env.tableview import over_text

    for game, higher in (("help", True), ("quando", False), ("cabo", False)):
        g = game_module(game).VectorGame(1, seed=0, autoreset=False, num_players=3 if game != "cabo" else 2)
        assert g.higher_total_wins is higher
        g.states["total"][0, :g.num_players] = 10 * np.arange(1, g.num_players + 1)
        winner = g.num_players - 1 if higher else 0
        assert over_text(g, 0) == f"Game over: player_{winner} wins"
        assert over_text(g, 0, viewer=winner) == "Game over: you win"
        g.states["total"][0, :g.num_players] = 7
        assert over_text(g, 0).endswith("tie for the win") and "player_0" in over_text(g, 0)


# ---------------------------------------------------------------- safety
@pytest.fixture(scope="module")
def server():
    with served("cabo") as s:
        yield s


def test_the_page_and_state_are_served_to_the_printed_address(server):
    status, page = request(server, "GET", "/", token=False)
    assert status == 200 and 'data-new-game' in page and "<script src=\"/play.js\">" in page
    assert server.url().startswith(f"http://127.0.0.1:{server.server_address[1]}/?token=")
    assert server.url().endswith(server.token) and len(server.token) >= 32
    status, state = request(server, "GET", "/api/state", headers={"Host": f"localhost:{server.server_address[1]}"})
    assert status == 200 and set(state) == KEYS


def test_the_api_needs_the_launch_token(server):
    for method, path, body in (("GET", "/api/state", None), ("POST", "/api/move", {"action": 0}),
                               ("POST", "/api/new", {})):
        assert request(server, method, path, body, token=False)[0] == 403
        wrong = server.token[:-1] + ("y" if server.token.endswith("x") else "x")     # one character off
        assert request(server, method, path, body, headers={"X-Token": wrong})[0] == 403


@pytest.mark.parametrize("host", ["evil.example:{port}", "127.0.0.1:1", "localhost", "127.0.0.1.evil.example:{port}"])
def test_another_host_name_is_refused(server, host):
    """DNS rebinding: a page on another name that resolves to 127.0.0.1 sends its own Host."""
    status, answer = request(server, "GET", "/api/state", headers={"Host": host.format(port=server.server_address[1])})
    assert status == 403 and "Host" in answer["error"]
    assert request(server, "GET", "/", headers={"Host": "evil.example"})[0] == 403


@pytest.mark.parametrize("origin", ["http://evil.example", "http://127.0.0.1:1", "null", "https://127.0.0.1:{port}"])
def test_another_origin_can_neither_read_nor_play(server, origin):
    origin = origin.format(port=server.server_address[1])
    before = server.session.state()
    assert request(server, "GET", "/api/state", headers={"Origin": origin})[0] == 403
    move = before["moves"][0]["action"]
    assert request(server, "POST", "/api/move", {"action": move}, headers={"Origin": origin})[0] == 403
    assert server.session.state() == before
    same = f"http://127.0.0.1:{server.server_address[1]}"
    assert request(server, "GET", "/api/state", headers={"Origin": same})[0] == 200


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None])
def test_a_post_must_be_json(server, kind):
    """A form or a 'simple' cross-site request cannot set application/json without a preflight."""
    before = server.session.state()
    status, _ = request(server, "POST", "/api/move", {"action": before["moves"][0]["action"]},
                        headers={"Content-Type": kind})
    assert status == 415 and server.session.state() == before


def test_bodies_and_uploads_are_size_capped(server):
    from quando_env.web.server import MAX_BODY, MAX_UPLOAD

    big = b'{"action": 0' + b" " * MAX_BODY + b"}"
    assert request(server, "POST", "/api/move", big)[0] == 413
    status, answer = request(server, "POST", "/api/replay", b"{" + b" " * MAX_UPLOAD + b"}")
    assert status == 413 and str(MAX_UPLOAD) in answer["error"]
    assert request(server, "POST", "/api/move", b'{"action": 0}', headers={"Content-Length": None})[0] == 411


@pytest.mark.parametrize("body", [{"action": 10**6}, {"action": True}, {"action": "0"}, {"action": 1.0}, {},
                                  {"action": -1}, [0], b"not json", {"turn": None}, {"turn": "1"},
                                  pytest.param(b"[" * 2000 + b"]" * 2000, id="nested")])
def test_a_bad_move_is_refused_and_changes_nothing(server, body):
    before = server.session.state()
    if isinstance(body, dict) and "turn" not in body:
        body = {**body, "turn": before["turn"]}
    status, answer = request(server, "POST", "/api/move", body)
    assert status == 400 and answer["error"] and server.session.state() == before


def test_no_agent_is_taken_from_the_page(server):
    """The opponents are the command line's: a new game from the page keeps them, whatever it sends."""
    names = list(server.session.names)
    status, state = request(server, "POST", "/api/new", {"opponents": "evil.py:Agent", "agent": "ppo:/tmp/x.zip"})
    assert status == 200 and server.session.names == names
    assert request(server, "POST", "/api/agent", {"name": "evil.py:Agent"})[0] == 404


def test_an_uploaded_record_is_loaded_verified_and_replayed(server):
    text = (DATA / "cabo_record_v2.json").read_bytes()
    status, replay = request(server, "POST", "/api/replay", text)
    assert status == 200 and replay["proven"] and replay["viewers"][0] == "omniscient"
    bad = json.loads(text)
    bad["actions"][3] = bad["actions"][4] if bad["actions"][3] != bad["actions"][4] else bad["actions"][3] + 1
    status, answer = request(server, "POST", "/api/replay", json.dumps(bad).encode())
    assert status == 400 and ("illegal" in answer["error"] or "diverged" in answer["error"])
    status, answer = request(server, "POST", "/api/replay", b'{"format": "evil", "code": "import os"}')
    assert status == 400 and "not a game record" in answer["error"]


# ---------------------------------------------------------------- command lines, pictures, replay pages
def test_serve_prints_its_address_and_warns_off_loopback(monkeypatch, capsys):
    from quando_env.web.server import Server

    def stop(self):
        raise KeyboardInterrupt
    monkeypatch.setattr(Server, "run", stop)
    common = ["serve", "--game", "cabo", "--players", "2", "--opponents", "random", "--port", "0", "--pace", "0",
              "--seed", "4", "--episode", "round"]
    assert main(common) == 0
    out, err = capsys.readouterr()
    assert re.search(r"^Open http://127\.0\.0\.1:\d+/\?token=[\w-]{32} ", out, re.M) and "warning" not in err
    assert main([*common, "--host", "127.0.0.2"]) == 0          # loopback too: no warning
    out, err = capsys.readouterr()
    assert "http://127.0.0.2:" in out and "warning" not in err
    assert main([*common, "--host", "0.0.0.0", "--allow-host", "192.168.1.20"]) == 0
    out, err = capsys.readouterr()
    assert "Open http://192.168.1.20:" in out and "warning: serving on 0.0.0.0" in err and "192.168.1.20" in err


def test_serve_on_a_taken_port_says_so(capsys):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--game", "cabo", "--players", "2", "--opponents", "random", "--port", str(port)]) == 2
    assert f"error: cannot serve on 127.0.0.1 port {port}" in capsys.readouterr().err


@pytest.mark.parametrize("argv, option", [(["--seat", "3", "--players", "3"], "--seat"),
                                          (["--opponents", "no-such-agent"], "--opponents"),
                                          (["--pace", "-1"], "--pace"), (["--port", "70000"], "--port"),
                                          (["--episode", "forever"], "--episode"),
                                          (["--game", "help", "--edition", "oya"], "--edition")])
def test_serve_refuses_bad_options_before_serving(argv, option, capsys):
    with pytest.raises(SystemExit) as e:
        parse_args(["serve", *argv])
    assert e.value.code == 2 and f"argument {option}" in capsys.readouterr().err


def test_a_seat_other_than_0_plays_from_its_own_view():
    with served("quando", seat=2, seed=5) as server:
        state = server.session.state()
        assert state["moves"] and "view of player_2" in state["events"][-1]["svg"]


def test_replay_html_writes_one_page_with_no_network(tmp_path, capsys):
    out = tmp_path / "replay.html"
    assert main(["replay", str(DATA / "help_record_v2.json"), "--html", str(out)]) == 0
    assert "proven" in capsys.readouterr().out
    page = out.read_text()
    assert "default-src 'none'" in page and "window.qeReplay" in page and "data-replay-next" in page
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)[1]
    assert "unsafe-inline" not in csp and csp.count("'sha256-") == 3       # the data, the script, the style
    assert not re.search(r"""(src|href)=|https?://(?!www\.w3\.org/2000/svg)""", page.split("window.QE_REPLAY")[1])
    data = json.loads(page.split("window.QE_REPLAY = ")[1].split(";</script>")[0])
    assert data == replay_data(json.loads((DATA / "help_record_v2.json").read_text()))
    assert html_page(data) == page
    with pytest.raises(SystemExit):
        parse_args(["replay", str(DATA / "help_record_v2.json"), "--html", str(out), "--show"])


def test_replay_html_refuses_a_record_that_does_not_verify(tmp_path, capsys):
    record = json.loads((DATA / "cabo_record_v2.json").read_text())
    record["proof"][0]["digest"] = "0" * 64
    bad, out = tmp_path / "bad.json", tmp_path / "bad.html"
    bad.write_text(json.dumps(record))
    assert main(["replay", str(bad), "--html", str(out)]) == 2
    assert "digest" in capsys.readouterr().err and not out.exists()


def test_replay_data_has_every_position_from_every_view():
    record = json.loads((DATA / "quando_record_v2.json").read_text())
    data = replay_data(record)
    import base64
    import gzip

    packed = json.loads(gzip.decompress(base64.b64decode(data["packed"])))
    assert len(data["positions"]) == len(record["actions"]) + 1 and len(packed["frames"]) == 4
    assert all(len(f) == len(data["positions"]) for f in packed["frames"])
    assert "omniscient view" in packed["svgs"][packed["frames"][0][0]]
    assert "view of player_2" in packed["svgs"][packed["frames"][3][-1]]
    assert data["positions"][1]["told"][0] == data["positions"][0]["next"] != ""


def test_a_table_view_displays_itself_as_svg():
    import xml.etree.ElementTree as ET

    from quando_env.tableview import Card, TableView, Zone

    for name in GAMES:
        env = game_module(name).raw_env(num_players=PLAYERS[name])
        env.reset(seed=2)
        view = env.game.table_view(0, 1)
        root = ET.fromstring(view._repr_svg_())
        assert root.tag.endswith("svg") and root.get("viewBox") == "0 0 960 640"
        assert root.find("{http://www.w3.org/2000/svg}title").text == view.title
    odd = TableView("<script>&", (Zone("a <b>", (Card(("<i>",)), Card(), None)),), (), "s")
    root = ET.fromstring(odd._repr_svg_())       # escaped: still one well-formed SVG
    assert "<script>&" in "".join(root.itertext()) and root.find(".//{http://www.w3.org/2000/svg}script") is None


def test_the_web_package_and_the_command_line_stand_side_by_side():
    """What both use (argument checks, the opponents, the SVG of a table) lives below them: no module of
    quando_env.web imports quando_env.cli, and the contract's table view imports neither."""
    from test_import_cycles import import_graph

    graph = import_graph()
    for name, imports in graph.items():
        if name.startswith("quando_env.web") or name == "quando_env.tableview":
            assert not any(m.startswith("quando_env.cli") for m in imports), name
        if name == "quando_env.tableview":
            assert not any(m.startswith("quando_env.web") for m in imports), name
