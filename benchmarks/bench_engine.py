"""Engine and AEC speed, each as a ratio against a baseline measured in the same run.

    python benchmarks/bench_engine.py [--seconds 1] [--repeats 3] [--only engine|aec]

Rows: VectorGame with 4096 games under uniformly random legal play (sampling included) on 1 thread and
on all of numba's threads, against each other and against the plain-Python reference of
tests/quando_reference.py; the single AEC env (recording, as users get it) in the loop the quick start shows (an
observe per step, `np.random.choice` over the mask) against PettingZoo's texas_holdem_v4 and
leduc_holdem_v4 in the same loop (needs rlcard and pygame, from the `dev` extra). The CPU column
counts steps per CPU-second of the whole process (all threads), which stays put when other work shares
the machine.
"""
import argparse
import os
import random
import sys
import time

import numba
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import quando_env  # noqa: E402
from quando_env.registry import game_class, game_module, game_names  # noqa: E402


def timed(step, seconds):
    """Call step() (which returns how many env steps it made) for about `seconds`: (steps per second,
    steps per CPU-second)."""
    step()  # warm-up (numba compilation, first reset)
    n, t0, c0 = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        n += step()
    return n / (time.perf_counter() - t0), n / max(time.process_time() - c0, 1e-9)


def vector_game(cls, num_games, threads):
    g = cls(num_games, seed=0)

    def step():
        numba.set_num_threads(threads)
        g.step(g.sample_actions())
        return num_games
    return step


def new_reference_round(game, rng):
    """A plain-Python reference round of `game` (4 players) on a random deck, from tests/."""
    if game == "quando":
        from quando_reference import RefRound
        pairs = [[a, b] for a in range(11) for b in range(a + 1, 11)]
        rng.shuffle(pairs)
        return RefRound(4, [p if rng.random() < 0.5 else p[::-1] for p in pairs], 3)
    if game == "cabo":
        from cabo_reference import CaboRound
        return CaboRound(4, rng.sample(range(52), 52), 3)
    from help_reference import HelpRound, full_deck
    return HelpRound(4, rng.sample(full_deck(), 105), reshuffle="flip")


def reference(game):
    """Random legal play in the reference, a new round whenever one ends."""
    rng = random.Random(0)
    state = {"r": new_reference_round(game, rng)}

    def step():
        r = state["r"]
        try:
            r.step(rng.choice(r.legal_actions()))
        except Exception:  # noqa: BLE001 - e.g. Quando's oya reshuffle (not played in kendi): start anew
            state["r"] = new_reference_round(game, rng)
        if r.round_over or getattr(r, "truncated", False):
            state["r"] = new_reference_round(game, rng)
        return 1
    return step


def aec(make_env):
    """The quick start's loop (README), counting env steps."""
    e = make_env()
    np.random.seed(0)
    e.reset(seed=0)

    def step():
        n = 0
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
            else:
                e.step(int(np.random.choice(np.flatnonzero(obs["action_mask"]))))
            n += 1
            if n >= 200:
                return n
        e.reset()
        return max(n, 1)
    return step


def null_env():
    """The floor: an AEC env that does no work, behind the same three wrappers as PettingZoo's classic
    envs. No wrapped env can step faster than this."""
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers

    class Null(AECEnv):
        metadata = {"name": "null_v0", "is_parallelizable": False, "render_modes": []}
        possible_agents = ["a", "b"]
        obs = {"observation": np.zeros(4, np.float32), "action_mask": np.ones(2, np.int8)}

        def observation_space(self, agent):
            return spaces.Dict({"observation": spaces.Box(0, 1, (4,)), "action_mask": spaces.Box(0, 1, (2,))})

        def action_space(self, agent):
            return spaces.Discrete(2)

        def reset(self, seed=None, options=None):
            self.agents = self.possible_agents[:]
            self.rewards = {a: 0.0 for a in self.agents}
            self._cumulative_rewards = {a: 0.0 for a in self.agents}
            self.terminations = {a: False for a in self.agents}
            self.truncations = {a: False for a in self.agents}
            self.infos = {a: {} for a in self.agents}
            self.agent_selection = "a"
            self.t = 0

        def observe(self, agent):
            return self.obs

        def step(self, action):
            if self.terminations[self.agent_selection]:
                return self._was_dead_step(action)
            self.t += 1
            if self.t >= 100:
                self.terminations = {a: True for a in self.agents}
            self.agent_selection = "b" if self.agent_selection == "a" else "a"
            self._accumulate_rewards()

    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
        wrappers.TerminateIllegalWrapper(Null(), illegal_reward=-1)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=1.0, help="measuring time per row and repeat")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats; each row keeps its best")
    parser.add_argument("--games", nargs="+", default=game_names(), choices=game_names(),
                        help="the games whose engines to measure (default: all)")
    parser.add_argument("--only", choices=("engine", "aec"), help="only the engine rows, or only the AEC rows")
    args = parser.parse_args()
    # name -> (stepper, baseline name or None)
    threads = numba.get_num_threads()
    cases, same = {}, []
    for game in args.games if args.only != "aec" else ():
        cls = game_class(game)
        ref, one, many = (f"{game}: reference (plain Python, 1 game)", f"{game}: VectorGame, 4096 games, 1 thread",
                          f"{game}: VectorGame, 4096 games, {threads} threads")
        cases.update({ref: (reference(game), None), one: (vector_game(cls, 4096, 1), ref),
                      many: (vector_game(cls, 4096, threads), ref), f"{game}:   the same against 1 thread": (None, one),
                      f"{game}: VectorGame, 256 games, {threads} threads": (vector_game(cls, 256, threads), ref)})
        same.append((f"{game}:   the same against 1 thread", many))
    try:
        if args.only == "engine":
            raise ImportError("not measured (--only engine)")
        from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4
        cases.update({
            "texas_holdem_v4.env() (PettingZoo)": (aec(texas_holdem_v4.env), None),
            "leduc_holdem_v4.env() (PettingZoo)": (aec(leduc_holdem_v4.env), None),
            "texas_holdem_v4.raw_env() (PettingZoo)": (aec(texas_holdem_v4.raw_env), None),
            "floor: a no-op env with the same wrappers": (aec(null_env), "texas_holdem_v4.env() (PettingZoo)"),
            "quando_env.env(), 4 players": (aec(lambda: quando_env.env(num_players=4)),
                                            "texas_holdem_v4.env() (PettingZoo)"),
            "  the same against leduc_holdem_v4.env()": (None, "leduc_holdem_v4.env() (PettingZoo)"),
            "leduc_holdem_v4.raw_env() (PettingZoo)": (aec(leduc_holdem_v4.raw_env), None),
            "quando_env.raw_env(), 4 players": (aec(lambda: quando_env.raw_env(num_players=4)),
                                                "texas_holdem_v4.raw_env() (PettingZoo)"),
            "  the same against leduc_holdem_v4.raw_env()": (None, "leduc_holdem_v4.raw_env() (PettingZoo)"),
        })
        for game in args.games:
            if game != "quando":
                cases[f"{game}_v0.raw_env(), 4 players"] = (aec(lambda game=game: game_module(game).raw_env()),
                                                            "leduc_holdem_v4.raw_env() (PettingZoo)")
    except ImportError as e:
        print(f"(PettingZoo poker baselines unavailable: {e}; install the dev extra)")
        if args.only != "engine":
            cases["quando_env.env(), 4 players"] = (aec(lambda: quando_env.env(num_players=4)), None)
    best = {}
    for r in range(args.repeats):
        for name, (step, _) in cases.items():
            if step is not None:
                best[name] = max(best.get(name, (0.0, 0.0)), timed(step, args.seconds))
        print(f"  repeat {r + 1}/{args.repeats} done", flush=True)
    for row, of in (*same, ("  the same against leduc_holdem_v4.env()", "quando_env.env(), 4 players"),
                    ("  the same against leduc_holdem_v4.raw_env()", "quando_env.raw_env(), 4 players")):
        best[row] = best.get(of, (0.0, 0.0))

    print()
    print(f"| {'what':55s} | {'steps/s':>12s} | {'ratio':>8s} | {'steps/CPU-second':>16s} |")
    print(f"|{'-' * 57}|{'-' * 14}|{'-' * 10}|{'-' * 18}|")
    for name, (_, base) in cases.items():
        ratio = f"{best[name][0] / best[base][0]:.2f}x" if base in best else ""
        print(f"| {name:55s} | {best[name][0]:12,.0f} | {ratio:>8s} | {best[name][1]:16,.0f} |")
    print(f"\nratios: against the row named in the code (reference; 1 thread; texas_holdem_v4 env/raw_env; "
          f"leduc_holdem_v4); numba threads: {threads} (NUMBA_NUM_THREADS).")
    for game in args.games:
        g = game_class(game)(1, seed=0)
        size = sum(x.nbytes for x in (g.states, g.masks, g.rewards, g.flags, g.action_streams))
        print(f"memory per game in {game}'s VectorGame (4 players): {size:,} bytes (state record "
              f"{g.states.nbytes:,} B, mask, rewards, flags, action stream)")


if __name__ == "__main__":
    main()
