"""Help!'s determinization (quando_env.help.determinize): every sampled world gives the observer (as seat 0)
its observation and, when it is to move, its legal mask back exactly, holds the 105 cards once, deals what
the observer has not seen anew, agrees with what the observation makes certain (a stuck asker, a helper
with a givable card, the calls of a fresh deal), and can be played on. Rule ids refer to
quando_env/help/RULES.md."""
import numpy as np
import pytest

from quando_env.help import VectorGame
from quando_env.help import engine as E
from quando_env.help.cards import ASK, KIND_COUNTS, NUM_KINDS
from quando_env.help.observation import offsets

sample_states = VectorGame.sample_states

K = 6   # worlds per observation


def positions(n, steps, seed, reshuffle, games=6):
    """(game, g, views) at every decision of random play in `games` games (rounds and games restart); views[p]
    holds every game's observation by seat p."""
    game = VectorGame(games, seed=seed, num_players=n, reshuffle=reshuffle)
    for _ in range(steps):
        views = [game.observe(players=np.full(games, p)) for p in range(n)]
        for g in range(games):
            yield game, g, views
        game.step(game.sample_actions())


def cards_by_kind(s, n):
    """Every card of record s by kind: hands, draw pile, discard pile, row, No!s in front."""
    c = s["hand"][:n].astype(np.int64).sum(axis=0)
    c += np.bincount(s["draw"][s["dpos"]: s["dend"]], minlength=NUM_KINDS)
    c += np.bincount(s["disc"][: s["ndisc"]], minlength=NUM_KINDS)
    c += np.bincount(s["row_kind"][: s["nrow"]], minlength=NUM_KINDS)
    c[-1] += (s["no"][:n] != E.NO_NONE).sum()
    return c


def relative(s, p, n):
    """Record s seen from seat p: the hands and totals rolled so that p is seat 0."""
    return np.roll(s["hand"][:n], -p, axis=0), np.roll(s["total"][:n], -p)


@pytest.mark.parametrize("reshuffle", ["shuffle", "flip"])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_sampled_worlds_give_back_the_observation_and_the_mask(n, reshuffle):
    worlds = VectorGame(K, seed=0, autoreset=False, num_players=n, reshuffle=reshuffle, episode="round")
    phases, seen = set(), 0
    for game, g, views in positions(n, 50, seed=n, reshuffle=reshuffle):
        s = game.states[g]
        cur = int(s["cur"])
        for p in range(n):                                 # the player to move and every onlooker
            obs = views[p][g]
            states = sample_states(obs, K, game.config, seed=seen)
            worlds.load_states(states)
            assert (worlds.observe(players=np.zeros(K, np.int64)) == obs).all()
            if p == cur:
                assert (worlds.legal_action_mask == game.legal_action_mask[g]).all()
                assert (worlds.current_player == 0).all()
            hands, totals = relative(s, p, n)
            for w in states:
                assert (cards_by_kind(w, n) == KIND_COUNTS).all()          # R1: the 105 cards once
                assert (w["hand"][0] == hands[0]).all() and (w["total"][:n] == totals).all()
                assert (w["hand"][:n].sum(axis=1) == hands.sum(axis=1)).all()
                assert (w["row_val"][: w["nrow"]] == s["row_val"][: s["nrow"]]).all()
            seen += 1
        phases.add(int(s["phase"]))
    assert phases == {E.PH_OPEN, E.PH_PLAY, E.PH_GIVE, E.PH_BACK, E.PH_RECV}


@pytest.mark.parametrize("n", [3, 5])
def test_unseen_cards_are_dealt_anew(n):
    """The other hands and the draw pile vary from sample to sample; the observer's hand never does."""
    varied = checked = 0
    for game, g, views in positions(n, 40, seed=20 + n, reshuffle="shuffle", games=3):
        obs = views[int(game.states[g]["cur"])][g]
        states = sample_states(obs, 8, game.config, seed=checked)
        others = {(w["hand"][1:n].tobytes(), w["draw"][w["dpos"]: w["dend"]].tobytes()) for w in states}
        varied += len(others) == 8
        checked += 1
    assert varied == checked > 100


def test_what_the_observation_makes_certain_holds_in_every_sample():
    """A help under way: the asker had no play on the row (R9: the engine, asked to let it play, offers only
    the ask) and the helper had a givable card. A fresh deal: each caller's lowest number is its call (R5)."""
    n = 4
    probe = VectorGame(1, seed=0, autoreset=False, num_players=n, episode="round")
    gives = calls = 0
    for game, g, views in positions(n, 300, seed=7, reshuffle="shuffle"):
        s = game.states[g]
        if s["phase"] == E.PH_GIVE:
            asker, helper = int(s["asker"]), int(s["helper"])
            onlooker = next(q for q in range(n) if q not in (asker, helper))
            for p in (helper, onlooker):
                a = (asker - p) % n
                for w in sample_states(views[p][g], K, game.config, seed=gives):
                    w = w.copy()
                    w["phase"], w["cur"] = E.PH_PLAY, a
                    probe.load_states(np.array([w]))
                    assert np.flatnonzero(probe.legal_action_mask[0]).tolist() == [ASK]
                    w["phase"], w["cur"] = E.PH_GIVE, (helper - p) % n
                    probe.load_states(np.array([w]))
                    assert probe.legal_action_mask[0].any()
            gives += 1
        if s["phase"] == E.PH_OPEN and s["caller"][:n].all():
            p = (int(s["starter"]) + 1) % n
            for w in sample_states(views[p][g], K, game.config, seed=calls):
                for r in range(n):
                    held = np.flatnonzero(w["hand"][r, :11])
                    assert (held[0] + 1 if held.size else 0) == w["calls"][r]
            calls += 1
    assert gives > 20 and calls > 5


def test_samples_follow_the_seed_and_play_on():
    game = VectorGame(1, seed=3, num_players=4, reshuffle="flip")
    for _ in range(30):
        game.step(game.sample_actions())
    obs = game.observe()[0]
    a, b = sample_states(obs, 8, game.config, seed=5), sample_states(obs, 8, game.config, seed=5)
    assert (a == b).all() and not (a == sample_states(obs, 8, game.config, seed=6)).all()
    assert (VectorGame.sample_states(obs, 8, game.config, seed=5) == a).all()
    for n in (3, 5):                                      # every phase, every observer: the worlds play on
        game = VectorGame(4, seed=n, num_players=n)
        worlds = VectorGame(4, seed=0, autoreset=False, num_players=n, episode="round")
        for _ in range(15):
            for p in range(n):
                obs = game.observe(players=np.full(4, p))
                for g in range(4):
                    worlds.load_states(sample_states(obs[g], 4, game.config, seed=p))
                    while (worlds.current_player >= 0).any():
                        live = np.flatnonzero(worlds.current_player >= 0)
                        worlds.step(worlds.sample_actions(live), games=live)
                    assert (worlds.rounds_done >= 1).all()
            game.step(game.sample_actions())


def test_errors():
    game = VectorGame(1, seed=0, num_players=3, episode="round", autoreset=False)
    obs = game.observe()[0]
    with pytest.raises(ValueError, match="vector of"):
        sample_states(obs[:-1], 2, game.config)
    with pytest.raises(ValueError, match="vector of"):
        sample_states(obs, 2, VectorGame(1, num_players=4).config)
    with pytest.raises(ValueError, match="vector of"):
        VectorGame.sample_states(None, 1, game.config)
    with pytest.raises(ValueError, match="do not add up"):
        sample_states(obs, 2, VectorGame(1, num_players=3, hand_size=5).config)
    with pytest.raises(ValueError, match="num_samples"):
        sample_states(obs, -1, game.config)
    bad = obs.copy()
    bad[offsets(3)["phase"][0]:offsets(3)["phase"][1]] = 0
    with pytest.raises(ValueError, match="no phase"):
        sample_states(bad, 2, game.config)
    while game.current_player[0] >= 0:
        game.step(game.sample_actions())
    with pytest.raises(ValueError, match="finished"):
        sample_states(game.observe(players=[0])[0], 2, game.config)
