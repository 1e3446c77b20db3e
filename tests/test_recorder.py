"""The recorder inside the AEC env takes each step down and brings the record's proof up to date when the
record is read: a record read at any step is complete and proven, and reading it changes nothing."""
import copy
import json
import pickle

import numpy as np
import pytest

from quando_env.adapters.record import verify
from quando_env.registry import game_module

GAMES = ["quando", "cabo", "help"]


def random_game(env, seed, each=None):
    """Play env (reset with `seed`) to its end with random legal moves, calling each(env) after every step;
    returns the actions played."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        actions.append(action)
        if each is not None:
            each(env)
    return actions


@pytest.mark.parametrize("game", GAMES)
def test_a_record_read_at_every_step_is_proven_and_the_same_as_one_read_at_the_end(game):
    options = {"num_players": 2, "episode": "round"} if game != "help" else {"num_players": 3, "target": 1}
    read = []
    env = game_module(game).raw_env(**options)
    actions = random_game(env, 3, lambda e: read.append(json.loads(json.dumps(e.game_record()))))
    assert all(verify(r) for r in read)                     # each proof checked, round by round
    played = [a for a in actions if a is not None]
    assert [r["actions"] for r in read] == [played[:k] for k in np.cumsum([a is not None for a in actions])]
    unread = game_module(game).raw_env(**options)
    random_game(unread, 3)
    assert unread.game_record() == read[-1] == env.game_record()


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
@pytest.mark.parametrize("game", GAMES)
def test_a_copy_taken_between_reads_records_its_own_game(game, how):
    """A copy's recorder follows the copy's game (not the original's), and steps taken down but not yet
    hashed go with it."""
    env = game_module(game).raw_env(num_players=3)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(7):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    for e in (env, twin):       # different moves from here on
        for _ in range(5):
            e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    a, b = env.game_record(), twin.game_record()
    assert a["actions"][:7] == b["actions"][:7] and a["actions"] != b["actions"]
    assert verify(json.loads(json.dumps(a))) and verify(json.loads(json.dumps(b)))
