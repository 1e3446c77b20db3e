"""The `demo` and `replay` commands, for any game."""
import numpy as np

from .. import record as rec
from ..checks import printable
from ..files import output_target, write_text
from ..registry import game_module
from .. import argtypes
from .first_use import notice


def demo(args) -> int:
    """A whole game between uniformly random players, printed round by round; the record is saved (its path
    was checked with the options, before the game)."""
    options = {"num_players": args.players, **argtypes.rule_options(args)}
    notice(args.game)
    e = game_module(args.game).raw_env(**options)
    e.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    print(e.render_omniscient())
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if e.game.round_over[0]:
            print(f"round {int(e.game.rounds_done[0])} over: points "
                  f"{[info_['round_points'] for info_ in e.infos.values()]}, totals "
                  f"{[info_['score'] for info_ in e.infos.values()]}")
    result = e.game_record()["result"]
    print(f"game over after {len(e.game_record()['actions'])} decisions: totals {result['totals']}")
    rec.save(e.game_record(), args.record)
    print(f"record saved to {args.record}; replay it with: python -m quando_env replay {args.record}")
    return 0


def replay_file(path, game=None, show=False, step=None, html=None, require_proof=False) -> int:
    """Print a record turn by turn, each move named in its context, checking every action against the rules
    and every round against the record's proof; the last line says whether the record was proven. game: the
    game the record must be of; show: the omniscient table before every move and after the last; step: only
    the table at that position (0 .. the number of actions, the last being the position after the last
    action), checked before anything is replayed; html: write the replay as a web page there instead.
    require_proof: status 1 for a record that replays but is not proven (format /1)."""
    record = rec.load(path)
    name = rec.game_class_of(record).name
    if game is not None and game != name:
        raise ValueError(f"{path} is a record of {name}, not of {game} (--game)")
    if html is not None:
        from ..web.replay_page import html_page, replay_data

        output_target(html)             # refused before the replay is built
        data = replay_data(record)
        try:
            write_text(html, html_page(data))
        except OSError as e:
            raise ValueError(f"cannot write {html}: {e.strerror or e}") from None
        print(printable(f"{data['title']}; {data['proof']}"))      # the players' names are the file's
        print(f"replay page written to {html}")
        return 0
    actions = record["actions"]
    if step is not None and not 0 <= step <= len(actions):
        raise ValueError(f"--step {step} is not a position of {path}: its {len(actions)} actions give positions "
                         f"0..{len(actions)} (step k: before action k; {len(actions)}: after the last)")
    round_no, before = 1, None

    def position(k, g):
        nonlocal before
        before = g.states[0].copy()
        if k == 0 and step is None:
            print(f"round {round_no}")
        seat = int(g.current_player[0])
        move = f"player_{seat}: {g.move_name(0, actions[k])}" if k < len(actions) else None
        if step == k:
            print(f"step {k} of {len(actions)}: the table " + (f"before action {k} ({move})" if move else
                                                                "after the last action"))
        if show or step == k:
            print(g.render_text(0))
        if move and step is None:
            print(f"  {k:5d} {move}")

    def after(k, seat, a, g):
        nonlocal round_no
        if step is None:
            for line in g.step_notes(0, before):
                print(f"        {line}")
        if g.round_over[0]:
            if step is None:
                print(f"round {round_no} over: points {g.round_points[0].tolist()}, totals {g.totals[0].tolist()}")
            round_no += 1
            if not (g.game_over[0] or g.truncated[0]) and step is None:
                print(f"round {round_no}")

    if rec.verify(record, after, position):
        print("proven: every round's result and digest match the record's proof")
    else:
        print(f"not proven: a {record['format']} record carries no proof (its actions are legal and its final "
              f"totals match)")
        return 1 if require_proof else 0
    return 0
