"""Help! in JAX (quando_env.jax) against the numba engine: from the same deals, decision by decision, the seat to
decide, the legal mask, every seat's observation, the rewards and the episode's end are equal, for every player count
and both reshuffles; a reshuffle the JAX engine draws (reshuffle="shuffle") is given to the numba engine
(force_reshuffle), so rounds are compared through their reshuffles."""
import jax
import numpy as np
import pytest

from quando_env import jax as qjax
from quando_env.help.cards import CODES, FULL_DECK
from quando_env.help.game import VectorGame

from jax_checks import Pair, check_pgx_conventions, use_compilation_cache

GAMES = 200      # random rounds per player count and reshuffle


@pytest.fixture(scope="module", autouse=True)
def compilation_cache(request):
    use_compilation_cache(request)


def random_decks(num_games, seed):
    """Per game a shuffled deck as kind indices, top first (R2)."""
    rng = np.random.default_rng(seed)
    return np.array([rng.permutation(FULL_DECK) for _ in range(num_games)]).astype(np.int32)


def give_reshuffles(pair, before):
    """R15 (shuffle): where the JAX engine reshuffled in this step, the numba engine takes the same pile."""
    for g in np.flatnonzero(np.asarray(pair.state._shuffles) > np.asarray(before._shuffles)):
        pile = np.asarray(pair.state._draw[g])[: int(pair.state._dend[g])]
        pair.game.force_reshuffle(int(g), {"pile": [CODES[k] for k in pile]})


def play_pair(num_games, seed, starters=None, **config):
    env = qjax.make("help", episode="round", **config)
    game = VectorGame(num_games=num_games, seed=seed, autoreset=False, episode="round", **config)
    decks = random_decks(num_games, seed)
    options = {"deck": decks} if starters is None else {"deck": decks, "starter": starters}

    def numba_options(g):
        given = {"deck": [CODES[k] for k in decks[g]]}
        return given if starters is None else {**given, "starter": int(starters[g])}
    pair = Pair(env, game, options, seed, numba_options)
    return pair, pair.play(give_reshuffles)


@pytest.mark.parametrize("reshuffle", ["shuffle", "flip"])
@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_same_game_as_numba_decision_by_decision(num_players, reshuffle):
    pair, decisions = play_pair(GAMES, num_players, num_players=num_players, reshuffle=reshuffle)
    assert decisions > 5 * GAMES and not pair.live.any()


def give_new_deals(pair, before):
    """episode="game": where the JAX engine dealt a new round, the numba engine deals the same deck (redeal)."""
    for g in pair.new_rounds(before):
        pair.game.redeal(int(g), [CODES[k] for k in np.asarray(pair.state._draw[g])])


def mostly_lowest(game, rng=np.random.default_rng(0)):
    """The lowest legal action (low numbers first: the row fills slowly, rounds last) or, one time in five, a
    random legal one."""
    return np.where(rng.random(game.num_games) < 0.8, game.legal_action_mask.argmax(axis=1), game.sample_actions())


@pytest.mark.parametrize("reshuffle", ["shuffle", "flip"])
def test_same_game_over_whole_games_through_reshuffles_and_truncation(reshuffle):
    # episode="game", rows of 4 and hands of 6 keep rounds going: the draw pile runs out again and again (R15, D11),
    # the next round is dealt (R4, R5), games end at the target (R21) or a round at max_steps (R22). Each new deal
    # and reshuffle the JAX engine draws is given to the numba engine.
    config = dict(num_players=5, hand_size=6, row_max=4, max_steps=300, reshuffle=reshuffle)
    env = qjax.make("help", **config)
    game = VectorGame(num_games=64, seed=3, autoreset=False, **config)
    decks = random_decks(64, 3)
    pair = Pair(env, game, {"deck": decks}, 3, lambda g: {"deck": [CODES[k] for k in decks[g]]})
    pair.play(give_reshuffles, mostly_lowest, give_new_deals)
    assert pair.truncated.any() and (game.states["round"] > 1).any()
    assert (game.states["shuffles" if reshuffle == "shuffle" else "flips"] > 0).any()


def test_same_game_with_given_starters_and_options():
    starters = np.random.default_rng(4).integers(0, 3, 64)
    pair, _ = play_pair(64, 4, starters, num_players=3, hand_size=3, row_max=4, open_lowest=False, reward="win")
    assert not pair.live.any()


def test_is_a_pgx_env_on_pgx_conventions():
    check_pgx_conventions(qjax.make("help", num_players=3), VectorGame, "help")


@pytest.mark.parametrize("call, message", [
    (lambda: qjax.make("help", num_players=2), "num_players"),
    (lambda: qjax.make("help", action_features=True), "action_features is not supported"),
    (lambda: qjax.make("help").init(jax.random.PRNGKey(0), options={"deck": ["1"] * 105}), "deck"),
    (lambda: qjax.make("help").init(jax.random.PRNGKey(0), options={"starter": 4}), "starter"),
    (lambda: qjax.make("help").init(jax.random.PRNGKey(0), options={"dealer": 0}), "unknown option(s) ['dealer']"),
    (lambda: qjax.make("help").step(None, 0), "pass a key"),
])
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError) as e:
        call()
    assert message in str(e.value)
