"""The command line of evaluate.py: matches and leagues of named agents on batches of any game, in this process
or as Ray tasks (--ray: evaluation.ray_tasks, imported only then)."""
import argparse
import inspect
import json
import math
import sys
import time
from functools import partial

from quando_env.checks import printable, shown
from quando_env import argtypes
from quando_env.core import MAX_GAMES as MAX_BATCH
from quando_env.extras import missing
from quando_env.files import write_text
from quando_env.registry import game_class, game_names

from quando_env.agents import NAMES_HELP, RolloutAgent, check_agent, make_agent, plugins
from .matches import MAX_GAMES, AgentFailed, Interrupted, build_agents, format_table, play_match
from .league import LINEUP_SEED_STEP, format_ratings, play_league
from quando_env.stops import Stopped, sigterm_stops

MAX_SAMPLES = 10_000          # --rollout-samples (twice as many when knocking is an option)
SAMPLES = inspect.signature(RolloutAgent).parameters["samples"].default     # the rollout agents' own default
AGENT_SEED_STEP = 7919        # agent i of the command line is seeded seed + 7919 i


def parser(prog: str = "evaluate.py") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description="Measure agents against each other. Seats "
                                "rotate game by game, so no agent keeps the starting advantage. Bad options are "
                                "refused before any game is played.", allow_abbrev=False)
    p.add_argument("--game", default="quando", choices=game_names(), help="the game (default quando)")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--agents", nargs="+", metavar="NAME", help="the agents of the match, one per seat (agent "
                   "names: " + NAMES_HELP + "; LABEL=NAME shows LABEL in the tables, charts and JSON). With fewer "
                   "names than --players the seats are shared fairly: in "
                   "game j seat s is played by agent (s - j) mod k (k names), so the extra seats rotate and over "
                   "any k games every agent plays the same number of seats, whatever its place on the command line")
    g.add_argument("--league", nargs="+", metavar="NAME", help="distinct agents to play round robin (every "
                   "lineup of --players of them; with fewer agents than --players, one lineup of them all sharing "
                   "the seats as --agents does), rated with OpenSkill by the game's own winners and order")
    p.add_argument("--games", type=argtypes.int_in(1, MAX_GAMES), default=200,
                   help=f"games (per lineup in a league), 1..{MAX_GAMES}; default 200")
    p.add_argument("--seed", type=argtypes.seed, default=0, help="game j is seeded seed + j; default 0")
    p.add_argument("--players", type=argtypes.positive_int, default=None, help="players per game (default: the "
                   "number of --agents, 4 in a league)")
    p.add_argument("--edition", choices=["kendi", "oya"], default=None, help="Quando's edition (default kendi)")
    argtypes.add_game_options(p)
    p.add_argument("--batch-size", type=argtypes.int_in(1, MAX_BATCH), default=256, help="games stepped together; "
                   "default 256 (with --ray, fewer where that gives every CPU a batch)")
    p.add_argument("--rollout-samples", type=argtypes.int_in(2, MAX_SAMPLES), default=None, help="worlds per "
                   f"decision of rollout agents, 2..{MAX_SAMPLES} (twice as many when knocking is an option); "
                   f"default {SAMPLES}")
    p.add_argument("--json", metavar="FILE", type=argtypes.output_file, help="write the results as JSON (its "
                   "folder must exist)")
    p.add_argument("--plot", metavar="DIR", type=argtypes.output_dir, help="write PNG charts into DIR (created)")
    p.add_argument("--records", metavar="DIR", type=argtypes.output_dir, help="keep every game of a match as a "
                   "game record in DIR (created): game_00000.json ... (python -m quando_env replay shows one) and "
                   "games.json, each game's seed and the agent at each seat; written after the table and --json, "
                   "which a failed or stopped record keeps")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--ray", metavar="ADDRESS", type=ray_address, help="play the batches as Ray tasks, at least one "
                   "per CPU: `local` starts a Ray on this machine, HOST:PORT (what `ray start --head` prints), "
                   "ray://HOST:PORT or auto joins a cluster; same results as without --ray")
    return p


def parse_args(argv=None, prog: str = "evaluate.py") -> argparse.Namespace:
    """The command line, checked as a whole before any work (argparse's exit 2, naming the option, otherwise):
    players for the game, agent names (and that their files exist), and room for every seed the run uses."""
    p = parser(prog)
    args = p.parse_args(argv)
    args.prog = prog
    names = args.league or args.agents
    args.labels, names[:] = map(list, zip(*(display_name(p, x) for x in names)))
    option = "--league" if args.league else "--agents"
    if args.league and args.records:
        p.error("argument --records: only a match (--agents) keeps its games")
    if args.league and (len(set(args.labels)) != len(names) or len(names) < 2):
        p.error(f"argument --league: give at least two distinct agents, got {' '.join(args.labels)}")
    if args.agents:
        agent_of = {}
        for label, name in zip(args.labels, names):     # one row, one agent (seats of one agent share a row)
            if agent_of.setdefault(label, name) != name:
                p.error(f"argument --agents: the label {shown(label)} is given to two agents, {agent_of[label]} and "
                        f"{name}: give each agent its own label")
    if args.agents and args.players is not None and len(names) > args.players:
        p.error(f"argument --agents: {len(names)} agents for {args.players} players")
    argtypes.check_game_options(p, args.game, args.players or (4 if args.league else len(names)), args.edition,
                                players_option="--players" if args.players else option,
                                players_from="" if args.players or args.league else
                                "; without --players a match has one player per agent", options=args.option)
    args.players = args.players or (4 if args.league else len(names))
    lineups = math.comb(len(names), args.players) if args.league and len(names) >= args.players else 1
    argtypes.check_seed_room(p, args.seed, LINEUP_SEED_STEP * (lineups - 1) + args.games - 1,
                             f"{lineups} lineup(s) of {args.games} games")
    argtypes.check_seed_room(p, args.seed, AGENT_SEED_STEP * (len(names) - 1), f"{len(names)} agents")
    for name in names:
        try:
            check_agent(name, args.game, num_players=args.players)
        except (ValueError, OSError) as e:
            p.error(f"argument {option}: {printable(e)}")      # (a model file's words among them)
    return args


def display_name(p: argparse.ArgumentParser, text: str) -> tuple[str, str]:
    """(the name tables, charts and JSON show, the agent name) of NAME or LABEL=NAME (a LABEL has no : or /)."""
    label, eq, name = text.partition("=")
    if not eq or ":" in label or "/" in label:
        return text, text
    if not label or not name:
        p.error(f"argument --agents/--league: {text!r}: give NAME or LABEL=NAME")
    return label, name


def provenance(args) -> dict:
    """What else shaped the results, for a report to cite: the package's version, every option of the game,
    the evaluation's settings, and each model file with its SHA-256."""
    import hashlib

    import quando_env
    from quando_env.core import make_config

    from quando_env.agents import model_path

    config = make_config(game_class(args.game).config_class, num_players=args.players, **rules(args))
    models = {}
    for label, name in zip(args.labels, args.league or args.agents):
        path = model_path(name, args.game, args.players)
        if path is not None:
            models[label] = {"name": name, "path": str(path.resolve()),
                             "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    return {"version": quando_env.__version__, "options": config.to_dict(), "batch_size": args.batch_size,
            "rollout_samples": args.rollout_samples or SAMPLES,
            "agent_names": dict(zip(args.labels, args.league or args.agents)),
            "models": models}


def ray_address(text: str) -> str:
    """--ray's value: local, auto, HOST:PORT or ray://HOST:PORT."""
    host, colon, port = text.removeprefix("ray://").rpartition(":")
    if text in ("local", "auto") or (colon and host and port.isdigit()):
        return text
    raise argparse.ArgumentTypeError(f"{text!r} is no Ray address: give local (a Ray on this machine), "
                                     "HOST:PORT (what `ray start --head` prints), ray://HOST:PORT or auto")


def ray_runner(address: str | None):
    """The runner of --ray (None without it): Ray is imported here only. ValueError in one line when Ray is
    missing or no cluster answers at the address."""
    if address is None:
        return None
    try:
        from .ray_tasks import RayRunner
    except ModuleNotFoundError as e:
        if e.name != "ray":
            raise
        raise ValueError(missing("rllib", "--ray", "ray")) from None
    try:
        return RayRunner(address)
    except Exception as e:      # whatever Ray raises for an address that does not answer, in one line
        lines = str(e).strip().splitlines()
        raise ValueError(f"--ray {address}: {lines[0] if lines else type(e).__name__}") from None


def rules(args) -> dict:
    """The game options the command line sets."""
    return argtypes.rule_options(args)


def build(name: str, seed: int, args, root: str | None = None):
    """The agent `name` of the command line; what a Ray task started elsewhere builds its agents with, so a
    plug-in's file comes by its absolute path (plugins.canonical) and a plug-in module with the folder it was
    imported from here (root: plugins.import_root)."""
    plugins.importable(root)
    kwargs = {}
    if name == "rollout" and args.rollout_samples is not None:
        kwargs["samples"] = args.rollout_samples
        kwargs["knock_samples"] = 2 * args.rollout_samples
    try:
        return make_agent(name, seed=seed, game=args.game, num_players=args.players, options=rules(args), **kwargs)
    except (ValueError, OSError):
        raise
    except Exception as e:      # a plug-in whose constructor fails: one line, as for any agent that cannot be made
        raise ValueError(f"agent {name!r} could not be made: {type(e).__name__}: {e}") from e


def play(args, runner) -> tuple:
    """Play the match or league: (its JSON, the summary to chart, the games played when Ctrl-C, SIGTERM or a
    failing agent stopped it early (None when it ran to the end), its table, the agent's error if one failed,
    the match's MatchResult (None for a league): what the records are written from, after the results)."""
    n = args.players
    makers = [partial(build, plugins.canonical(name), args.seed + AGENT_SEED_STEP * i, args,
                      plugins.import_root(name)) for i, name in enumerate(args.league or args.agents)]
    names = args.labels
    what = args.game + (f", {args.edition}" if args.edition else "")
    higher = game_class(args.game).higher_total_wins
    played = failed = None
    t0 = time.time()
    where = f" on Ray ({runner.num_cpus} CPUs)" if runner else ""
    if args.league:
        try:
            result = play_league(dict(zip(names, makers)), args.games, seed=args.seed, num_players=n,
                                 progress=not args.no_progress, batch_size=args.batch_size, game=args.game,
                                 runner=runner, **rules(args))
        except (Interrupted, AgentFailed) as stop:
            result, played = stop.result, stop.result["games_played"]
            failed = getattr(stop, "error", None)
        title = (f"{what}: league of {len(names)} agents, {n} players, {len(result['lineups'])} lineups x "
                 f"{args.games} games, seed {args.seed}, {time.time() - t0:.1f}s{where}"
                 f"{partial_note(played, len(result['lineups']) * args.games)}")
        out = {"mode": "league", "game": args.game, "players": n, "seed": args.seed, **rules(args),
               "higher_total_wins": higher, **result, **provenance(args)}
        return out, result["ratings"], played, title + "\n" + format_ratings(result, higher), failed, None
    try:
        res = play_match(partial(build_agents, makers), args.games, seed=args.seed, names=names,
                         batch_size=args.batch_size, progress=not args.no_progress, game=args.game, runner=runner,
                         num_players=n, keep_actions=bool(args.records), **rules(args))
    except (Interrupted, AgentFailed) as stop:
        res, played = stop.result, len(stop.result.places)
        failed = getattr(stop, "error", None)
    summary = res.pooled()
    table = format_table(summary, f"{what}: {args.games} games, {n} players, seats rotating, seed {args.seed}, "
                                  f"{time.time() - t0:.1f}s{where}{partial_note(played, args.games)}", higher)
    out = {"mode": "match", "game": args.game, "players": n, "games": args.games, "seed": args.seed,
           **rules(args), "higher_total_wins": higher, "seats": names, "agents": summary, **provenance(args),
           "per_game": per_game(res, args.seed, played)}
    return out, summary, played, table, failed, res


def write_records(res, args, index: list) -> None:
    """Every finished game of the match as a record in args.records, each one's entry added to `index` once
    written, then games.json indexing them (removed first: an index never lists files of another run). A
    symlink in the folder is replaced, never written through."""
    from pathlib import Path

    from quando_env.adapters import record

    from .matches import game_records

    folder = Path(args.records)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "games.json").unlink(missing_ok=True)
    for j, seed, seats, rec in game_records(res, args.seed, {"num_players": args.players, **rules(args)}):
        name = f"game_{j:05d}.json"
        record.save(rec, folder / name, follow_symlinks=False)
        index.append({"file": name, "seed": seed, "seats": seats})
    write_text(folder / "games.json", json.dumps({"game": args.game, "games": index}, indent=1),
               follow_symlinks=False)


def keep_records(res, args) -> int:
    """The records stage, after the table and --json are out: 0 when every record and games.json were written,
    else the exit status (1 for a failed write, 130 for Ctrl-C, 143 for SIGTERM), having said that the results
    are kept and how far the records got."""
    index, games = [], sum(a is not None for a in res.actions or [])
    try:
        write_records(res, args, index)
        return 0
    except (ValueError, OSError) as e:
        why, status = f"error: {e}", 1
    except KeyboardInterrupt as e:      # Ctrl-C, or SIGTERM (Stopped)
        why, status = ("stopped by SIGTERM", 143) if isinstance(e, Stopped) else ("interrupted", 130)
    kept = ", ".join(["the table", *([f"--json {args.json}"] if args.json else []),
                      *([f"--plot {args.plot}"] if args.plot else [])])
    print(f"{args.prog}: {printable(why)}: results kept ({kept}), records incomplete: {len(index)} of {games} games "
          f"written to {args.records}, no games.json", file=sys.stderr)
    return status


def per_game(res, seed: int, played: int | None) -> dict:
    """Each game's result by agent (position on the command line), for paired comparisons: its seed, each
    agent's place (0: among the winners; an agent with several seats: its best) and final total. None for a
    run stopped early (its finished games need not be the first ones)."""
    if played is not None:
        return None
    return {"seeds": [seed + j for j in range(len(res.places))], "places": res.places.tolist(),
            "totals": res.totals.tolist()}


def partial_note(played: int | None, planned: int) -> str:
    """What a title adds when Ctrl-C stopped the run (played is None when it ran to the end)."""
    if played is None:
        return ""
    return f" (PARTIAL: interrupted after {played} of {planned} games)"


def main(argv=None, prog: str = "evaluate.py") -> int:
    """Exit status 0; 2 for a bad option (nothing played) or an agent or Ray that cannot be set up; 130 after
    Ctrl-C, 143 after SIGTERM and 1 after an agent raised (the games finished by then are reported and written,
    marked partial, if there are any). The results (table, --json, --plot) come first, --records after them: a
    record that cannot be written (1), Ctrl-C or SIGTERM then (130, 143) keeps the results and says how many
    records were written. `prog`: the command's name in its messages."""
    args = parse_args(argv, prog)
    try:
        with sigterm_stops() as fired:
            return run(args, fired)
    except Stopped:         # a second SIGTERM while the results were written
        return 143


def run(args, fired: list) -> int:
    failed = None
    try:
        runner = ray_runner(args.ray)
        out, summary, played, table, failed, res = play(args, runner)
    except (ValueError, OSError) as e:
        print(f"{args.prog}: error: {printable(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:       # before play_match had any result to carry (e.g. building the agents)
        played = 0
    stopped = 143 if fired else 130     # SIGTERM, or Ctrl-C
    if played == 0 and failed is not None:      # nothing finished: the agent's error alone, in one line
        print(f"{args.prog}: error: {printable(failed) if isinstance(failed, (ValueError, OSError)) else repr(failed)}",
              file=sys.stderr)
        return 2 if isinstance(failed, (ValueError, OSError)) else 1
    if played == 0:
        print(f"{args.prog}: interrupted before any game finished: nothing written", file=sys.stderr)
        return stopped
    print(table)
    if played is not None:
        out.update(partial=True, games_played=played)
        if failed is not None:
            out["error"] = f"{type(failed).__name__}: {failed}"
    try:
        if args.json:
            write_text(args.json, json.dumps(out, indent=2))
        if args.plot:
            from .plots import plot_ratings, plot_summary

            what = f"{args.game}, {args.players} players, {args.games} games{' per lineup' if args.league else ''}, " \
                   f"seed {args.seed}"
            paths = plot_summary(summary, args.plot, title=what,
                                 higher_total_wins=game_class(args.game).higher_total_wins)
            if args.league:
                paths += plot_ratings(out, args.plot, title=what)
            print("charts: " + ", ".join(str(p) for p in paths))
    except OSError as e:
        print(f"{args.prog}: error: could not write the results: {printable(e)}", file=sys.stderr)
        return 1
    status = 0
    if played is not None:
        why = f"an agent failed ({printable(out['error'])})" if failed is not None else "interrupted"
        print(f"{args.prog}: {why}: the {played} games finished are reported" +
              (" and written, marked partial" if args.json or args.plot else ""), file=sys.stderr)
        status = 1 if failed is not None else stopped
    records = keep_records(res, args) if args.records else 0
    return status or records


if __name__ == "__main__":
    sys.exit(main(prog="python -m quando_env.evaluation.cli"))
