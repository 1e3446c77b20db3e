"""Cabo's own agents: the heuristic (a careful human-like player) and the greedy baseline, and what the
generic rollout search needs of Cabo."""
from quando_env.cabo import VectorGame
from quando_env.cabo.cards import KNOCK, NO_KNOCK

from ..rollout import SearchKit
from .heuristic import GreedyAgent, HeuristicAgent, players_from_obs_dim
from .playout import heuristic_playout

AGENTS = {"greedy": GreedyAgent, "heuristic": HeuristicAgent}


def search_kit(playout_agent=None) -> SearchKit:
    """The rollout search on Cabo (worlds from quando_env.cabo.determinize): the heuristic ranks the
    candidates, knock and no-knock are always tried, the heuristic plays the worlds out in the fused kernel
    (another playout_agent is stepped), and a round cut off by a horizon counts its hand totals."""
    playout_agent = playout_agent or HeuristicAgent()
    fused = type(playout_agent) is HeuristicAgent
    return SearchKit(game_class=VectorGame, prior=HeuristicAgent(), players_of_obs=players_from_obs_dim,
                     always_try=(KNOCK, NO_KNOCK), playout=heuristic_playout(playout_agent) if fused else None,
                     playout_agent=playout_agent, unfinished_points=lambda game: game.info_arrays()["hand_total"],
                     search_horizon=48)
