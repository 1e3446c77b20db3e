"""Help!'s agents: legal actions for 3-5 players from the observation alone, their strength order against
random play, and the heuristic's play rules on forced decks."""
from collections import Counter

import numpy as np
import pytest

from agents import make_agent
from agents.evaluation import play_match
from agents.help import AGENTS, GreedyAgent, HeuristicAgent, players_from_obs_dim
from quando_env.help import VectorGame
from quando_env.help.cards import CODES, FULL_DECK, play_action, switch_action
from quando_env.help.observation import obs_dim

ALL = [CODES[k] for k in FULL_DECK]


def forced_game(hands, starter=0):
    """One 4-card game dealt `hands` (seat by seat, D1), the rest of the deck in R1 order; `starter` takes a
    normal turn on the empty row."""
    left = Counter(ALL)
    used = [c for h in hands for c in h]
    left.subtract(used)
    g = VectorGame(1, seed=0, autoreset=False, num_players=len(hands))
    g.reset(deck=used + [c for c in CODES for _ in range(left[c])], starter=starter)
    return g


def test_agents_are_registered_and_read_the_player_count():
    assert make_agent("heuristic", game="help").name == "heuristic"
    assert set(AGENTS) == {"greedy", "heuristic"}
    assert [players_from_obs_dim(obs_dim(n)) for n in (3, 4, 5)] == [3, 4, 5]
    with pytest.raises(ValueError):
        players_from_obs_dim(7)


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("agent", [HeuristicAgent(), GreedyAgent()], ids=["heuristic", "greedy"])
def test_agents_choose_legal_actions_at_every_decision(n, agent):
    """Long play (rounds and games restart): the agent decides every decision, and a random legal move
    replaces its choice in about a third of the games so that the tables vary."""
    g = VectorGame(96, seed=n, num_players=n)
    rng = np.random.default_rng(n)
    phases = set()
    for _ in range(500):
        masks = g.legal_action_mask
        a = agent.act(g.observe(), masks)
        assert masks[np.arange(96), a].all()
        phases.update(int(p) for p in g.states["phase"])
        mix = rng.random(96) < 0.35
        g.step(np.where(mix, g.sample_actions(), a))
    assert {0, 1, 2, 3, 4} <= phases        # open, play, give, give back, play received were all met


def test_heuristic_beats_random_and_greedy():
    """Against three random players the heuristic wins clearly more than its share (four random players win
    about 0.31 each, ties shared), and more than the greedy baseline in the same seats and games."""
    def vs_random(agent):
        return play_match([agent] + [make_agent("random", game="help") for _ in range(3)], 400, seed=1,
                          names=["me", "random", "random", "random"], progress=False, game="help").pooled()

    heuristic, greedy = vs_random(HeuristicAgent()), vs_random(GreedyAgent())
    assert heuristic["me"]["win_rate"] >= 0.42 > 0.3 >= heuristic["random"]["win_rate"]
    assert heuristic["me"]["win_rate"] > greedy["me"]["win_rate"]
    assert heuristic["me"]["mean_round_points"] > heuristic["random"]["mean_round_points"] + 0.08


def test_heuristic_plays_the_smallest_fitting_number_and_keeps_its_specials():
    g = forced_game([["W", "9", "4", "7"], ["Z", "6", "2", "11"], ["N", "3", "10", "5"], ["S", "8", "1", "1"]])
    h = HeuristicAgent()
    for expected in (play_action(4), play_action(6), play_action(10)):   # empty row, then [4], then [4, 6]
        assert h.act(g.observe(), g.legal_action_mask)[0] == expected
        g.step(np.array([expected]))
    # Row [4, 6, 10], hand S 8 1 1: no number fits. The Switch takes the 10 for the 8: the row ends lower
    # (8) and the 10 it takes is givable there. Greedy takes the first Switch in action order (the 4 for a 1).
    assert h.act(g.observe(), g.legal_action_mask)[0] == switch_action(2, 8)
    assert GreedyAgent().act(g.observe(), g.legal_action_mask)[0] == switch_action(0, 1)
