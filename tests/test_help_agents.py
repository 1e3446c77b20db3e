"""Help!'s agents: legal actions for 3-5 players from the observation alone, their strength order against
random play, and the heuristic's play rules on forced decks."""
from collections import Counter

import numpy as np
import pytest

from quando_env.agents import make_agent
from quando_env.evaluation.matches import play_match
from quando_env.agents.help import AGENTS, GreedyAgent, HeuristicAgent, players_from_obs_dim, search_kit
from quando_env.agents.rollout import RolloutAgent
from quando_env.help import VectorGame
from quando_env.help.cards import CODES, FULL_DECK, NO, give_action, play_action, switch_action, wild_action
from quando_env.help.observation import obs_dim
from rollout_checks import rollout_plays_legal_moves

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
    """Long play (rounds and games restart): the agent decides every decision (one observation at a time as
    in a batch), and a random legal move replaces its choice in about a third of the games so that the
    tables vary."""
    g = VectorGame(96, seed=n, num_players=n)
    rng = np.random.default_rng(n)
    phases = set()
    for _ in range(500):
        masks = g.legal_action_mask
        obs = g.observe()
        a = agent.act(obs, masks)
        assert masks[np.arange(96), a].all()
        assert [agent.act(obs[i], masks[i]) for i in range(0, 96, 12)] == a[::12].tolist()   # one = batch
        phases.update(int(p) for p in g.states["phase"])
        mix = rng.random(96) < 0.35
        g.step(np.where(mix, g.sample_actions(), a))
    assert {0, 1, 2, 3, 4} <= phases        # open, play, give, give back, play received were all met


def test_agents_decide_from_what_they_observe():
    """Worlds that differ in everything the mover has not seen (other hands, the draw pile, dealt anew by the
    determinization) get the same decision as the real game from every agent."""
    g = VectorGame(16, seed=5, num_players=4)
    worlds = VectorGame(8, seed=0, autoreset=False, num_players=4, episode="round")
    agents = [HeuristicAgent(), GreedyAgent()]
    differ = 0
    for step in range(40):
        obs, masks = g.observe(), g.legal_action_mask
        for i in range(0, 16, 4):
            worlds.load_states(VectorGame.sample_states(obs[i], 8, g.config, seed=step))
            wobs, wmasks = worlds.observe(players=np.zeros(8, np.int64)), worlds.legal_action_mask
            differ += len({w["hand"][1:4].tobytes() for w in worlds.states}) > 1
            for agent in agents:
                assert (agent.act(wobs, wmasks) == agent.act(obs[i], masks[i])).all()
        g.step(g.sample_actions())
    assert differ > 100


def test_heuristic_beats_random_and_greedy():
    """Against three random players the heuristic wins clearly more than its share (four random players win
    about 0.31 each, ties shared), and more than the greedy baseline in the same seats and games."""
    def vs_random(agent):
        return play_match([agent] + [make_agent("random", game="help") for _ in range(3)], 400, seed=1,
                          names=["me", "random", "random", "random"], progress=False, game="help").pooled()

    heuristic, greedy = vs_random(HeuristicAgent()), vs_random(GreedyAgent())
    assert heuristic["me"]["win_rate"] >= 0.46 > 0.3 >= heuristic["random"]["win_rate"]
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


def test_heuristic_helps_with_its_highest_number():
    """Seat 1 is stuck on [8] (R9) and asks seat 0 (R16), which holds 9, 10, 2 and the 1 it drew: it gives the
    10, which the asker must play (R19), so the player after the asker faces a high row."""
    g = forced_game([["8", "9", "10", "2"], ["3", "4", "5", "6"], ["7", "7", "7", "7"], ["11", "11", "11", "11"]])
    g.step(np.array([play_action(8)]))
    assert np.flatnonzero(g.legal_action_mask[0]).tolist() == [74]
    g.step(np.array([74]))
    assert g.current_player[0] == 0 and HeuristicAgent().act(g.observe(), g.legal_action_mask)[0] == give_action(9)


def test_heuristic_keeps_its_no_when_one_seat_would_be_left_without_a_helper():
    """Seats 1 and 2 have a No! in front; seat 0 faces [10] with W N 3 4. Its No! would leave seat 3 alone
    without one: stuck, it would find no helper and score alone (R20b). So it plays the Wild (low, inside
    the row); without that rule it would play the No!."""
    g = forced_game([["W", "N", "3", "4"], ["N", "1", "2", "3"], ["N", "1", "2", "3"], ["10", "5", "6", "7"]],
                    starter=1)
    for a in (NO, NO, play_action(10)):
        g.step(np.array([a]))
    assert g.current_player[0] == 0
    assert HeuristicAgent().act(g.observe(), g.legal_action_mask)[0] == wild_action(0)
    assert HeuristicAgent(no_crowd=0.0).act(g.observe(), g.legal_action_mask)[0] == NO


def test_action_values_rank_the_heuristics_choice_first():
    g = VectorGame(64, seed=2, num_players=4)
    h = HeuristicAgent()
    for _ in range(120):
        obs, masks = g.observe(), g.legal_action_mask
        acts, vals = h.action_values(obs, masks)
        assert (acts == h.act(obs, masks)).all()
        assert np.isfinite(vals[masks]).all() and np.isinf(vals[~masks]).all()
        assert (vals[np.arange(64), acts] == np.where(masks, vals, np.inf).min(axis=1)).all()
        g.step(np.where(np.random.default_rng(0).random(64) < 0.3, g.sample_actions(), acts))


def test_rollout_agent_chooses_legal_actions_in_a_game_and_a_batch():
    """The rollout search (worlds from the determinization, heuristic play-outs) on Help!: legal choices in a
    batch of games and one observation at a time through make_agent."""
    agent = RolloutAgent(search_kit(), samples=8, seed=0)
    game = VectorGame(6, seed=4, num_players=3, episode="round", autoreset=False)
    assert rollout_plays_legal_moves(game, agent, HeuristicAgent()) > 5
    one = VectorGame(1, seed=9, num_players=5)
    rollout = make_agent("rollout", game="help", seed=1, samples=4)
    for _ in range(30):
        a = rollout.act(one.observe()[0], one.legal_action_mask[0])
        assert one.legal_action_mask[0, a]
        one.step(np.array([a]))


def test_rollout_searches_the_worlds_its_worlds_method_gives():
    """RolloutAgent.worlds is where every searched decision gets its worlds (benchmarks/help_ceiling.py gives
    the search true states through it): one call per decision with a choice, `samples` worlds each."""
    calls = []

    class Recording(RolloutAgent):
        def worlds(self, obs, i, k, cfg, seed):
            calls.append(k)
            return super().worlds(obs, i, k, cfg, seed)

    agent = Recording(kit=search_kit(), samples=6, seed=0)
    game = VectorGame(4, seed=8, num_players=4, episode="round", autoreset=False)
    searched = rollout_plays_legal_moves(game, agent, HeuristicAgent())
    assert searched > 5 and calls == [6] * searched
