"""A game in Tianshou 2: its own PettingZooEnv takes the game's PettingZoo env as it is; masked DQN against
random seats.

    python examples/tianshou_dqn.py --game help --steps 5000

`tianshou.env.PettingZooEnv(quando_env.<game>_v0.env())` hands each policy `obs.obs` (the observation) and
`obs.mask` (the legal moves as booleans). One seat learns with DQN, whose greedy and exploring choices both
respect the mask; the other seats play Tianshou's masked random policy; Tianshou's multi-agent algorithm
routes each step to the seat's policy. The DQN updates in training mode, within Tianshou's training step (so it
explores while collecting). Its buffer holds every seat's moves in turn, so its targets are n-step returns over
one move of each seat: the points the other seats' moves bring count, and the bootstrap mostly reads the learner's
own next observation (a one-step target would read the next seat's). Prints the learner's greedy return against
the random seats' before and after training: on Help!, `--steps 5000 --eval-games 100` took the learner from
1.71 to 1.84, the random seats' level (one-step targets: 1.64).
"""
import argparse
import logging
from contextlib import contextmanager

import numpy as np
import torch
from tianshou.algorithm.modelfree.dqn import DQN, DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.utils.net.common import Net
from tianshou.utils.torch_utils import policy_within_training_step

from quando_env import game_names
from quando_env.registry import game_module

# Tianshou logs a warning for every multi-agent return array (one column per seat) it summarises.
logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)


def make_env(game: str, **config) -> PettingZooEnv:
    return PettingZooEnv(game_module(game).env(**config))


def dqn_vs_random(env: PettingZooEnv, hidden: int = 128, lr: float = 1e-3, eps: float = 0.1):
    """Tianshou's multi-agent algorithm with a DQN learner in the first seat and masked random play in the
    others. Returns (algorithm, the learner's DQN)."""
    obs_space = env.observation_space["observation"]
    net = Net(state_shape=obs_space.shape, action_shape=env.action_space.n, hidden_sizes=[hidden])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, observation_space=obs_space,
                                     eps_training=eps, eps_inference=0.0)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=lr), gamma=0.99, target_update_freq=100,
                  n_step_return_horizon=len(env.agents))
    others = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents[1:]]
    return MultiAgentOffPolicyAlgorithm(algorithms=[learner, *others], env=env), learner


@contextmanager
def training_step(algorithm, learner):
    """Tianshou's training-step switch, set on the multi-agent policy (its update() requires it) and on the
    learner's own policy (DQN's exploration reads its own flag, which the multi-agent policy does not set)."""
    with policy_within_training_step(algorithm.policy), policy_within_training_step(learner.policy):
        yield


def train(algorithm, learner, seat: str, collector, steps: int, collect_per_update: int = 16,
          batch_size: int = 64) -> list:
    """About `steps` env steps of collection (every seat's moves), one DQN gradient step per `collect_per_update`
    of them. Returns the losses of the learner, who plays `seat`."""
    losses = []
    with training_step(algorithm, learner):
        collector.collect(n_step=batch_size, reset_before_collect=True)
        while collector.collect_step < steps:
            collector.collect(n_step=collect_per_update)
            stats = algorithm.update(collector.buffer, sample_size=batch_size)
            losses.append(stats.get_loss_stats_dict()[f"{seat}/loss"])
    return losses


def evaluate(algorithm, game: str, episodes: int, seed: int, **config) -> np.ndarray:
    """Mean return per seat over `episodes` games, the learner greedy (no exploration, mask respected)."""
    envs = DummyVectorEnv([lambda: make_env(game, **config)])
    envs.seed(seed)
    stats = Collector(algorithm, envs).collect(n_episode=episodes, reset_before_collect=True)
    return stats.returns.mean(axis=0)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=game_names(), default="quando")
    parser.add_argument("--steps", type=int, default=3000, help="env steps of training (all seats' moves)")
    parser.add_argument("--eval-games", type=int, default=20)
    parser.add_argument("--buffer", type=int, default=20_000, help="replay buffer size")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for name in ("steps", "eval_games", "buffer", "hidden"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    np.random.seed(args.seed)       # Tianshou's random policies and exploration draw from numpy's global stream
    torch.manual_seed(args.seed)
    env = make_env(args.game)
    algorithm, learner = dqn_vs_random(env, hidden=args.hidden)
    before = evaluate(algorithm, args.game, args.eval_games, seed=args.seed + 1)
    envs = DummyVectorEnv([lambda: make_env(args.game)])
    envs.seed(args.seed)
    buffer = VectorReplayBuffer(args.buffer, len(envs))
    collector = Collector(algorithm, envs, buffer, exploration_noise=True)
    losses = train(algorithm, learner, env.agents[0], collector, args.steps)
    after = evaluate(algorithm, args.game, args.eval_games, seed=args.seed + 1)
    print(f"{args.game}: {collector.collect_step} steps, {len(losses)} DQN gradient steps, last loss "
          f"{losses[-1]:.4f}" if losses else f"{args.game}: {collector.collect_step} steps, no gradient step")
    for label, returns in (("before", before), ("after", after)):
        print(f"{label} training: learner {returns[0]:.2f}, random seats {returns[1:].mean():.2f} "
              f"(mean return over {args.eval_games} games)")
    envs.close()
    return {"before": before, "after": after, "losses": losses, "steps": collector.collect_step}


if __name__ == "__main__":
    main()
