"""The parts of Cabo's observation and state that can pass 1, with their upper bounds (quando_env.bounds)."""
from .cards import NUM_SLOTS

MAX_ROUND_POINTS = 2 * 13 * NUM_SLOTS     # a full hand of 13s, doubled for the knocker (R23)


def _common(c) -> dict:
    rounds = 1 if c.episode == "round" else c.max_steps     # a round takes at least one decision
    return {"turns": (c.turn_limit or c.max_steps) / 100,    # turns of a round (R21), and those left, / 100
            "totals": (c.target + MAX_ROUND_POINTS) / c.target,   # at most the target before the last round (R26)
            "round_points": MAX_ROUND_POINTS / c.target,
            "round": rounds / 10}


def state(c) -> dict:
    return {**_common(c), "snap_position": c.num_players / 5}    # 0..n, / 5


HIGHS = {"observation": _common, "state": state}
