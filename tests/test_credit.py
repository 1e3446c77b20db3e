"""training.credit and the learner's round credit: the win-probability model is calibrated on games it was not
fitted on, moves the right way with the totals, loads back as it was saved and refuses bad files; the learner's
credited rewards telescope to won - the starting chance, and a weight of 0 is the run without it."""
import json

import numpy as np
import pytest

from quando_env.training import credit
from quando_env.training.learner import LEARNER, Hyper, Learner

SHIPPED = ("quando", "cabo", "help")


@pytest.fixture(scope="module")
def small_fit():
    return credit.fit("quando", 4, {}, games=60, seed=3)


@pytest.mark.parametrize("game", SHIPPED)
def test_the_shipped_model_is_calibrated_on_held_out_games(game):
    """400 heuristic games at a seed far from the fit's: every bin of predicted chance holding 150 rows or more
    within 0.08 of the share that won, 0.02 on average over the rows; and a better log loss than the base rate."""
    model = credit.load(credit.shipped_path(game, 4), game, 4, {})
    totals, rounds, won = credit.play_rounds(game, 4, {}, 400, seed=10**7)
    bins = credit.calibration(model, totals, rounds, won)
    rows = sum(b[2] for b in bins)
    assert rows == won.size
    assert all(abs(p - y) <= 0.08 for p, y, k in bins if k >= 150), bins
    assert sum(abs(p - y) * k for p, y, k in bins) / rows <= 0.02, bins
    p, y = model.prob(totals, rounds), won.astype(np.float64)
    base = y.mean()
    assert -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean() < -(y * np.log(base) + (1 - y) * np.log(1 - base)).mean()


@pytest.mark.parametrize("game", SHIPPED)
def test_the_chance_rises_as_the_seats_total_gets_better_and_falls_as_a_rivals_does(game):
    """On a grid of totals short of the end: own total one point better (lower in Quando and Cabo, higher in
    Help!, as each game's winners say) never lowers the seat's chance; the best rival's one point better never
    raises it (another rival's need not: a rival near the end who falls back gives the others more rounds)."""
    model = credit.load(credit.shipped_path(game, 4), game, 4, {})
    better = 1 if model.higher_wins else -1
    end = model.end
    grid = np.array(np.meshgrid(*[np.linspace(0, end - 2, 6).round().astype(np.int64)] * 3)).reshape(3, -1).T
    for own in range(1, end - 1):
        totals = np.hstack([np.full((len(grid), 1), own), grid])
        rounds = np.full(len(grid), 3)
        p = model.prob(totals, rounds)[:, 0]
        moved = totals.copy()
        moved[:, 0] += better
        assert (model.prob(moved, rounds)[:, 0] >= p - 1e-12).all()
        rival = totals.copy()
        best = 1 + np.argmax(better * grid, axis=1)
        rival[np.arange(len(grid)), best] = np.clip(rival[np.arange(len(grid)), best] + better, 0, end - 1)
        assert (model.prob(rival, rounds)[:, 0] <= p + 1e-12).all()
    lead, behind = np.array([[0, 20, 20, 20]]) * end // 50, np.array([[20, 0, 0, 0]]) * end // 50
    if model.higher_wins:
        lead, behind = behind, lead
    assert model.prob(lead, [3])[0, 0] > model.start() > model.prob(behind, [3])[0, 0]


def test_the_end_total_is_asked_of_the_games_own_rule():
    from quando_env.options import make_config
    from quando_env.registry import game_class

    for game, options, end in (("quando", {}, 50), ("quando", {"edition": "oya"}, 51), ("cabo", {}, 101),
                               ("help", {}, 3), ("quando", {"target_score": 30}, 30)):
        cls = game_class(game)
        assert credit.end_total(cls, make_config(cls.config_class, num_players=4, **options)) == end


def test_a_fit_is_the_same_for_the_same_seed_and_loads_back_identically(tmp_path, small_fit):
    again = credit.fit("quando", 4, {}, games=60, seed=3)
    assert again == small_fit
    assert credit.fit("quando", 4, {}, games=60, seed=4) != small_fit
    path = tmp_path / "m.json"
    credit.save(small_fit, path)
    loaded = credit.load(path, "quando", 4, {})
    assert loaded == small_fit
    totals = np.array([[0, 0, 0, 0], [12, 30, 41, 7]])
    assert np.array_equal(loaded.prob(totals, [0, 4]), small_fit.prob(totals, [0, 4]))


def test_a_fit_checks_its_arguments_first():
    for kw, message in (({"game": "chess"}, "game='chess'"), ({"games": 0}, "games=0"), ({"seed": -1}, "seed=-1"),
                        ({"games": 2.0}, "games=2.0"), ({"options": {"num_players": 3}}, "options="),
                        ({"options": {"target_score": 0}}, "target_score=0"), ({"num_players": 7}, "num_players=7")):
        with pytest.raises(ValueError, match="is not allowed") as e:
            credit.fit(**{"game": "quando", "games": 5, **kw})
        assert message in str(e.value)


def test_the_fit_command_writes_the_model(tmp_path, capsys):
    out = tmp_path / "w.json"
    assert credit.main(["--game", "quando", "--games", "20", "--seed", "3", "--option", "target_score=30",
                        "--out", str(out)]) == 0
    model = credit.load(out, "quando", 4, {"target_score": 30})
    assert model.end == 30 and model.fit["games"] == 20 and str(out) in capsys.readouterr().out
    with pytest.raises(SystemExit):
        credit.main(["--game", "quando", "--games", "0"])
    assert "argument --games" in capsys.readouterr().err


def damaged(d: dict, key: str, value) -> dict:
    d = json.loads(json.dumps(d))
    if value is KeyError:
        del d[key]
    else:
        d[key] = value
    return d


@pytest.mark.parametrize("key, value, message", [
    ("model", "policy", "model 'win_probability'"), ("format", 2, "has format 2"),
    ("features", ["lead_best"], "has features"), ("game", "chess", "has game 'chess'"),
    ("options", {"edition": "xyz"}, "edition='xyz'"), ("options", "kendi", "has options"),
    ("num_players", 0, "num_players=0"), ("end_total", 40, "has end_total 40"),
    ("coef", [0.0] * 5, "has coef="), ("coef", [float("nan")] * 6, "has coef="), ("mean", KeyError, "has mean="),
    ("scale", [1.0] * 5 + [0.0], "numbers > 0"), ("bias", "1", "has bias='1'"), ("bias", True, "has bias=True")])
def test_a_malformed_model_file_is_refused_with_a_clear_error(tmp_path, small_fit, key, value, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(damaged(small_fit.to_json(), key, value)))
    with pytest.raises(ValueError, match="win-probability model") as e:
        credit.load(path)
    assert message in str(e.value) and str(path) in str(e.value)


def test_a_missing_unreadable_or_foreign_model_file_is_refused(tmp_path, small_fit):
    with pytest.raises(ValueError, match="could not be read"):
        credit.load(tmp_path / "none.json")
    (tmp_path / "text.json").write_text("{not json")
    with pytest.raises(ValueError, match="could not be read"):
        credit.load(tmp_path / "text.json")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="a JSON object"):
        credit.load(tmp_path / "list.json")
    path = tmp_path / "m.json"
    credit.save(small_fit, path)
    with pytest.raises(ValueError, match="is for game 'quando'"):
        credit.load(path, game="cabo")
    with pytest.raises(ValueError, match="is for num_players 4"):
        credit.load(path, num_players=3)
    with pytest.raises(ValueError, match="fitted with options"):
        credit.load(path, options={"edition": "oya"})


# ---------------------------------------------------------------- the learner's round credit
def quando_learner(**kw) -> Learner:
    return Learner(Hyper(**{"game": "quando", "num_games": 8, "rollout_steps": 64, "hidden": (16,),
                            "minibatch": 256, "self_play_share": 0.5, **kw}))


def test_round_credit_adds_its_weight_times_each_rounds_change_and_nothing_else():
    """The same seed with and without round credit plays the same first rollout; the rewards differ by the weight
    times the recorded changes of the seats' chances, which move only at rounds' and games' ends."""
    plain, credited = quando_learner(rollout_steps=1200), quando_learner(rollout_steps=1200, round_credit=0.5)
    changes = []
    change = credited.collector.win_change

    def record(ended, won):
        c = change(ended, won)
        g = credited.game
        assert (c[~(g.round_over | g.game_over | g.truncated)] == 0).all()
        changes.append((c, credited.collector.last.copy()))
        return c

    credited.collector.win_change = record
    plain.collect()
    credited.collect()
    assert plain.count == credited.count
    assert np.array_equal(plain.buf.act[:plain.count], credited.buf.act[:credited.count])
    want = np.zeros(credited.count)
    for c, last in changes:
        held = last >= 0
        np.add.at(want, last[held], 0.5 * c[held])
    got = credited.buf.rew[:credited.count].astype(np.float64) - plain.buf.rew[:plain.count]
    assert np.abs(want).max() > 0.05
    assert np.allclose(got, want, atol=1e-5)


def test_a_games_credited_rewards_add_up_to_won_less_the_starting_chance():
    """Every seat the learner's, only round credit (weight 2): along each seat's chain of decisions through a whole
    game the rewards sum to 2 (won - P_start), won by the game's winners."""
    learner = quando_learner(rollout_steps=1500, self_play_share=1.0, points_coef=0.0, win_reward=0.0,
                             round_credit=2.0)
    start = learner.collector.credit.start()
    assert 0.15 < start < 0.35
    ends = []                           # per ended game: (the last decision of each seat, the winners)
    reward = learner.collector.reward

    def record(r):
        g = learner.game
        ended = np.flatnonzero(g.game_over | g.truncated)
        ends.extend((learner.collector.last[e].copy(), g.winners([e])[0]) for e in ended)
        reward(r)

    learner.collector.reward = record
    learner.collect()
    b = learner.buf
    assert len(ends) >= 4 and (learner.collector.owner == LEARNER).all()
    heads = np.setdiff1d(np.arange(learner.count), b.nxt[:learner.count])   # every chain starts a game
    total_of_last = {}
    for h in heads:
        row, total = h, 0.0
        while True:
            total += b.rew[row]
            if b.nxt[row] < 0:
                break
            row = b.nxt[row]
        total_of_last[row] = total
    for last, won in ends:
        for seat in range(learner.n):
            assert total_of_last[last[seat]] == pytest.approx(2.0 * (float(won[seat]) - start), abs=1e-4)


def test_a_zero_weight_is_todays_run_exactly():
    def weights(**kw):
        learner = quando_learner(**kw)
        for _ in range(2):
            learner.iteration()
        return learner.weights(), learner.buf.rew[:learner.count].copy()

    (a, ra), (b, rb) = weights(), weights(round_credit=0.0, credit_model=str(credit.shipped_path("quando", 4)))
    assert all(np.array_equal(a[k], b[k]) for k in a) and np.array_equal(ra, rb)
    _, rc = weights(round_credit=1.0)
    assert not np.array_equal(ra, rc)


@pytest.mark.parametrize("kw, message", [
    ({"round_credit": -1.0}, "round_credit=-1.0"), ({"round_credit": float("nan")}, "round_credit=nan"),
    ({"round_credit": "1"}, "round_credit='1'"), ({"round_credit": True}, "round_credit=True"),
    ({"round_credit": 1e9}, "round_credit=1000000000.0"), ({"credit_model": 3}, "credit_model=3"),
    ({"round_credit": 1.0, "credit_model": "/no/such.json"}, "could not be read"),
    ({"round_credit": 1.0, "num_players": 3}, "none ships for them"),
    ({"round_credit": 1.0, "options": {"target_score": 30}}, "fitted with options"),
])
def test_a_bad_round_credit_setting_is_refused_with_a_clear_error(kw, message):
    with pytest.raises(ValueError, match="is not allowed|could not be read") as e:
        Hyper(**{"game": "quando", **kw})
    assert message in str(e.value)


def test_a_model_of_another_game_is_refused():
    with pytest.raises(ValueError, match="is for game 'cabo'"):
        Hyper(game="quando", round_credit=1.0, credit_model=str(credit.shipped_path("cabo", 4)))
