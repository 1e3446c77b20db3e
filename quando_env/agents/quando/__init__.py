"""Quando's own agents: the greedy and heuristic players (numba, from the observation only) and what the
generic rollout search needs of Quando."""
from quando_env.quando import VectorGame
from quando_env.quando.cards import KNOCK, PASS

from ..rollout import SearchKit
from .features import players_from_obs_dim
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .playout import heuristic_playout

AGENTS = {"greedy": GreedyAgent, "heuristic": HeuristicAgent}


def search_kit(playout_agent=None) -> SearchKit:
    """The rollout search on Quando: the heuristic ranks candidates, knock and pass are always tried, the
    heuristic plays the worlds out in the fused kernel, and an unfinished round counts its hand sums."""
    playout_agent = playout_agent or HeuristicAgent(knock_samples=16)
    fused = type(playout_agent) is HeuristicAgent
    return SearchKit(game_class=VectorGame, prior=HeuristicAgent(), players_of_obs=players_from_obs_dim,
                     always_try=(KNOCK, PASS), playout=heuristic_playout(playout_agent) if fused else None,
                     playout_agent=playout_agent, unfinished_points=lambda game: game.hand_sums(), search_horizon=16)
