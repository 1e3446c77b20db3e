"""Training of a MaskablePPO policy (Stable-Baselines3) on quando_env.make_vec_env, for any game with a heuristic
agent: `python train.py --algo sb3 --game G` (installed: `python -m quando_env train --algo sb3`; this module runs
as `python -m quando_env.training.sb3` with the same options). Everything a run does fits in --seconds.

1. Warm start (optional, --bc-games): the policy imitates the game's heuristic and the value head learns the
   discounted returns of heuristic games, on games played in VectorGame batches (no opponent sees more than
   its observation; the data is the heuristic's own decisions).
2. PPO against an opponent pool: the game's heuristic mixed with frozen snapshots of the learner, one joining
   at every evaluation (the oldest leaves when the pool is full).
3. Evaluations against fixed reference players (--reference, default random): the model with the best points
   per round (ties: win rate) is kept as best_model.zip, which summary.json names ("model") and curve.png
   plots; TensorBoard logs the same numbers (eval/round_points_vs_random, eval/win_rate_vs_random).
"""
import argparse
import contextlib
import json
import sys
import time
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from quando_env.checks import printable
from quando_env import argtypes
from quando_env.files import not_written, replace_file, write_text, writes_fail_in_main_thread
from quando_env.provenance import made_by
from quando_env.registry import game_class, game_names

from quando_env.agents import game_agents
from .budget import play_by, process_age
from quando_env.agents.ppo import DEFAULT_MODEL, PPOAgent, with_hint
from quando_env.stops import Stopped, lock_folder, sigterm_stops

PROG = "python -m quando_env.training.sb3"


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
               deadline: float | None = None, *, game: str, **config) -> dict:
    """Behaviour cloning of the game's heuristic into model.policy: cross-entropy on the masked policy and squared
    error on the value head, over the decisions of `games` heuristic games (kept as float16), `epochs` passes
    with a learning rate decaying to zero. deadline (a time.time()): no new chunk of games is played and no
    new batch trained after it (the first chunk and batch always are), so a budgeted run's warm start fits its
    share. Returns the sample and game counts and the accuracy on held-out games."""
    import torch as th

    policy = model.policy
    hinter = heuristic_of(game)
    late = (lambda: time.time() > deadline) if deadline is not None else (lambda: False)
    bar = tqdm(total=games, desc="warm start: heuristic games", unit="game", disable=None if progress else True)
    data, played = [], 0
    for start in range(0, games, chunk):
        if data and late():
            break
        b = min(chunk, games - start)
        obs, masks, acts, ret = heuristic_games(b, seed + start, gamma, reward_scale, game=game, **config)
        obs = with_hint(obs, masks, hinter) if hint else obs
        data.append((obs.astype(np.float16), masks, acts, ret))
        played += b
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
    bar = tqdm(total=steps, desc="warm start: imitation", unit="batch", disable=None if progress else True)
    trained = 0
    for _ in range(epochs):
        order = rng.permutation(len(acts))
        for i in range(0, len(order), batch_size):
            if trained and late():
                break
            trained += 1
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
    return {"samples": int(len(acts)), "games": played, "accuracy": acc}


# ---------------------------------------------------------------- evaluation: what the run keeps its model by
def reference_players(reference: str, game: str, count: int) -> list:
    """`count` fixed opponents of the evaluations: random players or the game's heuristic."""
    from quando_env.agents.random_agent import RandomAgent

    return [RandomAgent() if reference == "random" else heuristic_of(game) for _ in range(count)]


def score(evaluation: dict, game: str) -> tuple:
    """What the run keeps its best model by: points per round counted so that higher is better (the game's way:
    Help!'s highest total wins, Quando's and Cabo's lowest), ties broken by the win rate. Points move in a short
    run where a win rate against strong players stays at zero."""
    sign = 1.0 if game_class(game).higher_total_wins else -1.0
    return (round(sign * evaluation["mean_round_points"], 6), evaluation["win_rate"])


def measure_name(args) -> str:
    """The measure's words for logs, plots and summary.json."""
    return f"points per round vs {args.players - 1} {args.reference} players"


def plot_curve(evaluations: list, path: Path, args) -> None:
    """curve.png: the measure the run keeps its model by, and the win rate (95% interval), over wall time; the
    kept evaluation circled."""
    from quando_env.evaluation.plots import pyplot

    plt = pyplot()
    t = [e["wall_seconds"] for e in evaluations]
    kept = max(range(len(evaluations)), key=lambda i: score(evaluations[i], args.game))
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    axes[0].plot(t, [e["mean_round_points"] for e in evaluations], marker="o")
    axes[0].plot(t[kept], evaluations[kept]["mean_round_points"], "o", ms=14, mfc="none", c="tab:red",
                 label="kept model")
    better = "higher" if game_class(args.game).higher_total_wins else "lower"
    axes[0].set_ylabel(f"points per round ({better} is better)")
    axes[0].legend()
    wr = np.array([e["win_rate"] for e in evaluations])
    err = np.abs(np.array([e["ci95"] for e in evaluations]).T - wr)
    axes[1].errorbar(t, wr, yerr=err, marker="o", capsize=3)
    axes[1].axhline(1 / args.players, color="gray", ls="--", label=f"1/{args.players}")
    axes[1].set_ylabel("win rate (95% interval)")
    axes[1].set_ylim(0, 1)
    axes[1].legend()
    for ax in axes:
        ax.set_xlabel("wall time (s)")
    fig.suptitle(f"{args.game}: MaskablePPO evaluated against {args.players - 1} {args.reference} players")
    fig.tight_layout()
    replace_file(path, lambda tmp: fig.savefig(tmp, dpi=100, format="png"))
    plt.close(fig)


# ---------------------------------------------------------------- the run
def _callback_base():
    from stable_baselines3.common.callbacks import BaseCallback

    return BaseCallback


def make_callback(out: Path, args, venv, log, clock):
    """The run's callback class (SB3 is imported only here): progress bar, time limit, evaluations on their
    schedule with the kept model, the self-play pool fed at every evaluation, checkpoints."""
    BaseCallback = _callback_base()

    class Trainer(BaseCallback):
        def __init__(self):
            super().__init__()
            self.history, self.snapshots = [], []
            self.best = None
            self.eval_seconds = self.update_seconds = 0.0
            self.rollout_end = None
            self.next_eval = self.next_ckpt = 0

        def _on_training_start(self):
            total = args.timesteps if args.timesteps < MAX_STEPS else None
            self.bar = tqdm(total=total, desc="PPO", unit="step", disable=True if args.no_progress else None)
            self.next_eval = clock.next_eval(self.num_timesteps)
            self.next_ckpt = self.num_timesteps + args.checkpoint_every
            if not self.history:
                self.evaluate()

        def _on_training_end(self):
            self.bar.close()

        def _on_rollout_end(self):
            self.rollout_end = time.time()

        def _on_rollout_start(self):      # after an update: how long the next one may take
            if self.rollout_end is not None:
                self.update_seconds = max(self.update_seconds, time.time() - self.rollout_end)

        def _on_step(self):
            self.bar.update(self.training_env.num_envs)
            if clock.out_of_time(self.update_seconds + 1.5 * self.eval_seconds):
                log(f"time limit near at {self.num_timesteps} timesteps: stopping (the last evaluation and saving "
                    "fit in --seconds)")
                return False
            if self.num_timesteps >= self.next_ckpt:
                self.next_ckpt += args.checkpoint_every
                save_zip(self.model, out / "checkpoints" / f"model_{self.num_timesteps}.zip")
            if clock.due(self.next_eval, self.num_timesteps):
                self.evaluate()
                self.add_snapshot()
                self.next_eval = clock.next_eval(self.num_timesteps)
            return True

        def evaluate(self):
            """Against the reference players: logged, plotted, kept as best_model.zip when the best yet. Its games
            end by the end of --seconds less the saving (budget.play_by), the first evaluation's whatever the
            budget."""
            t = time.time()
            me = PPOAgent(model=self.model, game=args.game)
            match, played = play_by([me] + reference_players(args.reference, args.game, args.players - 1),
                                    args.eval_games, clock.share(1.0, SAVE_SECONDS) if self.history else None,
                                    time.time, seed=10_000_000 + args.seed,
                                    names=["ppo"] + [args.reference] * (args.players - 1), num_players=args.players,
                                    game=args.game)
            if match is None:
                log(f"[eval] {self.num_timesteps:>9} steps  no game ended by the end of --seconds: not evaluated")
                return
            res = match.pooled()["ppo"]
            e = {"timesteps": int(self.num_timesteps), "wall_seconds": round(clock.elapsed(), 2),
                 "win_rate": res["win_rate"], "ci95": res["win_rate_ci95"],
                 "mean_round_points": res["mean_round_points"], "pool": len(self.snapshots), "games": played}
            self.history.append(e)
            self.logger.record(f"eval/round_points_vs_{args.reference}", e["mean_round_points"])
            self.logger.record(f"eval/win_rate_vs_{args.reference}", e["win_rate"])
            self.logger.dump(self.num_timesteps)
            lo, hi = e["ci95"]
            line = (f"[eval] {self.num_timesteps:>9} steps  vs {args.players - 1} {args.reference}: pts/round "
                    f"{e['mean_round_points']:.2f}  win rate {e['win_rate']:.3f} [{lo:.3f}, {hi:.3f}]  "
                    f"pool {len(self.snapshots)}")
            if played < args.eval_games:
                line += f"  ({played} of {args.eval_games} games: the rest would not end within --seconds)"
            if self.best is None or score(e, args.game) > score(self.best, args.game):
                self.best = e
                save_zip(self.model, out / "best_model.zip")
                line += "  best so far: best_model.zip"
            plot_curve(self.history, out / "curve.png", args)
            self.eval_seconds = time.time() - t
            log(f"{line}  ({self.eval_seconds:.1f}s)")

        def add_snapshot(self):
            """The current policy joins the opponent pool (the oldest leaves when it holds --pool-size)."""
            from sb3_contrib import MaskablePPO

            path = out / "snapshots" / f"snapshot_{self.num_timesteps}.zip"
            path.parent.mkdir(exist_ok=True)
            save_zip(self.model, path)
            self.snapshots.append(PPOAgent(model=MaskablePPO.load(str(path), device="cpu"), game=args.game))
            self.snapshots = self.snapshots[-args.pool_size:]
            venv.set_opponents(opponent_pool(self.snapshots, args.heuristic_share, args.game))

    return Trainer


class Clock:
    """The run's time: --seconds counts from the start of the command (warm start, evaluations and saving
    included); evaluations come every --eval-every timesteps, or without it about ten times in a --seconds run
    (else every 100,000 timesteps)."""

    def __init__(self, args, start: float):
        self.start = start
        self.seconds = args.seconds if args.seconds is not None else 60 * args.time_limit
        self.end = start + self.seconds if self.seconds > 0 else None
        self.every = args.eval_every
        self.every_s = None if self.every or args.seconds is None else max(5.0, self.seconds / EVALS_PER_RUN)
        self.every = self.every or (None if self.every_s else DEFAULT_EVAL_EVERY)

    def elapsed(self) -> float:
        return time.time() - self.start

    def share(self, fraction: float, less: float = 0.0) -> float | None:
        """The time by which `fraction` of the budget, less `less` seconds, is spent (None: no time limit)."""
        return None if self.end is None else self.start + fraction * self.seconds - less

    def out_of_time(self, seconds: float) -> bool:
        """Whether training must stop now for what takes `seconds` (an update that may come before the next check,
        the last evaluation) and the saving to end within the budget."""
        return self.end is not None and time.time() + seconds + SAVE_SECONDS > self.end

    def next_eval(self, timesteps: int):
        return timesteps + self.every if self.every else time.time() + self.every_s

    def due(self, mark, timesteps: int) -> bool:
        return (timesteps if self.every else time.time()) >= mark


def opponent_pool(snapshots: list, heuristic_share: float, game: str) -> list:
    """A pool in which about `heuristic_share` of the draws are the game's heuristic, the rest the snapshots."""
    if not snapshots:
        return [heuristic_of(game)]
    k = len(snapshots)
    h = max(1, round(heuristic_share * k / max(1e-9, 1 - heuristic_share))) if heuristic_share < 1 else 1
    heuristic = heuristic_of(game)
    return [heuristic] * h + (list(snapshots) if heuristic_share < 1 else [])


def save_zip(model, path) -> None:
    """model.save to `path` through a temporary file (files.replace_file): a full disk keeps the zip there whole."""
    def write(tmp):
        with open(tmp, "wb") as f:
            model.save(f)
    replace_file(path, write)


def save_compact(model, path) -> None:
    """Save `model` for playing: a fresh optimizer (no Adam moments) keeps the zip small."""
    opt = model.policy.optimizer
    model.policy.optimizer = type(opt)(model.policy.parameters(), **opt.defaults)
    try:
        save_zip(model, path)
    finally:
        model.policy.optimizer = opt


# ---------------------------------------------------------------- command line
MAX_STEPS = 10**12          # --timesteps, --eval-every, --checkpoint-every
MAX_ENVS = 4096             # --envs: games stepped together
MAX_GAMES = 1_000_000       # --bc-games, --eval-games
EVALS_PER_RUN = 10          # evaluations of a --seconds run without --eval-every
DEFAULT_EVAL_EVERY = 100_000
SAVE_SECONDS = 1.5          # what the end of a run takes after its last evaluation (saving, summary: 0.8 s measured)
WARM_SHARE = 0.3            # of --seconds, the most a warm start takes
GAMMA, REWARD_SCALE = 0.99, 1.0
PPO_SETTINGS = dict(n_steps=256, batch_size=64, n_epochs=10, gamma=GAMMA, gae_lambda=0.95, vf_coef=0.5)
NET = [64, 64]


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description="Train a MaskablePPO agent (Stable-Baselines3) against the "
                                "game's heuristic and snapshots of itself, keeping the model that scores best "
                                "against fixed reference players. Everything the run does fits in --seconds. Bad "
                                "options are refused before anything is trained or written; Ctrl-C saves the "
                                "latest model and the evaluation history.", allow_abbrev=False)
    steps, games = argtypes.int_in(1, MAX_STEPS), argtypes.int_in(1, MAX_GAMES)
    p.add_argument("--game", default="quando", choices=game_names(), help="the game (default quando)")
    p.add_argument("--seconds", type=argtypes.float_in(0.0, 6 * 10**8, above=True), default=None,
                   help="the run's wall time from the start of the command (its imports included) to its end, warm "
                   "start, evaluations and saving included: an evaluation stops at the end with the games that ended "
                   "by then (the first one comes first whatever the budget)")
    p.add_argument("--timesteps", type=steps, default=None, help="PPO timesteps (learner decisions; default "
                   "1,000,000, unbounded with --seconds)")
    p.add_argument("--envs", type=argtypes.int_in(1, MAX_ENVS), default=8, help=f"games stepped together, "
                   f"1..{MAX_ENVS} (default 8)")
    p.add_argument("--players", type=argtypes.positive_int, default=4)
    p.add_argument("--seed", type=argtypes.int_in(0, 2**32 - 1), default=0, help="0..2^32-1 (Stable-Baselines3 "
                   "seeds numpy's global generator with it)")
    p.add_argument("--threads", type=argtypes.int_in(1, 1024), default=1, help="torch threads (default 1)")
    p.add_argument("--out", default=None, type=argtypes.output_dir, help="output folder, created if missing "
                   "(summary.json, curve.png, models, TensorBoard logs; default runs/ppo_GAME)")
    p.add_argument("--resume", metavar="ZIP", nargs="?", const=True, type=argtypes.existing_file, help="continue "
                   "training this model (alone: the run saved in --out, its final_model.zip; skips the warm start); "
                   "loading a model runs code from its file (pickle): load only files you trust")
    p.add_argument("--eval-every", type=steps, default=None, help="timesteps between evaluations (default: about "
                   f"{EVALS_PER_RUN} in a --seconds run, else every {DEFAULT_EVAL_EVERY:,})")
    p.add_argument("--eval-games", type=games, default=200, help="games per evaluation (default 200)")
    p.add_argument("--reference", choices=["random", "heuristic"], default="random", help="the fixed players "
                   "of the evaluations, whose points per round (then win rate) choose the kept model (default "
                   "random)")
    p.add_argument("--checkpoint-every", type=steps, default=200_000, help="timesteps between checkpoints")
    p.add_argument("--bc-games", type=argtypes.int_in(0, MAX_GAMES), default=0, help="heuristic games imitated "
                   f"before PPO (default 0: none; within --seconds, at most {WARM_SHARE:.0%}% of it)")
    p.add_argument("--pool-size", type=argtypes.int_in(1, 1000), default=4, help="frozen snapshots kept in the "
                   "opponent pool (one joins at every evaluation)")
    p.add_argument("--heuristic-share", type=argtypes.probability, default=0.5, help="share of heuristic "
                   "opponents in the pool, 0..1")
    p.add_argument("--lr", type=argtypes.float_in(0.0, 1.0, above=True), default=3e-4, help="PPO learning rate")
    p.add_argument("--ent-coef", type=argtypes.float_in(0.0, 1.0), default=0.0, help="PPO entropy bonus")
    p.add_argument("--clip", type=argtypes.float_in(0.0, 1.0, above=True), default=0.2, help="PPO clip range")
    p.add_argument("--time-limit", type=argtypes.float_in(0.0, 10**7), default=None, help="minutes after "
                   "which training stops (0: none; default 19 without --seconds)")
    p.add_argument("--save-to", default=None, type=argtypes.output_file, help="also save the best (or --ship "
                   "final) policy here, a .zip in an existing folder, without the optimizer state (e.g. "
                   "quando_env/agents/models/ppo_quando_4p.zip)")
    p.add_argument("--ship", choices=["best", "final"], default="best", help="which model --save-to writes: the "
                   "kept one (default), or the last one")
    p.add_argument("--no-hint", dest="hint", action="store_false", help="the policy sees the observation only, "
                   "without the heuristic's suggested action appended")
    p.add_argument("--no-progress", action="store_true")
    return p


def parse_args(argv=None, prog: str = PROG) -> argparse.Namespace:
    """The command line, checked as a whole before anything is trained or written (argparse's exit 2, naming
    the option, otherwise); --out and --timesteps get their defaults."""
    p = parser(prog)
    args = p.parse_args(argv)
    if args.seconds is not None and args.time_limit is not None:
        p.error("argument --seconds: not allowed with argument --time-limit (give one)")
    if args.time_limit is None:
        args.time_limit = 0.0 if args.seconds is not None else 19.0
    if args.timesteps is None:
        args.timesteps = MAX_STEPS if args.seconds is not None else 1_000_000
    argtypes.check_game_options(p, args.game, args.players)
    args.out = argtypes.check(p, "--out", argtypes.output_dir, args.out or f"runs/ppo_{args.game}")
    if args.resume is True:
        args.resume = argtypes.check(p, "--resume", argtypes.existing_file, str(Path(args.out) / "final_model.zip"))
    if args.save_to is not None and not args.save_to.endswith(".zip"):
        p.error(f"argument --save-to: {args.save_to!r} must end in .zip (Stable-Baselines3 would add it)")
    return args


def learner_view(args):
    """The VecEnvWrapper class the policy trains through (SB3 is imported only here)."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

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
            return self._view(o, self.venv.action_masks()), r * REWARD_SCALE, d, infos

    return LearnerView


def build_model(args, venv, out: Path, prog: str):
    """A new MaskablePPO, or the --resume one (None, the message printed, when that file does not fit)."""
    from sb3_contrib import MaskablePPO

    if not args.resume:
        return MaskablePPO("MlpPolicy", venv, learning_rate=args.lr, clip_range=args.clip, ent_coef=args.ent_coef,
                           seed=args.seed, device="cpu", tensorboard_log=str(out / "tb"),
                           policy_kwargs=dict(net_arch=dict(pi=NET, vf=NET)), **PPO_SETTINGS)
    try:     # SB3 unpickles the zip: it runs code from the file (load only files you trust)
        model = MaskablePPO.load(args.resume, env=venv, device="cpu", tensorboard_log=str(out / "tb"))
    except Exception as e:
        print(f"{prog}: error: argument --resume: cannot continue {args.resume} on {args.game} with "
              f"{args.players} players{'' if args.hint else ' and --no-hint'}: {type(e).__name__}: {printable(e)}",
              file=sys.stderr)
        return None
    model.learning_rate = args.lr
    return model


def main(argv=None, prog: str = PROG, since_process_start: bool = False) -> int:
    """Exit status 0; 2 for a bad option or a --resume model that does not fit; 130 after Ctrl-C (143 after
    SIGTERM), with the latest model, the evaluation history and the summary saved; 1 when a file cannot be written
    (a full disk: one line naming it, the files written before kept whole). since_process_start: --seconds counts
    from the start of the process (a command line's: its imports included), else from this call."""
    start = time.time() - (process_age() if since_process_start else 0.0)
    args = parse_args(argv, prog)
    import torch as th

    from quando_env import make_vec_env

    th.set_num_threads(args.threads)
    clock = Clock(args, start)
    out = Path(args.out)
    base = make_vec_env(args.envs, opponents=[heuristic_of(args.game)], seed=args.seed, num_players=args.players,
                        game=args.game)
    model = build_model(args, learner_view(args)(base), out, prog)
    if model is None:
        return 2
    try:
        (out / "checkpoints").mkdir(parents=True, exist_ok=True)     # the model is set up: now write
        lock = lock_folder(out)         # one run per folder, held until this process ends
    except (OSError, ValueError) as e:
        print(f"{prog}: error: argument --out: {e}", file=sys.stderr)
        return 2
    logf = open(out / "train_log.txt", "a")

    def log(msg):
        tqdm.write(msg)
        try:
            logf.write(msg + "\n")
            logf.flush()
        except OSError as e:
            e.filename = e.filename or str(out / "train_log.txt")
            raise
    with lock, writes_fail_in_main_thread():
        try:
            return run(model, args, prog, argv, base, clock, log)
        except OSError as e:
            print(f"{prog}: error: {not_written(e, out / 'tb')}; kept whole: {kept(out)}", file=sys.stderr)
            return 1
        finally:
            with contextlib.suppress(OSError):      # (what it still holds cannot be written either)
                logf.close()


def kept(out: Path) -> str:
    """What a run in `out` has written so far (each file whole): the models, the summary, the last checkpoint."""
    files = [f.name for f in (out / "best_model.zip", out / "final_model.zip", out / "summary.json") if f.exists()]
    ckpts = sorted((out / "checkpoints").glob("model_*.zip"), key=lambda p: int(p.stem.partition("_")[2]))
    files += [f"checkpoints/{p.name}" for p in ckpts[-1:]]
    return f"{', '.join(files)} in {out}" if files else f"nothing had been written to {out} yet"


def run(model, args, prog: str, argv, base, clock, log) -> int:
    """The run of main once its folder is held: train, save, report; main's exit statuses but 1."""
    out = Path(args.out)
    log(f"{prog} {' '.join(sys.argv[1:] if argv is None else argv)}")
    trainer = make_callback(out, args, base, log, clock)()
    with sigterm_stops():
        try:
            train(model, args, trainer, clock, log)
        except KeyboardInterrupt as e:      # Ctrl-C, or SIGTERM (Stopped)
            model_path, history_path = save_run(model, trainer, out, args, clock)
            how = "stopped by SIGTERM" if isinstance(e, Stopped) else "interrupted"
            log(f"{prog}: {how} at {model.num_timesteps} timesteps: latest model saved to {model_path}, "
                f"evaluation history to {history_path}")
            return 143 if isinstance(e, Stopped) else 130
    save_run(model, trainer, out, args, clock)
    if args.save_to:
        from sb3_contrib import MaskablePPO

        src = out / ("best_model.zip" if args.ship == "best" else "final_model.zip")
        save_compact(MaskablePPO.load(str(src), device="cpu"), args.save_to)
        log(f"{args.ship} model ({src}) saved without optimizer state to {args.save_to}")
    best = trainer.best
    log(f"done in {clock.elapsed():.0f} s, {model.num_timesteps} timesteps: kept model {out / 'best_model.zip'} "
        f"(at {best['timesteps']} timesteps: {measure_name(args)} {best['mean_round_points']:.2f}, win rate "
        f"{best['win_rate']:.3f}); {out / 'summary.json'}, {out / 'curve.png'}, TensorBoard logs in {out / 'tb'}")
    return 0


def train(model, args, trainer, clock, log) -> None:
    """The warm start (a new run with --bc-games), PPO, and the evaluation of the last policy."""
    if args.bc_games > 0 and not args.resume:
        st = warm_start(model, args.bc_games, args.seed, GAMMA, REWARD_SCALE, progress=not args.no_progress,
                        hint=args.hint, deadline=clock.share(WARM_SHARE), num_players=args.players, game=args.game)
        log(f"warm start: {st['samples']} decisions of {st['games']} heuristic games imitated, held-out accuracy "
            f"{st['accuracy']:.3f} ({clock.elapsed():.0f}s)")
    model.learn(args.timesteps, callback=trainer, tb_log_name="ppo", reset_num_timesteps=not args.resume)
    if trainer.history[-1]["timesteps"] != model.num_timesteps:
        trainer.evaluate()


def hyperparameters(args) -> dict:
    """What the policy learned with: PPO's settings, the network, the warm start, the opponent pool."""
    return {**PPO_SETTINGS, "learning_rate": args.lr, "clip_range": args.clip, "ent_coef": args.ent_coef,
            "net_arch": NET, "envs": args.envs, "reward_scale": REWARD_SCALE, "hint": args.hint,
            "bc_games": args.bc_games, "pool_size": args.pool_size, "heuristic_share": args.heuristic_share}


def base_options(model) -> dict:
    """The rules of the games trained on (the game's options)."""
    return model.get_env().unwrapped.config.to_dict()


def save_run(model, trainer, out: Path, args, clock) -> tuple[Path, Path]:
    """The model as final_model.zip, the evaluation history as eval_history.json and summary.json (the kept
    model, the measure it was kept by, the evaluations) in `out`."""
    save_zip(model, out / "final_model.zip")       # through temporary files: a stop keeps the last
    write_text(out / "eval_history.json", json.dumps(trainer.history, indent=2))
    summary = {"algo": "sb3", "game": args.game, "num_players": args.players, "options": base_options(model),
               "seed": args.seed, **made_by(), "hyper": hyperparameters(args),
               "arguments": vars(args),
               "timesteps": int(model.num_timesteps),
               "wall_seconds": round(clock.elapsed(), 2), "seconds": args.seconds,
               "model": str(out / "best_model.zip") if trainer.best else None,
               "final_model": str(out / "final_model.zip"), "kept_by": measure_name(args) + ", then win rate",
               "kept": trainer.best, "evaluations": trainer.history}
    write_text(out / "summary.json", json.dumps(summary, indent=1))
    return out / "final_model.zip", out / "eval_history.json"


__all__ = ["heuristic_games", "warm_start", "opponent_pool", "save_compact", "main", "DEFAULT_MODEL"]


if __name__ == "__main__":
    sys.exit(main(since_process_start=True))
