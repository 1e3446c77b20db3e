"""The standing invariant run of issue 20: over a million random legal decisions per game (Quando, Cabo,
Help!), in batches with and without autoreset, every step judged by tests/invariant_checks.py (cards
conserved, a non-empty mask exactly when a game is live, rewards matching the totals, finite observations
inside their documented ranges, consistent flags and counters); and, so that a broken checker cannot pass
silently, every invariant shown to catch a violation planted in a copy of what a step showed.

The play is seeded (each batch's seed gives the games and sample_actions' streams), so a failure replays.
"""
import numpy as np
import pytest

from invariant_checks import Rules, Tracker, check_step, every_seat_violations, run, step_once
from quando_env.registry import game_class

BATCH = 512
STEPS = 256         # BATCH * STEPS = 131,072 decisions per configuration, 8 configurations per game

# Per game: (options, autoreset, events the run must see). Small max_steps hit truncation, small hands
# and rows run the piles dry (oya and Help! reshuffles), every player count and option is covered.
CONFIGS = {
    "quando": [
        (dict(num_players=2), True, ("game_over",)),
        (dict(num_players=3, edition="oya", reward="win"), False, ("game_over",)),
        (dict(num_players=4, episode="round"), False, ("game_over",)),
        (dict(num_players=5, edition="oya", episode="round", reward="win", knock_penalty=0), True, ("game_over",)),
        (dict(num_players=6, hand_size=9, max_steps=40), False, ("game_over", "truncated")),
        (dict(num_players=6, edition="oya", hand_size=9, target_score=10, knock_min_turns=0, first_dealer=2,
              reward="win"), False, ("game_over", "reshuffles")),
        (dict(num_players=5, edition="oya", hand_size=10, max_steps=30, target_score=40), True,
         ("game_over", "truncated", "reshuffles")),
        (dict(num_players=3, hand_size=5, target_score=20, knock_penalty=20, knock_min_turns=5, reward="win",
              max_steps=60), False, ("game_over", "truncated")),
    ],
    "cabo": [
        (dict(num_players=2), True, ("game_over",)),
        (dict(num_players=3, reward="win"), False, ("game_over",)),
        (dict(num_players=4, episode="round", tie_doubles=True), False, ("game_over",)),
        (dict(num_players=5, hand_size=8, peek=0, knocker_final_turn=False), True, ("game_over",)),
        (dict(num_players=6, hand_size=8, turn_limit=0, max_steps=25), False, ("game_over", "truncated")),
        (dict(num_players=6, hand_size=1, peek=1, target=20, dealer=3, reward="win"), False, ("game_over",)),
        (dict(num_players=4, turn_limit=5, target=30, max_steps=30), True, ("game_over", "truncated")),
        (dict(num_players=2, hand_size=6, peek=6, episode="round", reward="win", turn_limit=0, max_steps=12), False,
         ("game_over", "truncated")),
    ],
    "help": [
        (dict(num_players=3), True, ("game_over",)),
        (dict(num_players=4, reward="win", reshuffle="flip"), False, ("game_over",)),
        (dict(num_players=5, episode="round"), False, ("game_over",)),
        (dict(num_players=3, hand_size=3, row_max=2), True, ("game_over", "reshuffles")),
        (dict(num_players=3, hand_size=3, row_max=2, reshuffle="flip", reward="win", target=5), False,
         ("game_over", "reshuffles")),
        (dict(num_players=5, hand_size=6, max_steps=15), False, ("game_over", "truncated")),
        (dict(num_players=4, hand_size=6, row_max=3, open_lowest=False, target=1, reward="win"), False,
         ("game_over", "reshuffles")),
        (dict(num_players=4, hand_size=5, row_max=4, target=5, max_steps=20), True, ("game_over", "truncated")),
    ],
}
CASES = [(name, i, *config) for name, configs in CONFIGS.items() for i, config in enumerate(configs)]


def case_id(case):
    name, i, options, autoreset, _ = case
    return f"{name}-{i}-" + "-".join(f"{k}={v}" for k, v in options.items()) + ("-autoreset" if autoreset else "")


@pytest.mark.parametrize("name", list(CONFIGS))
def test_each_game_runs_at_least_a_million_decisions(name):
    assert len(CONFIGS[name]) * BATCH * STEPS >= 1_000_000


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_invariants_hold_after_every_step_of_random_play(case):
    name, i, options, autoreset, events = case
    game = game_class(name)(BATCH, seed=1000 * i + 7, autoreset=autoreset, **options)
    report = run(game, STEPS)
    assert report.failures == {}, f"invariants broken ({report.events}): {report.failures}"
    assert report.decisions == BATCH * STEPS       # every game is live at every step: the count is exact
    assert report.events["round_over"] > 0
    for event in events:
        assert report.events[event] > 0, f"the run never saw {event}: {report.events}"


def test_random_play_is_reproducible():
    reports, states = [], []
    for _ in range(2):
        game = game_class("quando")(64, seed=11, autoreset=False, num_players=4, edition="oya", max_steps=50)
        reports.append(run(game, 64))
        states.append(game.states.tobytes())
    assert reports[0] == reports[1] and states[0] == states[1]


# ---------------------------------------------------------------- the checker catches planted violations
PLANT_OPTIONS = {"quando": dict(num_players=4, target_score=10), "cabo": dict(num_players=3, target=20),
                 "help": dict(num_players=4, target=1)}


def ended_step(name, reward, autoreset):
    """A small batch played until a step ends some game's episode while others go on: the game, its
    Rules, the Tracker before that step, the step's Snapshot, a game that ended and one that goes on."""
    game = game_class(name)(64, seed=5, autoreset=autoreset, reward=reward, **PLANT_OPTIONS[name])
    rules = Rules.of(game)
    track = Tracker.fresh(game.num_games, rules.n)
    for _ in range(500):
        snap = step_once(game)
        ended = snap.game_over
        going = ~(snap.round_over | snap.game_over | snap.truncated)
        if ended.any() and going.any():
            return game, rules, track, snap, int(np.flatnonzero(ended)[0]), int(np.flatnonzero(going)[0])
        track.advance(snap)
        if not autoreset and (snap.game_over | snap.truncated).any():
            game.reset(games=np.flatnonzero(snap.game_over | snap.truncated))
    raise AssertionError("no game ended")


def first(where):
    return int(np.flatnonzero(where)[0])


def plant_duplicate_card(name, s):
    """A copy of one card in place of another (Help!: a card of one kind turned into another)."""
    if name == "quando":
        g = first(s["ndraw"] >= 2)
        s["draw"][g, 0] = s["draw"][g, 1]
    elif name == "cabo":
        g, p, i = np.argwhere((s["slot"] >= 0) & (s["ndisc"] >= 1)[:, None, None])[0]
        s["disc"][g, 0] = s["slot"][g, p, i]
    else:
        g = first(s["dend"] > s["dpos"])
        s["draw"][g, s["dpos"][g]] = (s["draw"][g, s["dpos"][g]] + 1) % 15
    return int(g)


def plant_misplaced_card(name, s):
    """A held card said to be somewhere it is not (Help!, whose cards have no places: a row too long)."""
    if name == "quando":
        g, c = np.argwhere(s["loc"] == 0)[0]
        s["loc"][g, c] = 1
    elif name == "cabo":
        g, p, i = np.argwhere(s["slot"] >= 0)[0]
        s["pos"][g, s["slot"][g, p, i]] = (i + 1) % 8
    else:
        g = 0
        s["nrow"][g] = 6
    return int(g)


def put(g, where, index, value):
    """A plant writing `value` (or value(copy)) at `index` of the Snapshot copy's array `where` (an attribute,
    or "states.<field>"); it breaks game g."""
    def plant(c):
        array = c.states[where[7:]] if where.startswith("states.") else getattr(c, where)
        array[index] = value(c) if callable(value) else value
        return g
    return plant


def plants(name, rules, g_end, g_live):
    """(invariant, plant) pairs for the step's mode: each plant breaks one game of a Snapshot copy."""
    n, e, v = rules.n, g_end, g_live
    phase, to_move, totals = (rules.sections[k][0] for k in ("phase", "to_move", "totals"))
    one = int(np.flatnonzero(rules.hi == 1.0)[0])       # an entry documented as <= 1
    out = [
        ("cards_conserved", lambda c: plant_duplicate_card(name, c.states)),
        ("row_valid" if name == "help" else "card_places_agree", lambda c: plant_misplaced_card(name, c.states)),
        ("mask_live", put(v, "mask", v, False)),
        ("over_phase", put(v, "states.phase", v, rules.over_phase)),
        ("sampled_legal", put(v, "actions", v, lambda c: first(~c.mask_before[v]))),
        ("episode_flags", put(e, "truncated", e, True)),
        ("episode_flags", put(v, "game_over", v, True)),
        ("truncation", put(v, "truncated", v, True)),
        ("counters", put(v, "states.round", v, lambda c: c.states["round"][v] + 1)),
        ("counters", put(e, "states.steps", e, lambda c: c.states["steps"][e] + 1)),
        ("totals", put(v, "states.total", (v, 0), lambda c: c.states["total"][v, 0] + 1)),
        ("return_bounds", put(e, "rewards", (e, 0), -1e6)),
        ("state_finite", put(v, "state", (v, 3), np.nan)),
        ("obs_range", put(v, "obs", (v, 0), np.nan)),
        ("obs_range", put(v, "obs", (v, one), 1.5)),
        ("obs_range", put(v, "obs", (v, one), -0.5)),
        ("obs_phase", lambda c: put(v, "obs", (v, phase + c.states["phase"][v]), 0.0)(c)),
        ("obs_to_move", put(v, "obs", (v, to_move), 0.0)),
        ("obs_totals", put(v, "obs", (v, totals + n - 1), 0.123)),    # no total / target is 0.123
    ]
    if rules.win:
        out += [("rewards", put(v, "rewards", (v, 0), 1.0)), ("rewards", put(e, "rewards", e, -1.0))]
    else:
        out += [("rewards", put(v, "rewards", (v, n - 1), lambda c: c.rewards[v, n - 1] + 1))]
    if not rules.autoreset:
        out += [("mask_live", put(e, "mask", (e, 0), True)),
                ("winners", put(e, "winners", e, lambda c: ~c.winners[e])),
                ("target_rule", put(e, "states.total", (e, slice(0, n)), 0))]
    return out


@pytest.mark.parametrize("autoreset", [False, True], ids=["no-autoreset", "autoreset"])
@pytest.mark.parametrize("reward", ["points", "win"])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_every_invariant_catches_a_planted_violation(name, reward, autoreset):
    game, rules, track, snap, g_end, g_live = ended_step(name, reward, autoreset)
    clean = check_step(rules, track, snap)
    assert not any(where.any() for where in clean.values()), {k: np.flatnonzero(v) for k, v in clean.items()}
    caught = set()
    for invariant, plant in plants(name, rules, g_end, g_live):
        bad = snap.copy()
        g = plant(bad)
        assert check_step(rules, track, bad)[invariant][g], f"{invariant} missed a violation planted in game {g}"
        caught.add(invariant)
    # with autoreset, a game that ended is already a new one: its winners and final totals are gone
    assert caught == set(clean) - ({"winners", "target_rule"} if autoreset else set())


@pytest.mark.parametrize("name", list(CONFIGS))
def test_every_seat_check_catches_wrong_observations_and_infos(name, monkeypatch):
    game, rules, *_ = ended_step(name, "points", False)
    assert not any(where.any() for where in every_seat_violations(rules, game).values())
    observe, info_arrays = game.observe, game.info_arrays

    def bad_observe(players=None, games=None):
        obs = observe(players=players, games=games)
        obs[3, 0] = np.inf
        return obs

    def bad_infos(games=None):
        info = info_arrays(games)
        info["rounds_done"][5, 0] += 1
        return info

    monkeypatch.setattr(game, "observe", bad_observe)
    monkeypatch.setattr(game, "info_arrays", bad_infos)
    bad = every_seat_violations(rules, game)
    assert bad["obs_range"][3] and bad["info"][5]
    assert np.flatnonzero(bad["obs_range"]).tolist() == [3] and np.flatnonzero(bad["info"]).tolist() == [5]
