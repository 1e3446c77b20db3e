"""`python -m quando_env replay FILE --show / --step N`: the omniscient table at a step of the replay is the
table the game showed at that step; moves are named in their context (a Cabo Jack by the other seat's
absolute label); seats are spelt player_N everywhere; Help!'s refill is told (who drew how many)."""
import re
import subprocess
import sys

import numpy as np
import pytest

from quando_env import record as rec
from quando_env.cabo.cards import JACK_SWAP, SNAP, decode_jack
from quando_env.cli import main
from quando_env.help import engine as E
from quando_env.help.cards import ASK
from quando_env.registry import game_module

GAMES = {"quando": dict(num_players=3, edition="oya"), "cabo": dict(num_players=3), "help": dict(num_players=4)}


def played(name, seed, **config):
    """A random game in the game's raw env: (record, the omniscient table at each position (before each move,
    then after the last), each move as 'player_S: name', each step's notes)."""
    env = game_module(name).raw_env(**config)
    env.reset(seed=seed)
    game, rng = env.game, np.random.default_rng(seed)
    tables, moves, notes = [], [], []
    while not (game.game_over[0] or game.truncated[0]):
        a = int(rng.choice(np.flatnonzero(game.masks[0])))
        tables.append(env.render_omniscient())
        moves.append(f"player_{int(game.current_player[0])}: {game.move_name(0, a)}")
        before = game.states[0].copy()
        env.step(a)
        notes.append(game.step_notes(0, before))
    tables.append(env.render_omniscient())
    return env.game_record(), tables, moves, notes


@pytest.fixture(scope="module", params=list(GAMES))
def saved(request, tmp_path_factory):
    record, tables, moves, notes = played(request.param, 5, **GAMES[request.param])
    path = tmp_path_factory.mktemp(request.param) / "game.json"
    rec.save(record, path)
    return str(path), tables, moves, notes


def test_replay_step_prints_the_table_the_game_showed_at_that_step(saved, capsys):
    path, tables, moves, _ = saved
    n = len(moves)
    for k in (0, n // 2, n - 1, n):
        assert main(["replay", path, "--step", str(k)]) == 0
        out = capsys.readouterr().out
        lines = out.splitlines()
        said = f"before action {k} ({moves[k]})" if k < n else "after the last action"
        assert lines[0] == f"step {k} of {n}: the table {said}"
        assert "\n".join(lines[1:-1]) == tables[k]
        assert lines[-1] == "proven: every round's result and digest match the record's proof"


def test_replay_show_prints_every_table_with_its_move_in_order(saved, capsys):
    path, tables, moves, _ = saved
    assert main(["replay", path, "--show"]) == 0
    out = capsys.readouterr().out
    at = 0
    for k, (table, move) in enumerate(zip(tables, moves + [None])):
        at = out.index(table + "\n" + (f"  {k:5d} {move}\n" if move else ""), at)
    assert out.endswith(tables[-1] + "\nproven: every round's result and digest match the record's proof\n")


def test_replay_names_each_move_in_its_context_and_tells_the_steps_notes(saved, capsys):
    path, _, moves, notes = saved
    assert main(["replay", path]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  ")]
    expected = [line for k, move in enumerate(moves) for line in [f"  {k:5d} {move}"]
                + [f"        {note}" for note in notes[k]]]
    assert lines == expected


def test_replay_step_out_of_range_is_refused_naming_the_range(saved, capsys):
    path, _, moves, _ = saved
    assert main(["replay", path, "--step", str(len(moves) + 1)]) == 2
    out = capsys.readouterr()
    n = len(moves)
    assert out.out == "" and out.err == (f"error: --step {n + 1} is not a position of {path}: its {n} actions give "
                                         f"positions 0..{n} (step k: before action k; {n}: after the last)\n")


@pytest.mark.parametrize("args,why", [(["--step", "-1"], "argument --step: -1 is not allowed: an integer >= 0"),
                                      (["--step", "x"], "argument --step: 'x' is not an integer >= 0"),
                                      (["--show", "--step", "1"], "argument --step: not allowed with argument --show")])
def test_replay_view_options_are_checked(saved, capsys, args, why):
    with pytest.raises(SystemExit) as e:
        main(["replay", saved[0], *args])
    assert e.value.code == 2 and why in capsys.readouterr().err


def test_replay_show_read_in_part_ends_quietly(saved):
    """`replay FILE --show | head`: the reader leaves early; no traceback, exit status 1."""
    path = saved[0]
    p = subprocess.Popen([sys.executable, "-m", "quando_env", "replay", path, "--show"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, pipesize=4096)
    assert p.stdout.readline() == b"round 1\n"
    p.stdout.close()
    assert p.wait(timeout=120) == 1
    assert p.stderr.read() == b""


def jack_positions(seed):
    """Cabo games until one reaches a Jack's decision: (game, its legal Jack actions)."""
    for s in range(seed, seed + 50):
        env = game_module("cabo").raw_env(num_players=4)
        env.reset(seed=s)
        game, rng = env.game, np.random.default_rng(s)
        while not (game.game_over[0] or game.truncated[0]):
            legal = np.flatnonzero(game.masks[0])
            jacks = [int(a) for a in legal if JACK_SWAP <= a < SNAP]
            if jacks:
                return game, jacks
            env.step(int(rng.choice(legal)))
    raise AssertionError("no Jack in 50 games")


def test_cabo_jack_names_the_other_seat_absolutely():
    game, jacks = jack_positions(0)
    cur, n = int(game.current_player[0]), game.num_players
    for a in jacks:
        r, i, j = decode_jack(a)
        assert game.move_name(0, a) == f"Jack: own slot {i} with player_{(cur + r) % n}'s slot {j}"
    assert not [a for a in range(game.num_actions) if "my " in game.move_name(0, a)]     # no first person
    text = game.render_text(0)
    assert "player+" not in text and f"{jacks[0]} {game.move_name(0, jacks[0])}" in text


def narrated(name, seed, **config):
    """Every line the terminal narrator tells seat 0 in a random game, with the engine's states around each
    step: [(before, after, seat, action, lines)]."""
    env = game_module(name).raw_env(**config)
    env.reset(seed=seed)
    game, rng = env.game, np.random.default_rng(seed)
    narrator = game.narrator(["you"] + ["random"] * (game.num_players - 1))
    told = []
    while not (game.game_over[0] or game.truncated[0]):
        a = int(rng.choice(np.flatnonzero(game.masks[0])))
        before, seat = game.states.copy(), int(game.current_player[0])
        env.step(a)
        told.append((before[0], game.states[0].copy(), seat, a, narrator.told(before, a)))
    return game, told


@pytest.mark.parametrize("name", list(GAMES))
def test_seats_are_spelt_player_N_in_every_view_and_story(name):
    game, told = narrated(name, 3, **GAMES[name])
    texts = [line for *_, lines in told for line in lines] + [game.render_text(0, seat) for seat in (None, 0, 1)]
    assert any(re.search(r"\bplayer_\d", t) for t in texts)
    assert not [t for t in texts if re.search(r"\bPlayer", t)]


def test_help_refill_is_told_with_who_drew_how_many():
    game, told = narrated("help", 1, num_players=4)
    hand = game.config.hand_size
    checked = 0
    for before, after, seat, a, lines in told:
        plays = int(before["phase"]) in (E.PH_OPEN, E.PH_PLAY, E.PH_RECV) and a != ASK
        if not plays or any(line.startswith("====") for line in lines):   # a round's end deals anew
            assert not [line for line in lines if " draw" in line and "card" in line]
            continue
        drawn = int(after["hand"][seat].sum()) - (int(before["hand"][seat].sum()) - 1)
        assert drawn == max(0, hand - (int(before["hand"][seat].sum()) - 1))
        who = "You draw" if seat == 0 else f"player_{seat} draws"
        refills = [line for line in lines if line.startswith(who)]
        assert refills == ([f"{who} {drawn} card{'s' if drawn != 1 else ''}."] if drawn else [])
        checked += drawn > 0
    assert checked >= 10
