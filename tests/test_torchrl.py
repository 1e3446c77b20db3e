"""TorchRL's own PettingZooWrapper on every game's PettingZoo env, as it is (issue 13): the specs check, and
whole games rolled out to the episode's done flag with moves drawn from the action mask, replayed on the plain
env to show every move was legal and every reward arrived.

The wrapper builds its info spec from the infos at reset, so an info key that appeared later (as Quando's
`round_points` once did) crashed the rollout at the first round end; the games' options below make each
game last several rounds, so rounds end inside the rollout.
"""
import runpy
from pathlib import Path

import pytest
import torch
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType, check_env_specs

import quando_env
from quando_env.registry import game_module

# TorchRL warns on every PettingZoo version but the one it is tested with (1.24.3); 1.27 works.
pytestmark = pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "torchrl_rollout.py"
# Targets high enough that random play needs several rounds to end the game.
SEVERAL_ROUNDS = {"quando": {"target_score": 150}, "cabo": {"target": 200}, "help": {}}
GROUPINGS = {"seat_groups": None, "one_group": MarlGroupMapType.ALL_IN_ONE_GROUP}


def wrapped(game, grouping=None, **config):
    return PettingZooWrapper(game_module(game).env(**config), use_mask=True, group_map=grouping, return_state=True)


def rollout(env, seed):
    """One whole game from reset(seed), each move drawn by TorchRL from the masked action spec."""
    torch.manual_seed(seed)
    start = env.reset(seed=seed)
    return env.rollout(10_000, auto_reset=False, tensordict=start, break_when_any_done=True)


def moves_and_rewards(env, td):
    """The (seat, action) each step played, found through the wrapper's per-seat "mask", and each seat's
    rewards summed over the rollout."""
    moves = [None] * td.shape[0]
    returns = {}
    for group, agents in env.group_map.items():
        acting = td[group, "mask"]
        actions = td[group, "action"]
        rewards = td["next", group, "reward"].sum(0).reshape(-1)
        for i, agent in enumerate(agents):
            returns[agent] = float(rewards[i])
            for t in torch.nonzero(acting[:, i]).flatten().tolist():
                assert moves[t] is None, f"two seats act at step {t}"
                moves[t] = (agent, int(actions[t, i]))
    assert None not in moves, "a step without an acting seat"
    return moves, returns


@pytest.mark.parametrize("grouping", GROUPINGS)
@pytest.mark.parametrize("game", quando_env.game_names())
def test_rollout_plays_whole_legal_games(game, grouping):
    config = SEVERAL_ROUNDS[game]
    env = wrapped(game, GROUPINGS[grouping], **config)
    check_env_specs(env)
    raw = game_module(game).raw_env(**config)
    raw.reset(seed=3)
    info_keys = set(raw.infos["player_0"])
    for group in env.group_map:
        assert set(env.observation_spec[group, "info"].keys()) == info_keys
    td = rollout(env, seed=3)

    done = td["next", "done"].reshape(-1)
    assert done[-1] and not done[:-1].any()
    assert td["next", "terminated"].reshape(-1)[-1]
    group = next(iter(env.group_map))
    rounds_done = td["next", group, "info", "rounds_done"][:, 0]
    assert rounds_done[-1] >= 2 and (rounds_done[:-1] > 0).any(), "no round ended before the game did"

    # The same moves on the plain env (which raises on an illegal move) give the same rewards and end there.
    moves, returns = moves_and_rewards(env, td)
    replayed = dict.fromkeys(raw.possible_agents, 0.0)
    for agent, action in moves:
        assert raw.agent_selection == agent
        raw.step(action)
        for a, r in raw.rewards.items():
            replayed[a] += r
    assert all(raw.terminations.values())
    assert returns == pytest.approx(replayed)


def test_same_seed_same_games():
    """Seeded once, TorchRL resets unseeded after each game: the later games follow from the seed too."""
    runs = []
    for _ in range(2):
        env = wrapped("quando")
        env.set_seed(11)
        torch.manual_seed(11)
        runs.append(env.rollout(150, break_when_any_done=False))
    first, second = runs
    assert first["next", "done"].any(), "no game ended: the test saw no unseeded reset"
    for group in ("player_0", "player_1", "player_2", "player_3"):
        for key in ((group, "observation", "observation"), (group, "action"), ("next", group, "reward")):
            assert torch.equal(first[key], second[key])


def test_wrapper_refuses_a_turn_based_env_without_mask():
    with pytest.raises(ValueError, match="use_mask=True"):
        PettingZooWrapper(quando_env.env(), use_mask=False)


@pytest.mark.parametrize("game", quando_env.game_names())
def test_example_plays_whole_games(game, capsys):
    results = runpy.run_path(str(EXAMPLE))["main"](["--game", game, "--games", "1", "--seed", "2"])
    out = capsys.readouterr().out
    assert "check_env_specs passed" in out and "game 0:" in out
    assert len(results) == 1 and set(results[0]) == set(game_module(game).env().possible_agents)
