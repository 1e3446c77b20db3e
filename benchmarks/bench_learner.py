"""Decisions of experience collected and trained on per second: quando_env.training.learner against SB3 MaskablePPO on
quando_env.make_vec_env, per game, all measured in the same run.

    python benchmarks/bench_learner.py [--seconds 10] [--games quando cabo help] [--threads 1] [--device cpu]

All rows train by PPO against the game's heuristic players (4 players). The learner runs its game's recipe
(quando_env.training.learner.RECIPES, warm start excluded): in `learner` some of the other seats are the learner
too (its self-play share) and their decisions are experience as well; `learner, 1 seat` plays one seat per game, as SB3
does; `learner, move scorer` adds the policy that scores each legal move from its features (move_hidden as named;
Cabo's finishing stage trains (64, 32)). The learner collects the next rollout in a second thread while it learns
from the last (Hyper.overlap, on by default: two cores); `no overlap` rows do one after the other.
--device cuda runs the learner's network on a GPU (the SB3 rows stay on the CPU; --learner-only skips them).
SB3 runs three times: with the learner's settings (its usual separate policy and value networks of the same
widths, the same epochs, minibatch, and experience per update), and with training.sb3's (32 envs, n_steps 256,
minibatch 1024, 4 epochs, 256x256 policy and value networks, no hint), and a third time with MaskablePPO's own
defaults (n_steps 2048, minibatch 64, 10 epochs, 64x64 networks) on 16 envs. Each row first runs one untimed update
(compilation, warm-up), then whole updates for about --seconds; a rate is decisions of the learner's seats over
the wall time of collecting and training on them. The ratios divide by the SB3 rows of the same game measured in
the same run, so they hold on a loaded machine; decisions per CPU-second show what a quiet core gives.
"""
import argparse
import time

from quando_env.agents import game_agents
from quando_env.training.learner import RECIPES, Hyper, Learner
from quando_env.registry import game_class


def timed(step, seconds):
    """(decisions per second, per CPU-second) of `step()` -> decisions, over whole calls for about `seconds`."""
    step()                                   # warm-up: compilation and first allocations
    wall, cpu, count = time.perf_counter(), time.process_time(), 0
    while time.perf_counter() - wall < seconds or count == 0:
        count += step()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return count / wall, count / cpu


def learner_rate(game, seconds, threads, device="cpu", **extra):
    hp = Hyper(game=game, threads=threads, device=device, **{**RECIPES[game], "bc_decisions": 0, **extra})
    learner = Learner(hp)
    return timed(lambda: learner.iteration()["rollout/decisions"], seconds), hp


def sb3_rate(game, seconds, num_players, envs, n_steps, batch_size, epochs, hidden, **ppo):
    from sb3_contrib import MaskablePPO

    from quando_env import make_vec_env

    venv = make_vec_env(envs, opponents=[game_agents(game)["heuristic"]()], seed=0, game=game,
                        num_players=num_players)
    model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=batch_size, n_epochs=epochs, seed=0,
                        device="cpu", policy_kwargs={"net_arch": list(hidden)}, **ppo)
    per_update = n_steps * envs

    def update():
        model.learn(per_update, reset_num_timesteps=False)
        return per_update
    return timed(update, seconds)


def sb3_like(hp, envs):
    """SB3 settings matching the learner's: same widths, epochs, minibatch, PPO constants, experience per update."""
    return dict(envs=envs, n_steps=max(1, hp.num_games * hp.rollout_steps // hp.num_players // envs),
                batch_size=hp.minibatch, epochs=hp.epochs, hidden=hp.hidden, learning_rate=hp.lr, gamma=hp.gamma,
                gae_lambda=hp.gae_lambda, clip_range=hp.clip, ent_coef=hp.ent_coef)


# The learner's rows after its recipe's: (name, settings changed).
LEARNER_ROWS = [("learner, 1 seat", dict(self_play_share=0.0)),
                ("learner, no overlap", dict(overlap=False)),
                ("learner, move scorer (64, 32)", dict(move_hidden=(64, 32))),
                ("learner, move scorer (128, 64)", dict(move_hidden=(128, 64))),
                ("learner, move scorer (128, 64), no overlap", dict(move_hidden=(128, 64), overlap=False))]
TRAIN_PY = dict(envs=32, n_steps=256, batch_size=1024, epochs=4, hidden=(256, 256), learning_rate=1e-4,
                gamma=0.995, clip_range=0.1, ent_coef=0.003)
DEFAULTS = dict(envs=16, n_steps=2048, batch_size=64, epochs=10, hidden=(64, 64))    # MaskablePPO's own


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=10.0, help="time per row (default 10)")
    ap.add_argument("--games", nargs="+", default=list(RECIPES), choices=list(RECIPES))
    ap.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    ap.add_argument("--sb3-envs", type=int, default=64, help="SB3 VecEnv size with the learner's settings (64)")
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="the learner's network (default cpu)")
    ap.add_argument("--learner-only", action="store_true", help="skip the SB3 rows (their ratios print as nan)")
    args = ap.parse_args()
    import torch        # after agents: quando_env sets OpenMP's wait policy before torch loads it

    torch.set_num_threads(args.threads)
    rows = []
    for game in args.games:
        featured = game_class(game).action_feature_parts is not None
        skip = (float("nan"),) * 2
        (own, own_cpu), hp = learner_rate(game, args.seconds, args.threads, args.device)
        learner_rows = [(f"learner (self-play share {hp.self_play_share:g})", (own, own_cpu))]
        for name, extra in LEARNER_ROWS:
            rate = learner_rate(game, args.seconds, args.threads, args.device, **extra)[0] \
                if featured or "move_hidden" not in extra else skip
            learner_rows.append((name, rate))
        same = skip if args.learner_only else sb3_rate(game, args.seconds, hp.num_players,
                                                        **sb3_like(hp, args.sb3_envs))
        old = skip if args.learner_only else sb3_rate(game, args.seconds, hp.num_players, **TRAIN_PY)
        default = skip if args.learner_only else sb3_rate(game, args.seconds, hp.num_players, **DEFAULTS)
        for name, (rate, cpu_rate) in (*learner_rows, ("SB3 MaskablePPO, learner's settings", same),
                                       ("SB3 MaskablePPO, training.sb3's settings", old),
                                       ("SB3 MaskablePPO, its default settings", default)):
            rows.append((game, name, rate, cpu_rate, rate / same[0], rate / old[0], rate / default[0]))
    print(f"PPO against heuristic players, 4 players, {args.threads} torch thread(s), the learner's network on "
          f"{args.device}, about {args.seconds:g} s a row\n")
    print(f"| {'game':6} | {'trainer':44} | {'decisions/s':>11} | {'per CPU-second':>14} | {'vs SB3 same':>11} "
          f"| {'vs SB3 training':>15} | {'vs SB3 default':>14} |")
    print(f"|{'-' * 8}|{'-' * 46}|{'-' * 12}:|{'-' * 15}:|{'-' * 12}:|{'-' * 16}:|{'-' * 15}:|")
    for game, name, rate, cpu_rate, r_same, r_old, r_default in rows:
        print(f"| {game:6} | {name:44} | {rate:11,.0f} | {cpu_rate:14,.0f} | {r_same:10.1f}x | {r_old:14.1f}x "
              f"| {r_default:13.1f}x |")
    return rows

if __name__ == "__main__":
    main()
