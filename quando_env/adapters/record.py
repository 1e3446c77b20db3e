"""Game records: everything needed to replay a game exactly, as plain JSON, for any game.

A record holds the game's format tag, the config, each round's setup (the game's `round_setup`: for
Quando the deck and dealer), every in-round reshuffle (the only randomness inside a round) and the
actions. Replaying forces those setups and reshuffles into a game of one and checks every action against
the mask, so a malformed record fails at the step that breaks.
"""
import json

import numpy as np

from ..core import F_ROUND_OVER, F_TERMINATED, F_TRUNCATED


class Recorder:
    """Follows game 0 of a game of one (autoreset off) and writes down what a replay needs."""

    def __init__(self, game, seed=None):
        self.game = game
        self.record = {"format": game.record_format, "config": game.config.to_dict(), "seed": seed,
                       "rounds": [game.round_setup(0)], "reshuffles": [], "actions": []}
        self._shuffles = game.reshuffles(0)

    def after_step(self, action: int) -> None:
        """Note the action just taken, and any reshuffle or new round it caused."""
        game = self.game
        flags = game.flags[0].tolist()
        self.record["actions"].append(int(action))
        shuffles = game.reshuffles(0)
        if shuffles > self._shuffles:
            self._shuffles = shuffles
            self.record["reshuffles"].append({"step": len(self.record["actions"]) - 1,
                                              **game.reshuffle_record(0)})
        ended = flags[F_TERMINATED] or flags[F_TRUNCATED]
        if flags[F_ROUND_OVER] and not ended:
            self.record["rounds"].append(game.round_setup(0))
        if ended:
            self.record["result"] = {"totals": [int(x) for x in game.totals[0]],
                                     "terminated": bool(flags[F_TERMINATED]),
                                     "truncated": bool(flags[F_TRUNCATED])}


def save(record: dict, path) -> None:
    """Write a record as JSON."""
    with open(path, "w") as f:
        json.dump(record, f)


def load(path) -> dict:
    """Read a saved record. ValueError, naming the file, if it cannot be read or is not JSON."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise ValueError(f"cannot read the game record {path}: {e.strerror or e}") from None
    except ValueError as e:  # json.JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"{path} is not a JSON game record: {e}") from None


def game_class_of(record):
    """The game class whose record format the record has, or a ValueError naming the formats known."""
    from ..registry import game_classes

    formats = {cls.record_format: cls for cls in game_classes()}
    if not isinstance(record, dict) or record.get("format") not in formats:
        raise ValueError("not a game record: expected a JSON object with format "
                         + " or ".join(repr(f) for f in formats))
    return formats[record["format"]]


def replay(record: dict):
    """Replay a record; yields (step, seat, action, game) after each action. Raises ValueError on the
    first inconsistency (missing field, bad setup, illegal action at step k, result mismatch)."""
    cls = game_class_of(record)
    for key, kind in (("config", dict), ("rounds", list), ("reshuffles", list), ("actions", list)):
        if key not in record:
            raise ValueError(f"game record has no {key!r}")
        if not isinstance(record[key], kind):
            raise ValueError(f"game record's {key!r} must be a JSON {'object' if kind is dict else 'list'}, "
                             f"got {type(record.get(key)).__name__}")
    result = record.get("result")
    if result is not None and not isinstance(result, dict):
        raise ValueError(f"game record's 'result' must be a JSON object, got {type(result).__name__}")
    rounds, shuffles, actions = record["rounds"], record["reshuffles"], record["actions"]
    if not rounds:
        raise ValueError("game record has no rounds")
    game = cls(1, seed=0, autoreset=False, **record["config"])
    start_round(game, rounds, 0, first=True)
    next_round, next_shuffle = 1, 0
    for k, a in enumerate(actions):
        if game.current_player[0] < 0:
            raise ValueError(f"step {k}: the game is already over, but the record has {len(actions) - k} more actions")
        if next_shuffle < len(shuffles):
            try:
                game.force_reshuffle(0, shuffles[next_shuffle])
            except ValueError as e:
                raise ValueError(f"reshuffle {next_shuffle} of the record is {e}") from None
        seat = int(game.current_player[0])
        if type(a) is not int or not 0 <= a < game.num_actions or not game.legal_action_mask[0, a]:
            legal = ", ".join(f"{x} ({game.action_name(x)})" for x in np.flatnonzero(game.legal_action_mask[0]))
            raise ValueError(f"step {k}: action {a!r} of player_{seat} is illegal; legal were: {legal}")
        try:
            game.step(np.array([a]))
        except ValueError as e:
            raise ValueError(f"step {k}: reshuffle {next_shuffle} of the record: {e}") from None
        if game.reshuffles(0) > next_shuffle:
            if next_shuffle >= len(shuffles) or shuffles[next_shuffle].get("step") != k:
                raise ValueError(f"step {k}: the discard pile was reshuffled here, but the record's next "
                                 f"reshuffle is {'missing' if next_shuffle >= len(shuffles) else 'at another step'}")
            next_shuffle += 1
        if game.round_over[0] and not (game.game_over[0] or game.truncated[0]):
            if next_round >= len(rounds):
                raise ValueError(f"step {k}: round {next_round} starts, but the record has only {len(rounds)} rounds")
            start_round(game, rounds, next_round)
            next_round += 1
        yield k, seat, a, game
    if next_round != len(rounds) or next_shuffle != len(shuffles):
        raise ValueError(f"the record has {len(rounds)} rounds and {len(shuffles)} reshuffles, but its actions "
                         f"reach {next_round} rounds and {next_shuffle} reshuffles")
    if result is not None:
        ended = {"terminated": bool(game.game_over[0]), "truncated": bool(game.truncated[0])}
        claimed = {k: result.get(k) for k in ended}
        if claimed != ended:
            raise ValueError(f"the record's result says {claimed}, but its actions end with {ended}: "
                             f"actions are missing or the result is wrong")
        if result.get("totals") != [int(x) for x in game.totals[0]]:
            raise ValueError(f"the record's final totals {result.get('totals')} differ from the replay's "
                             f"{[int(x) for x in game.totals[0]]}")


def start_round(game, rounds, r, first=False):
    """Force round r's recorded setup into game 0: the first round by reset, later ones by redeal."""
    setup = rounds[r]
    if not isinstance(setup, dict) or set(setup) != set(game.setup_keys):
        raise ValueError(f"round {r} of the record has no valid setup: it needs exactly {list(game.setup_keys)}")
    try:
        if first:
            game.reset(games=[0], **setup)
        else:
            game.redeal(0, **setup)
    except ValueError as e:   # redeal's own complaints name the record already
        raise ValueError(f"round {r}{'' if str(e).startswith('the record') else ' of the record'}: {e}") from None
