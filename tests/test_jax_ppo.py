"""examples/jax_ppo.py: masked PPO with the game inside one jitted program. Shortened (tiny network, a few updates),
it trains, logs every measure, and exports a model that quando_env.agents.learned loads and LearnedAgent plays on
the numba engine with legal moves only; the JAX network's outputs are the numpy forward's of the saved model."""
import contextlib
import io
import json
import runpy
from pathlib import Path

import jax
import numpy as np
import pytest

from quando_env import jax as qjax
from quando_env.agents.learned import LearnedAgent, forward, load_model
from quando_env.registry import game_class

from jax_checks import use_compilation_cache

EXAMPLE = runpy.run_path(str(Path(__file__).resolve().parents[1] / "examples" / "jax_ppo.py"))
GAME = "cabo" if "cabo" in qjax.games() else "quando"
PLAYERS = 3


@pytest.fixture(scope="module", autouse=True)
def compilation_cache(request):
    use_compilation_cache(request)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A shortened run: 8 games, 16 decisions each per update, 4 updates in two jitted calls (500 decisions asked
    for, rounded up to 512); what it printed."""
    out = tmp_path_factory.mktemp("jax_ppo")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        log = EXAMPLE["main"](["--game", GAME, "--players", str(PLAYERS), "--envs", "8", "--steps", "16",
                               "--decisions", "500", "--updates-per-log", "2", "--hidden", "24", "16", "--seed", "3",
                               "--out", str(out), "--quiet"])
    return out, log, printed.getvalue()


def test_says_what_it_rounded_and_that_it_compiles_before_compiling(trained):
    *_, printed = trained
    assert printed.splitlines() == [
        "--decisions 500 rounded up to 512: 2 calls of 2 updates, each 8 games x 16 decisions",
        "compiling the games and the learner into one program (a minute or two on a CPU; the first logged update "
        "comes after it) ..."]


def test_logs_every_measure_of_every_update(trained):
    out, log, _ = trained
    assert [r["update"] for r in log] == [1, 2, 3, 4]
    assert json.loads((out / "log.json").read_text()) == log
    for row in log:
        assert set(EXAMPLE["MEASURES"]) <= set(row)
        assert all(np.isfinite(row[k]) for k in EXAMPLE["MEASURES"])
        assert 0 <= row["round_win_rate"] <= 1
    assert sum(r["rounds"] for r in log) > 0           # rounds ended, so the round measures are of real rounds
    assert (out / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_exported_model_plays_legal_moves_on_the_numba_engine(trained):
    out, *_ = trained
    header, weights = load_model(out / "model.npz", game=GAME, obs_dim=game_class(GAME).obs_dim_of(PLAYERS))
    assert header["format"] == "quando_env-learned/1" and header["hidden"] == [24, 16]
    assert header["options"]["num_players"] == PLAYERS
    agent = LearnedAgent(out / "model.npz", game=GAME, num_players=PLAYERS)
    game = game_class(GAME)(num_games=16, seed=5, num_players=PLAYERS)
    for _ in range(300):
        masks = game.legal_action_mask
        actions = agent.act_batch(game.observe(), masks)
        assert masks[np.arange(len(actions)), actions].all()
        game.step(actions)


def test_jax_network_equals_learned_agents_forward(trained):
    """On the numba engine's observations (every seat's view of several deals), the JAX network's logits and value
    are numpy's forward of the saved model, for the trained weights and for random ones large enough that every
    unit matters; LearnedAgent's scores are those logits where legal."""
    out, *_ = trained
    header, trained_weights = load_model(out / "model.npz")
    game = game_class(GAME)(num_games=4, seed=2, num_players=PLAYERS)
    for _ in range(5):
        game.step(game.sample_actions())
    obs = np.concatenate([game.observe(players=np.full(4, p)) for p in range(PLAYERS)])
    rng = np.random.default_rng(0)
    random_weights = {k: rng.normal(0, 2 / np.sqrt(w.shape[-1]), w.shape).astype(np.float32)
                      for k, w in trained_weights.items()}
    for weights in (trained_weights, random_weights):
        logits, value = EXAMPLE["forward"]({k: jax.numpy.asarray(w) for k, w in weights.items()}, obs)
        want_logits, want_value = forward(weights, obs)
        np.testing.assert_allclose(np.asarray(logits), want_logits, rtol=1e-5, atol=1e-5 * np.abs(want_logits).max())
        np.testing.assert_allclose(np.asarray(value), want_value, rtol=1e-5, atol=1e-5 * np.abs(want_value).max())
    agent = LearnedAgent(header=header, weights=random_weights)
    masks = game.legal_action_mask
    scores = agent.scores(game.observe(), masks)
    logits = np.asarray(EXAMPLE["forward"](random_weights, game.observe())[0])
    np.testing.assert_allclose(scores[masks], logits[masks], rtol=1e-5, atol=1e-5 * np.abs(logits).max())
    assert np.isneginf(scores[~masks]).all()


@pytest.mark.parametrize("argv, said", [
    (["--envs", "0"], "--envs: must be a positive integer"),
    (["--players", "7"], "--players: invalid choice"),
    (["--game", "chess"], "--game: invalid choice"),
    (["--lr", "2"], "--lr must be in (0, 1)"),
    (["--reward-scale", "0"], "--reward-scale must be in (0, 1000]"),
    (["--game", "help", "--players", "2"], "--players: num_players=2 is not allowed: an integer 3..5"),
    ([], "--out"),
])
def test_command_line_refuses_bad_options_by_name(argv, said, capsys):
    with pytest.raises(SystemExit):
        EXAMPLE["parse_args"]([*argv, *([] if not argv else ["--out", "x"])])
    assert said in capsys.readouterr().err
