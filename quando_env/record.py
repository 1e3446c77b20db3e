"""Game records: everything needed to replay a game exactly, as plain JSON.

A record holds the config, each round's deck and dealer, every oya reshuffle (the only randomness
inside a round) and the actions. Replaying forces those decks and reshuffles into a VectorGame of one
game and checks every action against the mask, so a malformed record fails at the step that breaks.
"""
import json

import numpy as np

from . import engine as E
from .cards import CARD_VALUES, NUM_ACTIONS, NUM_CARDS, PAIR_TO_CARD, action_name, deck_to_cards
from .config import make_config

FORMAT = "quando-record/1"


def _pairs(ids, ups) -> list[list[int]]:
    return [[int(CARD_VALUES[c, u]), int(CARD_VALUES[c, 1 - u])] for c, u in zip(ids, ups)]


class Recorder:
    """Follows game 0 of a VectorGame (of one game, autoreset off) and writes down what a replay needs."""

    def __init__(self, game, seed=None):
        self.game = game
        self.record = {"format": FORMAT, "config": game.config.to_dict(), "seed": seed, "rounds": [],
                       "reshuffles": [], "actions": []}
        self._round_started()
        self._shuffles = 0

    def _round_started(self):
        s = self.game.states[0]
        self.record["rounds"].append({"dealer": int(s["dealer"]), "deck": _pairs(s["deck"], s["deck_up"])})

    def after_step(self, action: int) -> None:
        """Note the action just taken, and any reshuffle or new round it caused."""
        s = self.game.states[0]
        flags = self.game._flags[0]
        self.record["actions"].append(int(action))
        if s["shuffles"] > self._shuffles:
            self._shuffles = int(s["shuffles"])
            m = int(s["ndraw"])
            self.record["reshuffles"].append({"step": len(self.record["actions"]) - 1,
                                              "pile": _pairs(s["shuffle"][:m], s["shuffle_up"][:m])})
        ended = flags[E.F_TERMINATED] or flags[E.F_TRUNCATED]
        if flags[E.F_ROUND_OVER] and not ended:
            self._round_started()
        if ended:
            self.record["result"] = {"totals": [int(x) for x in self.game.totals[0]],
                                     "terminated": bool(flags[E.F_TERMINATED]),
                                     "truncated": bool(flags[E.F_TRUNCATED])}


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


def replay(record: dict):
    """Replay a record; yields (step, seat, action, game) after each action. Raises ValueError on the
    first inconsistency (missing field, bad deck, illegal action at step k, result mismatch)."""
    from .vector import VectorGame

    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise ValueError(f"not a game record: expected a JSON object with format {FORMAT!r}")
    for key, kind in (("config", dict), ("rounds", list), ("reshuffles", list), ("actions", list)):
        if key not in record:
            raise ValueError(f"game record has no {key!r}")
        if not isinstance(record[key], kind):
            raise ValueError(f"game record's {key!r} must be a JSON {'object' if kind is dict else 'list'}, "
                             f"got {type(record.get(key)).__name__}")
    result = record.get("result")
    if result is not None and not isinstance(result, dict):
        raise ValueError(f"game record's 'result' must be a JSON object, got {type(result).__name__}")
    config = make_config(**record["config"])
    rounds, shuffles, actions = record["rounds"], record["reshuffles"], record["actions"]
    if not rounds:
        raise ValueError("game record has no rounds")

    def deck_of(r):
        try:
            return deck_to_cards(rounds[r]["deck"])
        except (KeyError, TypeError) as e:
            raise ValueError(f"round {r} of the record has no valid deck: {e}") from None
        except ValueError as e:
            raise ValueError(f"round {r} of the record: {e}") from None

    game = VectorGame(1, seed=0, autoreset=False, **config.to_dict())
    deck_of(0)
    game.reset(deck=rounds[0]["deck"], dealer=rounds[0].get("dealer", config.dealer))
    s = game.states
    next_round, next_shuffle = 1, 0
    for k, a in enumerate(actions):
        if game.states[0]["phase"] == E.PH_OVER:
            raise ValueError(f"step {k}: the game is already over, but the record has {len(actions) - k} more actions")
        if next_shuffle < len(shuffles):
            ids, ups = _shuffle_of(shuffles[next_shuffle], next_shuffle)
            s["shuffle"][0, :] = -1
            s["shuffle"][0, : len(ids)] = ids
            s["shuffle_up"][0, : len(ids)] = ups
            s["forced"][0] = 1
        seat = int(game.current_player[0])
        if type(a) is not int or not 0 <= a < NUM_ACTIONS or not game.legal_action_mask[0, a]:
            legal = ", ".join(f"{x} ({action_name(x)})" for x in np.flatnonzero(game.legal_action_mask[0]))
            raise ValueError(f"step {k}: action {a!r} of player_{seat} is illegal; legal were: {legal}")
        try:
            game.step(np.array([a]))
        except ValueError as e:
            raise ValueError(f"step {k}: reshuffle {next_shuffle} of the record: {e}") from None
        s["forced"][0] = 0
        if s["shuffles"][0] > next_shuffle:
            if next_shuffle >= len(shuffles) or shuffles[next_shuffle].get("step") != k:
                raise ValueError(f"step {k}: the discard pile was reshuffled here, but the record's next "
                                 f"reshuffle is {'missing' if next_shuffle >= len(shuffles) else 'at another step'}")
            next_shuffle += 1
        if game.round_over[0] and not (game.game_over[0] or game.truncated[0]):
            if next_round >= len(rounds):
                raise ValueError(f"step {k}: round {next_round} starts, but the record has only {len(rounds)} rounds")
            ids, ups = deck_of(next_round)
            if rounds[next_round].get("dealer", int(s["dealer"][0])) != int(s["dealer"][0]):
                raise ValueError(f"round {next_round}: the record's dealer is {rounds[next_round]['dealer']}, "
                                 f"R6 makes it {int(s['dealer'][0])}")
            E.redeal_kernel(game.states, game._cfg, np.array([0]), ids[None], ups[None], game._masks)
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


def _shuffle_of(entry, i):
    """Card ids and up sides of a recorded reshuffle (top first)."""
    try:
        pairs = [tuple(int(x) for x in p) for p in entry["pile"]]
        for j, (u, d) in enumerate(pairs):
            if not (0 <= u <= 10 and 0 <= d <= 10 and u != d):
                raise ValueError(f"card {j} is {[u, d]}")
        ids = np.array([PAIR_TO_CARD[u, d] for u, d in pairs], np.int8)
        if len(set(ids.tolist())) != len(ids):
            raise ValueError("a card appears twice")
        return ids, np.array([0 if u < d else 1 for u, d in pairs], np.int8)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"reshuffle {i} of the record is malformed: {e}") from None
