"""The PettingZoo AEC environment (quando_env.env / raw_env): API and seeding tests, reset options,
rewards and infos, episode ends, illegal moves, bad options, state() and rendering. Rule ids refer to
quando_env/quando/RULES.md."""
import logging
import re
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import quando_env
from quando_env.quando.cards import action_name

EDITIONS = ["kendi", "oya"]
PLAYERS = [2, 3, 4, 5, 6]
KNOCK, PASS, TAKE_UP = 119, 120, 121


def play_random(env, seed, knock_weight=1.0, on_step=None):
    """Play env (already reset) to its end with random legal actions, the PettingZoo way: sum each agent's
    reward from last() on its every turn, step None for the finished. knock_weight < 1 knocks rarely.
    on_step(env, agent, action) is called after each live step. Returns (returns, [(seat, action)])."""
    rng = np.random.default_rng(seed)
    returns = {a: 0.0 for a in env.possible_agents}
    moves = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        returns[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        w = obs["action_mask"].astype(np.float64)
        w[KNOCK] *= knock_weight
        a = int(rng.choice(len(w), p=w / w.sum()))
        env.step(a)
        moves.append((int(agent.split("_")[1]), a))
        if on_step is not None:
            on_step(env, agent, a)
    return returns, moves


def game_of(env):
    return env.unwrapped.game


def deck_of_all_pairs(seed):
    """A shuffled deck (R4) whose every side we know: 55 [up, down] pairs, top first."""
    rng = np.random.default_rng(seed)
    pairs = [[a, b] for a in range(11) for b in range(a + 1, 11)]
    rng.shuffle(pairs)
    return [p if rng.random() < 0.5 else p[::-1] for p in pairs]


# ---------------------------------------------------------------- PettingZoo's own tests
@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_api_test(n, edition):
    api_test(quando_env.env(num_players=n, edition=edition), num_cycles=300)


@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize("options", [dict(episode="round", reward="win"), dict(max_steps=15)],
                         ids=["round-win", "max_steps"])
@pytest.mark.quick
def test_pettingzoo_api_test_other_episode_ends(options):
    api_test(quando_env.env(num_players=3, **options), num_cycles=300)


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_seed_test(n, edition):
    seed_test(lambda: quando_env.env(num_players=n, edition=edition), num_cycles=300)


# ---------------------------------------------------------------- reset options (R4-R6)
@pytest.mark.parametrize("n,dealer", [(2, 0), (3, 1), (4, 3), (5, 2), (6, 4)])
def test_R5_R6_reset_options_deal_the_given_deck(n, dealer):
    deck = deck_of_all_pairs(n)
    env = quando_env.env(num_players=n)
    env.reset(seed=1, options={"deck": deck, "dealer": dealer})
    game = game_of(env)
    h = game.config.hand
    for p in range(n):
        # R5: one card at a time from the top, starting left of the dealer; up side = back, down = front.
        dealt = [deck[i] for i in range(n * h) if i % n == (p - dealer - 1) % n]
        assert game.hands(0)[p] == [(down, up) for up, down in dealt]
    draw, discard = game.piles(0)
    assert draw == [tuple(c) for c in deck[n * h:]] and discard == []
    # R6: the player left of the dealer starts.
    assert env.agent_selection == f"player_{(dealer + 1) % n}"
    first = env.unwrapped.game_record()["rounds"][0]
    assert first == {"dealer": dealer, "deck": deck}


def test_R6_dealer_moves_clockwise_after_each_round():
    env = quando_env.raw_env(num_players=4)
    env.reset(seed=2, options={"dealer": 1})
    dealers = [int(game_of(env).states[0]["dealer"])]
    starters = [env.agent_selection]

    def note_round(env, agent, action):
        if game_of(env).round_over[0] and not env.terminations[agent]:
            dealers.append(int(game_of(env).states[0]["dealer"]))
            starters.append(env.agent_selection)
    play_random(env, 2, on_step=note_round)
    assert len(dealers) >= 2
    assert dealers == [(1 + r) % 4 for r in range(len(dealers))]
    assert starters == [f"player_{(d + 1) % 4}" for d in dealers]


def test_R4_reset_options_deck_is_dealt_in_the_first_round_only_and_the_seed_still_counts():
    deck = deck_of_all_pairs(7)
    e1, e2 = quando_env.raw_env(num_players=3), quando_env.raw_env(num_players=3)
    e1.reset(seed=1, options={"deck": deck})
    e2.reset(seed=2, options={"deck": deck})
    assert game_of(e1).hands(0) == game_of(e2).hands(0)
    round_ends = {e1: [], e2: []}   # number of actions when each round ended

    def note(env, agent, action):
        if game_of(env).round_over[0]:
            round_ends[env].append(len(env.game_record()["actions"]))
    play_random(e1, 0, on_step=note)
    play_random(e2, 0, on_step=note)
    r1, r2 = e1.game_record()["rounds"], e2.game_record()["rounds"]
    assert len(r1) >= 2 and len(r2) >= 2
    assert r1[0] == r2[0] == {"dealer": 2, "deck": deck}
    # kendi has no chance inside a round: the same policy plays round 1 alike; the seeds deal round 2.
    k = round_ends[e1][0]
    assert round_ends[e2][0] == k > 10
    assert e1.game_record()["actions"][:k] == e2.game_record()["actions"][:k]
    assert r1[1]["deck"] != r2[1]["deck"] and r1[1]["deck"] != deck


@pytest.mark.parametrize("bad,problem", [
    (lambda d: d[:54], "deck has 54 cards"),
    (lambda d: d + [[0, 1]], "deck has 56 cards"),
    (lambda d: [d[1]] + d[1:], "deck cards 0 and 1 are both"),
    (lambda d: [[d[0][0], 11]] + d[1:], r"deck card 0 is \[\d+, 11\]: numbers must be 0\.\.10"),
    (lambda d: [[-1, d[0][1]]] + d[1:], "numbers must be 0..10"),
    (lambda d: [[3, 3]] + d[1:], "the two sides of a card differ"),
    (lambda d: [[1, 2, 3]] + d[1:], "each card is an \\[up, down\\] pair"),
    (lambda d: "not a deck", "deck must be a list of 55"),
], ids=["short", "long", "duplicate", "eleven", "negative", "same-sides", "triple", "string"])
def test_R1_R4_bad_deck_in_options_raises_naming_the_problem(bad, problem):
    env = quando_env.env(num_players=4)
    with pytest.raises(ValueError, match=problem):
        env.reset(seed=0, options={"deck": bad(deck_of_all_pairs(0))})


@pytest.mark.parametrize("dealer", [-1, 4, "1"])
def test_R6_bad_dealer_in_options(dealer):
    env = quando_env.env(num_players=4)
    with pytest.raises(ValueError, match=r"dealer=.* a seat 0\.\.3"):
        env.reset(seed=0, options={"dealer": dealer})


# ---------------------------------------------------------------- rewards and infos (R17-R19)
@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("n", [2, 4, 6])
def test_R17_R19_points_reward_is_minus_round_points_and_returns_minus_totals(n, edition):
    env = quando_env.env(num_players=n, edition=edition)
    env.reset(seed=n)
    game = game_of(env)
    rounds = []

    def check(env, agent, action):
        rewards = env.unwrapped.rewards
        if game.round_over[0]:
            points = game.round_points[0].tolist()
            rounds.append(points)
            assert [rewards[a] for a in env.possible_agents] == [-p for p in points]
            assert [env.infos[a]["round_points"] for a in env.possible_agents] == points
        else:
            assert all(r == 0 for r in rewards.values())
    returns, _ = play_random(env, n, on_step=check)
    totals = game.totals[0].tolist()
    assert len(rounds) >= 2, "want a game of several rounds"
    assert np.sum(rounds, axis=0).tolist() == totals
    assert [returns[a] for a in env.possible_agents] == [-t for t in totals]
    # R19: the game ended because a total reached the target (kendi >= 50, oya > 50).
    assert max(totals) >= 50 if edition == "kendi" else max(totals) > 50


def win_game(seed, n, **options):
    env = quando_env.env(num_players=n, reward="win", **options)
    env.reset(seed=seed)
    steps = []
    returns, _ = play_random(env, seed, on_step=lambda e, a, x: steps.append(dict(e.unwrapped.rewards)))
    return env, returns, steps


@pytest.mark.parametrize("seed", range(4))
def test_R19_win_reward_plus_one_to_winners_minus_one_to_others(seed):
    env, returns, steps = win_game(seed, 4)
    totals = game_of(env).totals[0]
    expected = {a: 1.0 if totals[i] == totals.min() else -1.0 for i, a in enumerate(env.possible_agents)}
    assert returns == expected
    assert all(r == 0 for s in steps[:-1] for r in s.values()), "win rewards come only at game end"
    assert steps[-1] == expected


@pytest.mark.parametrize("seed", [25, 59])
def test_R17_R19_win_reward_ties_give_several_winners(seed):
    # Seeds found by search: one round (episode="round") where two players tie with the lowest sum.
    env, returns, _ = win_game(seed, 3, episode="round")
    totals = game_of(env).totals[0]
    winners = [a for i, a in enumerate(env.possible_agents) if totals[i] == totals.min()]
    assert len(winners) == 2
    assert returns == {a: 1.0 if a in winners else -1.0 for a in env.possible_agents}


def test_infos_have_the_same_keys_from_reset_on_and_round_points_once_a_round_ended():
    """Libraries such as TorchRL build their specs at reset: every key is there from the start, and
    round_points is 0 with rounds_done == 0 until a round has ended."""
    env = quando_env.env(num_players=3)
    env.reset(seed=5)
    game = game_of(env)
    seen_rounds = []

    def check(env, agent, action):
        sums = [sum(front for front, _ in hand) for hand in game.hands(0)]
        rounds = int(game.states[0]["round"])
        for i, a in enumerate(env.possible_agents):
            info = env.infos[a]
            assert set(info) == {"hand_sum", "score", "round_points", "rounds_done"}
            assert info["hand_sum"] == sums[i] and info["score"] == int(game.totals[0, i])
            assert info["rounds_done"] == rounds
            assert info["round_points"] == (int(game.round_points[0, i]) if rounds else 0)
        seen_rounds.append(rounds)
    sums0 = [sum(front for front, _ in hand) for hand in game.hands(0)]
    assert [env.infos[a] for a in env.possible_agents] == [
        {"hand_sum": s, "score": 0, "round_points": 0, "rounds_done": 0} for s in sums0]
    play_random(env, 5, on_step=check)
    assert seen_rounds[0] == 0 and seen_rounds[-1] > 0


# ---------------------------------------------------------------- episode ends (R14-R16, D6)
@pytest.mark.parametrize("edition", EDITIONS)
def test_episode_round_ends_after_one_round(edition):
    env = quando_env.env(num_players=4, edition=edition, episode="round")
    env.reset(seed=3)
    game = game_of(env)
    returns, moves = play_random(env, 3)
    record = env.unwrapped.game_record()
    assert len(record["rounds"]) == 1 and record["result"]["terminated"] and not record["result"]["truncated"]
    assert int(game.states[0]["round"]) == 1
    assert game.totals[0].tolist() == game.round_points[0].tolist()
    assert [returns[a] for a in env.possible_agents] == [-p for p in game.round_points[0].tolist()]
    assert env.agents == []


@pytest.mark.parametrize("edition", EDITIONS)
def test_D6_max_steps_truncates(edition):
    env = quando_env.raw_env(num_players=4, edition=edition, max_steps=12)
    env.reset(seed=0)
    for k in range(12):
        assert not any(env.truncations.values()) and not any(env.terminations.values())
        mask = env.observe(env.agent_selection)["action_mask"].copy()
        mask[KNOCK] = 0  # never knock (oya asks after every draw); no round ends within 12 steps
        env.step(int(np.flatnonzero(mask)[0]))
    assert all(env.truncations.values()) and set(env.truncations) == set(env.possible_agents)
    assert not any(env.terminations.values())
    assert env.game_record()["result"] == {"totals": [0, 0, 0, 0], "terminated": False, "truncated": True}
    for agent in env.agent_iter():
        assert env.last()[3]
        env.step(None)
    assert env.agents == []


# ---------------------------------------------------------------- illegal moves and bad options
def test_raw_env_illegal_action_raises_naming_action_and_legal_ones():
    env = quando_env.raw_env(num_players=3)
    env.reset(seed=0)
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    assert TAKE_UP not in legal
    before = game_of(env).states.copy()
    with pytest.raises(ValueError) as err:
        env.step(TAKE_UP)
    msg = str(err.value)
    assert f"action {TAKE_UP} (take the visible side) is illegal" in msg
    listed = msg.split("legal:")[1]
    assert all(f"{a} ({action_name(a)})" in listed for a in legal)
    assert (game_of(env).states == before).all() and env.game_record()["actions"] == []


@pytest.mark.parametrize("bad", [-1, 134])
def test_raw_env_out_of_range_action_raises(bad):
    env = quando_env.raw_env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=rf"action {bad} is out of range 0\.\.133; legal: "):
        env.step(bad)


@pytest.mark.parametrize("bad", [-1, 134])
def test_wrapped_env_out_of_range_action_asserts_as_pettingzoo_classic(bad):
    env = quando_env.env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(AssertionError):
        env.step(bad)


def test_wrapped_env_illegal_move_terminates_with_minus_one_for_the_mover():
    env = quando_env.env(num_players=3)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    mover = env.agent_selection
    assert mover == "player_0" and env.last()[0]["action_mask"][TAKE_UP]  # the turn's draw
    illegal = int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(illegal)
    assert all(env.terminations.values())
    returns = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert term
        returns[agent] += reward
        env.step(None)
    assert returns == {a: (-1.0 if a == mover else 0.0) for a in env.possible_agents}
    assert env.agents == []


def test_stepping_after_the_end(caplog):
    env = quando_env.env(num_players=2)
    env.reset(seed=4)
    play_random(env, 4)
    record = env.unwrapped.game_record()
    n_actions, totals = len(record["actions"]), game_of(env).totals.copy()
    with caplog.at_level(logging.WARNING):
        env.step(0)
    assert "step() called after all agents are terminated or truncated" in caplog.text
    assert len(record["actions"]) == n_actions and (game_of(env).totals == totals).all()
    # A finished agent not yet removed may only step None (PettingZoo's rule for dead agents).
    env = quando_env.raw_env(num_players=2, max_steps=3)
    env.reset(seed=4)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert all(env.truncations.values())
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(19)
    assert len(env.game_record()["actions"]) == 3


@pytest.mark.parametrize("option,value,allowed", [
    ("num_players", 1, "2 to 6 players"), ("num_players", 7, "2 to 6 players"), ("num_players", 4.0, "2 to 6"),
    ("num_players", True, "2 to 6"),
    ("edition", "classic", r"choose one of \('kendi', 'oya'\)"),
    ("episode", "match", r"choose one of \('game', 'round'\)"),
    ("reward", "score", r"choose one of \('points', 'win'\)"),
    ("hand_size", 0, r"an integer 1\.\.13: 4 players \* hand_size <= 55 cards"),
    ("hand_size", 14, r"an integer 1\.\.13: 4 players \* hand_size <= 55 cards"),
    ("target_score", 0, r"an integer 1\.\.1000000000"), ("target_score", 50.5, r"an integer 1\.\.1000000000"),
    ("knock_penalty", -1, r"an integer 0\.\.1000000"),
    ("knock_min_turns", -1, r"an integer 0\.\.32767"), ("knock_min_turns", "2", r"an integer 0\.\.32767"),
    ("first_dealer", 4, r"a seat 0\.\.3"), ("first_dealer", -1, r"a seat 0\.\.3"),
    ("max_steps", 0, r"an integer 1\.\.1000000000"), ("max_steps", None, r"an integer 1\.\.1000000000"),
    ("render_mode", "rgb", r"choose one of \['ansi', 'human', 'rgb_array'\] or None"),
])
def test_bad_option_values_raise_saying_what_is_allowed(option, value, allowed):
    kwargs = {"num_players": 4, option: value}
    for make in (quando_env.env, quando_env.raw_env):
        with pytest.raises(ValueError, match=rf"{option}={re.escape(repr(value))} is not allowed: .*{allowed}"):
            make(**kwargs)


def test_unknown_option_raises():
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['players'\]; the options are .*'num_players'"):
        quando_env.env(players=4)


@pytest.mark.parametrize("n,hand", [(2, 8), (3, 8), (4, 7), (6, 7)])
def test_R3_default_hand_sizes(n, hand):
    env = quando_env.env(num_players=n)
    env.reset(seed=0)
    assert [len(h) for h in game_of(env).hands(0)] == [hand] * n


# ---------------------------------------------------------------- state()
@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("n", [2, 5])
def test_state_matches_state_space_and_follows_the_game(n, edition):
    env = quando_env.env(num_players=n, edition=edition)
    env.reset(seed=8)
    space = env.unwrapped.state_space
    states = [env.unwrapped.state()]

    def check(env, agent, action):
        states.append(env.unwrapped.state())
    play_random(env, 8, knock_weight=0.1, on_step=check)
    assert len(states) > 40
    for s in states:
        assert s.shape == space.shape and s.dtype == space.dtype and space.contains(s)
    # Every decision changes something in the full state (cards, phase, seat to move, knock).
    assert all(not np.array_equal(a, b) for a, b in zip(states, states[1:]))
    env.reset(seed=8)
    assert np.array_equal(env.unwrapped.state(), states[0])


# ---------------------------------------------------------------- rendering
def table_lines(text):
    """{seat: [(front, back) tokens]} and the draw pile's shown cards, as strings."""
    hands = {int(m[1]): [tuple(t.split("/")) for t in m[2].split()]
             for m in re.finditer(r"player_(\d+)(?: \(you\))?: \d+ cards \[([^\]]*)\]", text)}
    draw = re.search(r"draw pile: \d+ cards, from the top: ([^\n.]*)", text)[1].split()
    return hands, [tuple(t.split("/")) for t in draw]


@pytest.mark.parametrize("viewer", [0, 1, 2])
def test_K1_K2_K4_render_of_a_seat_shows_only_what_it_has_seen(viewer):
    n, dealer = 3, 2
    deck = deck_of_all_pairs(11)
    env = quando_env.env(num_players=n, render_mode="ansi")
    env.reset(seed=0, options={"deck": deck, "dealer": dealer})
    text = env.unwrapped.render(seat=viewer)
    assert f"view of player_{viewer}" in text
    hands, draw = table_lines(text)
    h = game_of(env).config.hand
    for p in range(n):
        dealt = [deck[i] for i in range(n * h) if i % n == (p - dealer - 1) % n]
        if p == viewer:   # own fronts (the down sides); own backs unseen (D1)
            assert hands[p] == [(str(down), "?") for up, down in dealt]
        else:             # others' backs (the up sides); their fronts unseen
            assert hands[p] == [("?", str(up)) for up, down in dealt]
    # K2: the top of the draw pile shows its up side; nothing else of the pile is known.
    assert draw[0] == (str(deck[n * h][0]), "?") and all(c == ("?", "?") for c in draw[1:])
    # The omniscient view shows every side.
    hands, draw = table_lines(env.unwrapped.render_omniscient())
    for p in range(n):
        dealt = [deck[i] for i in range(n * h) if i % n == (p - dealer - 1) % n]
        assert hands[p] == [(str(down), str(up)) for up, down in dealt]
    assert draw == [(str(u), str(d)) for u, d in deck[n * h: n * h + 8]]


def test_K_render_of_a_seat_does_not_change_with_sides_it_has_not_seen():
    """Swap the fronts of two of player_1's cards (moving two unseen pile cards to keep a valid deck):
    player_0's and player_2's views stay the same, player_1's changes."""
    n, dealer = 3, 2
    base = [[a, b] for a in range(11) for b in range(a + 1, 11)]
    x, y, z, w = [1, 2], [3, 4], [1, 4], [3, 2]   # x, y dealt to player_1; z, w at the bottom
    rest = [p for p in base if sorted(p) not in ([1, 2], [3, 4], [1, 4], [2, 3])]
    deck1 = [rest[0], x, rest[1], rest[2], y] + rest[3:] + [z, w]
    deck2 = [rest[0], z, rest[1], rest[2], w] + rest[3:] + [x, y]   # player_1's cards: up 1 and 3 again
    views = []
    for deck in (deck1, deck2):
        env = quando_env.env(num_players=n, render_mode="ansi")
        env.reset(seed=0, options={"deck": deck, "dealer": dealer})
        views.append([env.unwrapped.render(seat=s) for s in range(n)] + [env.unwrapped.render_omniscient()])
    assert views[0][0] == views[1][0] and views[0][2] == views[1][2]
    assert views[0][1] != views[1][1] and views[0][3] != views[1][3]


def test_render_modes():
    env = quando_env.env(num_players=2, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "view of player_0" in text and "legal:" in text
    raw = quando_env.raw_env(num_players=2, render_mode="human")
    raw.reset(seed=0)
    assert raw.render() is None
    quiet = quando_env.raw_env(num_players=2)
    quiet.reset(seed=0)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert quiet.render() is None
    assert "omniscient view" in quiet.render_omniscient()
