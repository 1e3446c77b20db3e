"""Command line: `python -m quando_env {demo,replay,play,serve,warmup,train,evaluate} [--game NAME] ...`.

The games' numba kernels compile on first use (30-60 s per game, then cached on disk): `warmup` compiles
every game's ahead."""
import argparse
import os
import sys

from ..checks import printable
from ..extras import MissingExtra, needs
from ..registry import game_names
from .. import argtypes
from . import agent_commands


def parse_args(argv=None) -> argparse.Namespace:
    """The command line; demo's and play's options are checked as a whole before any game starts (argparse's
    exit 2, naming the option, otherwise); train's and evaluate's are checked by their own parse_args."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in agent_commands.COMMANDS:
        return agent_commands.parse_args(argv[0], argv[1:])
    parser = argparse.ArgumentParser(prog="python -m quando_env", description=__doc__, allow_abbrev=False)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="play one game between random agents, print it and save its record",
                       allow_abbrev=False)
    d.add_argument("--game", default="quando", choices=game_names())
    d.add_argument("--players", type=argtypes.positive_int, default=4)
    d.add_argument("--edition", default=None, choices=["kendi", "oya"], help="Quando's edition (default kendi)")
    argtypes.add_game_options(d)
    d.add_argument("--seed", type=argtypes.seed, default=0, help="0..2^63-1")
    d.add_argument("--record", default="demo_game.json", type=argtypes.output_file, help="where to save the game "
                   "record (its folder must exist)")
    r = sub.add_parser("replay", help="print a saved game record turn by turn and say whether its proof holds",
                       allow_abbrev=False)
    r.add_argument("file")
    r.add_argument("--game", default=None, choices=game_names(), help="the record's game (checked; default: any)")
    r.add_argument("--require-proof", action="store_true", help="exit status 1 when the record is not proven "
                   "(a format /1 record, which carries no proof, replays with status 0 otherwise)")
    view = r.add_mutually_exclusive_group()
    view.add_argument("--show", action="store_true", help="print the table (omniscient view) before every move "
                      "and after the last")
    view.add_argument("--step", type=argtypes.int_in(0), default=None, metavar="N", help="print only the table at "
                      "position N (before action N; the number of actions: after the last), N checked against the "
                      "record")
    view.add_argument("--html", type=argtypes.output_file, default=None, metavar="OUT", help="write the replay as "
                      "one self-contained web page (no network) to step through from any seat's view")
    p = sub.add_parser("play", help="play against agents in the terminal", allow_abbrev=False)
    p.add_argument("--game", default="quando", choices=game_names())
    p.add_argument("--players", type=argtypes.positive_int, default=4)
    p.add_argument("--opponents", default="heuristic", help="one agent name for every opponent, or one per "
                   "opponent separated by commas: random, or a name of the agents package (entry point "
                   "quando_env.agents; evaluate.py --help lists them, and a bad name is refused with the list), "
                   "your own agent among them (FILE.py:NAME or package.module:NAME, see docs/agents.md); "
                   "ppo:PATH and rllib:CHECKPOINT run code from their file as they load it, and your own agent's "
                   "file runs as it is imported: load only files you trust")
    p.add_argument("--seed", type=argtypes.seed, default=None, help="0..2^63-1 (default: a random one)")
    p.add_argument("--edition", default=None, choices=["kendi", "oya"], help="Quando's edition (default kendi)")
    argtypes.add_game_options(p)
    p.add_argument("--record", default=None, type=argtypes.output_file, help="where to save the game record "
                   "(its folder must exist; default: a name with the time)")
    w = sub.add_parser("serve", help="play against agents in the browser: a local web server on 127.0.0.1 "
                       "that prints its address (with a per-launch token)", allow_abbrev=False)
    w.add_argument("--game", default="quando", choices=game_names())
    w.add_argument("--players", type=argtypes.positive_int, default=4)
    w.add_argument("--edition", default=None, choices=["kendi", "oya"], help="Quando's edition (default kendi)")
    argtypes.add_game_options(w)
    w.add_argument("--episode", default="game", choices=["game", "round"], help="play a whole game or one round")
    w.add_argument("--opponents", default="heuristic", help="the agents, as play's --opponents (see "
                   "python -m quando_env play --help)")
    w.add_argument("--humans", type=argtypes.positive_int, default=1, help="how many people play, at seats SEAT.."
                   "SEAT+HUMANS-1, each from their own address (the other seats are agents)")
    w.add_argument("--seat", type=argtypes.int_in(0), default=0, help="the (first) person's seat (0..players-1)")
    w.add_argument("--hints", default=None, metavar="AGENT", help="show beside your moves the probabilities a "
                   "learned agent gives them from your seat's observation: learned (the game's shipped model, for 4 "
                   "players) or learned:PATH")
    w.add_argument("--seed", type=argtypes.seed, default=None, help="the first game's seed, 0..2^63-1 (default: "
                   "a random one); each later game takes a random one; a game's seed is told once it is over")
    w.add_argument("--deal", type=argtypes.existing_file, default=None, metavar="FILE", help="every game's first "
                   "deal, a JSON object of the game's setup as the env's reset(options=...) takes it (quando and "
                   "cabo: deck, dealer; help: deck, starter), to teach a hand or reproduce a table")
    w.add_argument("--record", type=argtypes.output_dir, default=None, metavar="DIR", help="keep each finished "
                   "game's record in DIR (created if needed), to replay with python -m quando_env replay")
    w.add_argument("--pace", type=argtypes.float_in(0.0, 10.0), default=0.6, help="seconds between the agents' "
                   "moves in the page (0: no pause; the page can change it)")
    w.add_argument("--port", type=argtypes.int_in(0, 65535), default=8000, help="0: any free port")
    w.add_argument("--host", type=argtypes.bind_host, default="127.0.0.1", help="the address to bind (default "
                   "127.0.0.1, this computer only; 0.0.0.0 or another address serves other computers too, with "
                   "--allow-host and a warning)")
    w.add_argument("--allow-host", type=argtypes.host_name, action="append", metavar="NAME", help="a name or "
                   "address other computers open the server at (this computer's LAN address, say); repeatable; "
                   "needed with every --host but this computer's own (127.0.0.1, ::1, localhost)")
    sub.add_parser("warmup", help="compile every game's numba kernels ahead (30-60 s per game the first time, "
                   "then cached on disk), a line per game with the time taken", allow_abbrev=False)
    for name, what in agent_commands.COMMANDS.items():       # main runs them (their own --help lists options)
        sub.add_parser(name, help=what, add_help=False)
    args = parser.parse_args(argv)
    if args.command in ("demo", "play", "serve"):
        sub_parser = {"demo": d, "play": p, "serve": w}[args.command]
        argtypes.check_game_options(sub_parser, args.game, args.players, args.edition, options=args.option)
    if args.command in ("play", "serve"):
        from ..opponents import PlayError, check_opponents

        try:
            check_opponents(args.opponents, args.players, args.game, getattr(args, "humans", 1))
        except PlayError as e:
            sub_parser.error(f"argument --opponents: {e}")
    if args.command == "serve":
        check_serve(w, args)
        if args.deal is not None:
            from ..web.session import load_deal

            try:
                args.deal = load_deal(args.deal, args.game, {"num_players": args.players,
                                                             **argtypes.rule_options(args)})
            except ValueError as e:
                w.error(f"argument --deal: {e}")
        if args.hints is not None:
            from ..opponents import PlayError, check_opponents

            try:        # one agent name, checked as an opponent's
                check_opponents(args.hints, args.players, args.game, humans=args.players - 1)
            except PlayError as e:
                w.error(f"argument --hints: {e}")
    return args


def check_serve(parser: argparse.ArgumentParser, args) -> None:
    """serve's options that go together: the people's seats, and the names of a server other computers reach."""
    if args.seat + args.humans > args.players:
        option = "--humans" if args.humans > 1 else "--seat"
        parser.error(f"argument {option}: {args.humans} people from seat {args.seat} need seats up to "
                     f"{args.seat + args.humans - 1}, and the seats are 0..{args.players - 1}")
    if not argtypes.is_loopback(args.host) and not args.allow_host:
        every = " (every address of this computer)" if args.host in ("0.0.0.0", "::") else ""
        parser.error(f"argument --host: {args.host} serves other computers too{every}: name the address they open "
                     "it at with --allow-host NAME (this computer's LAN address, say)")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in agent_commands.COMMANDS:
        return agent_commands.run(argv[0], argv[1:])
    args = parse_args(argv)
    try:
        if args.command == "demo":
            from .commands import demo
            return demo(args)
        if args.command == "replay":
            from .commands import replay_file
            return replay_file(args.file, args.game, args.show, args.step, args.html, args.require_proof)
        if args.command == "warmup":
            from .warmup import warmup
            return warmup()
        if args.command == "serve":
            from ..opponents import opponent_names
            from .first_use import notice

            try:
                with needs("web", "serve"):
                    from ..web.server import serve
            except MissingExtra as e:
                print(f"error: {e}", file=sys.stderr)
                return 2
            notice(args.game, agents=any(name != "random" for name in opponent_names(args.opponents,
                                                                                     args.players, args.humans)))
            return serve(args)
        from .play import play
        return play(args)
    except ValueError as e:
        print(f"error: {printable(e)}", file=sys.stderr)
        return 2
    except BrokenPipeError:    # the reader of the output left early (replay FILE --show | head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
