"""No game is the default of generic code: each generic entry point of the agents refuses a call that names none."""
import pytest

from quando_env.agents import PPOAgent, RandomAgent, check_agent, make_agent, model_path
from quando_env.training.distill import LabelSettings
from quando_env.evaluation.matches import MatchResult, play_match
from quando_env.agents.learned import LearnedAgent
from quando_env.training.learner import Hyper
from quando_env.evaluation.league import league_result, play_league
from quando_env.training.sb3 import heuristic_games, opponent_pool, warm_start
from quando_env.registry import game_names

CALLS = {
    "model_path": lambda: model_path("ppo"),
    "check_agent": lambda: check_agent("random"),
    "make_agent": lambda: make_agent("random", seed=0),
    "play_match": lambda: play_match([RandomAgent(), RandomAgent()], 1, progress=False),
    "play_league": lambda: play_league({"a": RandomAgent, "b": RandomAgent}, 1, num_players=2, progress=False),
    "league_result": lambda: league_result({}, {}, [], 1, 0),
    "MatchResult": lambda: MatchResult(["a"], []),
    "heuristic_games": lambda: heuristic_games(1, 0, 1.0, 1.0),
    "warm_start": lambda: warm_start(None, 1, 0, 1.0, 1.0, progress=False),
    "opponent_pool": lambda: opponent_pool([], 0.5),
    "PPOAgent": lambda: PPOAgent(),
    "LearnedAgent": lambda: LearnedAgent(),
    "LabelSettings": lambda: LabelSettings(),
    "Hyper": lambda: Hyper(),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_generic_entry_point_refuses_a_call_without_a_game(name):
    """A missing game is refused before anything is built or played, by an error naming `game` (the settings
    classes, which check every field, name the games too)."""
    with pytest.raises((TypeError, ValueError), match="game") as refused:
        CALLS[name]()
    if refused.type is ValueError:
        assert all(g in str(refused.value) for g in game_names()), str(refused.value)
