"""Command line: `python -m quando_env {demo,replay,play} ...`."""
import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m quando_env", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="play one game between random agents, print it and save its record")
    d.add_argument("--players", type=int, default=4)
    d.add_argument("--edition", default="kendi", choices=["kendi", "oya"])
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--record", default="demo_game.json", help="where to save the game record")
    r = sub.add_parser("replay", help="print a saved game record turn by turn")
    r.add_argument("file")
    p = sub.add_parser("play", help="play against agents in the terminal")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--opponents", default="heuristic")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--edition", default="kendi", choices=["kendi", "oya"])
    p.add_argument("--record", default=None, help="where to save the game record (default: a name with the time)")
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            from .cli import demo
            return demo(args)
        if args.command == "replay":
            from .cli import replay_file
            return replay_file(args.file)
        from .play import play
        return play(args)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
