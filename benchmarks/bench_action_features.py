"""What legal-move features cost: VectorGame.action_features against observe on the same games.

    python benchmarks/bench_action_features.py [--games 4096] [--repeats 7]

Per game with move features, at its fewest players and at 4: the seconds of one call over a batch of positions
from random play (the fastest of the repeats, each call allocating its output as users get it), the output's
size per game, and the ratio action_features / observe, both measured in the same run. "kernel s" is the
game's feature kernel alone writing into an output allocated once: what the features cost beyond making the
(games, num_actions, F) array, whose page faults dominate where the observation is small.
"""
import argparse
import time

import numpy as np

from quando_env.registry import game_class, game_names


def fastest(fn, repeats: int) -> float:
    fn()                                                   # compile and warm outside the timing
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def player_counts(cls) -> list[int]:
    """The game's fewest players, and 4."""
    for n in range(1, 11):
        try:
            cls.config_class(num_players=n)
        except ValueError:
            continue
        return sorted({n, 4})
    raise ValueError(f"{cls.name} accepts no player count up to 10")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=4096)
    p.add_argument("--repeats", type=int, default=7)
    args = p.parse_args()
    print(f"{'game':<8} {'players':>7} {'obs floats':>10} {'feature floats':>14} {'observe s':>10} "
          f"{'features s':>10} {'ratio':>6} {'kernel s':>9} {'ratio':>6}")
    for name in game_names():
        cls = game_class(name)
        if cls.action_feature_parts is None:
            continue
        for n in player_counts(cls):
            g = cls(args.games, seed=1, num_players=n)
            for _ in range(40):
                g.step(g.sample_actions())
            t_obs = fastest(g.observe, args.repeats)
            t_feat = fastest(g.action_features, args.repeats)
            games = np.arange(args.games, dtype=np.int64)
            out = np.zeros((args.games, g.num_actions, g.action_feature_dim), np.float32)
            kernel = g.kernels_for(args.games).action_features
            t_kernel = fastest(lambda: kernel(g.states, games, g.cfg, out), args.repeats)
            print(f"{name:<8} {n:>7} {g.obs_dim:>10} {g.num_actions * g.action_feature_dim:>14} {t_obs:>10.4f} "
                  f"{t_feat:>10.4f} {t_feat / t_obs:>6.2f} {t_kernel:>9.4f} {t_kernel / t_obs:>6.2f}")


if __name__ == "__main__":
    main()
