"""Game records (quando_env.record): a played game's record saves, loads and replays to the same moves and
totals; the demo/replay commands run as real programs; malformed records fail with a ValueError that says
where and why."""
import copy
import json
import re
import subprocess
import sys

import pytest

import quando_env
from quando_env import record as rec
from test_quando_aec import play_random


def recorded_game(seed, knock_weight=1.0, options=None, **config):
    """Play a random game in the wrapped AEC env; return (record, [(seat, action)], totals)."""
    env = quando_env.env(**config)
    env.reset(seed=seed, options=options)
    _, moves = play_random(env, seed, knock_weight=knock_weight)
    return env.unwrapped.game_record(), moves, env.unwrapped.game.totals[0].tolist()


def replay_all(record):
    moves = []
    game = None
    for _, seat, a, game in rec.replay(record):
        moves.append((seat, a))
    return moves, game


# Games chosen to reach the record's every part: several rounds, oya reshuffles (6 players with 9 cards
# leave one card to draw), a truncated game, a given deck and dealer.
GAMES = {
    "kendi-4p-multi-round": dict(seed=9, num_players=4),
    "kendi-2p-long": dict(seed=3, num_players=2, knock_weight=0.05),
    "oya-3p-multi-round": dict(seed=1, num_players=3, edition="oya", knock_weight=0.1),
    "oya-6p-reshuffles": dict(seed=0, num_players=6, hand_size=9, edition="oya", knock_weight=0.02),
    "oya-4p-reshuffles-multi-round": dict(seed=2, num_players=4, edition="oya", knock_weight=0.02),
    "kendi-5p-truncated": dict(seed=4, num_players=5, max_steps=40),
    "oya-3p-given-deck": dict(seed=6, num_players=3, edition="oya", options={
        "deck": [[b, a] for a in range(11) for b in range(a + 1, 11)], "dealer": 0}),
}


@pytest.fixture(scope="module")
def games():
    return {name: recorded_game(**kw) for name, kw in GAMES.items()}


@pytest.mark.quick
@pytest.mark.parametrize("name", GAMES)
def test_record_saved_and_loaded_replays_the_same_game(games, name, tmp_path):
    record, moves, totals = games[name]
    path = tmp_path / "game.json"
    rec.save(record, path)
    loaded = rec.load(path)
    assert loaded == json.loads(json.dumps(record))
    steps, game = replay_all(loaded)
    assert steps == moves
    assert game.totals[0].tolist() == totals == loaded["result"]["totals"]
    assert bool(game.game_over[0]) == loaded["result"]["terminated"]
    assert bool(game.truncated[0]) == loaded["result"]["truncated"]


def test_the_chosen_games_reach_every_part_of_a_record(games):
    assert len(games["kendi-4p-multi-round"][0]["rounds"]) >= 2
    assert len(games["oya-3p-multi-round"][0]["rounds"]) >= 2
    assert len(games["oya-6p-reshuffles"][0]["reshuffles"]) >= 3
    oya4 = games["oya-4p-reshuffles-multi-round"][0]
    assert len(oya4["rounds"]) >= 2 and len(oya4["reshuffles"]) >= 2
    assert {r["step"] for r in oya4["reshuffles"]} != set()
    assert games["kendi-5p-truncated"][0]["result"]["truncated"]
    given = games["oya-3p-given-deck"][0]["rounds"][0]
    assert given == {"dealer": 0, "deck": GAMES["oya-3p-given-deck"]["options"]["deck"]}
    assert all(r["seed"] == GAMES[n]["seed"] for n, (r, _, _) in games.items())


def test_R11_oya_reshuffles_in_the_record_are_the_new_draw_piles(games):
    """A recorded reshuffle is the draw pile the discard pile became (top first), the discard pile now empty."""
    record = games["oya-6p-reshuffles"][0]
    at = {r["step"]: r["pile"] for r in record["reshuffles"]}
    checked = 0
    for k, _, _, game in rec.replay(record):
        if k in at and not game.round_over[0]:
            assert game.piles(0) == ([tuple(c) for c in at[k]], [])
            checked += 1
    assert checked >= 3


# ---------------------------------------------------------------- the command line, as real programs
def run_cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "quando_env", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def test_demo_and_replay_commands(tmp_path):
    path = tmp_path / "demo.json"
    demo = run_cli("demo", "--players", "3", "--edition", "oya", "--seed", "4", "--record", str(path), cwd=tmp_path)
    assert demo.returncode == 0, demo.stderr
    assert "omniscient view" in demo.stdout and "round 1 over: points" in demo.stdout
    assert f"record saved to {path}" in demo.stdout and demo.stderr == ""
    record = rec.load(path)
    moves, game = replay_all(record)
    assert record["config"]["num_players"] == 3 and record["config"]["edition"] == "oya"
    assert f"game over after {len(moves)} decisions: totals {game.totals[0].tolist()}" in demo.stdout

    replay = run_cli("replay", str(path), cwd=tmp_path)
    assert replay.returncode == 0, replay.stderr
    lines = replay.stdout.splitlines()
    assert lines[0] == "round 1"
    step_lines = [ln for ln in lines if ln.startswith("  ")]
    assert len(step_lines) == len(moves)
    assert step_lines[0].split() == ["0", f"player_{moves[0][0]}:"] + quando_env.action_name(moves[0][1]).split()
    assert lines[-2] == f"round {len(record['rounds'])} over: points {game.round_points[0].tolist()}, " \
                        f"totals {game.totals[0].tolist()}"
    assert lines[-1] == "proven: every round's result and digest match the record's proof"


@pytest.mark.parametrize("content,why", [
    (None, "cannot read the game record .*missing.json: No such file or directory"),
    ("{not json", "is not a JSON game record"),
    ("[1, 2, 3]", "not a game record: expected a JSON object with format 'quando-record/1'"),
], ids=["missing-file", "bad-json", "not-a-record"])
def test_replay_command_reports_bad_files_without_a_traceback(tmp_path, content, why):
    path = tmp_path / "missing.json"
    if content is not None:
        path.write_text(content)
    out = run_cli("replay", str(path), cwd=tmp_path)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and out.stdout == ""
    assert out.stderr.startswith("error: ")
    assert re.search(why, out.stderr), out.stderr


# ---------------------------------------------------------------- malformed records
def test_load_missing_file_and_bad_json(tmp_path):
    with pytest.raises(ValueError, match=r"cannot read the game record .*nope\.json: No such file"):
        rec.load(tmp_path / "nope.json")
    with pytest.raises(ValueError, match="cannot read the game record .*: Is a directory"):
        rec.load(tmp_path)
    (tmp_path / "bad.json").write_text('{"format": ')
    with pytest.raises(ValueError, match=r"bad\.json is not a JSON game record"):
        rec.load(tmp_path / "bad.json")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ValueError, match=r"bin\.json is not a JSON game record"):
        rec.load(tmp_path / "bin.json")


def broken(record, change):
    r = copy.deepcopy(record)
    change(r)
    return r


def replay_error(record):
    with pytest.raises(ValueError) as err:
        for _ in rec.replay(record):
            pass
    return str(err.value)


@pytest.mark.parametrize("thing", [[], "record", 5, None, {"format": "quando-record/0"}, {"rounds": []}])
def test_not_a_record_at_all(thing):
    assert "not a game record" in replay_error(thing)


@pytest.mark.parametrize("key", ["config", "rounds", "reshuffles", "actions"])
def test_record_missing_a_part(games, key):
    record = broken(games["kendi-4p-multi-round"][0], lambda r: r.pop(key))
    assert replay_error(record) == f"game record has no {key!r}"


def test_record_with_bad_config(games):
    record = broken(games["kendi-4p-multi-round"][0], lambda r: r["config"].update(edition="classic"))
    assert "edition='classic' is not allowed" in replay_error(record)
    record = broken(games["kendi-4p-multi-round"][0], lambda r: r["config"].update(speed=2))
    assert "unknown option(s) ['speed']" in replay_error(record)


@pytest.mark.parametrize("round_no", [0, 1])
@pytest.mark.parametrize("change,why", [
    (lambda d: d.__setitem__(6, list(d[5])),
     r"deck cards 5 and 6 are both \[\d+, \d+\]: every pair occurs exactly once"),
    (lambda d: d.__setitem__(6, list(d[5][::-1])), r"deck cards 5 and 6 are both"),
    (lambda d: d.pop(), "deck has 54 cards, a deck has exactly 55"),
    (lambda d: d.append([0, 1]), "deck has 56 cards"),
    (lambda d: d.__setitem__(3, [11, d[3][1]]), r"deck card 3 is \[11, \d+\]: numbers must be 0\.\.10"),
    (lambda d: d.__setitem__(3, [d[3][0], -2]), r"deck card 3 is \[\d+, -2\]: numbers must be 0\.\.10"),
    (lambda d: d.__setitem__(0, [4, 4]), "deck card 0 is \\[4, 4\\]: the two sides of a card differ"),
], ids=["duplicate", "duplicate-flipped", "short", "long", "eleven", "negative", "same-sides"])
def test_R1_R4_record_with_a_bad_deck(games, round_no, change, why):
    record = broken(games["kendi-4p-multi-round"][0], lambda r: change(r["rounds"][round_no]["deck"]))
    msg = replay_error(record)
    assert msg.startswith(f"round {round_no} of the record: ")
    assert re.search(why, msg), msg


def test_R6_record_with_the_wrong_dealer(games):
    record = broken(games["kendi-4p-multi-round"][0], lambda r: r["rounds"][1].update(dealer=2))
    assert replay_error(record) == ("round 1: the record's dealer is 2, the rules make it 0 (the deal passes one seat "
                                    "each round, rule R6 of quando_env/quando/RULES.md)")
    record = broken(games["kendi-4p-multi-round"][0], lambda r: r["rounds"][0].update(dealer=4))
    assert "dealer=4 is not allowed" in replay_error(record)


def act_steps(record):
    """Steps where the player to move chose a discard (A or B): a draw is illegal there."""
    return [k for k, a in enumerate(record["actions"]) if a < 119]


@pytest.mark.parametrize("which", [0, 5, -1])
def test_record_with_an_illegal_action_names_the_step(games, which):
    record, moves, _ = games["oya-4p-reshuffles-multi-round"]
    k = act_steps(record)[which]
    msg = replay_error(broken(record, lambda r: r["actions"].__setitem__(k, 121)))
    assert msg.startswith(f"step {k}: action 121 of player_{moves[k][0]} is illegal; legal were: ")
    assert f"{record['actions'][k]} (" in msg  # the recorded action is among the legal ones listed


@pytest.mark.parametrize("bad", [134, -1, "19", 19.0, None])
def test_record_with_a_non_action_names_the_step(games, bad):
    record = games["kendi-4p-multi-round"][0]
    msg = replay_error(broken(record, lambda r: r["actions"].__setitem__(3, bad)))
    assert msg.startswith(f"step 3: action {bad!r} of player_") and "is illegal" in msg


def test_record_with_extra_actions(games):
    record = games["kendi-4p-multi-round"][0]
    n = len(record["actions"])
    msg = replay_error(broken(record, lambda r: r["actions"].extend([19, 19])))
    assert msg == f"step {n}: the game is already over, but the record has 2 more actions"


@pytest.mark.parametrize("name", ["kendi-4p-multi-round", "oya-4p-reshuffles-multi-round"])
def test_record_with_a_truncated_action_list(games, name):
    record = games[name][0]
    end = next(k for k, _, _, game in rec.replay(record) if game.round_over[0])  # round 0's last step
    msg = replay_error(broken(record, lambda r: r.__setitem__("actions", r["actions"][:end])))
    assert msg == f"round 0 (steps 0..{end - 1}): the record's actions end at step {end - 1}, but its proof has " \
                  f"round 0 go on to step {end}: actions are missing"
    last = len(record["rounds"]) - 1
    first = len(record["actions"]) - record["proof"][-1]["actions"]
    n = len(record["actions"])
    msg = replay_error(broken(record, lambda r: r["actions"].pop()))
    assert msg == f"round {last} (steps {first}..{n - 2}): the record's actions end at step {n - 2}, but its proof " \
                  f"has round {last} go on to step {n - 1}: actions are missing"
    # A record of the format before proofs has only the final result to tell.
    old = broken(record, lambda r: (r.update(format="quando-record/1"), r.pop("proof"), r["actions"].pop()))
    assert replay_error(old).startswith("the record's result says {'terminated': True, 'truncated': False}, but "
                                        "its actions end with {'terminated': False, 'truncated': False}")


def test_record_with_a_tampered_reshuffle(games):
    record = games["oya-6p-reshuffles"][0]
    k = record["reshuffles"][1]["step"]
    pile = record["reshuffles"][1]["pile"]
    assert len(pile) >= 2

    def change(f):
        return replay_error(broken(record, lambda r: f(r["reshuffles"][1])))
    not_discard = f"step {k}: reshuffle 1 of the record: game 0: the forced reshuffle does not hold exactly the " \
                  f"discard pile's cards"
    assert change(lambda s: s["pile"].pop()) == not_discard
    assert change(lambda s: s["pile"].append(record["rounds"][0]["deck"][0])) == not_discard
    outside = next(c for c in record["rounds"][0]["deck"] if sorted(c) not in map(sorted, pile))
    assert change(lambda s: s["pile"].__setitem__(0, outside)) == not_discard
    malformed = "reshuffle 1 of the record is malformed: "
    assert change(lambda s: s["pile"].__setitem__(0, pile[1])) == malformed + "a card appears twice"
    assert change(lambda s: s["pile"].__setitem__(0, [5, 5])) == malformed + "card 0 is [5, 5]"
    assert change(lambda s: s.pop("pile")) == malformed + "'pile'"
    assert change(lambda s: s.update(step=k + 1)) == \
        f"step {k}: the discard pile was reshuffled here, but the record's next reshuffle is at another step"
    # A missing reshuffle: the next one recorded does not fit the discard pile at step k.
    assert replay_error(broken(record, lambda r: r["reshuffles"].pop(1))) == not_discard
    # A reshuffle nobody made, or one the actions never reach.
    extra = broken(record, lambda r: r["reshuffles"].append(dict(r["reshuffles"][-1], step=10_000)))
    assert "reshuffles, but its actions reach" in replay_error(extra)
    kendi = broken(games["kendi-4p-multi-round"][0], lambda r: r["reshuffles"].append({"step": 3, "pile": pile}))
    assert "and 1 reshuffles, but its actions reach 2 rounds and 0 reshuffles" in replay_error(kendi)


def test_record_with_wrong_totals(games):
    record = games["oya-3p-multi-round"][0]
    wrong = [t + 1 for t in record["result"]["totals"]]
    msg = replay_error(broken(record, lambda r: r["result"].update(totals=wrong)))
    assert msg.startswith(f"the record's final totals {wrong} differ from the replay's")


def test_record_with_a_missing_round(games):
    record = games["kendi-4p-multi-round"][0]
    msg = replay_error(broken(record, lambda r: (r["rounds"].pop(), r["proof"].pop())))
    assert msg.endswith(f"round {len(record['rounds']) - 1} starts, but the record has only "
                        f"{len(record['rounds']) - 1} rounds")
    msg = replay_error(broken(record, lambda r: r["rounds"].pop()))
    assert msg == f"game record's proof of {len(record['rounds'])} rounds is not allowed: one entry per round of " \
                  f"the record ({len(record['rounds']) - 1})"
    assert replay_error(broken(record, lambda r: r.__setitem__("rounds", []))) == "game record has no rounds"


def test_truncated_game_record_missing_its_last_action_is_rejected():
    record, _, _ = recorded_game(seed=2, num_players=3, max_steps=30)
    assert record["result"]["truncated"] and len(record["actions"]) == 30
    short = copy.deepcopy(record)
    short["actions"].pop()
    assert replay_error(short).endswith("the record's actions end at step 28, but its proof has round 1 go on to "
                                        "step 29: actions are missing")
    short.update(format="quando-record/1")   # the format before proofs: only the result tells
    del short["proof"]
    assert replay_error(short).startswith("the record's result says {'terminated': False, 'truncated': True}")


@pytest.mark.parametrize("part,value,kind", [("config", "x", "object"), ("actions", 5, "list"),
                                             ("result", "x", "object")])
def test_record_parts_of_the_wrong_type_give_value_error(part, value, kind):
    record, _, _ = recorded_game(seed=9, num_players=4)
    bad = dict(record, **{part: value})
    assert replay_error(bad) == f"game record's {part!r} must be a JSON {kind}, got {type(value).__name__}"


def test_boolean_action_names_the_step():
    record, _, _ = recorded_game(seed=9, num_players=4)
    bad = copy.deepcopy(record)
    bad["actions"][5] = True
    assert replay_error(bad).startswith("step 5: action True of player_")


def test_a_record_written_before_the_game_contract_still_replays():
    """tests/data holds an oya game (6 players, 2 rounds, 10 reshuffles) saved by the code before
    quando_env.core existed: it replays to its recorded totals."""
    from pathlib import Path

    record = rec.load(Path(__file__).parent / "data" / "quando_record_before_contract.json")
    assert record["format"] == "quando-record/1" and len(record["reshuffles"]) == 10
    steps, game = replay_all(record)
    assert len(steps) == len(record["actions"]) == 320
    assert game.totals[0].tolist() == record["result"]["totals"] == [56, 24, 72, 62, 86, 33]
