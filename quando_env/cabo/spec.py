"""Cabo's facts and parts (quando_env.spec): what the registry, the JAX engines, the agents and the learner read."""
from ..spec import GameSpec

SPEC = GameSpec(
    name="cabo", title="Cabo",
    engine="quando_env.cabo.game:VectorGame", pettingzoo="quando_env.cabo_v0",
    bounds="quando_env.cabo.bounds:HIGHS", jax="quando_env.jax.cabo:Cabo",
    agents="quando_env.agents.cabo", heuristic_kernel="quando_env.agents.cabo.heuristic:heuristic_kernel",
    # imitation then PPO as Quando's: it took Cabo from 0.19 after imitation to 0.60 against three heuristics
    recipe=dict(bc_decisions=10_000_000, bc_dagger=0.5, lr=1e-4),
    decisions=20_000_000,
    # the move scorer (the shipped model's was (128, 64), which from the same start won as (64, 32) does)
    finish=({"move_hidden": (64, 32)}, 12_000_000),
)
