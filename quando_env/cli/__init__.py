"""Command line: `python -m quando_env {demo,replay,play} [--game NAME] ...`."""
import argparse
import sys

from ..registry import game_names


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m quando_env", description=__doc__, allow_abbrev=False)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="play one game between random agents, print it and save its record",
                       allow_abbrev=False)
    d.add_argument("--game", default="quando", choices=game_names())
    d.add_argument("--players", type=int, default=4)
    d.add_argument("--edition", default=None, choices=["kendi", "oya"], help="Quando's edition (default kendi)")
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--record", default="demo_game.json", help="where to save the game record")
    r = sub.add_parser("replay", help="print a saved game record turn by turn and say whether its proof holds",
                       allow_abbrev=False)
    r.add_argument("file")
    r.add_argument("--game", default=None, choices=game_names(), help="the record's game (checked; default: any)")
    p = sub.add_parser("play", help="play against agents in the terminal", allow_abbrev=False)
    p.add_argument("--game", default="quando", choices=game_names())
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--opponents", default="heuristic")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--edition", default=None, choices=["kendi", "oya"], help="Quando's edition (default kendi)")
    p.add_argument("--record", default=None, help="where to save the game record (default: a name with the time)")
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            from .commands import demo
            return demo(args)
        if args.command == "replay":
            from .commands import replay_file
            return replay_file(args.file, args.game)
        from .play import play
        return play(args)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
