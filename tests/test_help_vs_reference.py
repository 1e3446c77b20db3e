"""Help!'s engine against the plain-Python reference (tests/help_reference.py, written from the spec alone)
on thousands of random rounds for 3-5 players: same seat to move, same mask, same hands, row, piles and No!
areas at every decision, same calls and starter, same points. Whole games are played in the engine (so
later rounds check R4's direction and R5's callers); each round is then replayed in the reference with the
engine's deck, direction, callers and, with reshuffle="shuffle", the engine's reshuffles (from its record).
Some rounds get built decks (special-card hands, a hand of Switches) so that rare rule paths are reached.
"""
import random
from collections import Counter

import numpy as np
import pytest

from help_reference import HelpRound
from quando_env.help import VectorGame
from quando_env.help.cards import CODES, FULL_DECK

NUMBERS = [CODES[k] for k in FULL_DECK if k <= 10]
SPECIALS = [CODES[k] for k in FULL_DECK if k > 10]


def built_deck(rng, n, h, callers):
    """None (a random deal) most of the time; else a deck whose hands stress a rare path: the callers hold
    only special cards (R5's fallbacks, D14), or one seat holds only Switches (R19's failure)."""
    style = rng.random()
    if style < 0.6:
        return None
    nums, specs = NUMBERS[:], SPECIALS[:]
    rng.shuffle(nums)
    rng.shuffle(specs)
    hands = []
    if style < 0.8:      # callers special-only; sometimes everybody
        everybody = rng.random() < 0.3
        for q in range(n):
            if q in callers or everybody:
                hands.append([specs.pop() if specs else nums.pop() for _ in range(h)])
            else:
                hands.append([])
    else:                # one seat holds Switches only (as many as fit)
        q = rng.randrange(n)
        hands = [[] for _ in range(n)]
        switches = [c for c in specs if c == "S"]
        specs = [c for c in specs if c != "S"]
        take = min(h, len(switches))
        hands[q] = switches[:take]
        specs += switches[take:]
        rng.shuffle(specs)
        while len(hands[q]) < h:
            hands[q].append(specs.pop())
    rest = nums + specs
    rng.shuffle(rest)
    deck = []
    for q in range(n):
        while len(hands[q]) < h:
            hands[q].append(rest.pop())
        deck += hands[q]
    return deck + rest


def snapshot(g, n):
    return {"cur": int(g.current_player[0]), "legal": np.flatnonzero(g.legal_action_mask[0]).tolist(),
            "phase": g.phase(0), "hands": g.hands(0), "row": g.row(0), "draw": g.draw_pile(0),
            "discard": g.discard_pile(0), "no": g.no_cards(0)}


def play_game(n, opts, rng):
    """One whole game in the engine with random legal actions; per round what the reference needs."""
    g = VectorGame(1, seed=rng.randrange(1 << 30), autoreset=False, num_players=n, **opts)
    h = opts["hand_size"]
    starter = rng.randrange(n) if rng.random() < 0.15 else None
    deck = built_deck(rng, n, h, list(range(n)))
    g.reset(games=[0], deck=deck, starter=starter)

    def new_round(forced):
        s = g.states[0]
        return {"deck": g.round_setup(0)["deck"], "dir": int(s["dir"]), "starter": forced,
                "callers": [q for q in range(n) if s["caller"][q]], "calls": g.calls(0),
                "first": int(s["starter"]), "steps": [], "reshuffles": []}

    rounds = [new_round(starter)]
    while True:
        snap = snapshot(g, n)
        a = rng.choice(snap["legal"])
        before = g.reshuffles(0)
        g.step(np.array([a]))
        r = rounds[-1]
        r["steps"].append((snap, a))
        if g.reshuffles(0) > before:
            r["reshuffles"].append(g.reshuffle_record(0)["pile"])
        if g.truncated[0]:
            r["end"] = "truncated"
            return rounds
        if g.round_over[0]:
            r["end"] = g.round_points[0].tolist()
            if g.game_over[0]:
                return rounds
            s = g.states[0]
            deck = built_deck(rng, n, h, [q for q in range(n) if s["caller"][q]])
            if deck is not None:
                g.redeal(0, deck)
            rounds.append(new_round(None))


def replay_in_reference(n, opts, r, seen):
    ref = HelpRound(n, r["deck"], direction=r["dir"], callers=r["callers"], starter=r["starter"],
                    hand_size=opts["hand_size"], row_max=opts["row_max"], open_lowest=opts["open_lowest"],
                    reshuffle=opts["reshuffle"], reshuffles=r["reshuffles"] or None, max_steps=opts["max_steps"])
    assert ref.calls == r["calls"] and ref.starter == r["first"], r
    seen["direction -1"] += r["dir"] == -1
    seen["starter given"] += r["starter"] is not None
    if r["starter"] is None:
        dealt = [r["deck"][opts["hand_size"] * q: opts["hand_size"] * (q + 1)] for q in range(n)]
        caller_calls = [q for q in r["callers"] if any(c not in "WSZN" for c in dealt[q])]
        seen["D14 fallback"] += bool(ref.calls) and not caller_calls
        seen["nobody calls"] += not ref.calls
        seen["not every seat calls"] += len(r["callers"]) < n
    for k, (snap, a) in enumerate(r["steps"]):
        where = f"n={n} {opts} step {k}"
        assert snap["cur"] == ref.current_player, where
        assert snap["phase"] == ref.phase, where
        assert snap["legal"] == ref.legal_actions(), where
        assert snap["hands"] == [ref.hand(p) for p in range(n)], where
        assert snap["row"] == ref.row(), where
        assert snap["draw"] == ref.draw_pile() and snap["discard"] == ref.discard_pile(), where
        assert snap["no"] == ref.no_cards(), where
        tag(ref, a, seen)
    if r["end"] == "truncated":
        assert ref.truncated and not ref.round_over
        seen["truncated"] += 1
    else:
        assert ref.round_over and ref.points() == r["end"], (r["end"], where)
        seen[ref.end_reason + (" R19 failure" if ref.received is not None else "")] += 1


def tag(ref, a, seen):
    """Step the reference, noting which rule paths the step went through."""
    row, no, shuffles = ref.row(), ref.no_cards(), ref.reshuffle_count
    phase = ref.phase
    ref.step(a)
    if phase == "give":
        seen["give"] += 1
    elif phase == "give_back":
        seen["give back"] += 1
    elif a == 74:
        seen["ask"] += 1
    else:
        seen[phase] += 1
        kind = "number" if a < 11 else "wild" if a < 17 else "switch" if a < 72 else "zap" if a == 72 else "no"
        seen[kind] += 1
        if kind == "switch" and row[(a - 17) // 11][0] == "W":
            seen["switch takes a Wild"] += 1
        if kind in ("number", "wild") and row and not ref.row():
            seen["full row"] += 1
    seen["skip (R8)"] += sum(x == "fresh" and y == "spent" for x, y in zip(no, ref.no_cards()))
    seen["spent No! discarded"] += sum(x == "spent" and y is None for x, y in zip(no, ref.no_cards()))
    seen["reshuffle"] += ref.reshuffle_count > shuffles
    seen["decisions"] += 1


PATHS = ("open", "play", "play_received", "number", "wild", "switch", "switch takes a Wild", "zap", "no", "ask",
         "give", "give back", "full row", "skip (R8)", "spent No! discarded", "reshuffle", "R20a", "R20b",
         "R20a R19 failure", "direction -1", "D14 fallback", "nobody calls", "not every seat calls", "starter given",
         "truncated")


@pytest.mark.parametrize("reshuffle", ["flip", "shuffle"])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_engine_matches_reference_on_random_games(n, reshuffle):
    rng = random.Random(100 * n + len(reshuffle))
    seen = Counter()
    rounds = 0
    while rounds < 600:
        opts = {"hand_size": rng.choice([3, 4, 4, 4, 5, 6]), "row_max": rng.choice([2, 3, 4, 6, 6, 6]),
                "open_lowest": rng.random() < 0.8, "reshuffle": reshuffle, "target": rng.choice([1, 2, 3, 3]),
                "max_steps": rng.choice([12, 1000, 1000, 1000, 1000])}
        for r in play_game(n, opts, rng):
            replay_in_reference(n, opts, r, seen)
            rounds += 1
    missing = [p for p in PATHS if seen[p] == 0]
    assert not missing, (missing, seen)
    assert seen["decisions"] > 10 * rounds, seen
