"""agents.search: the fast teacher. Its labels depend only on the deciding seat's observation (changing what that
seat has not seen changes nothing; a search that peeks is caught), they are the same whatever the batch, its
chunking or the thread count, its last stage is the rollout search's rule, and each game's fused play-out plays
what stepping the heuristic plays."""
from functools import partial

import numba
import numpy as np
import pytest

from quando_env.agents import RolloutAgent, SearchAgent, check_agent, make_agent
from quando_env.agents.games import game_package
from quando_env.agents.network_prior import NetworkPrior
from quando_env.registry import game_class

from rollout_checks import rollout_plays_legal_moves, stepped_and_fused

GAMES = ["quando", "cabo", "help"]


def seat0_positions(game: str, games: int = 24, steps: int = 30, seed: int = 0):
    """A VectorGame (no autoreset) played `steps` decisions by the heuristic, and the games where seat 0 now
    decides between two or more moves."""
    vg = game_class(game)(games, seed=seed, num_players=4, autoreset=False)
    h = make_agent("heuristic", game=game)
    for _ in range(steps):
        live = np.flatnonzero(vg.current_player >= 0)
        vg.step(h.act(vg.observe(games=live), vg.legal_action_mask[live]), games=live)
    rows = np.flatnonzero((vg.current_player == 0) & (vg.legal_action_mask.sum(axis=1) >= 2))
    return vg, rows


def teacher(game: str, cls=SearchAgent, prior=False, **kw):
    """A small search; prior: with the game's shipped learned model as its prior."""
    if prior:
        kw["prior"] = make_agent("learned", game=game)
    return cls(game_package(game).search_kit(), seed=0, **{"samples": 8, "knock_samples": 8, "first": 2, **kw})


def labels(agent, obs, masks, seed=7):
    from quando_env import rng
    streams = rng.streams(np.arange(len(obs)) + seed, rng.SALT_AGENT)
    return agent.candidate_stats(obs, masks, streams)


def same(a, b) -> bool:
    return all(np.array_equal(x, y, equal_nan=x.dtype.kind == "f") for x, y in zip(a, b))


class Peeking(SearchAgent):
    """A planted leak: the search plays out the true state (`truth`, set by the test) instead of sampled worlds."""

    truth = None

    def worlds(self, obs, i, k, cfg, seed):
        return np.repeat(self.truth[i:i + 1], k)


class PeekingPrior(NetworkPrior):
    """A planted leak in the prior: the network's ranking shuffled by the true state (`truth`, set by the test)."""

    truth = None

    def action_values(self, obs, masks):
        _, values = super().action_values(obs, masks)
        for i, world in enumerate(self.truth):
            values[i] += 1e3 * np.random.default_rng(list(world.tobytes())).random(values.shape[1])
        return np.where(masks, values, np.inf).argmin(axis=1), values


@pytest.mark.parametrize("prior", [False, True], ids=["heuristic", "learned prior"])
@pytest.mark.parametrize("game", GAMES)
def test_changing_what_the_deciding_seat_has_not_seen_leaves_its_labels_unchanged(game, prior):
    """Each position is replaced by another world of the deciding seat's own observation (the game's
    determinization: every unseen card dealt anew); its observation, mask and the teacher's complete labels
    (values, choices, visits) stay the same, with the heuristic or a learned model as the search's prior, and a
    search or a prior that peeks at the true state is caught by the same check."""
    vg, rows = seat0_positions(game)
    assert rows.size >= 3
    obs, masks = vg.observe(games=rows), vg.legal_action_mask[rows]
    cls = type(vg)
    other = np.concatenate([cls.sample_states(obs[j], 1, vg.config, seed=100 + j) for j in range(rows.size)])
    alt = cls(rows.size, seed=0, num_players=4, autoreset=False)
    alt.load_states(other)
    assert not np.array_equal(other.tobytes(), vg.states[rows].tobytes())       # the unseen did change
    alt_obs, alt_masks = alt.observe(), alt.legal_action_mask
    assert np.array_equal(alt_obs, obs) and np.array_equal(alt_masks, masks)
    assert same(labels(teacher(game, prior=prior), obs, masks), labels(teacher(game, prior=prior), alt_obs, alt_masks))
    peek = leak = teacher(game, cls=Peeking, horizon=None)
    if prior:                                     # the search's worlds honest, its prior peeking
        peek = teacher(game, prior=True)
        peek.prior = leak = PeekingPrior(make_agent("learned", game=game))
    leak.truth = vg.states[rows].copy()
    seen = labels(peek, obs, masks)
    leak.truth = other
    assert not same(seen, labels(peek, alt_obs, alt_masks))                     # the check catches a leak


@pytest.mark.parametrize("prior", [False, True], ids=["heuristic", "learned prior"])
@pytest.mark.parametrize("game", GAMES)
def test_the_same_seed_gives_the_same_labels_whatever_the_batch_chunks_or_threads(game, prior):
    vg, rows = seat0_positions(game, seed=1)
    obs, masks = vg.observe(games=rows), vg.legal_action_mask[rows]
    search = partial(teacher, prior=prior)
    whole = labels(search(game), obs, masks)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one_thread = labels(search(game), obs, masks)
    finally:
        numba.set_num_threads(threads)
    assert same(whole, one_thread)
    assert same(whole, labels(search(game, max_worlds=8), obs, masks))          # one decision per kernel call
    from quando_env import rng
    streams = rng.streams(np.arange(len(obs)) + 7, rng.SALT_AGENT)
    for j in range(len(obs)):                                                    # one decision at a time
        row = search(game).candidate_stats(obs[j:j + 1], masks[j:j + 1], streams[j:j + 1])
        assert same([x[0] for x in row], [x[j] for x in whole])


@pytest.mark.parametrize("game", GAMES)
def test_halving_keeps_the_heuristics_choice_to_the_last_stage_and_values_only_searched_moves(game):
    vg, rows = seat0_positions(game, seed=2)
    obs, masks = vg.observe(games=rows), vg.legal_action_mask[rows]
    agent = teacher(game, samples=16, knock_samples=16, first=2, max_candidates=None)
    values, choice, visits = labels(agent, obs, masks)
    prior = agent.kit.prior.act(obs, masks)
    r = np.arange(len(rows))
    most = visits.max(axis=1)
    assert (visits[r, prior] == most).all() and (visits[r, choice] == most).all()
    assert np.array_equal(visits > 0, ~np.isnan(values)) and not (visits[~masks] > 0).any()
    assert set(np.unique(visits[visits > 0])) <= {2, 4, 8, 16}
    assert (visits[masks] < 16).any() and (most == 16).any()                    # some candidates were dropped
    assert (values[r, choice] >= values[r, prior]).all()                        # a change only for the better


def test_the_choice_is_taken_on_the_worlds_after_the_last_pruning():
    """Candidates kept for doing well in a stage's worlds would carry that luck into the final comparison: the
    choice sees only the worlds played after the last stage that dropped one (all of them where none was)."""
    seen = []

    class Recording(SearchAgent):
        def _choose(self, s, acts, h):
            seen.append(s.shape[1])
            return super()._choose(s, acts, h)

    vg, rows = seat0_positions("quando", seed=2)
    agent = Recording(game_package("quando").search_kit(), seed=0, samples=16, knock_samples=16, first=2,
                      max_candidates=None)
    labels(agent, vg.observe(games=rows), vg.legal_action_mask[rows])
    assert len(seen) <= len(rows) and set(seen) <= {16, 14, 12, 8} and min(seen) < 16


@pytest.mark.parametrize("game", GAMES)
def test_with_one_stage_the_teacher_is_the_rollout_search(game):
    """first == samples: every candidate plays every world, as RolloutAgent does, with the same worlds."""
    vg, rows = seat0_positions(game, seed=3)
    obs, masks = vg.observe(games=rows), vg.legal_action_mask[rows]
    kw = {"samples": 6, "knock_samples": 6, "horizon": 12, "z": 2.0}
    fast = labels(teacher(game, first=6, knock_horizon=12, **kw), obs, masks)
    from quando_env import rng
    streams = rng.streams(np.arange(len(obs)) + 7, rng.SALT_AGENT)
    values, choice = RolloutAgent(game_package(game).search_kit(), seed=0, **kw).candidate_values(obs, masks, streams)
    assert same(fast[:2], (values, choice))


@pytest.mark.parametrize("game", ["quando", "cabo"])
def test_decisions_with_a_move_that_can_end_the_round_are_played_out_to_knock_horizon(game):
    """A cut play-out would weigh a knock's finished round against unfinished ones: where an always-tried move
    is a candidate the play-outs go on to knock_horizon (the round's end by default), elsewhere to horizon."""
    obs, masks = [], []
    for steps in (10, 11, 30, 31):
        vg, rows = seat0_positions(game, steps=steps, seed=4)
        obs.append(vg.observe(games=rows))
        masks.append(vg.legal_action_mask[rows])
    obs, masks = np.concatenate(obs), np.concatenate(masks)
    knock = masks[:, list(game_package(game).search_kit().always_try)].any(axis=1)
    assert knock.any() and (~knock).any()
    split = labels(teacher(game, horizon=2), obs, masks)
    cut = labels(teacher(game, horizon=2, knock_horizon=2), obs, masks)
    whole = labels(teacher(game, horizon=None), obs, masks)
    assert same([x[~knock] for x in split], [x[~knock] for x in cut])
    assert same([x[knock] for x in split], [x[knock] for x in whole])


@pytest.mark.parametrize("game", GAMES)
def test_search_is_an_agent_name_that_plays_legal_moves(game):
    check_agent("search", game)
    agent = make_agent("search", game=game, seed=0, samples=4, knock_samples=4, first=2)
    assert isinstance(agent, SearchAgent)
    vg = game_class(game)(4, seed=5, num_players=4, episode="round", autoreset=False)
    assert rollout_plays_legal_moves(vg, agent, make_agent("heuristic", game=game)) > 5
    with pytest.raises(ValueError, match="first=9"):
        make_agent("search", game=game, samples=8, first=9)


@pytest.mark.parametrize("n, horizon", [(4, None), (3, 5)])
def test_helps_fused_playout_plays_exactly_what_stepping_the_heuristic_plays(n, horizon):
    from quando_env.agents.help import HeuristicAgent
    from quando_env.agents.help.playout import playout_kernel
    from quando_env.help import VectorGame

    h = HeuristicAgent()
    slow, fast = stepped_and_fused(
        lambda: VectorGame(48, seed=n, autoreset=False, num_players=n, episode="round"), h, horizon,
        lambda g: playout_kernel(g.states, g.cfg, g.obs_dim, n, h.prm, -1 if horizon is None else horizon))
    assert (slow.current_player < 0).all() == (horizon is None)
    assert slow.states.tobytes() == fast.states.tobytes()


@pytest.mark.parametrize("game", GAMES)
def test_a_learned_prior_chooses_the_candidates_and_the_move_kept_with_the_heuristics_choice_searched_too(game):
    """The candidates are the network's best-ranked moves, its best, the heuristic's choice and the always-tried
    moves; the network's best is played in every world the search spends, and replaced only for a better one."""
    found = [seat0_positions(game, games=48, steps=steps, seed=2) for steps in (11, 12)]
    obs = np.concatenate([vg.observe(games=rows) for vg, rows in found])
    masks = np.concatenate([vg.legal_action_mask[rows] for vg, rows in found])
    agent = teacher(game, prior=True, max_candidates=1, samples=16, knock_samples=16)
    values, choice, visits = labels(agent, obs, masks)
    net = make_agent("learned", game=game).scores(obs, masks)
    heuristic = agent.kit.prior.act(obs, masks)
    r = np.arange(len(obs))
    best = net.argmax(axis=1)
    assert (visits[r, best] == visits.max(axis=1)).all() and (visits[r, heuristic] > 0).all()
    assert (best != heuristic).any()                          # the network is another prior than the heuristic
    for i in r:
        legal = np.flatnonzero(masks[i])
        expected = {int(best[i]), int(heuristic[i])} | {a for a in agent.kit.always_try if masks[i, a]}
        expected = set(legal.tolist()) if legal.size <= 2 else expected
        assert set(np.flatnonzero(visits[i]).tolist()) == expected
    assert (values[r, choice] >= values[r, best]).all()       # a change only for the better


@pytest.mark.parametrize("game", GAMES)
def test_search_with_a_learned_prior_is_an_agent_name_that_plays_legal_moves(game):
    check_agent("search:learned", game)
    agent = make_agent("search:learned", game=game, seed=0, samples=4, knock_samples=4, first=2)
    assert isinstance(agent.prior, NetworkPrior) and "prior=" in repr(agent)
    vg = game_class(game)(4, seed=5, num_players=4, episode="round", autoreset=False)
    assert rollout_plays_legal_moves(vg, agent, make_agent("heuristic", game=game)) > 5
    for name, message in [("search:heuristic", "not a learned model"), ("search:", "not a learned model"),
                          ("rollout:learned:nowhere.npz", "no learned model at nowhere.npz")]:
        with pytest.raises((ValueError, FileNotFoundError), match=message):
            check_agent(name, game)


@pytest.mark.parametrize("game", GAMES)
def test_a_learned_prior_ranks_a_row_alike_whatever_its_batch(game):
    """float32 products differ in their last bits with the batch's shape, enough to reorder near ties; the prior's
    values are the same for a row alone and in a batch."""
    vg, _ = seat0_positions(game, games=64, steps=11, seed=1)
    live = np.flatnonzero(vg.current_player >= 0)
    obs, masks = vg.observe(games=live), vg.legal_action_mask[live]
    prior = NetworkPrior(make_agent("learned", game=game))
    best, values = prior.action_values(obs, masks)
    rows = [prior.action_values(obs[i:i + 1], masks[i:i + 1]) for i in range(len(obs))]
    assert np.array_equal(best, [b[0] for b, _ in rows])
    assert np.array_equal(values, np.concatenate([v for _, v in rows]))
    assert np.array_equal(best, make_agent("learned", game=game).act(obs, masks))
