"""Cabo's determinization (quando_env.cabo.determinize) and the rollout search on top of it: every sampled
world gives the observer (as seat 0) its observation and legal mask back exactly, keeps every card the
observer knows where it is, deals the unseen cards anew, and can be played on; RolloutAgent with Cabo's
search kit chooses legal actions. Rule ids refer to quando_env/cabo/RULES.md."""
import numpy as np
import pytest

from quando_env.agents import make_agent
from quando_env.agents.cabo import GreedyAgent, HeuristicAgent, search_kit
from quando_env.agents.rollout import RolloutAgent
from quando_env.cabo import VectorGame
from quando_env.cabo import engine as E
from quando_env.cabo.cards import JACK, KNOCK, NO_KNOCK, NUM_CARDS, PASS, QUEEN, rank
from rollout_checks import rollout_plays_legal_moves

sample_states, sample_worlds = VectorGame.sample_states, VectorGame.sample_worlds

K = 6   # worlds per observation


def random_action(mask, rng):
    """Random legal play that reaches every phase: mostly passes in snap windows, some knocks."""
    legal = np.flatnonzero(mask)
    if PASS in legal and rng.random() < 0.75:
        return PASS
    if KNOCK in legal:
        return KNOCK if rng.random() < 0.2 else NO_KNOCK
    return int(rng.choice(legal))


def positions(n, steps, seed, games=4):
    """(game, g) at random positions of games reached by random play (several rounds, autoreset)."""
    rng = np.random.default_rng(seed)
    game = VectorGame(games, seed=seed, num_players=n)
    for t in range(steps):
        game.step(np.array([random_action(game.legal_action_mask[g], rng) for g in range(games)]))
        for g in range(games):
            if rng.random() < 0.2 or game.states[g]["phase"] in (E.PH_QUEEN, E.PH_JACK):   # the rare phases always
                yield game, g


def where(s, c, n, p):
    """Where card c is in record s, seats relative to p: (kind, seat or 0, slot or pile position)."""
    loc = int(s["loc"][c])
    if loc < n:
        return ("slot", (loc - p) % n, int(s["pos"][c]))
    if loc == E.LOC_STOCK:
        return ("stock", 0, int(np.flatnonzero(s["stock"][: s["nstock"]] == c)[0]))
    if loc == E.LOC_DISC:
        return ("disc", 0, int(np.flatnonzero(s["disc"][: s["ndisc"]] == c)[0]))
    assert loc == E.LOC_DRAWN and s["drawn"] == c
    return ("drawn", 0, 0)


def check_world(s, n):
    """A valid record: every card once, in the place its loc/pos say."""
    held = [int(c) for c in s["slot"][:n].ravel() if c >= 0]
    piles = list(s["stock"][: s["nstock"]]) + list(s["disc"][: s["ndisc"]])
    drawn = [int(s["drawn"])] if s["drawn"] >= 0 else []
    assert sorted(held + [int(c) for c in piles] + drawn) == list(range(NUM_CARDS))
    for p in range(n):
        assert s["nhand"][p] == (s["slot"][p] >= 0).sum()
        for i, c in enumerate(s["slot"][p]):
            if c >= 0:
                assert s["loc"][c] == p and s["pos"][c] == i


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_sampled_worlds_give_back_the_observation_and_the_mask(n):
    worlds = VectorGame(K, seed=0, autoreset=False, num_players=n, episode="round")
    phases, knocked, unseen_drawn = set(), 0, 0
    for game, g in positions(n, 400, seed=n):
        s = game.states[g]
        cur = int(s["cur"])
        for p in (cur, (cur + 1) % n):          # the player to move, and an onlooker
            obs = game.observe(players=np.full(game.num_games, p))[g]
            states = sample_states(obs, K, game.config, seed=int(s["steps"]))
            worlds.load_states(states)
            assert (worlds.observe(players=np.zeros(K, np.int64)) == obs).all()
            if p == cur:
                assert (worlds.legal_action_mask == game.legal_action_mask[g]).all()
                assert (worlds.current_player == 0).all()
            for w in range(K):
                check_world(states[w], n)
            if s["drawn"] >= 0 and not s["seen"][p, s["drawn"]]:
                unseen_drawn += 1                 # another's stock card it did not have to show (R10, R11)
                for w in range(K):
                    r = rank(states[w]["drawn"])
                    assert r != QUEEN and (r != JACK or not E.jack_applies_R10(s, cur, n))
        phases.add(int(s["phase"]))
        knocked += s["knocker"] >= 0
    assert phases == {E.PH_DRAW, E.PH_PLACE, E.PH_QUEEN, E.PH_JACK, E.PH_SNAP, E.PH_KNOCK}
    assert knocked > 0 and unseen_drawn > 0


@pytest.mark.parametrize("n", [2, 4, 6])
def test_known_cards_stay_and_unknown_cards_are_dealt_anew(n):
    differ = checked = many = 0
    for game, g in positions(n, 150, seed=10 + n):
        s = game.states[g]
        p = int(s["cur"])
        obs = game.observe()[g]
        states = sample_states(obs, K, game.config, seed=checked)
        seen = np.flatnonzero(s["seen"][p])
        unseen = np.flatnonzero(s["seen"][p] == 0)
        for w in states:
            for c in seen:                       # a card the observer knows never moves
                assert where(w, c, n, 0) == where(s, c, n, p)
            assert (w["seen"][0] == s["seen"][p]).all()
            assert set(np.flatnonzero(w["seen"][0] == 0)) == set(unseen)
            for q in range(1, n):                # certain for the others: the discard pile (K2, K4)
                assert w["seen"][q, w["disc"][: w["ndisc"]]].all()
            assert w["total"][:n].tolist() == np.roll(s["total"][:n], -p).tolist()
            assert (w["phase"], w["cur"], w["turns"]) == (s["phase"], (s["cur"] - p) % n, s["turns"])
        if unseen.size > 1:
            many += 1
            layouts = {tuple(where(w, c, n, 0) for c in unseen) for w in states}
            differ += len(layouts) > 1
        checked += 1
    assert many > 20 and differ > 0.9 * many


@pytest.mark.parametrize("n", [3, 5])
def test_windows_and_knock_decisions_go_on_as_in_the_real_game(n):
    """The unobserved bookkeeping (the window's position, who comes next, the end of the round) is right:
    passing through a snap window and declining to knock runs the same seats (relative) in every sample as
    in the real game."""
    def neutral_run(game, g, p):
        seq = []
        while game.states[g]["phase"] in (E.PH_SNAP, E.PH_KNOCK) and game.states[g]["round"] == r0:
            a = PASS if game.states[g]["phase"] == E.PH_SNAP else NO_KNOCK
            acts = np.zeros(game.num_games, np.int64)
            acts[g] = a
            game.step(acts[[g]], games=[g])
            s = game.states[g]
            if s["round"] != r0:                  # the round ended: the next deal is another story
                seq.append("round over")
                break
            seq.append((int(s["phase"]), (int(s["cur"]) - p) % n, int(s["turns"]), int(s["knocker"] >= 0)))
        return seq

    runs = 0
    for game, g in positions(n, 300, seed=20 + n):
        s = game.states[g]
        if s["phase"] not in (E.PH_SNAP, E.PH_KNOCK):
            continue
        p = int(s["cur"])
        r0 = int(s["round"])
        worlds = VectorGame(K, seed=0, autoreset=False, **{**game.config.to_dict(), "max_steps": 10_000})
        worlds.load_states(sample_states(game.observe()[g], K, game.config, seed=runs))
        real = VectorGame(1, seed=0, autoreset=False, **game.config.to_dict())
        real.load_states(game.states[[g]])
        want = neutral_run(real, 0, p)
        for w in range(K):
            assert neutral_run(worlds, w, 0) == want
        runs += 1
    assert runs > 10


def test_samples_follow_the_seed_and_play_on():
    game = VectorGame(1, seed=3, num_players=4)
    rng = np.random.default_rng(0)
    for _ in range(40):
        game.step(np.array([random_action(game.legal_action_mask[0], rng)]))
    obs = game.observe()[0]
    a, b = sample_states(obs, 8, game.config, seed=5), sample_states(obs, 8, game.config, seed=5)
    assert (a == b).all() and not (a == sample_states(obs, 8, game.config, seed=6)).all()
    assert (VectorGame.sample_states(obs, 8, game.config, seed=5) == a).all()
    worlds = sample_worlds(obs, 16, seed=1, num_players=4)
    while (worlds.current_player >= 0).any():       # random play to the round's end, no engine error
        live = np.flatnonzero(worlds.current_player >= 0)
        worlds.step(worlds.sample_actions(live), games=live)
    assert worlds.rounds_done.min() == 1


def test_errors():
    game = VectorGame(1, seed=0, num_players=3, episode="round", autoreset=False)
    obs = game.observe()[0]
    with pytest.raises(ValueError, match="vector of"):
        sample_states(obs[:-1], 2, game.config)
    with pytest.raises(ValueError, match="vector of"):
        sample_states(obs, 2, VectorGame(1, num_players=4).config)
    with pytest.raises(ValueError, match="vector of"):
        VectorGame.sample_states(None, 1, game.config)
    while game.current_player[0] >= 0:
        game.step(game.sample_actions())
    with pytest.raises(ValueError, match="finished"):
        sample_states(game.observe(players=[0])[0], 2, game.config)


def test_action_values_rank_the_heuristics_choice_first():
    game = VectorGame(64, seed=2, num_players=3)
    h = HeuristicAgent()
    for _ in range(120):
        obs, masks = game.observe(), game.legal_action_mask
        acts, vals = h.action_values(obs, masks)
        assert (acts == h.act(obs, masks)).all()
        assert np.isfinite(vals[masks]).all() and np.isinf(vals[~masks]).all()
        for i in range(64):
            assert vals[i, acts[i]] <= 0                  # never rated worse than doing nothing
            if game.states[i]["phase"] in (E.PH_DRAW, E.PH_KNOCK, E.PH_QUEEN, E.PH_JACK):
                assert vals[i, acts[i]] == vals[i][masks[i]].min()
        game.step(acts)


def test_rollout_agent_chooses_legal_actions_in_a_game_and_a_batch():
    agent = RolloutAgent(search_kit(), samples=8, knock_samples=8, seed=0)
    game = VectorGame(6, seed=4, num_players=3, episode="round", autoreset=False)
    assert rollout_plays_legal_moves(game, agent, HeuristicAgent()) > 20
    one = VectorGame(1, seed=9, num_players=2)
    for _ in range(30):                                   # one observation at a time, by make_agent
        a = make_agent("rollout", game="cabo", seed=1, samples=4, knock_samples=4).act(one.observe()[0],
                                                                                         one.legal_action_mask[0])
        assert one.legal_action_mask[0, a]
        one.step(np.array([a]))


def test_fused_playout_plays_as_the_stepped_heuristic():
    game = VectorGame(1, seed=6, num_players=4)
    h = HeuristicAgent()
    for _ in range(25):
        game.step(h.act(game.observe(), game.legal_action_mask))
    obs = game.observe()[0]
    fused, stepped = (sample_worlds(obs, 16, seed=2, num_players=4) for _ in range(2))
    search_kit().playout(fused, None)
    assert search_kit(GreedyAgent()).playout is None          # another play-out agent is stepped
    while (stepped.current_player >= 0).any():
        live = np.flatnonzero(stepped.current_player >= 0)
        stepped.step(h.act(stepped.observe(games=live), stepped.legal_action_mask[live]), games=live)
    assert (fused.states == stepped.states).all()
