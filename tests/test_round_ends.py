"""Game.keep_round_ends: the table as a step ended its round, before the engine dealt the next round (or, with
autoreset, a new game) in that same step, for every game: the same record as playing that step again on a
second game with the round as the episode (what the browser table did before the hook)."""
import numpy as np
import pytest

from quando_env.registry import game_class, game_names


def replayed(game, before, action):
    """The round's end the way a second game shows it: the step played again, the round as the episode."""
    scratch = type(game)(1, seed=0, autoreset=False, **{**game.config.to_dict(), "episode": "round"})
    scratch.load_states(before[None])
    scratch.step(np.array([action]), checked=True)
    return scratch


@pytest.mark.parametrize("name", game_names())
def test_round_ends_are_the_replayed_tables(name):
    game = game_class(name)(12, seed=7, num_players=3)
    assert game.round_ends is None
    game.keep_round_ends()
    rounds = games_over = 0
    for t in range(500):
        before = game.states.copy()
        idx = np.arange(game.num_games) if t % 3 else np.arange(t % 2, game.num_games, 2)   # some steps: half
        actions = game.sample_actions(None if idx.size == game.num_games else idx)
        kept = game.round_ends.copy()
        game.step(actions, None if idx.size == game.num_games else idx)
        ended = set(idx[game.round_over[idx]].tolist())
        for i, g in enumerate(idx.tolist()):
            if g in ended:
                want = replayed(game, before[g], int(actions[i]))
                assert game.round_ends[g].tobytes() == want.states[0].tobytes()
                view = game.at_round_end(g)
                assert [view.render_text(0, s) for s in range(3)] == [want.render_text(0, s) for s in range(3)]
                rounds += 1
                games_over += bool(game.game_over[g])
        untouched = [g for g in range(game.num_games) if g not in ended]
        assert game.round_ends[untouched].tobytes() == kept[untouched].tobytes()
    assert rounds >= 20 and games_over >= 1, (rounds, games_over)


def test_round_ends_are_off_until_asked_and_named_when_missing():
    game = game_class("cabo")(2, seed=1)
    for _ in range(50):
        game.step(game.sample_actions())
    assert game.round_ends is None
    with pytest.raises(ValueError, match="keep_round_ends"):
        game.at_round_end(0)
