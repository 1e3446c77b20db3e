"""Help!'s own agents: the heuristic (a careful human-like player) and the greedy baseline ("smallest card
that fits"), both numba over the observation alone, and what the generic rollout search needs of Help!."""
import numpy as np

from quando_env.help import VectorGame

from ..rollout import SearchKit
from .heuristic import GreedyAgent, HeuristicAgent, players_from_obs_dim
from .playout import heuristic_playout

AGENTS = {"greedy": GreedyAgent, "heuristic": HeuristicAgent}


def search_kit(playout_agent=None) -> SearchKit:
    """The rollout search on Help! (worlds from quando_env.help.determinize): the heuristic ranks the
    candidates and plays the worlds out in the fused kernel (another playout_agent is stepped); a round cut
    off by a horizon counts no points."""
    playout_agent = playout_agent or HeuristicAgent()
    fused = type(playout_agent) is HeuristicAgent
    return SearchKit(game_class=VectorGame, prior=HeuristicAgent(), players_of_obs=players_from_obs_dim,
                     playout=heuristic_playout(playout_agent) if fused else None, playout_agent=playout_agent,
                     unfinished_points=lambda game: np.zeros((game.num_games, game.num_players), np.int64))


__all__ = ["AGENTS", "GreedyAgent", "HeuristicAgent", "players_from_obs_dim", "search_kit"]
