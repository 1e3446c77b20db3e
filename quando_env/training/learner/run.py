"""A run folder: what a run writes while it trains (log, TensorBoard, evaluations, best.npz, curve.png,
checkpoints, the saved state, summary.json), and reading a run's summary back.

`open_run` reads and checks everything before anything is written; `Run` then drives the learner, evaluating,
checkpointing and saving on its schedule, and saves the model and state when stopped.
"""
import contextlib
import dataclasses
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from quando_env.checks import printable
from quando_env.files import not_written, read_json
from quando_env.provenance import made_by

from quando_env.agents.learned import replace_file, save_model
from quando_env.stops import Stopped, lock_folder
from .loop import Diverged, Learner

SAVE_SECONDS = 1.0      # what ending a run takes beyond its longest save (the summary, the logs closed; 0.1 s measured)
EVAL_MARGIN = 1.0       # the last evaluation is planned as long as the longest yet (it stops at its deadline)


def read_summary(path: Path) -> dict:
    """The summary.json of a run, checked as far as resuming reads it (ValueError otherwise): times and numbers
    finite and >= 0, win rates and their intervals in 0..1, decisions integers (an evaluation's "seconds", what
    it took, is missing from runs saved before it was kept)."""
    s = read_json(path, "run summary", 32 << 20)        # (it grows with the evaluations: about 200 bytes each)
    evals = s.get("evaluations") if isinstance(s, dict) else None

    def number(x, lo=0.0, hi=math.inf) -> bool:
        return type(x) in (int, float) and math.isfinite(x) and lo <= x <= hi

    def evaluation(e) -> bool:
        return isinstance(e, dict) and type(e.get("decisions")) is int and 0 <= e["decisions"] <= 2**53 \
            and number(e.get("win_rate"), hi=1) and number(e.get("wall_seconds")) and number(e.get("seconds", 0.0)) \
            and number(e.get("mean_round_points"), lo=-math.inf) and isinstance(e.get("ci"), list) \
            and len(e["ci"]) == 2 and all(number(x, hi=1) for x in e["ci"])
    if not (isinstance(evals, list) and all(number(s.get(k)) for k in ("wall_seconds", "cpu_seconds"))
            and all(map(evaluation, evals))):
        raise ValueError("not the summary of a run (evaluations, wall_seconds, cpu_seconds)")
    return s


def phase(learner) -> str:
    """What the progress bar calls the run's current phase: the warm start's imitation, then the method."""
    hp = learner.hp
    return f"{hp.game} {'imitation of ' + hp.teacher if learner.imitating else hp.method.upper()}"


def plot_curve(evaluations: list, path: Path, game: str, num_players: int) -> None:
    """curve.png: win rate against the heuristic players (95% interval) over decisions and over wall time."""
    from quando_env.evaluation.plots import pyplot

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    wr = np.array([e["win_rate"] for e in evaluations])
    err = np.abs(np.array([e["ci"] for e in evaluations]).T - wr)
    for ax, key, label in ((axes[0], "decisions", "decisions of experience"), (axes[1], "wall_seconds",
                                                                                 "wall time (s)")):
        ax.errorbar([e[key] for e in evaluations], wr, yerr=err, marker="o", capsize=3)
        ax.axhline(1 / num_players, color="gray", ls="--", label=f"1/{num_players}")
        ax.set_xlabel(label)
        ax.legend()
    axes[0].set_ylabel(f"win rate vs {num_players - 1} heuristic players")
    fig.suptitle(f"{game}: learned agent against the heuristic")
    fig.tight_layout()
    replace_file(path, lambda tmp: fig.savefig(tmp, dpi=100, format="png"))
    plt.close(fig)


def write_failed(e: OSError, out: Path, saved_at: int | None) -> str:
    """What a failed write of a run in `out` says: the file, why, and what is kept (every file is replaced whole,
    so the one there before stays; saved_at: the decisions of the run's state saved last, None if none was)."""
    name = Path(e.filename).name if e.filename else None
    kept = [f"the previous {name}"] if name and os.path.isfile(e.filename) else []
    kept.append(f"the run saved at {saved_at:,} decisions (--resume continues it)" if saved_at is not None
                else "no state of this run had been saved yet")
    return f"{not_written(e, out / 'tb')}; kept: {', '.join(kept)}"


def open_run(args, prog: str) -> tuple | int:
    """(learner, summary of the run so far, the --out folder's lock): everything read and checked before
    anything is written; 2, the message printed, when something cannot be."""
    out = Path(args.out)
    prior = {"wall_seconds": 0.0, "cpu_seconds": 0.0, "evaluations": []}
    option = "--resume" if args.resume else "--set init" if args.hyper.init else "--set"
    try:
        if args.resume:
            learner = Learner.resume(out)
            if (out / "summary.json").exists():
                option = f"--resume: {out / 'summary.json'}"
                prior.update(read_summary(out / "summary.json"))
            if prior["evaluations"] or (out / "best.npz").exists():     # the model the summary names
                option = "--resume: the run's best model"
                learner.check_model(out / "best.npz")
        else:
            learner = Learner(args.hyper)
        option = "--out"
        out.mkdir(parents=True, exist_ok=True)
        lock = lock_folder(out)         # one run per folder, held until this process ends
    except (OSError, ValueError, TypeError) as e:
        print(f"{prog}: error: argument {option}: {printable(e)}", file=sys.stderr)
        return 2
    return learner, prior, lock


class Run:
    """What a run writes while it trains: its log (out/log.txt), TensorBoard scalars (out/tb), the progress
    bar, the evaluations (best.npz, curve.png), checkpoints, the saved state and summary.json."""

    clock = staticmethod(time.perf_counter)     # the run's time in seconds (--seconds counts on it)

    def __init__(self, args, prog: str, argv, learner: Learner, prior: dict, started: tuple):
        from torch.utils.tensorboard import SummaryWriter
        from tqdm.auto import tqdm

        self.args, self.prog, self.learner, self.prior = args, prog, learner, prior
        self.t_start, self.cpu_start = started
        self.out = Path(args.out)
        self.end = None if args.seconds is None else self.t_start + args.seconds
        self.took = {"iteration": 0.0, "evaluation": max([e.get("seconds", 0.0) for e in prior["evaluations"]],
                                                         default=0.0), "save": 0.0}   # the longest of each yet
        self.write = tqdm.write
        self.saved_at = learner.counters["decisions"] if args.resume else None    # of the run saved in out
        self.logf = open(self.out / "log.txt", "a")
        self.evaluations = list(prior["evaluations"])
        self.made_by = made_by()        # the package's version and commit
        self.log(f"{prog} {' '.join(sys.argv[1:] if argv is None else argv)}")
        self.writer = SummaryWriter(str(self.out / "tb"))
        c = learner.counters
        self.bar = tqdm(total=args.timesteps, initial=c["decisions"], unit="dec", desc=phase(learner),
                        disable=True if args.no_progress else None, smoothing=0.1)    # None: on a terminal
        if self.evaluations:
            self.bar.set_postfix(eval=f"{self.evaluations[-1]['win_rate']:.3f}", refresh=False)
        self.next_eval = (c["decisions"] // args.eval_every + 1) * args.eval_every
        self.next_ckpt = (c["decisions"] // args.checkpoint_every + 1) * args.checkpoint_every

    def log(self, msg: str) -> None:
        self.write(msg)
        try:
            self.logf.write(msg + "\n")
            self.logf.flush()
        except OSError as e:
            e.filename = e.filename or str(self.out / "log.txt")
            raise

    def scalar(self, name: str, value: float) -> None:
        """A TensorBoard scalar at the current decisions (a failed write names out/tb)."""
        try:
            self.writer.add_scalar(name, value, self.learner.counters["decisions"])
        except OSError as e:
            e.filename = e.filename or str(self.out / "tb")
            raise

    def wall(self) -> float:
        """Wall seconds of the run, its earlier sessions included."""
        return self.prior["wall_seconds"] + self.clock() - self.t_start

    def summary(self) -> dict:
        """Write out/summary.json (settings, counters, speed, evaluations) and return it."""
        learner, hp, c = self.learner, self.learner.hp, self.learner.counters
        s = {"game": hp.game, "num_players": hp.num_players, "options": learner.game.config.to_dict(),
             "seed": hp.seed, **self.made_by, "method": hp.method, "decisions": c["decisions"],
             "bc_decisions": c["bc_decisions"],
             "decisions_per_second": c["loop_decisions"] / max(c["loop_seconds"], 1e-9),
             "wall_seconds": self.wall(),
             "cpu_seconds": self.prior["cpu_seconds"] + time.process_time() - self.cpu_start,
             "evaluations": self.evaluations, "model": str(self.out / "best.npz"),
             "final_model": str(self.out / "model.npz"),
             "hyper": {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(hp).items()}}
        replace_file(self.out / "summary.json", lambda tmp: tmp.write_text(json.dumps(s, indent=1)))
        return s

    def evaluate(self) -> None:
        """Evaluate the policy against the heuristic: logged, plotted, and saved as best.npz when the best yet.
        Its games end by the end of --seconds less the saving (budget.play_by), a new run's first evaluation's
        whatever the budget."""
        learner, c, out = self.learner, self.learner.counters, self.out
        t = self.clock()
        deadline = None if self.end is None or not self.evaluations else self.end - self.took["save"] - SAVE_SECONDS
        e = learner.evaluate(deadline=deadline, clock=self.clock)
        if e is None:
            self.log(f"[eval] {c['decisions']:>11,} decisions  no game ended by the end of --seconds: not evaluated "
                     f"({self.clock() - t:.0f}s)")
            return
        e["wall_seconds"] = self.wall()
        self.evaluations.append(e)
        for k in ("win_rate", "mean_round_points"):
            self.scalar(f"eval/{k}", e[k])
        self.scalar("eval/ci_low", e["ci"][0])
        self.scalar("eval/ci_high", e["ci"][1])
        best = max(x["win_rate"] for x in self.evaluations)
        line = (f"[eval] {c['decisions']:>11,} decisions  win rate vs {learner.n - 1} heuristic {e['win_rate']:.3f} "
                f"[{e['ci'][0]:.3f}, {e['ci'][1]:.3f}]  pts/round {e['mean_round_points']:.2f}  "
                f"({self.clock() - t:.0f}s)")
        self.bar.set_postfix(eval=f"{e['win_rate']:.3f}", refresh=False)
        if e["games"] < learner.hp.eval_games:
            line += f"  ({e['games']} of {learner.hp.eval_games} games: the rest would not end within --seconds)"
        if e["win_rate"] >= best:
            save_model(out / "best.npz", learner.header(), learner.weights())
            line += "  best so far: best.npz"
        self.log(line)
        plot_curve(self.evaluations, out / "curve.png", learner.hp.game, learner.n)
        e["seconds"] = self.clock() - t
        self.took["evaluation"] = max(self.took["evaluation"], e["seconds"])

    def save(self) -> None:
        """The model and what resuming needs, and the summary."""
        t = self.clock()
        self.learner.save_state(self.out)
        self.saved_at = self.learner.counters["decisions"]
        self.summary()
        self.took["save"] = max(self.took["save"], self.clock() - t)

    def checkpoint(self) -> None:
        """out/checkpoints/model_DECISIONS.npz, and the state saved."""
        learner = self.learner
        (self.out / "checkpoints").mkdir(exist_ok=True)
        save_model(self.out / "checkpoints" / f"model_{learner.counters['decisions']}.npz", learner.header(),
                   learner.weights())
        self.save()

    def iteration(self) -> None:
        """One iteration of the learner, logged; evaluations and checkpoints when their turn has come."""
        learner, c, args = self.learner, self.learner.counters, self.args
        t = self.clock()
        logs = learner.iteration()
        self.took["iteration"] = max(self.took["iteration"], self.clock() - t)
        for k, v in logs.items():
            self.scalar(k, v)
        self.bar.set_description(phase(learner), refresh=False)
        self.bar.update(logs["rollout/decisions"])
        if c["decisions"] >= self.next_eval:
            self.next_eval += args.eval_every
            self.evaluate()
        if c["decisions"] >= self.next_ckpt:
            self.next_ckpt += args.checkpoint_every
            self.checkpoint()

    def going(self) -> bool:
        """Whether the run goes on: --timesteps not reached, and time left in --seconds for another iteration, the
        rollout it leaves being collected (with overlap), the last evaluation (EVAL_MARGIN times the longest yet)
        and saving (the longest yet, and SAVE_SECONDS)."""
        c, goal = self.learner.counters, self.args.timesteps
        if goal is not None and c["decisions"] >= goal:
            return False
        t = self.took
        ending = (1 + self.learner.hp.overlap) * t["iteration"] + EVAL_MARGIN * t["evaluation"] + t["save"]
        if self.end is None or self.clock() + ending + SAVE_SECONDS <= self.end:
            return True
        self.log(f"time limit near at {c['decisions']:,} decisions: stopping (the last evaluation and saving fit in "
                 "--seconds)")
        return False

    def train(self) -> None:
        """Evaluate first (a new run), iterate while `going`, evaluate the last policy, save."""
        if not self.evaluations:
            self.evaluate()
        while self.going():
            self.iteration()
        if self.evaluations[-1]["decisions"] != self.learner.counters["decisions"]:
            self.evaluate()
        self.save()

    def close(self) -> None:
        self.bar.close()
        self.writer.close()
        self.logf.close()

    def stopped(self, e: KeyboardInterrupt) -> int:
        """Ctrl-C or SIGTERM: save, say so; exit status 130 or 143."""
        self.bar.close()
        self.save()
        how = "stopped by SIGTERM" if isinstance(e, Stopped) else "interrupted"
        print(f"{how} at {self.learner.counters['decisions']:,} decisions: model and state saved in {self.out} "
              "(--resume continues)")
        self.close()
        return 143 if isinstance(e, Stopped) else 130

    def diverged(self, e: Diverged) -> int:
        """An update diverged: the last good model and state saved; exit status 1."""
        self.bar.close()
        self.save()
        self.log(f"{self.prog}: error: {e}; the last good model and state are saved in {self.out} (--resume "
                 "continues from them: lower lr or max_grad_norm with --set)")
        self.close()
        return 1

    def write_failed(self, e: OSError) -> int:
        """A write failed (a full disk, a file too large, an I/O error): one line naming the file and what is kept;
        exit status 1."""
        for close in (self.bar.close, self.writer.close, self.logf.close):
            with contextlib.suppress(OSError):      # (what they still hold cannot be written either)
                close()
        print(f"{self.prog}: error: {write_failed(e, self.out, self.saved_at)}", file=sys.stderr)
        return 1

    def done(self) -> int:
        self.bar.close()
        self.writer.close()
        s = self.summary()
        self.log(f"done: {s['decisions']:,} decisions at {s['decisions_per_second']:,.0f}/s, final win rate "
                 f"{self.evaluations[-1]['win_rate']:.3f}, model {self.out / 'model.npz'}, best "
                 f"{self.out / 'best.npz'}")
        self.logf.close()
        return 0
