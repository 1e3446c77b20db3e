"""A game in TorchRL: TorchRL's own PettingZooWrapper takes the game's PettingZoo env as it is.

    python examples/torchrl_rollout.py --game cabo --games 3

Wraps `quando_env.<game>_v0.env()` with `PettingZooWrapper(env, use_mask=True)` (turn-based envs need the
per-seat "mask" of who acts; each seat's legal moves come as `(seat, "action_mask")`), checks the specs with
`check_env_specs`, and plays whole games with a policy every seat shares: a small untrained network whose
logits go through TorchRL's `MaskedCategorical`, so it samples legal moves only. Prints each seat's return.
"""
import argparse
import warnings

import torch
from tensordict.nn import InteractionType, ProbabilisticTensorDictModule, TensorDictModule, TensorDictSequential
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType, check_env_specs
from torchrl.modules import MLP, MaskedCategorical

from quando_env import game_names
from quando_env.registry import game_module

# TorchRL warns on every PettingZoo version but the one it is tested with (1.24.3); 1.27 works.
warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")


def wrap(game: str, seed: int = 0, **config) -> PettingZooWrapper:
    """The game's PettingZoo env in TorchRL, all seats in one group ("agents") so one network plays them."""
    return PettingZooWrapper(game_module(game).env(**config), use_mask=True,
                             group_map=MarlGroupMapType.ALL_IN_ONE_GROUP, seed=seed)


def masked_policy(env: PettingZooWrapper, hidden: int = 64) -> TensorDictSequential:
    """Per group: an MLP from the observation to logits, sampled through MaskedCategorical with the group's
    action_mask (the seats not to move get an all-true mask from the wrapper; their actions are ignored)."""
    modules = []
    for group in env.group_map:
        obs_dim = env.observation_spec[group, "observation", "observation"].shape[-1]
        num_actions = env.full_action_spec[group, "action"].space.n
        modules.append(TensorDictModule(MLP(in_features=obs_dim, out_features=num_actions, num_cells=[hidden]),
                                        in_keys=[(group, "observation", "observation")],
                                        out_keys=[(group, "logits")]))
        modules.append(ProbabilisticTensorDictModule(
            in_keys={"logits": (group, "logits"), "mask": (group, "action_mask")}, out_keys=[(group, "action")],
            distribution_class=MaskedCategorical, default_interaction_type=InteractionType.RANDOM))
    return TensorDictSequential(*modules)


def play_games(env: PettingZooWrapper, policy, games: int, max_steps: int = 100_000) -> list:
    """Whole games, each to the episode's done flag: one TensorDict per game, as `env.rollout` returns it."""
    rollouts = []
    with torch.no_grad():
        for _ in range(games):
            td = env.rollout(max_steps, policy=policy, break_when_any_done=True)
            if not td["next", "done"][-1].item():
                raise RuntimeError(f"a game did not end within max_steps={max_steps}")
            rollouts.append(td)
    return rollouts


def seat_returns(env: PettingZooWrapper, td) -> dict:
    """Each seat's return in one rollout: the sum of its rewards (every seat gets its reward at every step)."""
    returns = {}
    for group, agents in env.group_map.items():
        total = td["next", group, "reward"].sum(0).reshape(-1)
        returns.update({agent: float(total[i]) for i, agent in enumerate(agents)})
    return returns


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=game_names(), default="quando")
    parser.add_argument("--games", type=int, default=3, help="whole games to play")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    torch.manual_seed(args.seed)
    env = wrap(args.game, seed=args.seed)
    check_env_specs(env)
    print(f"{args.game}: check_env_specs passed; groups {env.group_map}")
    rollouts = play_games(env, masked_policy(env), args.games)
    results = []
    for i, td in enumerate(rollouts):
        returns = seat_returns(env, td)
        results.append(returns)
        print(f"game {i}: {td.shape[0]} steps, returns " + ", ".join(f"{a} {r:g}" for a, r in returns.items()))
    env.close()
    return results


if __name__ == "__main__":
    main()
