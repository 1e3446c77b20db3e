"""What each library's wrapper costs: moves per second of one game under random legal play, through the
game's own PettingZoo env and through each integration, measured in the same run.

    python benchmarks/bench_integrations.py [--game quando] [--seconds 2] [--repeats 3]

Every row plays whole games (4 players) with uniformly random legal moves, counting moves (an action played
by the seat to move; PettingZoo's closing step(None) calls are not moves):
- `raw_env()` and `env()` (PettingZoo's classic wrappers): the PettingZoo loop, `agent_iter`, `last`, `step`;
- Tianshou's `PettingZooEnv(env())`: its reset/step, a move drawn from `obs["mask"]`; and its `Collector`
  with Tianshou's masked random policy for every seat (the multi-agent algorithm, one env, a replay buffer);
- TorchRL's `PettingZooWrapper(env(), use_mask=True)`: `env.rollout`, TorchRL drawing each move from the
  masked action spec;
- RLlib's env (`quando_env.integrations.rllib.make_env`): its reset/step, a move drawn from the action mask;
- OpenSpiel (`quando_env.integrations.openspiel.register()`, `pyspiel.load_game("python_<game>")`): states,
  `information_state_tensor`, `legal_actions`, `apply_action`; and once without the tensor, as search bots play.
Every row but the last reads the mover's observation each move, as a learning agent would. Each row keeps its best of
`--repeats` interleaved measurements; moves per CPU-second (this process's CPU time) stay put when other work
shares the machine, so the ratios against `env()` and `raw_env()` of the same run are taken from them. A library
that is not installed, or an integration module not there yet,
gets a line saying so instead of a row.
"""
import argparse
import logging
import warnings
from importlib.metadata import PackageNotFoundError, version

import numpy as np
from bench_engine import timed     # this folder's: best-of timing (wall and CPU rates)

from quando_env.registry import game_module, game_names

PLAYERS = 4
VERSIONS = ("pettingzoo", "tianshou", "torchrl", "tensordict", "torch", "ray", "open_spiel", "numba")
CHUNK = 200         # moves per timed call (whole games: a call ends at a game's end past this many moves)



def legal_choice(rng, mask) -> int:
    """A uniformly random legal move of an action mask."""
    return int(rng.choice(np.flatnonzero(mask)))

def installed(distribution: str) -> bool:
    try:
        return bool(version(distribution))
    except PackageNotFoundError:
        return False


def ratio(rate, base) -> str:
    r = rate / base
    return f"{r:.2f}x" if r >= 0.1 else f"{r:.4f}x"


def pettingzoo(make):
    """The PettingZoo AEC loop over whole games (counting moves, where bench_engine's aec counts steps)."""
    env = make()
    rng = np.random.default_rng(0)
    env.reset(seed=0)

    def play():
        moves = 0
        while moves < CHUNK:
            for _ in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                else:
                    env.step(legal_choice(rng, obs["action_mask"]))
                    moves += 1
            env.reset()
        return moves
    return play


def whole_games(reset, step):
    """play() for an env driven by reset() -> obs and step(obs, rng) -> (obs, game over), the step drawing a
    random legal move from obs: whole games until CHUNK moves are done."""
    rng = np.random.default_rng(0)

    def play():
        moves = 0
        obs = reset()
        while True:
            obs, over = step(obs, rng)
            moves += 1
            if over:
                if moves >= CHUNK:
                    return moves
                obs = reset()
    return play


def tianshou_env(game):
    from tianshou.env import PettingZooEnv

    env = PettingZooEnv(game_module(game).env(num_players=PLAYERS))
    env.reset(seed=0)

    def step(obs, rng):
        obs, _, term, trunc, _ = env.step(legal_choice(rng, obs["mask"]))
        return obs, term or trunc
    return whole_games(lambda: env.reset()[0], step)


def tianshou_collector(game):
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    logging.getLogger("tianshou").setLevel(logging.ERROR)  # its per-collect log lines about 2-D returns
    make = lambda: PettingZooEnv(game_module(game).env(num_players=PLAYERS))  # noqa: E731
    env = make()
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents], env=env)
    envs = DummyVectorEnv([make])
    envs.seed(0)
    np.random.seed(0)
    collector = Collector(algorithm, envs, VectorReplayBuffer(20_000, 1))
    collector.reset()

    def play():
        return collector.collect(n_step=CHUNK).n_collected_steps
    return play


def torchrl_rollout(game):
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")
    env = PettingZooWrapper(game_module(game).env(num_players=PLAYERS), use_mask=True, seed=0)
    torch.manual_seed(0)

    def play():
        with torch.no_grad():
            return env.rollout(CHUNK, break_when_any_done=False).numel()
    return play


def rllib_env(game):
    from quando_env.integrations.rllib import make_env

    env = make_env(game, num_players=PLAYERS)
    env.reset(seed=0)

    def step(obs, rng):
        (agent, ob), = obs.items()
        obs, _, terminated, truncated, _ = env.step({agent: legal_choice(rng, ob["action_mask"])})
        return obs, terminated["__all__"] or truncated["__all__"]
    return whole_games(lambda: env.reset()[0], step)


def openspiel_states(game, tensors=True):
    """OpenSpiel random play; `tensors`: the mover's information_state_tensor read each move (what RL agents
    read; search bots such as ISMCTS only use legal_actions and apply_action)."""
    import pyspiel

    from quando_env.integrations import openspiel

    openspiel.register()
    spiel_game = pyspiel.load_game(openspiel.short_name(game), {"players": PLAYERS})   # a fresh deal per game

    def step(state, rng):
        if tensors:
            state.information_state_tensor()
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.random() * len(legal))])
        return state, state.is_terminal()
    return whole_games(spiel_game.new_initial_state, step)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=game_names(), default="quando")
    parser.add_argument("--seconds", type=float, default=2.0, help="measuring time per row and repeat")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats; each row keeps its best")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be positive and --repeats at least 1")
    game = args.game
    module = game_module(game)
    raw, env = f"{game}_v0.raw_env() (PettingZoo loop)", f"{game}_v0.env() (PettingZoo loop)"
    rows = {raw: pettingzoo(lambda: module.raw_env(num_players=PLAYERS)),
            env: pettingzoo(lambda: module.env(num_players=PLAYERS))}
    integrations = {"Tianshou PettingZooEnv(env()), reset/step": tianshou_env,
                    "Tianshou Collector, masked random policies": tianshou_collector,
                    "TorchRL PettingZooWrapper(env(), use_mask=True), rollout": torchrl_rollout,
                    "RLlib make_env (MultiAgentEnv over raw_env()), reset/step": rllib_env,
                    f"OpenSpiel python_{game}: information_state_tensor each move": openspiel_states,
                    f"OpenSpiel python_{game}: legal_actions only (search bots)":
                        lambda game: openspiel_states(game, tensors=False)}
    missing = []
    for name, build in integrations.items():
        try:
            rows[name] = build(game)
        except ImportError as e:
            missing.append(f"{name}: not measured ({e})")
    best = {}
    for r in range(args.repeats):
        for name, play in rows.items():
            best[name] = max(best.get(name, (0.0, 0.0)), timed(play, args.seconds), key=lambda r: r[1])
        print(f"  repeat {r + 1}/{args.repeats} done", flush=True)

    print(f"\n{game}, {PLAYERS} players, random legal moves; best of {args.repeats} x {args.seconds:g} s per row\n")
    print(f"| {'what':60s} | {'moves/s':>8s} | {'moves/CPU-s':>11s} | {'CPU us/move':>11s} | {'vs env()':>8s} "
          f"| {'vs raw_env()':>12s} |")
    print(f"|{'-' * 62}|{'-' * 10}|{'-' * 13}|{'-' * 13}|{'-' * 10}|{'-' * 14}|")
    for name, (rate, cpu_rate) in best.items():
        print(f"| {name:60s} | {rate:8,.0f} | {cpu_rate:11,.0f} | {1e6 / cpu_rate:11,.0f} "
              f"| {ratio(cpu_rate, best[env][1]):>8s} | {ratio(cpu_rate, best[raw][1]):>12s} |")
    for line in missing:
        print(line)
    print("versions: " + ", ".join(f"{d} {version(d)}" for d in VERSIONS if installed(d)))


if __name__ == "__main__":
    main()
