"""train.py --algo sb3 (python -m quando_env.training.sb3): heuristic game data for the warm start, the opponent
pool, and a tiny end-to-end run (its summary names the seed, settings, version and commit; no progress bars on a
pipe)."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from quando_env.agents import PPOAgent
from quando_env.agents.quando import HeuristicAgent
from quando_env.training.sb3 import heuristic_games, opponent_pool
from quando_env.provenance import made_by

ROOT = Path(__file__).resolve().parents[1]


def test_heuristic_games_returns_are_discounted_round_points():
    obs, masks, acts, ret = heuristic_games(3, seed=0, gamma=1.0, reward_scale=1.0, game="quando")
    assert len(obs) == len(masks) == len(acts) == len(ret) > 100
    assert masks[np.arange(len(acts)), acts].all()
    assert np.array_equal(HeuristicAgent().act(obs, masks), acts)
    assert (ret <= 0).all() and ret.min() <= -50        # undiscounted: minus the points still to come, >= 50 total
    # Discounting shrinks what is still owed.
    _, _, _, ret_d = heuristic_games(3, seed=0, gamma=0.9, reward_scale=1.0, game="quando")
    assert (ret_d >= ret).all() and (ret_d > ret).any()


def test_opponent_pool_mixes_heuristic_and_snapshots():
    assert len(opponent_pool([], 0.5, game="quando")) == 1
    pool = opponent_pool(["s1", "s2"], 0.5, game="quando")
    assert pool.count("s1") == 1 and sum(isinstance(x, HeuristicAgent) for x in pool) == 2
    pool = opponent_pool(["s1"], 0.75, game="quando")
    assert sum(isinstance(x, HeuristicAgent) for x in pool) == 3


def test_train_end_to_end(tmp_path):
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, "train.py", "--algo", "sb3", "--timesteps", "2048", "--envs", "8",
                        "--bc-games", "4", "--eval-every", "1024", "--eval-games", "8", "--checkpoint-every", "1024",
                        "--out", str(out), "--save-to", str(tmp_path / "model.zip"), "--seed", "7"],
                       capture_output=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert b"[eval]" in r.stdout and b"vs 3 random: pts/round" in r.stdout
    assert b"\r" not in r.stdout + r.stderr                # a pipe gets lines, no progress bars (bytes: text
                                                            # mode would read each \r as a newline)
    assert (out / "best_model.zip").exists() and (out / "final_model.zip").exists() and (out / "curve.png").exists()
    s = json.loads((out / "summary.json").read_text())
    assert s["model"] == str(out / "best_model.zip")
    assert s["seed"] == 7 and s["options"]["num_players"] == 4 and s["hyper"]["learning_rate"] == 3e-4
    assert s["hyper"]["net_arch"] == [64, 64] and s["arguments"]["bc_games"] == 4
    assert {k: s[k] for k in ("version", "commit")} == made_by()
    assert any((out / "checkpoints").iterdir()) and any((out / "tb").iterdir())
    hist = json.loads((out / "eval_history.json").read_text())
    assert hist[0]["timesteps"] == 0 and hist[-1]["timesteps"] >= 2048
    assert (tmp_path / "model.zip").stat().st_size < (out / "final_model.zip").stat().st_size  # no optimizer state
    r = subprocess.run([sys.executable, "-m", "quando_env.training.sb3", "--timesteps", "1024", "--envs", "8",
                        "--resume", str(out / "final_model.zip"), "--eval-every", "100000", "--eval-games", "4",
                        "--out", str(tmp_path / "run2"), "--no-progress"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "warm start" not in r.stdout
    hist = json.loads((tmp_path / "run2" / "eval_history.json").read_text())
    assert hist[0]["timesteps"] >= 2048                          # the step count goes on from the resumed model
    agent = PPOAgent(tmp_path / "model.zip", game="quando")
    obs = np.zeros((1, 1152), np.float32)
    mask = np.zeros((1, 134), bool)
    mask[0, 121:123] = True
    assert agent.act(obs, mask)[0] in (121, 122)
