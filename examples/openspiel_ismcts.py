"""A game in OpenSpiel: OpenSpiel's Python ISMCTS bot against uniform random bots.

    python examples/openspiel_ismcts.py --game cabo --games 10 --simulations 20
    python examples/openspiel_ismcts.py --game quando --speed 5000     # random play: OpenSpiel vs the env

`quando_env.integrations.openspiel.register()` makes every game a pyspiel game ("python_cabo", ...). The ISMCTS
bot (random-rollout evaluator) samples worlds through the state's `resample_from_infostate`, our
determinization; it takes seat k mod n in game k, the other seats play uniformly at random. Prints each
game's returns, ISMCTS's mean return against the random seats' and the ISMCTS decision time (the loop steps the
bots itself to time each decision; `pyspiel.evaluate_bots(state, bots, seed)` plays the same bots as they are).
Game options go as `--param key=value` (e.g. `--param episode=round` for one-round episodes, `--param players=3`).

`--speed STEPS` instead times random play for STEPS moves through the OpenSpiel state and through the
game's own PettingZoo raw env, in the same run. Times are this process's CPU time (time.process_time), so a
busy shared machine does not inflate them; run with NUMBA_NUM_THREADS=1 (one-game engines run serially).
"""
import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.bots import uniform_random

from quando_env import game_names
from quando_env.integrations import openspiel
from quando_env.registry import game_module


def play(game_name: str, games: int, simulations: int, seed: int = 0, **params) -> dict:
    """`games` games of ISMCTS (seat k mod n in game k) against random bots: returns per game, the ISMCTS
    seat per game, and the CPU seconds and count of ISMCTS decisions (forced single moves are not searched)."""
    openspiel.register()
    out = {"returns": [], "seats": [], "seconds": 0.0, "decisions": 0}
    for k in range(games):
        game = pyspiel.load_game(openspiel.short_name(game_name), {**params, "seed": seed + k})
        n = game.num_players()
        seat = k % n
        bots = [uniform_random.UniformRandomBot(p, np.random.RandomState(seed + 1000 * k + p)) for p in range(n)]
        bots[seat] = openspiel.ismcts_bot(game, simulations, seed + k)
        state = game.new_initial_state()
        while not state.is_terminal():
            p = state.current_player()
            searched = p == seat and len(state.legal_actions()) > 1
            t = time.process_time()
            action = bots[p].step(state)
            if searched:
                out["seconds"] += time.process_time() - t
                out["decisions"] += 1
            state.apply_action(action)
        out["returns"].append(state.returns())
        out["seats"].append(seat)
    return out


def random_play_speed(game_name: str, steps: int, seed: int = 0, **params) -> dict:
    """Steps per CPU second of uniformly random play through the OpenSpiel state and through the PettingZoo raw
    env (both with new games as needed), same moves' rule, same run."""
    openspiel.register()
    game = pyspiel.load_game(openspiel.short_name(game_name), {**params, "seed": seed})
    rs = np.random.RandomState(seed)
    t = time.process_time()
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            state = game.new_initial_state()
        legal = state.legal_actions()
        state.apply_action(legal[rs.randint(len(legal))])
    spiel = steps / (time.process_time() - t)
    config = {("num_players" if k == "players" else k): v for k, v in params.items()}
    env = game_module(game_name).raw_env(**config)
    env.reset(seed=seed)
    t = time.process_time()
    for _ in range(steps):
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.reset()
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(legal[rs.randint(len(legal))]))
    return {"openspiel": spiel, "env": steps / (time.process_time() - t)}


def parse_params(items: list[str]) -> dict:
    """`key=value` pairs as OpenSpiel parameters: ints, true/false, else strings."""
    params = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--param {item!r}: write key=value")
        if value.lstrip("-").isdigit():
            params[key] = int(value)
        elif value.lower() in ("true", "false"):
            params[key] = value.lower() == "true"
        else:
            params[key] = value
    return params


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", choices=game_names(), default="quando")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--simulations", type=int, default=20, help="ISMCTS simulations per decision")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--param", action="append", default=[], help="a game parameter, key=value")
    parser.add_argument("--speed", type=int, default=0, help="time STEPS random moves instead (OpenSpiel vs env)")
    args = parser.parse_args(argv)
    params = parse_params(args.param)
    if args.speed:
        speed = random_play_speed(args.game, args.speed, args.seed, **params)
        print(f"{args.game}: random play {speed['openspiel']:.0f} steps/s (CPU) through the OpenSpiel state, "
              f"{speed['env']:.0f} steps/s through the PettingZoo raw env")
        return
    out = play(args.game, args.games, args.simulations, args.seed, **params)
    mine, others = [], []
    for k, (returns, seat) in enumerate(zip(out["returns"], out["seats"])):
        print(f"game {k}: ISMCTS at player {seat}; returns {returns}")
        mine.append(returns[seat])
        others.extend(r for p, r in enumerate(returns) if p != seat)
    ms = 1000 * out["seconds"] / max(out["decisions"], 1)
    print(f"ISMCTS ({args.simulations} simulations) mean return {np.mean(mine):.2f}, random bots "
          f"{np.mean(others):.2f}; {ms:.1f} ms (CPU) per decision over {out['decisions']} decisions")


if __name__ == "__main__":
    main()
