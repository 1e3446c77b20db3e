"""The parts of Quando's observation and state that can pass 1, with their upper bounds (quando_env.bounds)."""
from .cards import NUM_CARDS
from .engine import MAX_TURNS

MAX_HAND_SUM = sum(b * b for b in range(11))   # every card's higher number in front: sum over b of b cards (a < b)


def _common(c) -> dict:
    rounds = 1 if c.episode == "round" else c.max_steps   # a round takes at least one decision (its knock)
    return {"turns": min(c.max_steps, MAX_TURNS) / 10,      # A/B turns of a round, / 10; the count stops at MAX_TURNS
            # before its last round every total is at most the target (R19); a round adds a hand sum and a penalty
            "totals": (c.target_score + MAX_HAND_SUM + c.knock_penalty) / c.target_score,
            "round": rounds / 10}


def observation(c) -> dict:
    return {**_common(c), "hand_sizes": NUM_CARDS / 10,
            "own_hand": 10.0, "opponents": 10.0}         # cards with one number on a side: 10


HIGHS = {"observation": observation, "state": _common}
