"""Cabo in JAX (quando_env.jax) against the numba engine: from the same deals, decision by decision, the player to move,
the legal mask, every seat's observation, the rewards and the episode's end are equal, for every player count. Cabo
draws nothing at random inside a round (D14), so whole rounds are compared, restocks (R17) included."""
import jax
import numpy as np
import pytest

from quando_env import jax as qjax
from quando_env.cabo import engine as E
from quando_env.cabo.cards import KNOCK, NO_KNOCK
from quando_env.cabo.game import VectorGame

from jax_checks import Pair, check_pgx_conventions, use_compilation_cache

GAMES = 200      # random rounds per player count


@pytest.fixture(scope="module", autouse=True)
def compilation_cache(request):
    use_compilation_cache(request)


def random_deals(num_games, n, seed):
    """Per game a shuffled deck (52 card ids, top first, R4) and a dealer."""
    rng = np.random.default_rng(seed)
    return {"deck": np.array([rng.permutation(52) for _ in range(num_games)]),
            "dealer": rng.integers(0, n, num_games)}


def play_pair(num_games, seed, **config):
    env = qjax.make("cabo", episode="round", **config)
    game = VectorGame(num_games=num_games, seed=seed, autoreset=False, episode="round", **config)
    pair = Pair(env, game, random_deals(num_games, game.num_players, seed), seed)
    return pair, pair.play()


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_same_game_as_numba_decision_by_decision(num_players):
    pair, decisions = play_pair(GAMES, num_players, num_players=num_players)
    assert decisions > 10 * GAMES and not pair.live.any()


def give_new_deals(pair, before):
    """episode="game": where the JAX engine dealt a new round, the numba engine deals the same deck (redeal)."""
    n = pair.game.num_players
    hand = pair.game.config.hand_size
    for g in pair.new_rounds(before):
        slot, loc, ppos = (np.asarray(x[g]) for x in (pair.state._slot, pair.state._loc, pair.state._ppos))
        dealer = int(pair.state._dealer[g])
        deck = [None] * 52
        for p in range(n):          # R5: card i of the seat j seats left of the dealer was card i * n + j - 1
            for i in range(hand):
                deck[i * n + (p - dealer - 1) % n] = int(slot[p, i])
        for c in range(52):
            if loc[c] == E.LOC_DISC:
                deck[n * hand] = c      # R6: the upcard
            elif loc[c] == E.LOC_STOCK:
                deck[51 - ppos[c]] = c
        pair.game.redeal(int(g), deck)


def never_knock(game):
    """Random legal moves, but no knock: long rounds."""
    actions = game.sample_actions()
    return np.where(actions == KNOCK, NO_KNOCK, actions)


def test_same_game_over_whole_games_through_restocks_and_truncation():
    # episode="game", nobody knocks, 35 turns a round (R21): stocks run out and the discard pile turns over (R17),
    # Jacks and Queens act (R10, R11), players go out (R20), the next round is dealt, games end at the target (R26,
    # reward="win") or at max_steps. Each new deal the JAX engine draws is given to the numba engine.
    restocks = []

    def count_restocks(pair, before):
        same_round = np.asarray(pair.state._round) == np.asarray(before._round)
        restocks.append(int((same_round & (np.asarray(pair.state._nstock) > np.asarray(before._nstock))).sum()))

    config = dict(num_players=4, turn_limit=35, max_steps=350, reward="win")
    env = qjax.make("cabo", **config)
    game = VectorGame(num_games=64, seed=5, autoreset=False, **config)
    pair = Pair(env, game, random_deals(64, 4, 5), 5)
    pair.play(count_restocks, never_knock, give_new_deals)
    assert sum(restocks) > 0 and pair.truncated.any() and (game.states["round"] > 1).any()


def test_same_game_with_other_options():
    options = dict(num_players=3, hand_size=6, peek=1, knocker_final_turn=False, tie_doubles=True, turn_limit=30)
    pair, _ = play_pair(64, 11, **options)
    assert not pair.live.any()


def test_is_a_pgx_env_on_pgx_conventions():
    check_pgx_conventions(qjax.make("cabo", num_players=3), VectorGame, "cabo")


@pytest.mark.parametrize("call, message", [
    (lambda: qjax.make("cabo", num_players=1), "num_players"),
    (lambda: qjax.make("cabo", render_mode="ansi"), "render_mode is not supported by quando_env.jax"),
    (lambda: qjax.make("cabo").init(jax.random.PRNGKey(0), options={"deck": list(range(51)) + [0]}), "both 0"),
    (lambda: qjax.make("cabo").init(jax.random.PRNGKey(0), options={"dealer": -1}), "dealer"),
    (lambda: qjax.make("cabo").step(None, 0), "pass a key"),
])
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError) as e:
        call()
    assert message in str(e.value)
