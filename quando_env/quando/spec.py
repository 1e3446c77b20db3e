"""Quando's facts and parts (quando_env.spec): what the registry, the JAX engines, the agents and the learner read."""
from ..spec import GameSpec

SPEC = GameSpec(
    name="quando", title="Quando",
    engine="quando_env.quando.game:VectorGame", pettingzoo="quando_env.quando_v0",
    bounds="quando_env.quando.bounds:HIGHS", jax="quando_env.jax.quando:Quando",
    agents="quando_env.agents.quando", heuristic_kernel="quando_env.agents.quando.heuristic:heuristic_kernel",
    # the learner's recipe: a warm start of 10M decisions imitating the heuristic, half of them playing the
    # policy's own moves (DAgger), then PPO at a lower learning rate against the pool (agents/models/README.md)
    recipe=dict(bc_decisions=10_000_000, bc_dagger=0.5, lr=1e-4),
    decisions=30_000_000,         # about what the shipped model's first run collected (28.2M in 116 minutes)
    finish=({"anchor": 4.0, "points_coef": 0.06}, 9_000_000),   # its anchor on the heuristic, round points weighted
)
