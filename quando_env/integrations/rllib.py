"""Every game on RLlib (Ray's new API stack): a turn-based MultiAgentEnv, PPO self-play with action masks.

- `make_env(game, **config)`: the game's PettingZoo AEC env (the raw one, which raises ValueError on an
  illegal action, so a masking failure cannot hide) as an RLlib `MultiAgentEnv` whose agents are the seats
  0..n-1. Only the seat to move gets an observation; every step hands every seat the reward that fell to
  it, whoever moved (RLlib's episode adds them up until that seat's next turn); at the end every seat gets
  its last observation and the terminated/truncated flags with "__all__".
- Observations are `{"observations": vector, "action_mask": mask}`: PettingZoo's key is "observation",
  RLlib's action-masking module reads "observations"; this module is the one place that renames it.
- `register()` names the envs "quando_v0", "cabo_v0", "help_v0" for `config.environment("cabo_v0")`.
- `ppo_config(game, **config)`: PPO with one shared self-play policy (every seat maps to it) on RLlib's
  `ActionMaskingTorchRLModule`, small defaults for 2 cores, and the metric "illegal_actions" counted from the
  sampled actions against their masks. Override anything with the usual config methods. RLlib's env
  pre-check is off (it steps with an unmasked random action, which our env refuses) and a failing env
  runner stops training instead of being restarted (so an illegal action is never papered over).
- `load_policy(checkpoint)`: a trained policy as `act(obs, masks) -> actions` on numpy batches, so code
  without RLlib knowledge can evaluate it. A checkpoint is code: RLlib unpickles it, so load only files you
  trust.
"""
import os

import numpy as np
from gymnasium import spaces

from ..checks import shown
from ..extras import needs
from ..registry import game_module, game_names

with needs("rllib", "quando_env.integrations.rllib"):
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

POLICY = "shared"                  # the one module every seat plays
OBS_KEY = "observations"           # where RLlib's action-masking module reads the observation vector
ILLEGAL_ACTIONS = "illegal_actions"  # the env runners' metric: sampled actions their mask forbade


def env_name(game: str) -> str:
    """RLlib's name of a game's env: "cabo" -> "cabo_v0"."""
    game_module(game)       # ValueError for an unknown game
    return f"{game}_v0"


class TurnBasedEnv(MultiAgentEnv):
    """One game of a PettingZoo AEC env as an RLlib MultiAgentEnv, one agent acting per step.

    Agents are the seat numbers 0..n-1 (the AEC env's "player_i"): RLlib keeps agent ids in sets, and
    strings hash differently in every process while integers do not, so integer ids make the same seed
    train the same policy in every run.
    """

    def __init__(self, aec_env):
        super().__init__()
        self.aec = aec_env
        self.names = list(aec_env.possible_agents)          # seat -> the AEC env's agent name
        self.seat = {name: i for i, name in enumerate(self.names)}
        self.possible_agents = list(range(len(self.names)))
        self.agents = list(self.possible_agents)
        self.observation_spaces = {}
        for i, name in enumerate(self.names):
            space = aec_env.observation_space(name)
            self.observation_spaces[i] = spaces.Dict({OBS_KEY: space["observation"],
                                                      "action_mask": space["action_mask"]})
        self.action_spaces = {i: aec_env.action_space(name) for i, name in enumerate(self.names)}

    def observe(self, seat: int) -> dict:
        ob = self.aec.observe(self.names[seat])
        return {OBS_KEY: ob["observation"], "action_mask": ob["action_mask"]}

    def to_move(self) -> int:
        """The seat whose turn it is."""
        return self.seat[self.aec.agent_selection]

    def reset(self, *, seed=None, options=None):
        """A new game. RLlib seeds only the first reset; the AEC env goes on with that seed's stream."""
        self.aec.reset(seed=seed, options=options)
        seat = self.to_move()
        return {seat: self.observe(seat)}, {seat: dict(self.aec.infos[self.names[seat]])}

    def step(self, action_dict):
        """Play the action of the seat to move: one integer (int or numpy integer) its mask allows, else
        ValueError and nothing changes (the AEC env checks it)."""
        e = self.aec
        mover = self.to_move()
        if not isinstance(action_dict, dict) or set(action_dict) != {mover}:
            raise ValueError(f"seat {mover} is to move: give exactly its action, {{{mover}: action}}, got "
                             f"{shown(action_dict)}")
        e.step(action_dict[mover])
        rewards = {self.seat[name]: float(r) for name, r in e.rewards.items()}
        name = self.names[mover]
        terminated, truncated = e.terminations[name], e.truncations[name]
        # At the end every seat gets its last observation: RLlib needs one to close a truncated episode.
        seats = self.possible_agents if terminated or truncated else [self.to_move()]
        obs = {i: self.observe(i) for i in seats}
        infos = {i: dict(e.infos[self.names[i]]) for i in seats}
        terminateds = {**dict.fromkeys(self.possible_agents, terminated), "__all__": terminated}
        truncateds = {**dict.fromkeys(self.possible_agents, truncated), "__all__": truncated}
        return obs, rewards, terminateds, truncateds, infos

    def render(self):
        return self.aec.render()

    def close(self):
        self.aec.close()


def make_env(game: str, **config) -> TurnBasedEnv:
    """The RLlib MultiAgentEnv of `game` with the game's options (e.g. num_players=3)."""
    return TurnBasedEnv(game_module(game).raw_env(**config))


def register() -> list[str]:
    """Register every game's env with Tune's registry, so RLlib finds it by name; returns the names."""
    names = []
    for game in game_names():
        name = env_name(game)
        register_env(name, lambda cfg, game=game: make_env(game, **cfg))
        names.append(name)
    return names


def shared_policy(agent_id, episode=None, **kwargs) -> str:
    """Self-play: every seat is played by the one shared module."""
    return POLICY


def count_illegal_actions(episodes) -> int:
    """The actions in these episode chunks whose observation's mask forbade them (each step's action lies
    in exactly one chunk of its episode, so the chunks of every `EnvRunner.sample()` count each once)."""
    count = 0
    for episode in episodes:
        for sa in episode.agent_episodes.values():
            n = len(sa)
            if n:
                obs = sa.get_observations(slice(0, n))      # a dict of arrays once the episode is numpy'd
                masks = obs["action_mask"] if isinstance(obs, dict) else np.stack([o["action_mask"] for o in obs])
                actions = np.asarray(sa.get_actions(slice(0, n)), np.int64)
                count += int((masks[np.arange(n), actions] == 0).sum())
    return count


def log_illegal_actions(*, samples, metrics_logger, **kwargs) -> None:
    """on_sample_end callback: the env runners' metric "illegal_actions", summed per iteration."""
    metrics_logger.log_value(ILLEGAL_ACTIONS, count_illegal_actions(samples), reduce="sum")


def ppo_config(game: str, **config) -> PPOConfig:
    """A ready PPOConfig for self-play on `game` (options in `config`, e.g. num_players=3)."""
    make_env(game, **config).close()      # bad game names and options fail here, not inside a Ray worker
    register()
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        # RLlib's env pre-check steps the env with an action sampled from the whole action space, ignoring
        # the mask; our env raises on an illegal action (as it must), so the check is switched off. The env
        # contract it checks is tested with legal actions in tests/test_rllib.py.
        .environment(env_name(game), env_config=config, disable_env_checking=True)
        .multi_agent(policies={POLICY}, policy_mapping_fn=shared_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY: RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            model_config=DefaultModelConfig(fcnet_hiddens=[64, 64], vf_share_layers=True))}))
        # sample_timeout_s: RLlib's 60 s default ran out on a busy 2-core machine (the runner's first sample loads
        # the compiled engine), and train() then returned a result without its "env_runners" entries.
        .env_runners(num_env_runners=1, num_envs_per_env_runner=1, num_cpus_per_env_runner=1, sample_timeout_s=600)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=512, minibatch_size=128, num_epochs=2, lr=3e-4)
        .callbacks(on_sample_end=log_illegal_actions)
        # RLlib's default restarts an env runner whose env raised and samples on without it: an illegal
        # action would stall training quietly (train() then returns after the sample timeout with no
        # episodes). Stopping instead makes a masking failure loud; re-enable for long cluster runs.
        .fault_tolerance(restart_failed_env_runners=False)
        .debugging(seed=0)
    )


class CheckpointPolicy:
    """A trained module as `act(obs (B, d), masks (B, A)) -> actions (B,)`: the most likely legal action."""

    def __init__(self, module):
        self.module = module

    def act(self, obs, masks) -> np.ndarray:
        obs = np.asarray(obs, np.float32)
        masks = np.asarray(masks, np.float32)
        if obs.ndim != 2 or masks.ndim != 2 or obs.shape[0] != masks.shape[0]:
            raise ValueError(f"act takes obs (B, d) and masks (B, num_actions); got {obs.shape} and {masks.shape}")
        with torch.no_grad():
            out = self.module.forward_inference(
                {Columns.OBS: {OBS_KEY: torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}})
        return out[Columns.ACTION_DIST_INPUTS].argmax(dim=-1).numpy().astype(np.int64)

    __call__ = act


def load_policy(checkpoint: str, module_id: str = POLICY) -> CheckpointPolicy:
    """The policy `module_id` of a checkpoint that `Algorithm.save(checkpoint)` wrote.

    Load only checkpoints you trust: RLlib unpickles the module's class and state from it (cloudpickle), so a
    crafted checkpoint runs any code it holds."""
    path = os.path.join(checkpoint, "learner_group", "learner", "rl_module", module_id)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"no module {module_id!r} in an RLlib checkpoint at {checkpoint!r} (looked for {path})")
    module = RLModule.from_checkpoint(path)
    module.eval()
    return CheckpointPolicy(module)
