"""The command line (`train.py`, `python -m quando_env train`, `python -m quando_env.training.learner`).

`parse_args` checks the whole command line before anything is written: the game's recipe, then --set, --seed,
--threads, --eval-games, or with --resume the run's saved settings. `main` runs it (`train_stage`), then the game's
finishing stage when the recipe has one.
"""
import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

from quando_env import argtypes
from quando_env.checks import printable, shown
from quando_env.files import read_json, write_text, writes_fail_in_main_thread
from quando_env.registry import game_names

from quando_env.stops import sigterm_stops
from ..budget import process_age
from .hyper import MAX_THREADS, OTHER_GAMES_DECISIONS, SEED_MAX32, Hyper, default_decisions, finish, recipe
from .loop import Diverged
from .run import Run, open_run, write_failed
from .state import read_state


def parser(prog: str = "python -m quando_env.training.learner") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description="Train a learned agent by batched "
                                "self-play against a pool (the game's heuristic, snapshots of itself). Bad options "
                                "are refused before anything is written.", allow_abbrev=False)
    p.add_argument("--game", default=None, choices=game_names(), help="the game (default quando)")
    p.add_argument("--seconds", type=argtypes.float_in(0.0, 10.0**9, above=True), default=None,
                   help="wall time of the whole run, counted from the start of the command (its imports "
                   "included): training stops early enough that the last evaluation and saving end within it, and an "
                   "evaluation stops at that end with the games that ended by then (a new run's first evaluation "
                   "comes first whatever the budget; a --finish stage runs its own decisions after)")
    p.add_argument("--timesteps", type=argtypes.positive_int, default=None,
                   help="stop at the first update with at least this many decisions of experience "
                   "(a new run given neither option: "
                   + ", ".join(f"{g} {default_decisions(g):,}" for g in game_names())
                   + f", another game {OTHER_GAMES_DECISIONS:,})")
    p.add_argument("--seed", type=argtypes.int_in(0, SEED_MAX32), default=None, help=f"0..{SEED_MAX32} (default 0)")
    p.add_argument("--threads", type=argtypes.int_in(1, MAX_THREADS), default=None,
                   help="torch threads, numba at most as many (default 1)")
    p.add_argument("--device", default=None, choices=("cpu", "cuda"), help="where the network runs (default cpu; "
                   "cuda: an NVIDIA GPU, the games still step on the CPU)")
    p.add_argument("--out", default=None, type=argtypes.output_dir, help="run folder, created if missing (default "
                   "runs/learned_GAME)")
    p.add_argument("--resume", action="store_true", help="continue the run saved in --out, with its own settings "
                   "(--game, --seed, --threads, --eval-games and --set may only repeat them)")
    p.add_argument("--eval-every", type=argtypes.positive_int, default=2_000_000,
                   help="decisions between evaluations (default 2,000,000; a short run wants fewer)")
    p.add_argument("--eval-games", type=argtypes.positive_int, default=None, help="games per evaluation (default "
                   "400)")
    p.add_argument("--checkpoint-every", type=argtypes.positive_int, default=5_000_000,
                   help="decisions between checkpoints (default 5,000,000)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="change a setting of Hyper "
                   "(e.g. --set method=dmc --set hidden=128,128 --set num_players=3 --set 'options={\"edition\": "
                   "\"oya\"}')")
    p.add_argument("--finish", action=argparse.BooleanOptionalAction, default=None,
                   help="after the run, the game's finishing stage (its spec's finish: PPO against the heuristic "
                   "alone from the run's best.npz, in OUT/finish; default: on for a new run given none of --set, "
                   "--seconds and --timesteps, and for a resumed run that had it)")
    p.add_argument("--no-progress", action="store_true")
    return p


def _setting(p: argparse.ArgumentParser, item: str) -> tuple[str, object]:
    """(name, value) of one --set NAME=VALUE, converted to the setting's type (the program ends otherwise)."""
    fields = {f.name: f.type for f in dataclasses.fields(Hyper) if f.name != "game"}
    name, eq, text = item.partition("=")
    if not eq or name not in fields:
        p.error(f"argument --set: {shown(item)}: give NAME=VALUE with NAME one of {', '.join(fields)}")
    kind = fields[name]
    try:
        if kind is dict:
            value = json.loads(text)
            if not isinstance(value, dict):
                raise ValueError
        elif kind is tuple:
            value = tuple(int(x) for x in text.split(",")) if text or name != "move_hidden" else ()
        elif kind is float:
            value = float(text)
        elif kind is bool:
            value = {"1": True, "true": True, "0": False, "false": False}[text.lower()]
        else:
            value = kind(text)
    except (ValueError, KeyError):
        what = {dict: "a JSON object", tuple: "integers separated by commas", float: "a number", int: "an integer",
                bool: "1, 0, true or false"}
        p.error(f"argument --set: {shown(item)}: {name} takes {what.get(kind, 'a string')}")
    return name, value


def parse_args(argv=None, prog: str = "python -m quando_env.training.learner") -> argparse.Namespace:
    """The command line, checked as a whole before anything is written (argparse's exit 2, naming the option,
    otherwise): args.hyper is the run's checked settings (the game's recipe, then --set, --seed, --threads,
    --eval-games), or with --resume those saved in --out, which the options given must repeat; a new run given
    neither --seconds nor --timesteps gets the game's default_decisions (a resumed one runs until stopped, or to
    the first run's budget of a recipe with its finishing stage); args.finish says whether its finish follows and
    args.recipe what a new such run saves of its plan."""
    p = parser(prog)
    args = p.parse_args(argv)
    game = args.game or "quando"
    args.out = argtypes.check(p, "--out", argtypes.output_dir, args.out or f"runs/learned_{game}")
    given = {"--game": {"game": args.game}, "--seed": {"seed": args.seed}, "--threads": {"threads": args.threads},
             "--device": {"device": args.device},
             "--eval-games": {"eval_games": args.eval_games}, "--set": dict(_setting(p, x) for x in args.set)}
    given = {k: {n: v for n, v in d.items() if v is not None} for k, d in given.items()}
    twice = [f"{n}={shown(v)} and {option} {shown(d[n])}" for option, d in given.items() if option != "--set"
             for n, v in given["--set"].items() if n in d and v != d[n]]
    if twice:
        p.error(f"argument --set: {'; '.join(twice)} disagree: give one")
    kw = {"game": game, **recipe(game)}
    for d in given.values():
        kw.update(d)
    try:
        hp = Hyper(**kw)
    except ValueError as e:
        option = next((k for k, d in given.items() if str(e).partition("=")[0] in d), "--set")
        p.error(f"argument {option}: {e}")
    args.hyper = hp
    if args.resume:
        args.hyper = saved_hyper(p, Path(args.out), given)
    elif (Path(args.out) / "state.json").exists():
        p.error(f"argument --out: {args.out} holds a run already: --resume continues it, another --out starts a new "
                "one")
    saved = read_recipe(p, Path(args.out)) if args.resume else {}
    plain = not (args.set or args.seconds or args.timesteps)
    if args.finish is None:
        args.finish = saved.get("finish", False) if args.resume else plain and finish(args.hyper.game) is not None
    if args.finish and finish(args.hyper.game) is None:
        with_one = [g for g in game_names() if finish(g) is not None]
        p.error(f"argument --finish: {args.hyper.game} has no finishing stage (games with one: {', '.join(with_one)})")
    if args.resume and args.timesteps is None:
        args.timesteps = saved.get("timesteps")
    if args.seconds is None and args.timesteps is None and not args.resume:
        args.timesteps = default_decisions(args.hyper.game)
    args.recipe = {"finish": True, "timesteps": args.timesteps} if args.finish and not args.resume else None
    return args


def read_recipe(p: argparse.ArgumentParser, out: Path) -> dict:
    """What a run followed by its finishing stage saved of its plan (out/recipe.json; {} for another run)."""
    if not (out / "recipe.json").exists():
        return {}
    try:
        recipe = read_json(out / "recipe.json", "run recipe")
        if not (isinstance(recipe, dict) and isinstance(recipe.get("finish"), bool)
                and (recipe.get("timesteps") is None or type(recipe["timesteps"]) is int)):
            raise ValueError("not a recipe: {\"finish\": true|false, \"timesteps\": an integer or null}")
    except ValueError as e:
        p.error(f"argument --resume: {out / 'recipe.json'} cannot be read: {type(e).__name__}: {printable(e)}")
    return recipe


def finish_args(args: argparse.Namespace) -> argparse.Namespace:
    """The finishing stage of a run: the game's finish settings over the run's, from its best.npz, in out/finish, for
    its decisions (resumed where it has begun)."""
    out = Path(args.out) / "finish"
    settings, decisions = finish(args.hyper.game)
    resume = (out / "state.json").exists()
    hp = None if resume else dataclasses.replace(args.hyper, **settings, init=str(Path(args.out) / "best.npz"))
    return argparse.Namespace(**{**vars(args), "out": str(out), "resume": resume, "hyper": hp,
                                 "timesteps": decisions, "seconds": None, "finish": False, "recipe": None})


def saved_hyper(p: argparse.ArgumentParser, out: Path, given: dict) -> Hyper:
    """The settings of the run saved in `out`; the program ends if there is none or an option given differs
    from them (a resumed run keeps its settings: its random streams, network and games follow from them)."""
    if not (out / "state.json").exists():
        p.error(f"argument --resume: no run saved in {out} (no state.json there)")
    try:
        hp = Hyper(**read_state(out)["hyper"])
    except (ValueError, TypeError) as e:
        p.error(f"argument --resume: the run saved in {out} cannot be read: {type(e).__name__}: {printable(e)}")
    for option, settings in given.items():
        differ = [f"{n}={shown(v)} (the run has {shown(getattr(hp, n))})" for n, v in settings.items()
                  if (tuple(v) if isinstance(v, list) else v) != getattr(hp, n)]
        if differ:
            p.error(f"argument {option}: --resume continues the run in {out} with its own settings: "
                    f"{'; '.join(differ)}")
    return hp


def main(argv=None, prog: str = "python -m quando_env.training.learner", since_process_start: bool = False) -> int:
    """Exit status 0; 2 for a bad option (nothing written) or an --out folder another run is writing to; 130
    after Ctrl-C, 143 after SIGTERM (a scheduler's or kill's stop; a background job of a shell ignores Ctrl-C),
    both with the model and state saved; 1 when an update diverged (the last good model and state saved). `prog`:
    the command's name in its messages and log (train.py runs this with its own). With --finish, the finishing
    stage follows a run that ended well (a stopped one resumes first). since_process_start: --seconds counts from
    the start of the process (a command line's: its imports included), else from this call."""
    age = process_age() if since_process_start else 0.0
    started = Run.clock() - age, 0.0 if since_process_start else time.process_time()     # --seconds counts from here
    args = parse_args(argv, prog)
    if not (args.finish and args.resume and (Path(args.out) / "finish" / "state.json").exists()):
        status = train_stage(args, prog, argv, started)
        if status or not args.finish:
            return status
    stage = finish_args(args)
    settings = " ".join(f"{k}={shown(v)}" for k, v in finish(args.hyper.game)[0].items())
    print(f"{prog}: the finishing stage of {args.hyper.game} ({settings}) "
          f"{'resumed' if stage.resume else 'from ' + stage.hyper.init} in {stage.out}")
    return train_stage(stage, prog, argv, (Run.clock(), time.process_time()))


def train_stage(args: argparse.Namespace, prog: str, argv, started: tuple) -> int:
    """One run as parse_args describes it, begun at `started` (Run.clock(), time.process_time()): main's exit
    statuses."""
    opened = open_run(args, prog)
    if isinstance(opened, int):
        return opened
    learner, prior, lock = opened
    with lock, writes_fail_in_main_thread():
        try:
            if args.recipe is not None:
                write_text(Path(args.out) / "recipe.json", json.dumps(args.recipe))
            run = Run(args, prog, argv, learner, prior, started)
        except OSError as e:
            saved = learner.counters["decisions"] if args.resume else None
            print(f"{prog}: error: {write_failed(e, Path(args.out), saved)}", file=sys.stderr)
            return 1
        try:
            return stage(run, args)
        except OSError as e:
            return run.write_failed(e)


def stage(run: Run, args: argparse.Namespace) -> int:
    """Train `run` to its end, or until Ctrl-C, SIGTERM or a diverged update: train_stage's exit statuses."""
    c, goal = run.learner.counters, args.timesteps
    if goal is not None and c["decisions"] >= goal:
        run.log(f"the run has {c['decisions']:,} decisions already, at least --timesteps {goal:,}: nothing to train")
    with sigterm_stops():
        try:
            run.train()
        except KeyboardInterrupt as e:
            return run.stopped(e)
        except Diverged as e:
            return run.diverged(e)
    return run.done()
