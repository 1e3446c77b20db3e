"""agents.search: the fast teacher. Its labels depend only on the deciding seat's observation (changing what that
seat has not seen changes nothing; a search that peeks is caught), they are the same whatever the batch, its
chunking or the thread count, its last stage is the rollout search's rule, and each game's fused play-out plays
what stepping the heuristic plays."""
import numba
import numpy as np
import pytest

from quando_env.agents import RolloutAgent, SearchAgent, check_agent, make_agent
from quando_env.agents.games import game_package
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


def teacher(game: str, cls=SearchAgent, **kw):
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


@pytest.mark.parametrize("game", GAMES)
def test_changing_what_the_deciding_seat_has_not_seen_leaves_its_labels_unchanged(game):
    """Each position is replaced by another world of the deciding seat's own observation (the game's
    determinization: every unseen card dealt anew); its observation, mask and the teacher's complete labels
    (values, choices, visits) stay the same, and a search that peeks at the true state is caught by the same check."""
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
    assert same(labels(teacher(game), obs, masks), labels(teacher(game), alt_obs, alt_masks))
    peek = teacher(game, cls=Peeking, horizon=None)
    peek.truth = vg.states[rows].copy()
    seen = labels(peek, obs, masks)
    peek.truth = other
    assert not same(seen, labels(peek, alt_obs, alt_masks))                     # the check catches a leak


@pytest.mark.parametrize("game", GAMES)
def test_the_same_seed_gives_the_same_labels_whatever_the_batch_chunks_or_threads(game):
    vg, rows = seat0_positions(game, seed=1)
    obs, masks = vg.observe(games=rows), vg.legal_action_mask[rows]
    whole = labels(teacher(game), obs, masks)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one_thread = labels(teacher(game), obs, masks)
    finally:
        numba.set_num_threads(threads)
    assert same(whole, one_thread)
    assert same(whole, labels(teacher(game, max_worlds=8), obs, masks))          # one decision per kernel call
    from quando_env import rng
    streams = rng.streams(np.arange(len(obs)) + 7, rng.SALT_AGENT)
    for j in range(len(obs)):                                                    # one decision at a time
        row = teacher(game).candidate_stats(obs[j:j + 1], masks[j:j + 1], streams[j:j + 1])
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
