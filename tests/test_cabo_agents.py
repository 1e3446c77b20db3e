"""Cabo's agents: legal actions for 2-6 players from the observation alone, and their strength order."""
import numpy as np
import pytest

from quando_env.agents import make_agent
from quando_env.agents.cabo import GreedyAgent, HeuristicAgent
from quando_env.evaluation.matches import play_match
from quando_env.cabo_v0 import VectorGame


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("agent", [HeuristicAgent(), GreedyAgent()], ids=["heuristic", "greedy"])
def test_agents_choose_legal_actions_at_every_decision(n, agent):
    g = VectorGame(64, seed=n, num_players=n)
    for _ in range(400):
        a = agent.act(g.observe(), g.legal_action_mask)
        assert g.legal_action_mask[np.arange(64), a].all()
        g.step(a)


def test_heuristic_beats_random_and_greedy():
    vs_random = play_match([HeuristicAgent()] + [make_agent("random", game="cabo") for _ in range(3)], 60,
                           seed=1, progress=False, game="cabo").pooled()
    assert vs_random["heuristic"]["win_rate"] >= 0.8
    vs_greedy = play_match([HeuristicAgent(), GreedyAgent(), GreedyAgent(), GreedyAgent()], 60, seed=1,
                           names=["heuristic", "greedy", "greedy", "greedy"], progress=False, game="cabo").pooled()
    assert vs_greedy["heuristic"]["win_rate"] > 0.5 > vs_greedy["greedy"]["win_rate"]


def test_heuristic_snaps_a_known_match_and_never_an_unknown_card():
    """Seat 0 knows slots 0 and 1 (peek 2); snapping is only offered on a card it knows matches."""
    g = VectorGame(256, seed=5, num_players=3)
    h = HeuristicAgent()
    snaps = 0
    for _ in range(300):
        obs, masks = g.observe(), g.legal_action_mask
        a = h.act(obs, masks)
        snap = (a >= 339) & (a < 347)
        for i in np.flatnonzero(snap):
            s = g.states[i]
            p, slot = int(s["cur"]), int(a[i] - 339)
            top = int(s["disc"][s["ndisc"] - 1])
            card = int(s["slot"][p, slot])
            assert s["seen"][p, card] and card // 4 == top // 4   # known, and the same rank (R14)
            snaps += 1
        g.step(a)
    assert snaps > 0
