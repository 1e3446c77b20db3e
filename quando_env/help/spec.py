"""Help!'s facts and parts (quando_env.spec): what the registry, the JAX engines, the agents and the learner read."""
from ..spec import GameSpec

SPEC = GameSpec(
    name="help", title="Help!",
    engine="quando_env.help.game:VectorGame", pettingzoo="quando_env.help_v0",
    bounds="quando_env.help.bounds:HIGHS", jax="quando_env.jax.help:Help",
    agents="quando_env.agents.help", heuristic_kernel="quando_env.agents.help.heuristic:heuristic_kernel",
    recipe=dict(bc_decisions=5_000_000, lr=1e-4),     # the recipe of its shipped model
    decisions=50_000_000,
    finish=({}, 80_000_000),
)
