"""The parts of Help!'s observation and state that can pass 1, with their upper bounds (quando_env.bounds)."""
from .cards import KIND_COUNTS, NUM_CARDS


def observation(c) -> dict:
    return {"own_hand": int(KIND_COUNTS.max()) / c.hand_size,     # cards of one kind, / hand_size
            "hand_sizes": NUM_CARDS / c.hand_size}


def state(c) -> dict:
    # every round but the last gives somebody a point (R20), and no total reaches the target before the last (R21)
    rounds = 1 if c.episode == "round" else c.num_players * c.target
    return {"hands": int(KIND_COUNTS.max()) / 4, "round": rounds / 10}


HIGHS = {"observation": observation, "state": state}
