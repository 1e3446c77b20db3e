"""Agents: the act interface, legality everywhere, decisions that follow from the observation, strength."""
from pathlib import Path

import numpy as np
import pytest

from quando_env.agents import Agent, PPOAgent, RandomAgent, RolloutAgent, check_agent, make_agent
from quando_env.agents.quando import GreedyAgent, HeuristicAgent, search_kit
from quando_env.evaluation.matches import play_match
from quando_env.agents.quando.features import starts_vector
from quando_env.agents.quando.heuristic import p_lowest_alone, DEFAULTS
from quando_env.agents.quando.playout import playout_kernel
from quando_env import VectorGame
from quando_env.quando.cards import KNOCK, NUM_ACTIONS, TAKE_DOWN, TAKE_UP
from quando_env.quando.observation import offsets

from rollout_checks import stepped_and_fused


def positions(num_players=4, edition="kendi", games=32, steps=120, seed=0):
    """(obs, masks) of the players to move over random play: every kind of decision turns up."""
    vg = VectorGame(games, seed=seed, num_players=num_players, edition=edition)
    obs, masks = [], []
    for _ in range(steps):
        obs.append(vg.observe())
        masks.append(vg.legal_action_mask.copy())
        vg.step(vg.sample_actions())
    return np.concatenate(obs), np.concatenate(masks)


FAST = [RandomAgent(seed=0), GreedyAgent(), HeuristicAgent()]


@pytest.mark.parametrize("edition", ["kendi", "oya"])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_fast_agents_choose_legal_actions_everywhere(n, edition):
    obs, masks = positions(n, edition, games=16, steps=80, seed=n)
    for agent in FAST:
        a = agent.act(obs, masks)
        assert a.shape == (len(obs),) and a.dtype == np.int64
        assert masks[np.arange(len(obs)), a].all(), f"{agent!r} chose an illegal action"


def test_single_and_batched_act_agree():
    obs, masks = positions(games=8, steps=60, seed=3)
    for agent in (GreedyAgent(), HeuristicAgent()):
        batch = agent.act(obs, masks)
        single = [agent.act(o, m) for o, m in zip(obs[:50], masks[:50])]
        assert all(isinstance(x, int) for x in single)
        assert list(batch[:50]) == single


def test_heuristic_is_a_function_of_the_observation():
    obs, masks = positions(games=16, steps=100, seed=4)
    h = HeuristicAgent()
    a = h.act(obs, masks)
    perm = np.random.default_rng(0).permutation(len(obs))
    assert np.array_equal(h.act(obs[perm], masks[perm]), a[perm])   # batch order does not matter


def test_act_rejects_bad_input():
    obs, masks = positions(games=2, steps=2)
    with pytest.raises(ValueError, match="masks"):
        HeuristicAgent().act(obs, masks[:, :10])
    with pytest.raises(ValueError, match="at least one legal"):
        RandomAgent().act(obs, np.zeros_like(masks))
    with pytest.raises(ValueError, match="belongs to no player count"):
        HeuristicAgent().act(obs[:, :100], masks)


def test_random_agent_is_uniform_over_legal_actions():
    mask = np.zeros((6000, NUM_ACTIONS), bool)
    mask[:, [3, 50, 121]] = True
    a = RandomAgent(seed=1).act(np.zeros((6000, 1152), np.float32), mask)
    counts = np.array([(a == x).sum() for x in (3, 50, 121)])
    assert counts.sum() == 6000 and counts.min() > 1800


def draw_position(up_value, seed=0):
    """A 4-player game in which seat 0 must draw and the visible side is `up_value` (hidden side unseen)."""
    for s in range(seed, seed + 500):
        vg = VectorGame(1, seed=s, autoreset=False)
        a = int(np.flatnonzero(vg.legal_action_mask[0][:119])[-1])  # some discard
        vg.step(np.array([a]))
        o = vg.observe()[0]
        st = offsets(4)["draw_top"][0]
        if vg.legal_action_mask[0, TAKE_UP] and o[st + up_value] == 1 and not o[st + 11:st + 22].any():
            return o, vg.legal_action_mask[0].copy()
    raise AssertionError("no such position")


def test_heuristic_takes_a_visible_zero_and_refuses_a_visible_ten():
    h = HeuristicAgent()
    assert h.act(*draw_position(0)) == TAKE_UP
    assert h.act(*draw_position(10)) == TAKE_DOWN


def test_greedy_knocks_by_its_threshold():
    obs, masks = positions(games=64, steps=300, seed=5)
    st = offsets(4)["own_hand"][0]
    sums = (obs[:, st:st + 132].reshape(-1, 11, 12).sum(axis=2) * np.arange(11)).sum(axis=1)
    can = masks[:, KNOCK] & (obs[:, 0] == 1)
    low, high = can & (sums <= 6), can & (sums > 6)
    assert low.any() and high.any()
    a = GreedyAgent(threshold=6).act(obs, masks)
    assert (a[low] == KNOCK).all() and (a[high] != KNOCK).all()


def test_knock_estimate_grows_as_my_sum_falls():
    obs, masks = positions(games=32, steps=200, seed=6)
    i = int(np.flatnonzero(masks[:, KNOCK])[0])
    st = starts_vector(4)
    prm = np.array(list(DEFAULTS.values()), np.float64)
    p = [p_lowest_alone(obs[i], st, 4, np.bincount([v], minlength=11).astype(np.int64) * 1, prm) for v in
         (0, 3, 6, 9)]
    assert p[0] >= p[1] >= p[2] >= p[3] and p[0] > 0.5 and p[3] < p[0]


def test_a_knock_estimate_that_stops_once_decided_decides_as_the_whole_estimate():
    """p_lowest_alone given tau stops sampling once the share is known to be at least tau or below it: for every
    knock position and hand, at thresholds around the shares that occur, the same side of tau as all samples."""
    obs, masks = positions(games=64, steps=300, seed=7)
    st = starts_vector(4)
    prm = np.array(list(DEFAULTS.values()), np.float64)
    decided = 0
    for i in np.flatnonzero(masks[:, KNOCK])[:60]:
        for v in (0, 2, 4, 7):
            cnt = np.bincount([v], minlength=11).astype(np.int64)
            p = p_lowest_alone(obs[i], st, 4, cnt, prm)
            for tau in (0.0, 0.3, p, p + 1e-9, 0.65, 1.0, 1.5):
                assert (p_lowest_alone(obs[i], st, 4, cnt, prm, tau) >= tau) == (p >= tau)
                decided += 1
    assert decided > 1000


def test_heuristic_beats_random_players():
    res = play_match([HeuristicAgent(), RandomAgent(seed=1), RandomAgent(seed=2), RandomAgent(seed=3)], 100, seed=0,
                     names=["heuristic", "random", "random", "random"], progress=False, game="quando").pooled()
    assert res["heuristic"]["win_rate"] >= 0.85
    assert res["heuristic"]["mean_round_points"] < res["random"]["mean_round_points"] / 3


def test_heuristic_beats_greedy_players():
    res = play_match([HeuristicAgent(), GreedyAgent(), GreedyAgent(), GreedyAgent()], 200, seed=0,
                     names=["heuristic", "greedy", "greedy", "greedy"], progress=False, game="quando").pooled()
    assert res["heuristic"]["win_rate"] > 0.45


def test_rollout_agent_plays_legal_moves_from_its_observation():
    obs, masks = positions(games=4, steps=40, seed=7)
    obs, masks = obs[::10], masks[::10]
    agent = RolloutAgent(search_kit(), samples=2, knock_samples=2, horizon=8, seed=0)
    a = agent.act(obs, masks)
    assert masks[np.arange(len(obs)), a].all()
    again = RolloutAgent(search_kit(), samples=2, knock_samples=2, horizon=8, seed=0)
    assert np.array_equal(again.act(obs, masks), a)  # seeded


@pytest.mark.parametrize("n,edition,horizon", [(4, "kendi", None), (6, "oya", None), (3, "kendi", 5)])
def test_fused_playout_plays_exactly_what_stepping_the_heuristic_plays(n, edition, horizon):
    h = HeuristicAgent(knock_samples=16)
    slow, fast = stepped_and_fused(
        lambda: VectorGame(48, seed=n, autoreset=False, num_players=n, edition=edition, episode="round"), h, horizon,
        lambda g: playout_kernel(g.states, g.cfg, g.obs_dim, starts_vector(n), n, h.prm,
                                 -1 if horizon is None else horizon))
    assert (slow.current_player < 0).all() == (horizon is None)
    assert slow.states.tobytes() == fast.states.tobytes()


def test_rollout_keeps_the_heuristic_choice_unless_clearly_beaten():
    agent = RolloutAgent(search_kit(), z=2.0)
    acts = np.array([5, 40, 119])
    rng = np.random.default_rng(0)
    base = rng.normal(10, 5, 64)
    noisy = np.stack([base, base + rng.normal(-0.3, 3, 64), base + 1.0])   # 40 is slightly better, but noisy
    assert agent._choose(noisy, acts, 5) == 5
    clear = np.stack([base, base - 2 + rng.normal(0, 0.5, 64), base + 1.0])  # 40 wins in almost every world
    assert agent._choose(clear, acts, 5) == 40
    assert agent._choose(clear, acts, 40) == 40


def test_rollout_candidates_include_the_heuristic_choice_knock_and_pass():
    agent = RolloutAgent(search_kit(), max_candidates=2)
    mask = np.zeros(NUM_ACTIONS, bool)
    mask[[3, 10, 20, 30, 40, KNOCK]] = True
    vals = np.full(NUM_ACTIONS, np.inf)
    vals[[3, 10, 20, 30, 40]] = [5.0, 1.0, 2.0, 9.0, 3.0]
    assert agent.candidates(mask, 30, vals, 30).tolist() == [10, 20, 30, KNOCK]


def test_rollout_agent_finishes_games():
    res = play_match([RolloutAgent(search_kit(), samples=2, knock_samples=2, horizon=12, seed=0), HeuristicAgent(),
                      HeuristicAgent(), HeuristicAgent()], 4, seed=0, progress=False, game="quando")
    assert all(s.games == 4 for s in res.stats)


def test_shipped_ppo_model_loads_and_beats_random_players():
    ppo = make_agent("ppo", game="quando")
    assert isinstance(ppo, PPOAgent) and isinstance(ppo, Agent)
    obs, masks = positions(games=8, steps=60, seed=8)
    a = ppo.act(obs, masks)
    assert masks[np.arange(len(obs)), a].all()
    res = play_match([ppo, RandomAgent(seed=1), RandomAgent(seed=2), RandomAgent(seed=3)], 40, seed=0,
                     names=["ppo", "r", "r", "r"], progress=False, game="quando").pooled()
    assert res["ppo"]["win_rate"] > 0.6


def test_ppo_hint_is_the_heuristic_action():
    from quando_env.agents.ppo import with_hint

    obs, masks = positions(games=4, steps=30, seed=9)
    x = with_hint(obs, masks, HeuristicAgent())
    assert x.shape == (len(obs), obs.shape[1] + NUM_ACTIONS) and np.array_equal(x[:, :obs.shape[1]], obs)
    assert np.array_equal(x[:, obs.shape[1]:].argmax(axis=1), HeuristicAgent().act(obs, masks))
    assert not with_hint(obs[:1], np.zeros((1, NUM_ACTIONS), bool), HeuristicAgent())[0, obs.shape[1]:].any()


def test_make_agent_names():
    assert isinstance(make_agent("random", game="quando"), RandomAgent)
    assert isinstance(make_agent("greedy", game="quando"), GreedyAgent)
    assert isinstance(make_agent("heuristic", game="quando"), HeuristicAgent)
    assert isinstance(make_agent("rollout", game="quando"), RolloutAgent)
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("alphazero", game="quando")
    with pytest.raises(ValueError, match="only ppo, learned and rllib take a path"):
        make_agent("heuristic:x", game="quando")
    for key in ("ppo", "learned", "rllib"):             # an empty $MODEL must not play the shipped model
        with pytest.raises(ValueError, match=f"agent '{key}:': no path after '{key}:'; give {key}:PATH"):
            make_agent(f"{key}:", game="quando")
    for players in (True, 4.0, "4", 9):                 # checked before a file name is made of it
        with pytest.raises(ValueError, match=f"num_players={players!r} is not allowed: an integer 2..6"):
            make_agent("learned", num_players=players, game="quando")
    with pytest.raises(FileNotFoundError, match="no PPO model"):
        make_agent("ppo:/nonexistent/model.zip", game="quando")
    train = r"train one with `python -m quando_env train --algo sb3 --game {0}` and give ppo:runs/ppo_{0}/best_model"
    with pytest.raises(FileNotFoundError, match=r"no PPO model for cabo is shipped .*: " + train.format("cabo")):
        check_agent("ppo", game="cabo")      # the front door's spelling, with the algorithm that makes ppo models
    with pytest.raises(FileNotFoundError, match=r"no PPO model at /nonexistent/model.zip: " + train.format("help")):
        PPOAgent("/nonexistent/model.zip", game="help")
    with pytest.raises(ValueError, match="unknown heuristic parameter"):
        HeuristicAgent(bogus=1)


def test_knock_mix_takes_the_knock_from_one_player_and_the_rest_from_the_other():
    """benchmarks/quando_knock.py's ablation: where knocking is legal the `knocks` player alone decides whether
    to knock; every other move is the card player's (or its best non-knock move). Both mixes play legal moves."""
    from quando_env.agents.plugins import load
    knock_mix = load(f"{Path(__file__).parent.parent / 'benchmarks' / 'quando_knock.py'}:KnockMix")
    learned, heuristic = make_agent("learned", game="quando", num_players=4), HeuristicAgent(num_players=4)
    game = VectorGame(64, seed=3, num_players=4)
    disagreed = 0
    for _ in range(400):
        obs, masks = game.observe(), game.legal_action_mask
        lrn, heu = learned.act_batch(obs, masks), heuristic.act_batch(obs, masks)
        can = masks[:, KNOCK]
        disagreed += int((can & ((lrn == KNOCK) != (heu == KNOCK))).sum())
        for knocks, cards, decider in (("learned", heu, lrn), ("heuristic", lrn, heu)):
            acts = knock_mix(knocks, learned, heuristic).act_batch(obs, masks)
            assert masks[np.arange(64), acts].all()
            knock = can & (decider == KNOCK)
            assert ((acts == KNOCK) == knock).all()
            kept = ~knock & ~(can & (cards == KNOCK))     # nobody knocks here: the card player's move
            assert (acts[kept] == cards[kept]).all()
        game.step(heu)
    assert disagreed > 10
