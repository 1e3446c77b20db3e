"""Every record the package writes replays, and proves it is the game played: thousands of random games of
every game and option set (the rare paths included: an oya reshuffle in the step that ends a round, ends
the game or truncates it), generated and tampered records (Hypothesis), the format before proofs, files
that are too large, too deep or of the wrong shape, and the replay command's --game."""
import copy
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import quando_env
from quando_env import record as rec
from quando_env import registry
from quando_env.adapters.record import Recorder
from quando_env.cli import main as cli_main

DATA = Path(__file__).parent / "data"
NAMES = ("quando", "cabo", "help")


def play(name, seed, never_knock=False, **config):
    """A random game recorded by the Recorder the AEC env keeps (the demo and play commands write its record):
    each move from the engine's own per-game action stream (sample_actions), the knock taken out of the
    moves sampled from when `never_knock` and another move is legal. Returns (record, legal), legal[k] the
    legal actions at step k."""
    game = registry.game_class(name)(1, seed=seed, autoreset=False, **config)
    recorder = Recorder(game, seed=seed)
    knock, legal = game.knock_action, []
    while game.current_player[0] >= 0:
        mask = game.masks[0]
        legal.append(np.flatnonzero(mask).tolist())
        if never_knock and knock is not None and mask[knock] and mask.sum() > 1:
            mask[knock] = 0
        action = game.sample_actions()
        game.step(action, checked=True)
        recorder.after_step(int(action[0]))
    return json.loads(json.dumps(recorder.record)), legal


def rare_paths(record) -> set:
    """The rare paths a record took: a reshuffle in the step that ended a round and dealt the next one
    ("new round"), that ended the game ("terminated") or that hit max_steps ("truncated")."""
    ends = np.cumsum([entry["actions"] for entry in record["proof"]]) - 1
    steps = {entry["step"] for entry in record["reshuffles"]}
    paths = {"new round"} if steps & set(ends[:-1].tolist()) else set()
    result = record.get("result")
    if result and len(record["actions"]) - 1 in steps:
        paths.add("terminated" if result["terminated"] else "truncated")
    return paths


# ---------------------------------------------------------------- every record written replays, proven
def cycle(options, **common):
    """The option sets of a sweep: every combination listed, each with the common options."""
    return [dict(common, **o) for o in options]


QUANDO_OPTIONS = cycle([dict(num_players=n, edition=e, episode=ep, reward=rw)
                        for n in range(2, 7) for e in ("kendi", "oya") for ep in ("game", "round")
                        for rw in ("points", "win")], target_score=30)
CABO_OPTIONS = cycle([dict(num_players=n, episode=ep, reward=rw, tie_doubles=n % 2 == 0, knocker_final_turn=n < 5)
                      for n in range(2, 7) for ep in ("game", "round") for rw in ("points", "win")], target=40)
HELP_OPTIONS = cycle([dict(num_players=n, reshuffle=r, episode=ep, reward=rw, open_lowest=n != 4)
                      for n in range(3, 6) for r in ("shuffle", "flip") for ep in ("game", "round")
                      for rw in ("points", "win")], target=2)

# (game, option sets cycled over the games, number of games, never knock, rare paths that must be reached)
SWEEPS = [
    ("quando", QUANDO_OPTIONS, 480, False, set()),
    ("quando", [dict(edition="kendi", max_steps=7), dict(edition="oya", max_steps=25), dict(max_steps=90)], 90, True,
     set()),
    # oya with nobody knocking: rounds end only when a hand holds only zeros (R14), often right after the
    # draw that emptied the pile and reshuffled (R11): 6 players holding 9 cards leave one card to draw.
    ("quando", cycle([dict(num_players=2, hand_size=9, target_score=15)], edition="oya"), 230, True,
     {"new round", "terminated"}),
    ("quando", cycle([dict(num_players=6, hand_size=9, episode="round", max_steps=30)], edition="oya"), 160, False,
     {"terminated"}),
    ("quando", cycle([dict(num_players=6, hand_size=9, max_steps=m) for m in (40, 60, 75)], edition="oya"), 240, True,
     {"truncated"}),
    ("cabo", CABO_OPTIONS, 480, False, set()),
    ("cabo", cycle([dict(num_players=n, max_steps=m, turn_limit=t) for n, m, t in ((2, 15, 0), (6, 70, 5))]), 80,
     True, set()),
    ("help", HELP_OPTIONS, 480, False, set()),
    # Help! reshuffles only in a turn's refill, which never ends a round (R15, R20): the rare path is a
    # reshuffle in the step that hits max_steps: with 5 players holding 6 cards and a row of 2, each turn
    # draws one card, so the first reshuffles fall at steps 75, 78, 81.
    ("help", cycle([dict(num_players=5, hand_size=6, row_max=2, max_steps=m) for m in (76, 79, 82)]), 150, False,
     {"truncated"}),
]


def test_every_record_the_recorder_writes_replays_proven_on_every_path():
    """2,390 games (209,714 decisions; 4 s on an idle core, about 20 microseconds a decision recorded and
    replayed), each recorded, written as JSON, read back and replayed: all are proven, and the rare paths
    are reached (an oya reshuffle in the step that deals a new round 9 times, ends the game 47, truncates it
    5; a Help! reshuffle at truncation 29). The Quando oya games where a never-knocking table ends a round
    in a reshuffle are those the recorder wrote wrongly (the next deal's pile length, not the reshuffle's)."""
    games = 0
    for name, options, count, never_knock, must in SWEEPS:
        reached = set()
        for i in range(count):
            record, _ = play(name, 1000 * games + i, never_knock, **options[i % len(options)])
            assert rec.verify(record) is True, (name, options[i % len(options)], i)
            reached |= rare_paths(record)
        assert must <= reached, (name, options, must - reached)
        games += count
    assert games >= 2000


def test_oya_reshuffle_in_the_step_that_ends_a_round_records_the_reshuffled_pile():
    """Found by the sweep: before, the recorder read the pile's length after the next deal (R11 then R14 in
    one step), and the replay failed at the next round's first reshuffle."""
    record, _ = play("quando", 208, True, edition="oya", num_players=2, hand_size=9, target_score=15)
    assert "new round" in rare_paths(record)
    assert rec.verify(record) is True


# ---------------------------------------------------------------- generated and tampered records
def quando_options(draw):
    n = draw(st.integers(2, 6))
    return dict(num_players=n, edition=draw(st.sampled_from(["kendi", "oya"])),
                hand_size=draw(st.none() | st.integers(1, 55 // n)), target_score=draw(st.integers(1, 60)),
                knock_penalty=draw(st.integers(0, 10)), knock_min_turns=draw(st.integers(0, 3)),
                first_dealer=draw(st.none() | st.integers(0, n - 1)))


def cabo_options(draw):
    n = draw(st.integers(2, 6))
    hand = draw(st.integers(1, 8))
    return dict(num_players=n, hand_size=hand, peek=draw(st.integers(0, hand)), knocker_final_turn=draw(st.booleans()),
                tie_doubles=draw(st.booleans()), turn_limit=draw(st.integers(0, 40)), target=draw(st.integers(1, 120)),
                dealer=draw(st.none() | st.integers(0, n - 1)))


def help_options(draw):
    return dict(num_players=draw(st.integers(3, 5)), hand_size=draw(st.integers(3, 6)), row_max=draw(st.integers(2, 6)),
                target=draw(st.integers(1, 3)), open_lowest=draw(st.booleans()),
                reshuffle=draw(st.sampled_from(["shuffle", "flip"])))


OPTIONS = {"quando": quando_options, "cabo": cabo_options, "help": help_options}


# Tables that reshuffle every few draws: oya with 6 players holding 9 cards, Help! with 6 cards and a row of 2.
RESHUFFLING = {"quando": dict(edition="oya", num_players=6, hand_size=9), "help": dict(num_players=5, hand_size=6,
                                                                                       row_max=2)}


@st.composite
def games(draw, reshuffling=False):
    """(name, seed, never_knock, options): any game with any options (a third of them, or all if
    `reshuffling`, tables that reshuffle often), short enough to replay quickly."""
    name = draw(st.sampled_from(list(RESHUFFLING) if reshuffling else NAMES))
    if name in RESHUFFLING and (reshuffling or draw(st.integers(0, 2)) == 0):
        options = dict(RESHUFFLING[name], max_steps=draw(st.integers(40, 250)))
        return name, draw(st.integers(0, 2**32)), True, options
    options = OPTIONS[name](draw)
    options.update(episode=draw(st.sampled_from(["game", "round"])), reward=draw(st.sampled_from(["points", "win"])),
                   max_steps=draw(st.integers(1, 250)))
    return name, draw(st.integers(0, 2**32)), draw(st.booleans()), options


@settings(max_examples=300, deadline=None, derandomize=True)
@given(games())
def test_generated_records_replay_proven(game):
    name, seed, never_knock, options = game
    record, legal = play(name, seed, never_knock, **options)
    assert rec.verify(record) is True
    assert [a for _, _, a, _ in rec.replay(record)] == record["actions"]
    assert all(a in moves for a, moves in zip(record["actions"], legal))


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.sampled_from(NAMES), st.integers(0, 2**32), st.integers(1, 120), st.booleans())
def test_records_the_aec_env_writes_replay_proven(name, seed, max_steps, forced):
    """The env's own record (what `demo` and `play` save), also with a forced first deal."""
    env = quando_env.make(name, max_steps=max_steps)
    options = None
    if forced:
        env.reset(seed=seed + 1)
        options = env.unwrapped.game.round_setup(0)
    env.reset(seed=seed, options=options)
    r = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(r.choice(np.flatnonzero(obs["action_mask"]))))
    record = json.loads(json.dumps(env.unwrapped.game_record()))
    assert rec.verify(record) is True
    if forced:
        assert record["rounds"][0] == options


def swap_two_different(items, draw):
    """Swap two entries of a list that differ."""
    i, j = draw(st.sampled_from([(i, j) for i in range(len(items)) for j in range(i + 1, min(len(items), i + 4))
                                 if items[i] != items[j]]))
    items[i], items[j] = items[j], items[i]


def pick(draw, items):
    return draw(st.sampled_from(items))


def other_legal_action(record, legal, draw):
    k = pick(draw, [k for k, moves in enumerate(legal) if len(moves) > 1])
    record["actions"][k] = pick(draw, [a for a in legal[k] if a != record["actions"][k]])


def illegal_action(record, legal, draw):
    k = draw(st.integers(0, len(legal) - 1))
    record["actions"][k] = pick(draw, [a for a in range(-1, 400) if a not in legal[k]])


def deck_card(record, legal, draw):
    deck = pick(draw, record["rounds"])["deck"]
    if isinstance(deck[0], list) and draw(st.booleans()):     # a Quando card dealt the other side up
        c = draw(st.integers(0, len(deck) - 1))
        deck[c] = deck[c][::-1]
    else:
        swap_two_different(deck, draw)


def dealer_or_starter(record, legal, draw):
    setup = pick(draw, record["rounds"])
    key = next(k for k in setup if k != "deck")
    setup[key] = pick(draw, [v for v in (None, 0, 1, 2, 5, "1") if json.dumps(v) != json.dumps(setup[key])])


def reshuffle(record, legal, draw):
    entry = pick(draw, record["reshuffles"])
    how = pick(draw, ["swap", "step", "drop", "turn"] if len(set(map(str, entry["pile"]))) > 1 else ["step", "drop"])
    if how == "swap":
        swap_two_different(entry["pile"], draw)
    elif how == "step":
        entry["step"] += pick(draw, [-1, 1])
    elif how == "turn" and isinstance(entry["pile"][0], list):
        entry["pile"][0] = entry["pile"][0][::-1]
    else:
        record["reshuffles"].remove(entry)


def config(record, legal, draw):
    key = pick(draw, sorted(record["config"]))
    old = record["config"][key]
    record["config"][key] = {bool: lambda v: not v, int: lambda v: v + pick(draw, [-1, 1]), str: lambda v: v + "x",
                             type(None): lambda v: 1}[type(old)](old)


def result(record, legal, draw):
    key = pick(draw, ["totals", "terminated", "truncated", "drop"])
    if key == "drop":
        del record["result"]
    elif key == "totals":
        record["result"]["totals"][draw(st.integers(0, len(record["result"]["totals"]) - 1))] -= 1
    else:
        record["result"][key] = not record["result"][key]


def digest(record, legal, draw):
    entry = pick(draw, record["proof"])
    i = draw(st.integers(0, 63))
    entry["digest"] = entry["digest"][:i] + ("0" if entry["digest"][i] != "0" else "1") + entry["digest"][i + 1:]


def round_result(record, legal, draw):
    entry = pick(draw, record["proof"])
    key = pick(draw, ["actions", "points", "totals"])
    if key == "actions":
        entry["actions"] += pick(draw, [-1, 1])
    elif entry[key] is None:
        entry[key] = [0] * record["config"]["num_players"]
    else:
        entry[key][draw(st.integers(0, len(entry[key]) - 1))] += 1


def truncate(record, legal, draw):
    del record["actions"][len(record["actions"]) - draw(st.integers(1, len(record["actions"]))):]


def extend(record, legal, draw):
    record["actions"].extend(draw(st.lists(st.integers(0, 400), min_size=1, max_size=3)))


def fmt(record, legal, draw):
    record["format"] = pick(draw, [f for f in rec.formats() if f != record["format"]])


WRONG = [None, True, 1.5, "x", [], {}, [[[]]], -1, 2**70]


def wrong_type(where):
    """A value of the wrong type (or range) somewhere in `where`."""
    def change(record, legal, draw):
        value = pick(draw, WRONG)
        if where == "top":
            key = pick(draw, ["format", "config", "rounds", "reshuffles", "actions", "result", "proof", "seed"])
            record[key] = value if (key, value) not in (("result", None), ("seed", None), ("seed", 2**70)) else 1.5
        elif where == "config":
            key = pick(draw, sorted(record["config"]))
            record["config"][key] = value if json.dumps(value) != json.dumps(record["config"][key]) else "x"
        elif where == "round":
            setup = pick(draw, record["rounds"])
            setup[pick(draw, sorted(setup))] = value if value is not None else "x"
        elif where == "reshuffle":
            pick(draw, record["reshuffles"])[pick(draw, ["step", "pile"])] = value
        elif where == "action":
            record["actions"][draw(st.integers(0, len(record["actions"]) - 1))] = value
        elif where == "result":
            record["result"][pick(draw, ["totals", "terminated", "truncated"])] = value if value is not True else 1
        else:
            entry = pick(draw, record["proof"])
            key = pick(draw, ["actions", "points", "totals", "digest"])
            entry[key] = value if value is not None or key in ("actions", "digest") else "x"
    return change


# kind -> (change, the records it applies to)
TAMPERS = {
    "another legal action": (other_legal_action, lambda r, legal: any(len(m) > 1 for m in legal)),
    "an illegal action": (illegal_action, lambda r, legal: legal),
    "a deck card": (deck_card, None),
    "the dealer or starter": (dealer_or_starter, None),
    "a reshuffle": (reshuffle, lambda r, legal: r["reshuffles"]),
    "the config": (config, None),
    "the result": (result, None),
    "a digest": (digest, None),
    "a round's result": (round_result, None),
    "actions cut": (truncate, lambda r, legal: r["actions"]),
    "actions added": (extend, None),
    "the format": (fmt, None),
    **{f"a wrong type in {where}": (wrong_type(where), lambda r, legal, w=where: {
        "reshuffle": r["reshuffles"], "action": r["actions"]}.get(w, True))
       for where in ("top", "config", "round", "reshuffle", "action", "result", "proof")},
}
WHERE = re.compile(r"step -?\d+|round \d+|reshuffle \d+|game record|the record's (result|final totals)")


@pytest.mark.parametrize("kind", TAMPERS)
@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_tampered_records_are_refused_naming_where(kind, data):
    """One change anywhere (an action, legal or not, a deck card, a dealer, a reshuffle, the config, the
    result, a digest, a round's result, actions cut or added, the format, a value of the wrong type) and the
    record is refused with a ValueError naming the step, round, reshuffle or field: never proven."""
    change, applies = TAMPERS[kind]
    name, seed, never_knock, options = data.draw(games(reshuffling=kind == "a reshuffle"))
    record, legal = play(name, seed, never_knock, **options)
    assume(applies is None or applies(record, legal))
    tampered = copy.deepcopy(record)
    change(tampered, legal, data.draw)
    assume(json.dumps(tampered) != json.dumps(record))     # True and 1 differ in a record
    with pytest.raises(ValueError) as err:
        rec.verify(tampered)
    assert WHERE.search(str(err.value)), str(err.value)


# ---------------------------------------------------------------- what a proof shows
@pytest.mark.parametrize("name,seed,action", [("quando", 6, 121), ("cabo", 0, 340), ("help", 6, 92)])
def test_another_legal_action_that_keeps_the_totals_is_refused_naming_the_round(name, seed, action):
    """Before, replay checked only legality and the final totals: these records, with another legal move at
    step 5 and the same final totals, replayed without complaint (as the format before proofs still does)."""
    record, legal = play(name, seed, num_players=3)
    assert action in legal[5] and action != record["actions"][5]
    record["actions"][5] = action
    old = dict(record, format=record["format"].replace("/2", "/1"))
    del old["proof"]
    assert rec.verify(old) is False
    with pytest.raises(ValueError, match=r"^round 0 \(steps 0\.\.\d+\): the replay's digest differs from the "
                                         r"record's proof"):
        rec.verify(record)


def test_a_changed_config_that_plays_the_same_game_is_refused():
    record, _ = play("quando", 3, num_players=3)
    assert not record["result"]["truncated"]
    record["config"]["max_steps"] += 1     # the same moves, another game: the proof covers the config
    with pytest.raises(ValueError, match=r"^round 0 \(steps 0\.\.\d+\): the replay's digest differs"):
        rec.verify(record)


def test_a_record_of_the_format_before_proofs_replays_not_proven():
    """tests/data holds an oya game saved before records carried proofs (and before the game contract)."""
    record = rec.load(DATA / "quando_record_before_contract.json")
    assert record["format"] == "quando-record/1" and "proof" not in record
    assert rec.verify(record) is False


@pytest.mark.parametrize("name", NAMES)
def test_records_of_this_format_checked_in_replay_proven(name):
    """Records written by this version (tests/data/<game>_record_v2.json): a change to the rules, the
    digest or the record format that stops them proving must bump the format (the old one then replays
    not proven)."""
    record = rec.load(DATA / f"{name}_record_v2.json")
    assert record["format"] == f"{name}-record/2"
    assert rec.verify(record) is True
    assert len(record["rounds"]) >= 2 and (name == "cabo" or record["reshuffles"])


def test_an_unfinished_game_left_early_replays_proven():
    env = quando_env.make("quando", edition="oya", num_players=3)
    env.reset(seed=5)
    for _ in range(40):     # the highest legal move: never a knock when passing is legal
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[-1]))
    record = json.loads(json.dumps(env.unwrapped.game_record()))
    assert "result" not in record and rec.verify(record) is True
    record["actions"].append(record["actions"][-1])
    with pytest.raises(ValueError, match=r"^step 40: the record's proof leaves round \d+ unfinished after step 39, "
                                         r"but the record has 1 more actions$"):
        rec.verify(record)


# ---------------------------------------------------------------- untrusted files
def test_a_file_larger_than_the_cap_is_refused_unread(tmp_path):
    """An 80 MB deck took 1.9 GB before it was refused: now nothing past the cap is read."""
    path = tmp_path / "big.json"
    with open(path, "w") as f:
        f.write('{"format": "quando-record/2", "rounds": [{"deck": [' + "[0, 1], " * (rec.MAX_RECORD_BYTES // 8)
                + "[0, 1]]}]}")
    with pytest.raises(ValueError, match=rf"big\.json is larger than {rec.MAX_RECORD_BYTES} bytes"):
        rec.load(path)
    with pytest.raises(ValueError, match="big.json: game record has no 'config'"):   # read when the cap is raised
        rec.load(path, max_bytes=2 * rec.MAX_RECORD_BYTES)
    with pytest.raises(ValueError, match="max_bytes=True is not allowed"):
        rec.load(path, max_bytes=True)


def test_the_largest_record_of_a_game_run_to_max_steps_is_far_below_the_cap():
    """Cabo with 2 players writes the largest records (a round every ~20 decisions): 10,000 decisions at the
    default max_steps take about 231 kB; Quando oya with 6 players reshuffling every few draws about 98 kB."""
    record, _ = play("cabo", 1, num_players=2, target=10**6)
    assert record["result"]["truncated"] and len(record["actions"]) == 10_000
    assert len(json.dumps(record)) < rec.MAX_RECORD_BYTES / 16


def test_deeply_nested_json_is_refused_not_a_recursion_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"format": "quando-record/2", "config": ' + "[" * 200_000 + "]" * 200_000 + "}")
    with pytest.raises(ValueError, match=r"deep\.json is not a JSON game record: nested too deeply"):
        rec.load(path)


@pytest.mark.parametrize("text", ["[]", "5", "null", '"quando-record/2"', '{"format": 2}'])
def test_json_that_is_not_a_record_object_is_refused_on_load(tmp_path, text):
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"r\.json: not a game record: expected a JSON object with format "):
        rec.load(path)


@pytest.fixture(scope="module")
def good():
    return play("quando", 0, True, edition="oya", num_players=6, hand_size=9, target_score=40)[0]


FIELD_CASES = [
    (lambda r: r.update(config=[1]), r"game record's 'config' must be a JSON object, got list"),
    (lambda r: r["config"].update(num_players="4"), r"game record's config: num_players='4' is not allowed"),
    (lambda r: r["config"].update(num_players=True), r"game record's config: num_players=True is not allowed"),
    (lambda r: r.update(seed="5"), r"game record's seed='5' is not allowed"),
    (lambda r: r.update(seed=1.5), r"game record's seed=1.5 is not allowed"),
    (lambda r: r.update(players="me"), r"game record's players='me' is not allowed: a list of 6 names"),
    (lambda r: r.update(extra=1), r"game record has unknown field\(s\) \['extra'\]"),
    (lambda r: r.update(rounds={}), r"game record's 'rounds' must be a JSON list, got dict"),
    (lambda r: r["rounds"].__setitem__(1, [1]), r"round 1 of the record has no valid setup"),
    (lambda r: r["rounds"][0].update(dealer=True), r"round 0 of the record: dealer=True is not allowed"),
    (lambda r: r["rounds"][1].update(dealer=1.0), r"round 1: the record's dealer is 1.0, the rules make it"),
    (lambda r: r["rounds"][0].update(deck="37" * 55), r"round 0 of the record: deck"),
    (lambda r: r["reshuffles"].__setitem__(0, 3), r"game record's reshuffles\[0\]=3 is not allowed"),
    (lambda r: r["reshuffles"][0].update(step="1"), r"game record's reshuffles\[0\]=.* is not allowed"),
    (lambda r: r["reshuffles"][0].update(pile=[[3.0, 7]] + r["reshuffles"][0]["pile"][1:]),
     r"reshuffle 0 of the record is malformed: card 0 is \[3.0, 7\]"),
    (lambda r: r["reshuffles"][0].update(pile="37"), r"reshuffle 0 of the record is malformed: the pile must be"),
    (lambda r: r.update(actions="12"), r"game record's 'actions' must be a JSON list, got str"),
    (lambda r: r["actions"].__setitem__(2, [1]), r"step 2: action \[1\] of player_\d is illegal"),
    (lambda r: r["actions"].extend([0] * 10_001),
     r"game record's \d+ actions is not allowed: at most 10000 \(the config's max_steps\)"),
    (lambda r: r.update(result=[]), r"game record's 'result' must be a JSON object, got list"),
    (lambda r: r["result"].update(totals=[1, 2]), r"game record's result=.* is not allowed: an object with totals"),
    (lambda r: r["result"].update(terminated=1), r"game record's result=.* is not allowed"),
    (lambda r: r.update(proof={}), r"game record's 'proof' must be a JSON list, got dict"),
    (lambda r: r.pop("proof"), r"game record has no 'proof'"),
    (lambda r: r["proof"].append(r["proof"][0]), r"game record's proof of \d+ rounds is not allowed: one entry per"),
    (lambda r: r["proof"][0].update(digest="00"), r"game record's proof\[0\]\.digest='00' is not allowed: 64 lower"),
    (lambda r: r["proof"][0].update(digest=5), r"game record's proof\[0\]\.digest=5 is not allowed"),
    (lambda r: r["proof"][0].update(points=None), r"game record's proof\[0\]\.points=None is not allowed"),
    (lambda r: r["proof"][0].update(actions=-1), r"game record's proof\[0\]\.actions=-1 is not allowed"),
    (lambda r: r["proof"][0].update(totals=[0.5] * 6), r"game record's proof\[0\]\.totals=\[0\.5"),
    (lambda r: r["proof"][0].pop("digest"), r"game record's proof\[0\]=.* is not allowed: an object with actions"),
]


@pytest.mark.parametrize("change,why", FIELD_CASES, ids=range(len(FIELD_CASES)))
def test_every_field_of_the_wrong_type_or_shape_is_refused_naming_it(good, tmp_path, change, why):
    assert len(good["rounds"]) >= 2 and good["reshuffles"] and good["result"]["terminated"]
    bad = copy.deepcopy(good)
    change(bad)
    with pytest.raises(ValueError, match=why):
        rec.verify(bad)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    if not why.startswith(("step", "reshuffle", "round 1:", "round 0 of the record: d")):
        with pytest.raises(ValueError, match=r"bad\.json: " + why):      # load checks the fields too
            rec.load(path)


def test_save_to_a_bad_path_names_the_path(tmp_path, good):
    with pytest.raises(ValueError, match=r"cannot write the game record to .*nowhere/r\.json: No such file"):
        rec.save(good, tmp_path / "nowhere" / "r.json")
    with pytest.raises(ValueError, match=r"cannot write the game record to .*: Is a directory"):
        rec.save(good, tmp_path)
    with pytest.raises(ValueError, match="the game record cannot be written as JSON"):
        rec.save(dict(good, seed=np.int64(3)), tmp_path / "r.json")
    with pytest.raises(ValueError, match="game record's 'actions' must be a JSON list"):   # well-formed records only
        rec.save(dict(good, actions="19"), tmp_path / "r.json")
    assert not (tmp_path / "r.json").exists()


# ---------------------------------------------------------------- the replay command
def test_replay_command_takes_game_checks_it_and_says_whether_proven(tmp_path, capsys, good):
    path = tmp_path / "g.json"
    rec.save(good, path)
    assert cli_main(["replay", str(path), "--game", "quando"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "proven: every round's result and digest match the record's proof"
    assert cli_main(["replay", str(path), "--game", "cabo"]) == 2
    assert capsys.readouterr().err == f"error: {path} is a record of quando, not of cabo (--game)\n"
    assert cli_main(["replay", str(DATA / "quando_record_before_contract.json")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "not proven: a quando-record/1 record carries no proof (its actions are legal and its final totals match)")
