"""Every engine entry point of every game against what a careless or hostile caller passes (issue 20).

The rule: an input is either taken as the same Python value would be (numpy integers of any width work like
ints), or refused with a ValueError naming what was wrong, and a refused call changes nothing (states,
masks, flags, rewards, random streams). Hypothesis properties over every game come first (configs, actions,
games lists, forced setups, state records), then one test per finding.
"""
import dataclasses
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from quando_env.core import MAX_GAMES

from quando_env.options import MAX_STEPS, MAX_TARGET

from quando_env.state_checks import COUNT_MAX
from quando_env.registry import game_class, game_names

GAMES = game_names()
INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

# Values each option takes (valid alone; some combinations are not, e.g. peek > hand_size).
VALID = {
    "quando": dict(num_players=[2, 3, 4, 6], edition=["kendi", "oya"], hand_size=[None, 1, 7, 9],
                   target_score=[1, 50, MAX_TARGET], knock_penalty=[0, 5, 10**6], knock_min_turns=[0, 2, 2**15 - 1],
                   first_dealer=[None, 0, 1], max_steps=[1, 40, MAX_STEPS], episode=["game", "round"],
                   reward=["points", "win"]),
    "cabo": dict(num_players=[2, 3, 4, 6], hand_size=[1, 4, 8], peek=[0, 1, 2], knocker_final_turn=[True, False],
                 tie_doubles=[True, False], turn_limit=[0, 2, MAX_STEPS], target=[1, 100, MAX_TARGET],
                 dealer=[None, 0, 1], max_steps=[1, 40, MAX_STEPS], episode=["game", "round"],
                 reward=["points", "win"]),
    "help": dict(num_players=[3, 4, 5], hand_size=[3, 4, 6], row_max=[2, 4, 6], target=[1, 3, MAX_TARGET],
                 open_lowest=[True, False], reshuffle=["shuffle", "flip"], max_steps=[1, 40, MAX_STEPS],
                 episode=["game", "round"], reward=["points", "win"]),
}
ODD = [True, False, np.bool_(True), None, 2.0, 4.5, float("nan"), float("inf"), "4", "", "game", "oya", "flip", [4],
       b"4", 2**15, 2**31 - 1, 2**31, 2**32 + 3, 2**63, 2**64 + 4, 2**70, -1, -2**63, MAX_STEPS + 1, 10**6 + 1]


def is_int(x) -> bool:
    """An integer as the engine must take one (a Python int or numpy integer, never a bool)."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def proper_seat(x, n) -> bool:
    return is_int(x) and 0 <= x < n


def snapshot(game) -> bytes:
    """Everything a refused call must leave as it was."""
    return b"".join(a.tobytes() for a in (game.states, game.masks, game.flags, game.rewards, game.action_streams))


def in_form(value, draw_index: int):
    """`value` as a Python value or, for an int, as a numpy integer of some width that holds it."""
    if isinstance(value, bool):
        return np.bool_(value) if draw_index % 2 else value
    if not isinstance(value, int):
        return value
    fits = [t for t in INT_DTYPES if np.iinfo(t).min <= value <= np.iinfo(t).max]
    return value if draw_index == 0 else fits[draw_index % len(fits)](value)


odd_ints = st.tuples(st.sampled_from(INT_DTYPES), st.integers(-300, 300)).filter(
    lambda t: np.iinfo(t[0]).min <= t[1] <= np.iinfo(t[0]).max).map(lambda t: t[0](t[1]))
odd_values = st.one_of(st.sampled_from(ODD), st.integers(-5, 60), odd_ints)


@st.composite
def configs(draw, game):
    """Options of `game`: valid values in any integer form, then maybe one option set to anything."""
    valid = VALID[game]
    kwargs = {}
    for name in draw(st.lists(st.sampled_from(sorted(valid)), max_size=5, unique=True)):
        kwargs[name] = in_form(draw(st.sampled_from(valid[name])), draw(st.integers(0, 8)))
    if draw(st.booleans()):
        kwargs[draw(st.sampled_from(sorted(valid)))] = draw(odd_values)
    return kwargs


# ---------------------------------------------------------------- properties over every game
@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=250, **SETTINGS)
@given(data=st.data())
def test_any_config_gives_a_sound_game_or_a_value_error_naming_an_option(game, data):
    kwargs = data.draw(configs(game))
    cls = game_class(game)
    try:
        g = cls(2, seed=1, **kwargs)
    except ValueError as e:       # it names the option (maybe one left at its default, e.g. peek > hand_size)
        assert any(str(e).startswith(f"{f.name}=") for f in dataclasses.fields(cls.config_class)), (kwargs, str(e))
        return
    config = g.config
    for f in dataclasses.fields(config):
        assert type(getattr(config, f.name)) in (int, bool, str, type(None)), f.name
    n = config.num_players
    assert g.obs_dim == cls.obs_dim_of(n) and g.state_dim == cls.state_dim_of(n)
    plain = cls(2, seed=1, **config.to_dict())          # the same options as Python values: the same games
    for _ in range(50):
        a = g.sample_actions()
        assert (a == plain.sample_actions()).all()
        g.step(a)
        plain.step(a)
    assert g.states.tobytes() == plain.states.tobytes()
    assert np.isfinite(g.observe()).all() and np.isfinite(g.state()).all()
    g.check_states(g.states)


def action_arrays(k):
    """Anything a caller might pass as k actions."""
    values = st.one_of(st.integers(-3, 400), st.integers(-2**70, 2**70), st.floats(), st.booleans(), st.none(),
                       st.text(max_size=2), odd_ints)
    arrays = st.tuples(st.sampled_from(INT_DTYPES + [np.float32, np.float64, np.bool_, object, "U3"]),
                       st.lists(st.integers(-3, 400), min_size=k, max_size=k)).map(
        lambda t: np.array(t[1]).astype(t[0]))
    return st.one_of(st.lists(values, min_size=k - 1, max_size=k + 1), arrays, values)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=300, **SETTINGS)
@given(seed=st.integers(0, 50), moves=st.integers(0, 30), how=st.integers(0, 3), data=st.data())
def test_any_actions_play_legal_moves_or_are_refused_changing_nothing(game, seed, moves, how, data):
    g = game_class(game)(3, seed=seed)
    for _ in range(moves):
        g.step(g.sample_actions())
    legal = g.sample_actions()
    if how == 0:        # the legal moves in some integer dtype
        dtype = data.draw(st.sampled_from(INT_DTYPES))
        actions = legal.astype(dtype) if legal.max() <= np.iinfo(dtype).max else legal
    elif how == 1:      # one of them replaced by anything
        actions = list(legal)
        actions[data.draw(st.integers(0, 2))] = data.draw(st.one_of(odd_values, st.integers(-2**70, 2**70)))
    else:
        actions = data.draw(action_arrays(3))
    before, mask = snapshot(g), g.legal_action_mask.copy()
    try:
        g.step(actions)
    except ValueError:
        assert snapshot(g) == before
        return
    if isinstance(actions, np.ndarray):
        assert actions.dtype.kind in "iu"
    assert len(actions) == 3 and all(is_int(a) and mask[i, int(a)] for i, a in enumerate(actions)), (actions, legal)


def slot_values(b):
    """Anything a caller might pass as a games list for a batch of b."""
    ints = st.integers(-2, b + 1)
    return st.one_of(ints, st.lists(st.one_of(ints, st.booleans(), st.floats(-1, b), odd_ints, st.text(max_size=1)),
                                    max_size=b + 1),
                     st.tuples(st.sampled_from(INT_DTYPES + [np.float64, np.bool_]),
                               st.lists(st.integers(0, b), max_size=b + 1)).map(lambda t: np.array(t[1]).astype(t[0])),
                     st.sampled_from([None, "0", [[0]], 1.0, True, [0, 0], np.array([1, 1])]))


def proper_slots(games, b) -> bool:
    """Whether `games` names distinct slots 0..b-1 by integers, or is None for all (what the engine must take, and
    nothing else)."""
    if games is None:
        return True
    if isinstance(games, np.ndarray):
        items = games.reshape(-1).tolist() if games.dtype.kind in "iu" else None
    elif is_int(games):
        items = [int(games)]
    elif isinstance(games, (list, tuple)):
        items = list(games) if all(is_int(x) for x in games) else None
    else:
        items = None
    return items is not None and all(0 <= int(x) < b for x in items) and len(set(map(int, items))) == len(items)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=300, **SETTINGS)
@given(games=slot_values(4), call=st.sampled_from(["reset", "step", "observe", "state", "sample_actions", "winners",
                                                     "info_arrays", "play_random"]))
def test_any_games_list_is_taken_only_when_it_names_distinct_slots(game, games, call):
    g = game_class(game)(4, seed=3)
    before = snapshot(g)
    auto = np.ones((4, g.num_players), bool)
    run = {"reset": lambda: g.reset(seed=1, games=games),
           "step": lambda: g.step(g.legal_action_mask.argmax(axis=1)[g.slots(games)], games=games),
           "observe": lambda: g.observe(games=games), "state": lambda: g.state(games=games),
           "sample_actions": lambda: g.sample_actions(games), "winners": lambda: g.winners(games),
           "info_arrays": lambda: g.info_arrays(games), "play_random": lambda: g.play_random(games, auto)}[call]
    try:
        run()
    except ValueError:
        assert snapshot(g) == before and not proper_slots(games, 4)
        return
    assert proper_slots(games, 4), games


def deck_forms(game):
    """A forced deck of `game` (valid, then maybe broken) in any container."""
    if game == "quando":
        pairs = [[a, b] for a in range(11) for b in range(a + 1, 11)]
        odd_card = st.one_of(odd_values, st.lists(st.integers(-1, 11), max_size=3), st.just("37"), st.just([3.0, 7.0]))
    elif game == "cabo":
        pairs = list(range(52))
        odd_card = odd_values
    else:
        from quando_env.help.cards import CODES, FULL_DECK
        pairs = [CODES[k] for k in FULL_DECK]
        odd_card = st.one_of(odd_values, st.sampled_from(["X", "1", "N", "11", "12"]))

    @st.composite
    def decks(draw):
        deck = list(draw(st.permutations(pairs)))
        if game == "quando":
            deck = [p[::-1] if draw(st.booleans()) else p for p in deck]
        kind = draw(st.integers(0, 6))
        if kind == 1:
            deck[draw(st.integers(0, len(deck) - 1))] = draw(odd_card)
        elif kind == 2:
            deck = deck[:draw(st.integers(0, len(deck) - 1))]
        elif kind == 3:
            deck = deck + [deck[0]]
        elif kind == 4:
            deck[0] = deck[1]
        form = draw(st.integers(0, 3))
        if form == 1:
            return tuple(deck)
        if form == 2 and kind in (0, 4):
            dtypes = [None, object, "U3", "S2"] if game == "help" else [None, np.int8, np.uint64, np.float64, object]
            return np.array(deck, dtype=draw(st.sampled_from(dtypes)))
        if form == 3 and kind == 0:
            return str(deck)
        return deck
    return decks()


def proper_deck(game, deck) -> bool:
    """Whether `deck` is a valid forced deck of `game` (checked here in plain Python, independently)."""
    if isinstance(deck, np.ndarray):
        if deck.dtype.kind not in ("iuUO" if game != "help" else "UO"):
            return False
        deck = deck.tolist()
    if not isinstance(deck, (list, tuple)):
        return False
    if game == "quando":
        ok = all(isinstance(p, (list, tuple)) and len(p) == 2 and all(is_int(x) and 0 <= x <= 10 for x in p)
                 and p[0] != p[1] for p in deck)
        return ok and len(deck) == 55 and len({frozenset(map(int, p)) for p in deck}) == 55
    if game == "cabo":
        return len(deck) == 52 and all(is_int(c) for c in deck) and sorted(map(int, deck)) == list(range(52))
    from quando_env.help.cards import CODES, FULL_DECK
    return all(isinstance(c, str) for c in deck) and sorted(deck) == sorted(CODES[k] for k in FULL_DECK)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=250, **SETTINGS)
@given(data=st.data(), seat=st.one_of(st.none(), odd_values))
def test_any_forced_setup_is_dealt_or_refused_changing_nothing(game, data, seat):
    g = game_class(game)(2, seed=5, num_players=3)
    g.step(g.sample_actions())
    deck = data.draw(deck_forms(game))
    who = "starter" if game == "help" else "dealer"
    setup = {"deck": deck} if seat is None else {"deck": deck, who: seat}
    before = snapshot(g)
    try:
        g.reset(seed=9, **setup)
    except ValueError as e:
        assert snapshot(g) == before
        assert not proper_deck(game, deck) or not (seat is None or proper_seat(seat, 3)), (deck, seat, str(e))
        return
    assert proper_deck(game, deck) and (seat is None or proper_seat(seat, 3)), (deck, seat)
    dealt = g.round_setup(1)["deck"]
    given = deck.tolist() if isinstance(deck, np.ndarray) else list(deck)
    assert dealt == [list(map(int, p)) for p in given] if game == "quando" else dealt == [
        x if isinstance(x, str) else int(x) for x in given]


_POOLS = {}
RECORD_CONFIGS = {"quando": [dict(num_players=4, edition="oya"), dict(num_players=2), dict(num_players=6, hand_size=9)],
                  "cabo": [dict(num_players=4), dict(num_players=2, hand_size=1, peek=0),
                           dict(num_players=6, hand_size=8)],
                  "help": [dict(num_players=4), dict(num_players=3, hand_size=3), dict(num_players=5, row_max=2,
                                                                                       reshuffle="flip")]}


def state_pool(game, k):
    """Records of many moments of play (every phase) with the k-th of RECORD_CONFIGS[game]."""
    if (game, k) not in _POOLS:
        g = game_class(game)(64, seed=11, **RECORD_CONFIGS[game][k])
        pool = []
        for t in range(300):
            g.step(g.sample_actions())
            if t % 25 == 0:
                pool.append(g.states.copy())
        _POOLS[game, k] = np.concatenate(pool)
    return _POOLS[game, k]


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=1500, **SETTINGS)
@given(data=st.data())
def test_any_state_record_is_refused_or_plays_on_as_a_sound_state(game, data):
    """Broken records (changed fields, swapped entries, random bytes) are refused naming the record and what is
    wrong, or are sound: they play on without leaving what check_states accepts, with finite views."""
    k = data.draw(st.integers(0, len(RECORD_CONFIGS[game]) - 1))
    pool = state_pool(game, k)
    cls = game_class(game)
    s = pool[data.draw(st.integers(0, len(pool) - 1))].copy()
    fields = [f for f in pool.dtype.names if f != "rng"]
    if data.draw(st.integers(0, 9)) == 0:
        s = np.frombuffer(data.draw(st.binary(min_size=pool.itemsize, max_size=pool.itemsize)), pool.dtype)[0].copy()
    for _ in range(data.draw(st.integers(1, 4))):
        f = data.draw(st.sampled_from(fields))
        arr = np.array(s[f])
        flat = arr.reshape(-1)
        i, j = data.draw(st.integers(0, flat.size - 1)), data.draw(st.integers(0, flat.size - 1))
        if data.draw(st.booleans()):
            flat[i], flat[j] = flat[j], flat[i]
        else:
            lo, hi = np.iinfo(flat.dtype).min, np.iinfo(flat.dtype).max
            flat[i] = data.draw(st.one_of(st.integers(-2, 60), st.integers(lo, hi)).filter(lambda v: lo <= v <= hi))
        s[f] = arr
    g = cls(1, seed=0, autoreset=False, **RECORD_CONFIGS[game][k])
    before = snapshot(g)
    try:
        g.load_states(np.array([s]))
    except ValueError as e:
        assert snapshot(g) == before and str(e).startswith(f"state record 0 is no state of this {game} game: ")
        return
    for _ in range(50):
        if g.current_player[0] < 0:
            break
        g.step(g.sample_actions())
        g.check_states(g.states)
        assert np.isfinite(g.observe()).all() and np.isfinite(g.state()).all()
    g.render_text(0, 0)


# ---------------------------------------------------------------- 1. options: converted, then bounded
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_numpy_integer_options_of_every_width_give_the_game_python_ints_give(game, dtype):
    cls = game_class(game)
    n = 4
    g = cls(1, seed=dtype(0), num_players=dtype(n))
    plain = cls(1, seed=0, num_players=n)
    assert g.obs_dim == plain.obs_dim == cls.obs_dim_of(n) and type(g.config.num_players) is int
    assert (g.observe() == plain.observe()).all() and (g.state() == plain.state()).all()


def test_a_narrow_hand_size_does_not_wrap_around_into_a_legal_deal():
    with pytest.raises(ValueError, match=r"hand_size=np\.int8\(22\) is not allowed: an integer 1\.\.9: 6 players"):
        game_class("quando")(1, num_players=6, hand_size=np.int8(22))


NUMERIC = {"quando": ["num_players", "hand_size", "target_score", "knock_penalty", "knock_min_turns", "first_dealer",
                      "max_steps"],
           "cabo": ["num_players", "hand_size", "peek", "turn_limit", "target", "dealer", "max_steps"],
           "help": ["num_players", "hand_size", "row_max", "target", "max_steps"]}


@pytest.mark.parametrize("game,option", [(game, o) for game in GAMES for o in NUMERIC[game]])
@pytest.mark.parametrize("value", [2**31 - 1, 2**32 + 3, 2**63, 2**70, -2**70])
def test_every_numeric_option_has_a_range_its_arithmetic_holds(game, option, value):
    with pytest.raises(ValueError, match=rf"{option}={value} is not allowed: .*\d+\.\."):
        game_class(game)(1, **{option: value})


def test_a_knock_penalty_the_totals_cannot_hold_is_refused_not_won():
    for value in (2**31 - 1, 2**32 + 3):
        with pytest.raises(ValueError, match=r"knock_penalty=\d+ is not allowed: an integer 0\.\.1000000"):
            game_class("quando")(1, knock_penalty=value)


def test_quando_turn_counts_stop_at_what_int16_holds():
    g = game_class("quando")(1, seed=0, num_players=2)
    g.states["turns"][0, 0] = 2**15 - 1
    assert g.current_player[0] == 0 and g.states["phase"][0] == 0      # seat 0 discards (R10)
    g.step(g.legal_action_mask.argmax(axis=1))
    assert g.states["turns"][0, 0] == 2**15 - 1


# ---------------------------------------------------------------- 2. actions and games lists
@pytest.mark.parametrize("game", GAMES)
def test_step_refuses_a_slot_listed_twice_changing_nothing(game):
    g = game_class(game)(3, seed=2)
    a = g.sample_actions()
    before = snapshot(g)
    with pytest.raises(ValueError, match=r"games=\[0, 0\] is not allowed: distinct slots"):
        g.step(a[[0, 0]], games=[0, 0])
    assert snapshot(g) == before


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("kind", ["float", "bool", "str", "object", "uint64-huge", "python-huge"])
def test_step_refuses_actions_that_are_no_integers_changing_nothing(game, kind):
    g = game_class(game)(2, seed=2)
    a = g.sample_actions()
    actions = {"float": a.astype(np.float64), "bool": a.astype(bool), "str": a.astype(str),
               "object": np.array([object(), object()]), "uint64-huge": np.array([a[0], 2**64 - 1], np.uint64),
               "python-huge": [int(a[0]), 2**70]}[kind]
    before = snapshot(g)
    huge = r"action (18446744073709551615|1180591620717411303424) is out of range"
    with pytest.raises(ValueError, match=rf"actions must be 2 integers|{huge}"):
        g.step(actions)
    assert snapshot(g) == before


@pytest.mark.parametrize("game", GAMES)
def test_numpy_integers_of_every_width_play_like_python_ints(game):
    cls = game_class(game)
    plain = cls(3, seed=4)
    for k in range(40):
        dtype = INT_DTYPES[k % len(INT_DTYPES)]
        g = cls(dtype(3), seed=dtype(4))
        g.states[:], g.masks[:], g.action_streams[:] = plain.states, plain.masks, plain.action_streams
        a = plain.sample_actions()
        assert (g.sample_actions(np.array([0, 1, 2], dtype)) == a).all()
        if a.max() <= np.iinfo(dtype).max:
            assert (g.step(a.astype(dtype), games=np.array([0, 1, 2], dtype)) == plain.step(a)).all()
            assert g.states.tobytes() == plain.states.tobytes()
            assert (g.observe(dtype(1), games=[dtype(2)]) == plain.observe(1, games=[2])).all()
        else:
            plain.step(a)


# ---------------------------------------------------------------- 3. state records from outside
@pytest.mark.parametrize("game", GAMES)
def test_load_states_refuses_random_bytes_naming_the_record_and_changing_nothing(game):
    cls = game_class(game)
    g = cls(3, seed=1)
    rng = np.random.default_rng(0)
    for _ in range(200):
        states = g.states.copy()
        states[1] = np.frombuffer(rng.bytes(states.itemsize), cls.state_dtype)[0]
        before = snapshot(g)
        with pytest.raises(ValueError, match=f"state record 1 is no state of this {game} game: "):
            g.load_states(states)
        assert snapshot(g) == before


@pytest.mark.parametrize("game,field,value,problem", [
    ("quando", "loc", 9, "loc is no seat"), ("quando", "ndraw", 60, "ndraw or ndisc"), ("quando", "cur", 5, "cur"),
    ("quando", "face", 2, "face not 0 or 1"), ("quando", "total", -1, "a total"),
    ("cabo", "slot", 60, "a slot holds"), ("cabo", "drawn", 51, "drawn"), ("cabo", "phase", 7, "phase"),
    ("cabo", "nhand", 9, "nhand"), ("help", "hand", 7, "deck's cards"), ("help", "dir", 0, "dir"),
    ("help", "nrow", 6, "nrow"), ("help", "calls", 12, "a call"),
])
def test_load_states_names_the_first_bad_record_and_field(game, field, value, problem):
    g = game_class(game)(3, seed=1, num_players=4)
    states = g.states.copy()
    arr = states[field]
    if arr.ndim > 1:
        arr[2].reshape(-1)[0] = value
    else:
        arr[2] = value
    with pytest.raises(ValueError, match=rf"state record 2 is no state of this {game} game: .*{problem}"):
        g.load_states(states)


@pytest.mark.parametrize("game", GAMES)
def test_every_state_the_engine_reaches_passes_the_record_check(game):
    g = game_class(game)(32, seed=7, autoreset=False, num_players=5 if game == "help" else 3, max_steps=120)
    for _ in range(400):
        g.step(g.sample_actions())
        g.check_states(g.states)
    assert (g.current_player < 0).any()        # finished (and truncated) games pass too


@pytest.mark.parametrize("game", GAMES)
def test_openspiel_refuses_state_bytes_that_are_no_state(game):
    pytest.importorskip("pyspiel")
    from quando_env.integrations import openspiel as osp

    osp.register()
    sgame = osp.load_game(osp.short_name(game))
    record = sgame.deal(5)
    engine = sgame.load(record)
    before = snapshot(engine)
    rng = np.random.default_rng(1)
    for bad in (rng.bytes(len(record)), record[:-1], b""):
        with pytest.raises(ValueError):
            sgame.load(bad)
        assert snapshot(engine) == before and sgame.loaded is record


# ---------------------------------------------------------------- 4. forced setups
@pytest.mark.parametrize("deck,problem", [
    (["37"] * 55, "deck card 0 is '37'"), ([[3.0, 7.0]] * 55, r"deck card 0 is \[3\.0, 7\.0\]"),
    ([[True, 7]] * 55, r"deck card 0 is \[True, 7\]"), (np.zeros((55, 2)), "deck card 0 is"),
    (np.zeros((55, 3), int), r"deck has shape \(55, 3\)")])
def test_quando_decks_are_pairs_of_integers_never_strings_or_floats(deck, problem):
    g = game_class("quando")(1, seed=0)
    before = snapshot(g)
    with pytest.raises(ValueError, match=problem):
        g.reset(seed=1, deck=deck)
    assert snapshot(g) == before


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("form", ["list", "array"])
def test_a_huge_deck_is_refused_before_it_is_converted(game, form):
    g = game_class(game)(1, seed=0)
    huge = [0] * 10_000_000 if form == "list" else np.zeros((10_000_000, 2) if game == "quando" else 10_000_000)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"deck has (10000000 cards|shape)"):
            g.reset(deck=huge)
        assert tracemalloc.get_traced_memory()[1] < 1_000_000
    finally:
        tracemalloc.stop()


def refused_setups(game):
    deck = game_class(game)(1, seed=0).round_setup(0)["deck"]
    who = "starter" if game == "help" else "dealer"
    return [dict(deck=deck[:-1]), dict(deck=deck[:-1] + deck[:1]), dict(deck=str(deck)), {who: 7}, {who: True},
            {who: 1.0}, {who: "1"}, dict(deck=deck, **{who: -1}), dict(deck=iter(deck))]


@pytest.mark.parametrize("game", GAMES)
def test_a_refused_reset_changes_nothing_not_even_the_streams(game):
    g = game_class(game)(3, seed=1)
    for _ in range(5):
        g.step(g.sample_actions())
    for setup in refused_setups(game):
        for kwargs in (dict(seed=123), dict(seed=[1, 2], games=[0, 2]), dict(games=[1])):
            before = snapshot(g)
            with pytest.raises(ValueError):
                g.reset(**kwargs, **setup)
            assert snapshot(g) == before, (setup, kwargs)


@pytest.mark.parametrize("game", GAMES)
def test_a_reset_interrupted_while_dealing_puts_the_games_back_masks_included(game, monkeypatch):
    """What validation cannot catch (Ctrl-C in the middle of a deal) is undone too: states, masks, streams."""
    g = game_class(game)(3, seed=1)
    for _ in range(5):
        g.step(g.sample_actions())
    deal = g._start

    def interrupted(idx, setup):
        deal(idx, setup)
        raise KeyboardInterrupt
    monkeypatch.setattr(g, "_start", interrupted)
    before = snapshot(g)
    with pytest.raises(KeyboardInterrupt):
        g.reset(seed=123, games=[0, 2])
    assert snapshot(g) == before


# ---------------------------------------------------------------- 5. arguments naming a game or a seat
def calls_with_a_game_or_seat(g):
    """(name, call) for every method taking one game's slot or a seat, with the argument left open."""
    entry = {"pile": ["1"]} if g.name == "help" else {"pile": [[0, 1]]}
    calls = [("render_text", lambda x: g.render_text(x)), ("render_text seat", lambda x: g.render_text(0, x)),
             ("table_view", lambda x: g.table_view(x)), ("table_view seat", lambda x: g.table_view(0, x)),
             ("move_name", lambda x: g.move_name(x, 0)), ("round_setup", lambda x: g.round_setup(x)),
             ("redeal", lambda x: g.redeal(x, **g.round_setup(0))), ("reshuffles", lambda x: g.reshuffles(x)),
             ("winners", lambda x: g.winners([x])), ("info_arrays", lambda x: g.info_arrays([x])),
             ("state", lambda x: g.state([x])), ("sample_actions", lambda x: g.sample_actions([x])),
             ("observe seat", lambda x: g.observe(x))]
    if g.name != "cabo":
        calls += [("reshuffle_record", lambda x: g.reshuffle_record(x)),
                  ("force_reshuffle", lambda x: g.force_reshuffle(x, entry))]
    if g.name == "cabo":
        calls += [("seen_cards seat", lambda x: g.seen_cards(0, x)), ("hands", lambda x: g.hands(x))]
    return calls


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bad", [3, 9, -1, True, np.bool_(False), 1.0, "0", None, [0], 2**70])
def test_methods_taking_a_game_or_a_seat_refuse_what_is_not_one(game, bad):
    g = game_class(game)(2, seed=0, num_players=3 if game == "help" else 2)
    for name, call in calls_with_a_game_or_seat(g):
        if bad is None and name.endswith("seat") and name != "observe seat" and name != "seen_cards seat":
            continue            # seat None: the omniscient view
        if (bad is None or bad == [0]) and name == "observe seat":
            continue            # players None: the player to move; [0]: a list of seats
        before = snapshot(g)
        with pytest.raises(ValueError, match=r"is not allowed: .*(a game slot 0\.\.1|a seat 0\.\.\d|integers)"):
            call(bad)
        assert snapshot(g) == before, name


@pytest.mark.parametrize("game", GAMES)
def test_play_random_takes_only_a_bool_like_auto_table(game):
    g = game_class(game)(2, seed=0)
    n = g.num_players
    for auto in (np.full((2, n), 0.5), np.full((2, n), "x"), np.full((2, n), 2), np.ones((2, n + 1), bool),
                 np.ones(2, bool), [[None] * n] * 2):
        before = snapshot(g)
        with pytest.raises(ValueError, match="auto must be"):
            g.play_random(None, auto)
        assert snapshot(g) == before
    g.play_random([0], np.ones((2, n), np.uint8))
    g.play_random([1], [[True] * n, [False] * n])


# ---------------------------------------------------------------- 6. determinization
@pytest.mark.parametrize("game", GAMES)
def test_sample_states_checks_the_observation_num_samples_seed_and_config(game):
    cls = game_class(game)
    g = cls(1, seed=0)
    obs = g.observe()[0]
    good = cls.sample_states(obs, 2, g.config, seed=1)
    assert good.shape == (2,)
    other = game_class("cabo" if game != "cabo" else "help")(1, seed=0).config
    bad = {"short": (obs[:-1], 2, g.config, 1), "long": (np.append(obs, 0), 2, g.config, 1),
           "nan": (np.where(np.arange(obs.size) == 3, np.nan, obs), 2, g.config, 1),
           "inf": (np.where(np.arange(obs.size) == 0, np.inf, obs), 2, g.config, 1),
           "strings": (obs.astype(str), 2, g.config, 1), "2d": (obs[None], 2, g.config, 1),
           "none": (None, 2, g.config, 1), "huge list": ([0.0] * 10_000_000, 2, g.config, 1),
           "zero samples": (obs, 0, g.config, 1), "bool samples": (obs, True, g.config, 1),
           "float samples": (obs, 2.0, g.config, 1), "too many": (obs, MAX_GAMES + 1, g.config, 1),
           "seed -1": (obs, 2, g.config, -1), "seed str": (obs, 2, g.config, "5"),
           "seed float": (obs, 2, g.config, 1.5),
           "seed huge": (obs, 2, g.config, 2**64), "config": (obs, 2, other, 1), "config dict": (obs, 2, {}, 1),
           "counts": (np.full(obs.size, 1e30, np.float32), 2, g.config, 1)}
    for why, args in bad.items():
        with pytest.raises(ValueError):
            cls.sample_states(*args)


@pytest.mark.parametrize("game", GAMES)
def test_sample_states_of_a_tampered_observation_are_refused_or_sound(game):
    cls = game_class(game)
    g = cls(8, seed=3, num_players=4)
    for _ in range(20):
        g.step(g.sample_actions())
    rng = np.random.default_rng(2)
    refused = 0
    for t in range(80):
        obs = g.observe()[t % 8].copy()
        for _ in range(rng.integers(1, 4)):
            obs[rng.integers(obs.size)] = rng.choice([0.0, 1.0, 2.0, 0.5, 0.09, 7.0, 55.0])
        try:
            states = cls.sample_states(obs, 3, g.config, seed=t)
        except ValueError:
            refused += 1
            continue
        w = cls(3, seed=0, autoreset=False, num_players=4)
        w.load_states(states)       # sampled worlds are always sound records
    assert refused > 0


def test_quando_sample_states_refuses_an_observation_of_the_wrong_length():
    cls = game_class("quando")
    g = cls(1, seed=0, num_players=4)
    with pytest.raises(ValueError, match=r"has shape \(1151,\): a vector of 1152 finite numbers"):
        cls.sample_states(g.observe()[0][:-1], 2, g.config)


def test_counters_and_totals_have_room_for_every_option():
    """A loaded record may hold COUNT_MAX, and an episode adds at most MAX_STEPS decisions and far less than
    2**31 - COUNT_MAX - MAX_TARGET points: the int32 fields never wrap."""
    assert COUNT_MAX + MAX_STEPS < 2**31 and MAX_TARGET + 10**6 + 400 < 2**31
