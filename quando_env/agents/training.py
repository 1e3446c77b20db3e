"""Self-play training of a MaskablePPO policy on quando_env.make_vec_env, for any game with a heuristic
agent: `python -m quando_env.agents.training --game G` (the SB3 path; train.py runs the batched learner,
agents.learner).

1. Warm start (behaviour cloning): the policy imitates the game's heuristic and the value head learns the
   discounted returns of heuristic games, on games played in VectorGame batches (no opponent sees more than
   its observation; the data is the heuristic's own decisions).
2. PPO against an opponent pool: heuristic entries mixed with frozen snapshots of the learner. Every
   `eval_every` steps the learner plays `eval_games` games against three heuristic players; when its win
   rate beats the best so far, a snapshot joins the pool (the oldest leaves when it is full) and the model is
   saved as best_model.zip.
"""
import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from quando_env.checks import printable
from quando_env import argtypes
from quando_env.files import replace_file, write_text
from quando_env.registry import game_class, game_names

from . import game_agents
from .evaluation import play_match
from .ppo import DEFAULT_MODEL, PPOAgent, with_hint
from .stops import Stopped, lock_folder, sigterm_stops

PROG = "python -m quando_env.agents.training"


def heuristic_of(game: str):
    """A new instance of the game's heuristic agent."""
    return game_agents(game)["heuristic"]()


# ---------------------------------------------------------------- warm start data
def heuristic_games(num_games: int, seed: int, gamma: float, reward_scale: float, num_players: int = 4,
                    agent=None, *, game: str, **config):
    """Play num_games games of `game` with `agent` (default: the game's heuristic) in every seat. Returns (obs,
    masks, actions, returns): every decision, and the discounted return the deciding seat collected from it on,
    counted as the training env counts it (the rewards between one of its decisions and its next one make one
    step)."""
    agent = agent or heuristic_of(game)
    vg = game_class(game)(num_games, seed=seed, autoreset=False, num_players=num_players, **config)
    n = num_players
    obs, masks, acts = [], [], []
    cap = num_games * 256
    rew = np.zeros(cap)
    nxt = np.full(cap, -1, np.int64)
    last = np.full((num_games, n), -1, np.int64)
    count = 0
    while True:
        live = np.flatnonzero(vg.current_player >= 0)
        if live.size == 0:
            break
        o = vg.observe(games=live)
        m = vg.legal_action_mask[live].copy()
        a = agent.act(o, m)
        cur = vg.current_player[live]
        if count + live.size > cap:
            cap *= 2
            rew = np.concatenate([rew, np.zeros(cap - rew.size)])
            nxt = np.concatenate([nxt, np.full(cap - nxt.size, -1, np.int64)])
        ids = count + np.arange(live.size)
        count += live.size
        obs.append(o)
        masks.append(m)
        acts.append(a)
        prev = last[live, cur]
        nxt[prev[prev >= 0]] = ids[prev >= 0]
        last[live, cur] = ids
        r = vg.step(a, games=live) * reward_scale
        for s in range(n):            # a step's rewards go to each seat's latest decision
            d = last[live, s]
            ok = d >= 0
            np.add.at(rew, d[ok], r[ok, s])
    ret = _discounted(rew[:count], nxt[:count], gamma)
    return np.concatenate(obs), np.concatenate(masks), np.concatenate(acts), ret.astype(np.float32)


def _discounted(rew, nxt, gamma):
    ret = np.zeros(rew.size)
    for i in range(rew.size - 1, -1, -1):   # a decision's successor always comes later
        ret[i] = rew[i] + (gamma * ret[nxt[i]] if nxt[i] >= 0 else 0.0)
    return ret


def warm_start(model, games: int, seed: int, gamma: float, reward_scale: float, chunk: int = 64,
               epochs: int = 4, batch_size: int = 1024, lr: float = 1e-3, progress: bool = True, hint: bool = False,
               *, game: str, **config) -> dict:
    """Behaviour cloning of the game's heuristic into model.policy: cross-entropy on the masked policy and squared
    error on the value head, over the decisions of `games` heuristic games (kept as float16), `epochs` passes
    with a learning rate decaying to zero. Returns the sample count and the accuracy on held-out games."""
    import torch as th

    policy = model.policy
    hinter = heuristic_of(game)
    bar = tqdm(total=games, desc="warm start: heuristic games", unit="game", disable=not progress)
    data = []
    for start in range(0, games, chunk):
        b = min(chunk, games - start)
        obs, masks, acts, ret = heuristic_games(b, seed + start, gamma, reward_scale, game=game, **config)
        obs = with_hint(obs, masks, hinter) if hint else obs
        data.append((obs.astype(np.float16), masks, acts, ret))
        bar.update(b)
    bar.close()
    obs, masks, acts, ret = (np.concatenate(x) for x in zip(*data))
    del data
    test = heuristic_games(16, seed + 10_000_019, gamma, reward_scale, game=game, **config)
    test = (with_hint(test[0], test[1], hinter) if hint else test[0],) + test[1:]
    opt = th.optim.Adam(policy.parameters(), lr=lr)
    steps = epochs * ((len(acts) + batch_size - 1) // batch_size)
    sched = th.optim.lr_scheduler.LambdaLR(opt, lambda k: 1 - k / steps)
    rng = np.random.default_rng(seed)
    bar = tqdm(total=steps, desc="warm start: imitation", unit="batch", disable=not progress)
    for _ in range(epochs):
        order = rng.permutation(len(acts))
        for i in range(0, len(order), batch_size):
            j = np.sort(order[i:i + batch_size])
            values, logp, _ = policy.evaluate_actions(th.as_tensor(obs[j], dtype=th.float32),
                                                      th.as_tensor(acts[j]), th.as_tensor(masks[j]))
            loss = -logp.mean() + 0.5 * ((values.flatten() - th.as_tensor(ret[j])) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
            sched.step()
            bar.update(1)
            bar.set_postfix(loss=f"{float(loss.detach()):.3f}")
    bar.close()
    with th.no_grad():
        dist = policy.get_distribution(th.as_tensor(test[0]), action_masks=test[1])
        acc = float((dist.get_actions(deterministic=True).numpy() == test[2]).mean())
    return {"samples": int(len(acts)), "accuracy": acc}


# ---------------------------------------------------------------- PPO callbacks
def _callback_base():
    from stable_baselines3.common.callbacks import BaseCallback

    return BaseCallback


def make_callbacks(out: Path, args, venv, log):
    BaseCallback = _callback_base()

    class Progress(BaseCallback):
        """tqdm progress bar over this run's timesteps; stops the run at the time limit."""

        def __init__(self, total, deadline):
            super().__init__()
            self.total = total
            self.deadline = deadline

        def _on_training_start(self):
            self.bar = tqdm(total=self.total, desc="PPO", unit="step", disable=args.no_progress)

        def _on_step(self):
            self.bar.update(min(self.training_env.num_envs, self.total - self.bar.n))   # SB3 may step past it
            if self.deadline is not None and time.time() > self.deadline:
                log(f"time limit reached at {self.num_timesteps} timesteps: stopping")
                return False
            return True

        def _on_training_end(self):
            self.bar.close()

    class SelfPlay(BaseCallback):
        """Periodic evaluation against heuristic players, snapshots into the opponent pool, checkpoints."""

        def __init__(self):
            super().__init__()
            self.next_eval = 0
            self.next_ckpt = 0
            self.best = -1.0
            self.snapshots = []
            self.history = []

        def _on_training_start(self):
            self.next_eval = self.num_timesteps + args.eval_every
            self.next_ckpt = self.num_timesteps + args.checkpoint_every
            self.evaluate()

        def evaluate(self):
            t = time.time()
            me = PPOAgent(model=self.model, game=args.game)
            res = play_match([me] + [heuristic_of(args.game) for _ in range(args.players - 1)], args.eval_games,
                             seed=10_000_000 + args.seed, names=["ppo"] + ["heuristic"] * (args.players - 1),
                             progress=False, num_players=args.players, game=args.game).pooled()["ppo"]
            wr, (lo, hi) = res["win_rate"], res["win_rate_ci95"]
            self.logger.record("eval/win_rate_vs_heuristic", wr)
            self.logger.record("eval/mean_round_points", res["mean_round_points"])
            self.history.append({"timesteps": int(self.num_timesteps), "win_rate": wr, "ci95": [lo, hi],
                                  "mean_round_points": res["mean_round_points"], "pool": len(self.snapshots)})
            line = (f"[eval] {self.num_timesteps:>9} steps  win rate vs {args.players - 1} heuristic "
                    f"{wr:.3f} [{lo:.3f}, {hi:.3f}]  pts/round {res['mean_round_points']:.2f}  "
                    f"snapshots {len(self.snapshots)}  ({time.time() - t:.0f}s)")
            if wr > self.best:
                self.best = wr
                self.model.save(out / "best_model.zip")
                self.add_snapshot()
                line += "  new best: saved, snapshot added"
            log(line)

        def add_snapshot(self):
            from sb3_contrib import MaskablePPO

            path = out / "snapshots" / f"snapshot_{self.num_timesteps}.zip"
            path.parent.mkdir(exist_ok=True)
            self.model.save(path)
            self.snapshots.append(PPOAgent(model=MaskablePPO.load(str(path), device="cpu"), game=args.game))
            self.snapshots = self.snapshots[-args.pool_size:]
            venv.set_opponents(opponent_pool(self.snapshots, args.heuristic_share, args.game))

        def _on_step(self):
            if self.num_timesteps >= self.next_ckpt:
                self.next_ckpt += args.checkpoint_every
                self.model.save(out / "checkpoints" / f"model_{self.num_timesteps}.zip")
            if self.num_timesteps >= self.next_eval:
                self.next_eval += args.eval_every
                self.evaluate()
            return True

    return Progress, SelfPlay


def opponent_pool(snapshots: list, heuristic_share: float, game: str) -> list:
    """A pool in which about `heuristic_share` of the draws are the game's heuristic, the rest the snapshots."""
    if not snapshots:
        return [heuristic_of(game)]
    k = len(snapshots)
    h = max(1, round(heuristic_share * k / max(1e-9, 1 - heuristic_share))) if heuristic_share < 1 else 1
    heuristic = heuristic_of(game)
    return [heuristic] * h + (list(snapshots) if heuristic_share < 1 else [])


def save_compact(model, path) -> None:
    """Save `model` for playing: a fresh optimizer (no Adam moments) keeps the zip small."""
    opt = model.policy.optimizer
    model.policy.optimizer = type(opt)(model.policy.parameters(), **opt.defaults)
    try:
        model.save(path)
    finally:
        model.policy.optimizer = opt


# ---------------------------------------------------------------- command line
MAX_STEPS = 10**12          # --timesteps, --eval-every, --checkpoint-every
MAX_ENVS = 4096             # --envs: games stepped together
MAX_GAMES = 1_000_000       # --bc-games, --eval-games


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Train a MaskablePPO agent by self-play (heuristic "
                                "warm start, then PPO against heuristic players and its own snapshots). Bad options "
                                "are refused before anything is trained or written; Ctrl-C saves the latest model "
                                "and the evaluation history.", allow_abbrev=False)
    steps, games = argtypes.int_in(1, MAX_STEPS), argtypes.int_in(1, MAX_GAMES)
    p.add_argument("--game", default="quando", choices=game_names(), help="the game (default quando)")
    p.add_argument("--timesteps", type=steps, default=1_000_000, help="PPO timesteps (learner decisions)")
    p.add_argument("--envs", type=argtypes.int_in(1, MAX_ENVS), default=32, help=f"games stepped together, "
                   f"1..{MAX_ENVS}")
    p.add_argument("--players", type=argtypes.positive_int, default=4)
    p.add_argument("--seed", type=argtypes.int_in(0, 2**32 - 1), default=0, help="0..2^32-1 (Stable-Baselines3 "
                   "seeds numpy's global generator with it)")
    p.add_argument("--out", default=None, type=argtypes.output_dir, help="output folder, created if missing "
                   "(TensorBoard logs, checkpoints, models; default runs/ppo_GAME)")
    p.add_argument("--resume", metavar="ZIP", nargs="?", const=True, type=argtypes.existing_file, help="continue "
                   "training this model (alone: the run saved in --out, its final_model.zip; skips the warm start); "
                   "loading a model runs code from its file (pickle): load only files you trust")
    p.add_argument("--bc-games", type=argtypes.int_in(0, MAX_GAMES), default=600, help="heuristic games imitated "
                   "before PPO (0: none)")
    p.add_argument("--eval-every", type=steps, default=100_000, help="timesteps between evaluations")
    p.add_argument("--eval-games", type=games, default=200, help="games per evaluation")
    p.add_argument("--checkpoint-every", type=steps, default=200_000, help="timesteps between checkpoints")
    p.add_argument("--pool-size", type=argtypes.int_in(1, 1000), default=4, help="frozen snapshots kept in the "
                   "opponent pool")
    p.add_argument("--heuristic-share", type=argtypes.probability, default=0.5, help="share of heuristic "
                   "opponents in the pool, 0..1")
    p.add_argument("--lr", type=argtypes.float_in(0.0, 1.0, above=True), default=1e-4, help="PPO learning rate")
    p.add_argument("--ent-coef", type=argtypes.float_in(0.0, 1.0), default=0.003, help="PPO entropy bonus")
    p.add_argument("--clip", type=argtypes.float_in(0.0, 1.0, above=True), default=0.1, help="PPO clip range")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--seconds", type=argtypes.float_in(0.0, 6 * 10**8, above=True), default=None,
                       help="stop after this many seconds (wall time), as train.py's --seconds")
    limit.add_argument("--time-limit", type=argtypes.float_in(0.0, 10**7), default=19.0, help="minutes after "
                       "which training stops (0: none; default 19)")
    p.add_argument("--save-to", default=None, type=argtypes.output_file, help="also save the final (or --ship "
                   "best) policy here, a .zip in an existing folder, without the optimizer state (e.g. "
                   "quando_env/agents/models/ppo_quando_4p.zip)")
    p.add_argument("--ship", choices=["final", "best"], default="final", help="which model --save-to writes: the "
                   "last one, or the one with the best evaluation")
    p.add_argument("--threads", type=argtypes.int_in(1, 1024), default=1, help="torch threads")
    p.add_argument("--no-hint", dest="hint", action="store_false", help="the policy sees the observation only, "
                   "without the heuristic's suggested action appended")
    p.add_argument("--no-progress", action="store_true")
    return p


def parse_args(argv=None) -> argparse.Namespace:
    """The command line, checked as a whole before anything is trained or written (argparse's exit 2, naming
    the option, otherwise); --out gets its default."""
    p = parser()
    args = p.parse_args(argv)
    argtypes.check_game_options(p, args.game, args.players)
    args.out = argtypes.check(p, "--out", argtypes.output_dir, args.out or f"runs/ppo_{args.game}")
    if args.resume is True:
        args.resume = argtypes.check(p, "--resume", argtypes.existing_file, str(Path(args.out) / "final_model.zip"))
    if args.save_to is not None and not args.save_to.endswith(".zip"):
        p.error(f"argument --save-to: {args.save_to!r} must end in .zip (Stable-Baselines3 would add it)")
    return args


def main(argv=None) -> int:
    """Exit status 0; 2 for a bad option or a --resume model that does not fit; 130 after Ctrl-C, with the
    latest model and the evaluation history saved."""
    args = parse_args(argv)
    import torch as th
    from sb3_contrib import MaskablePPO

    from quando_env import make_vec_env
    from stable_baselines3.common.vec_env import VecEnvWrapper

    th.set_num_threads(args.threads)
    t0 = time.time()
    seconds = args.seconds if args.seconds is not None else 60 * args.time_limit
    deadline = t0 + seconds if seconds > 0 else None
    out = Path(args.out)
    gamma, reward_scale = 0.995, 0.1

    class LearnerView(VecEnvWrapper):
        """Rewards: round points / 10 (the warm start's value targets use the same scale). With the hint, each
        observation is followed by the heuristic's action as a one-hot (ppo.with_hint)."""

        def __init__(self, venv):
            space = venv.observation_space
            self.hinter = heuristic_of(args.game)
            if args.hint:
                from gymnasium import spaces

                space = spaces.Box(0.0, np.inf, (space.shape[0] + venv.action_space.n,), np.float32)
            super().__init__(venv, observation_space=space)

        def _view(self, obs, masks):
            return with_hint(obs, masks, self.hinter) if args.hint else obs

        def reset(self):
            return self._view(self.venv.reset(), self.venv.action_masks())

        def step_wait(self):
            o, r, d, infos = self.venv.step_wait()
            for info in infos:
                if "terminal_observation" in info:
                    t = info["terminal_observation"][None]
                    info["terminal_observation"] = self._view(t, np.zeros((1, self.action_space.n), bool))[0]
            return self._view(o, self.venv.action_masks()), r * reward_scale, d, infos

    base = make_vec_env(args.envs, opponents=[heuristic_of(args.game)], seed=args.seed, num_players=args.players,
                        game=args.game)
    venv = LearnerView(base)
    if args.resume:
        try:     # SB3 unpickles the zip: it runs code from the file (load only files you trust)
            model = MaskablePPO.load(args.resume, env=venv, device="cpu", tensorboard_log=str(out / "tb"))
        except Exception as e:
            print(f"{PROG}: error: argument --resume: cannot continue {args.resume} on {args.game} with "
                  f"{args.players} players{'' if args.hint else ' and --no-hint'}: {type(e).__name__}: {printable(e)}",
                  file=sys.stderr)
            return 2
        model.learning_rate = args.lr
    else:
        model = MaskablePPO("MlpPolicy", venv, learning_rate=args.lr, n_steps=256, batch_size=1024, n_epochs=4,
                            gamma=gamma, gae_lambda=0.95, clip_range=args.clip, ent_coef=args.ent_coef, vf_coef=0.5,
                            target_kl=0.03, seed=args.seed, device="cpu", tensorboard_log=str(out / "tb"),
                            policy_kwargs=dict(net_arch=dict(pi=[256, 256], vf=[256, 256])))
    try:
        (out / "checkpoints").mkdir(parents=True, exist_ok=True)     # the model is set up: now write
        lock = lock_folder(out)         # one run per folder, held until this process ends
    except (OSError, ValueError) as e:
        print(f"{PROG}: error: argument --out: {e}", file=sys.stderr)
        return 2
    logf = open(out / "train_log.txt", "a")

    def log(msg):
        tqdm.write(msg)
        logf.write(msg + "\n")
        logf.flush()

    log(f"{PROG} {' '.join(sys.argv[1:] if argv is None else argv)}")
    Progress, SelfPlay = make_callbacks(out, args, base, log)
    selfplay = SelfPlay()
    stops = sigterm_stops()
    stops.__enter__()
    try:
        if args.bc_games > 0 and not args.resume:
            st = warm_start(model, args.bc_games, args.seed, gamma, reward_scale, progress=not args.no_progress,
                            hint=args.hint, num_players=args.players, game=args.game)
            log(f"warm start: {st['samples']} heuristic decisions imitated, held-out accuracy {st['accuracy']:.3f} "
                f"({time.time() - t0:.0f}s)")
        model.learn(args.timesteps, callback=[Progress(args.timesteps, deadline), selfplay], tb_log_name="ppo",
                    reset_num_timesteps=not args.resume)
        if selfplay.history[-1]["timesteps"] != model.num_timesteps:
            selfplay.evaluate()
    except KeyboardInterrupt as e:      # Ctrl-C, or SIGTERM (Stopped)
        model_path, history_path = save_run(model, selfplay.history, out)
        how = "stopped by SIGTERM" if isinstance(e, Stopped) else "interrupted"
        log(f"{PROG}: {how} at {model.num_timesteps} timesteps: latest model saved to {model_path}, "
            f"evaluation history to {history_path}")
        return 143 if isinstance(e, Stopped) else 130
    finally:
        stops.__exit__(None, None, None)
    save_run(model, selfplay.history, out)
    lock.close()
    if args.save_to:
        src = out / ("best_model.zip" if args.ship == "best" else "final_model.zip")
        save_compact(MaskablePPO.load(str(src), device="cpu"), args.save_to)
        log(f"{args.ship} model ({src}) saved without optimizer state to {args.save_to}")
    log(f"done in {(time.time() - t0) / 60:.1f} min: {out / 'final_model.zip'}, {out / 'best_model.zip'}, "
        f"TensorBoard logs in {out / 'tb'}")
    return 0


def save_run(model, history: list, out: Path) -> tuple[Path, Path]:
    """Save the model as final_model.zip and the evaluation history as eval_history.json in `out`."""
    replace_file(out / "final_model.zip", model.save)       # through temporary files: a stop keeps the last
    write_text(out / "eval_history.json", json.dumps(history, indent=2))
    return out / "final_model.zip", out / "eval_history.json"


__all__ = ["heuristic_games", "warm_start", "opponent_pool", "save_compact", "main", "DEFAULT_MODEL"]


if __name__ == "__main__":
    sys.exit(main())
