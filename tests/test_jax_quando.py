"""Quando in JAX (quando_env.jax) against the numba engine: from the same deals, decision by decision, the player to
move, the legal mask, every seat's observation, the rewards and the episode's end are equal, for every player count in
both editions; an oya reshuffle the JAX engine draws is given to the numba engine (force_reshuffle), so rounds are
compared through their reshuffles."""
import jax
import numpy as np
import pytest

from quando_env import jax as qjax
from quando_env.quando import engine as E
from quando_env.quando.cards import CARD_VALUES, KNOCK, PASS
from quando_env.quando.game import VectorGame

from jax_checks import Pair, check_pgx_conventions, use_compilation_cache

GAMES = 200      # random rounds per player count and edition


@pytest.fixture(scope="module", autouse=True)
def compilation_cache(request):
    use_compilation_cache(request)


def random_deals(num_games, n, seed):
    """Per game a shuffled deck as 55 [up, down] pairs (R4) and a dealer."""
    rng = np.random.default_rng(seed)
    ids = np.array([rng.permutation(55) for _ in range(num_games)])
    ups = rng.integers(0, 2, ids.shape)
    return {"deck": np.stack([CARD_VALUES[ids, ups], CARD_VALUES[ids, 1 - ups]], -1),
            "dealer": rng.integers(0, n, num_games)}


def draw_pile(state, g):
    """Game g's draw pile in the JAX state, top first, as [up, down] pairs."""
    loc, pos, face = (np.asarray(x[g]) for x in (state._loc, state._pos, state._face))
    cards = np.flatnonzero(loc == E.LOC_DRAW)
    return [[int(CARD_VALUES[c, face[c]]), int(CARD_VALUES[c, 1 - face[c]])] for c in cards[np.argsort(-pos[cards])]]


def give_reshuffles(pair, before):
    """R11 (oya): where the JAX engine reshuffled in this step, the numba engine takes the same pile, the step that
    ends the episode included (the final table is compared too); unless the round then ended and the next was
    dealt: that deal replaces the pile (give_new_deals)."""
    kept = (np.asarray(pair.state._round) == np.asarray(before._round)) | np.asarray(pair.state.terminated)
    for g in np.flatnonzero((np.asarray(pair.state._shuffles) > np.asarray(before._shuffles)) & kept):
        pair.game.force_reshuffle(int(g), {"pile": draw_pile(pair.state, g)})


def never_knock(game):
    """Random legal moves, but no knock: long rounds (oya asks after every draw, R15o)."""
    actions = game.sample_actions()
    mask = game.legal_action_mask.copy()
    mask[:, KNOCK] = False
    other = np.where(mask[:, PASS], PASS, mask.argmax(axis=1))
    return np.where(actions == KNOCK, other, actions)


def give_new_deals(pair, before):
    """episode="game": where the JAX engine dealt a new round, the numba engine deals the same deck (redeal)."""
    for g in pair.new_rounds(before):
        loc, pos, face, acq = (np.asarray(x[g]) for x in (pair.state._loc, pair.state._pos, pair.state._face,
                                                           pair.state._acq))
        held = loc < pair.game.num_players
        place = np.where(held, acq, 54 - pos)       # R5: the deck, top first, as just dealt
        up = np.where(held, 1 - face, face)
        deck = [None] * 55
        for c in range(55):
            deck[place[c]] = [int(CARD_VALUES[c, up[c]]), int(CARD_VALUES[c, 1 - up[c]])]
        pair.game.redeal(int(g), deck)


def play_pair(num_games, seed, policy=None, **config):
    env = qjax.make("quando", episode="round", **config)
    game = VectorGame(num_games=num_games, seed=seed, autoreset=False, episode="round", **config)
    pair = Pair(env, game, random_deals(num_games, game.num_players, seed), seed)
    return pair, pair.play(give_reshuffles, policy)


@pytest.mark.parametrize("edition", ["kendi", "oya"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_same_game_as_numba_decision_by_decision(num_players, edition):
    pair, decisions = play_pair(GAMES, num_players, num_players=num_players, edition=edition)
    assert decisions > 3 * GAMES and not pair.live.any()


@pytest.mark.parametrize("edition", ["kendi", "oya"])
def test_same_game_over_whole_games_through_reshuffles_and_truncation(edition):
    # episode="game", nobody knocks, small hands: rounds end with only zeros (R14) and the next is dealt, draw piles
    # run out (kendi turns the discard pile over, oya reshuffles it, R11), games end at the target (R19) or at
    # max_steps (D6). Each new deal and reshuffle the JAX engine draws is given to the numba engine.
    config = dict(num_players=6, edition=edition, hand_size=3, knock_penalty=7, target_score=30, max_steps=300)
    env = qjax.make("quando", **config)
    game = VectorGame(num_games=64, seed=2, autoreset=False, **config)
    pair = Pair(env, game, random_deals(64, 6, 2), 2)
    pair.play(give_reshuffles, never_knock, give_new_deals)
    assert pair.truncated.any() and (game.states["round"] > 1).any()
    if edition == "oya":
        assert (game.states["shuffles"] > 0).any()


def test_is_a_pgx_env_on_pgx_conventions():
    check_pgx_conventions(qjax.make("quando", num_players=3), VectorGame, "quando")


def test_a_given_deal_is_the_aec_envs():
    deal = random_deals(1, 4, 3)
    deck, dealer = deal["deck"][0].tolist(), int(deal["dealer"][0])
    env = qjax.make("quando", edition="oya")
    state = jax.jit(lambda key: env.init(key, options={"deck": deck, "dealer": dealer}))(jax.random.PRNGKey(0))
    game = VectorGame(edition="oya")
    game.reset(deck=deck, dealer=dealer)
    np.testing.assert_array_equal(np.asarray(state.observation), game.observe()[0])
    assert int(state.current_player) == (dealer + 1) % 4


@pytest.mark.parametrize("call, message", [
    (lambda: qjax.make("chess"), "unknown game 'chess'"),
    (lambda: qjax.make("quando", num_players=7), "num_players"),
    (lambda: qjax.make("quando", render_mode="ansi"), "render_mode is not supported by quando_env.jax"),
    (lambda: qjax.make("quando", action_features=True), "action_features is not supported"),
    (lambda: qjax.make("quando", colour="red"), "unknown option(s) ['colour']"),
    (lambda: qjax.make("quando").init(jax.random.PRNGKey(0), options={"seat": 1}), "unknown option(s) ['seat']"),
    (lambda: qjax.make("quando").init(jax.random.PRNGKey(0), options={"dealer": 4}), "dealer"),
    (lambda: qjax.make("quando").init(jax.random.PRNGKey(0), options={"deck": [[1, 2]] * 55}), "both [1, 2]"),
    (lambda: qjax.make("quando", edition="oya").step(None, 0), "pass a key"),
])
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError) as e:
        call()
    assert message in str(e.value)
