"""What both trainers (train.py --algo learner, --algo sb3) leave: a write that fails (a full disk; here a real
one, files past RLIMIT_FSIZE's size fail with EFBIG) is one line naming the file and what is kept, and every file
written before still loads; summary.json names the seed, settings, version and commit; a log that is not a terminal
gets no progress bars (the trainers' own tests run them)."""
import os
import resource
import shutil
import signal
import subprocess
import sys
import zipfile
from pathlib import Path


from quando_env.agents import PPOAgent
from quando_env.agents.learned import LearnedAgent
from quando_env.training.learner import Hyper, Learner
from quando_env.agents.ppo import DEFAULT_MODEL
from quando_env.provenance import made_by

ROOT = Path(__file__).resolve().parents[1]
SB3_RUN = ["--algo", "sb3", "--timesteps", "64", "--envs", "2", "--eval-games", "4", "--eval-every", "64"]


def files_at_most(size: int):
    """What a child process runs before the trainer: no file it writes may grow past `size` bytes (EFBIG)."""
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return limit


def train_py(*args, limit=None):
    return subprocess.run([sys.executable, "train.py", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, preexec_fn=limit, env={**os.environ, "PYTHONPATH": str(ROOT)})


def one_line_naming(r, out: Path, prog: str = "train.py") -> str:
    """The error line of a run that could not write: its only line on stderr, no traceback."""
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr[-3000:]
    assert lines[0].startswith(f"{prog}: error: cannot write {out}/") and ": File too large; kept" in lines[0]
    return lines[0]


def test_a_learner_run_that_cannot_write_says_so_in_one_line_and_keeps_its_saved_run(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    Learner(Hyper(game="help", num_games=16, rollout_steps=16, hidden=(16,), eval_games=8)).save_state(out)
    shutil.copy(out / "model.npz", out / "best.npz")          # a model an evaluation kept
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    limit = len(before["model.npz"]) - 1000                                        # no model can be written
    assert limit > 10_000 + len(before["state.json"])                               # a log, a summary can
    r = train_py("--out", str(out), "--resume", "--timesteps", "3000", "--no-progress", limit=files_at_most(limit))
    line = one_line_naming(r, out)
    assert line == f"train.py: error: cannot write {out / 'best.npz'}: File too large; kept: the previous best.npz, " \
                   "the run saved at 0 decisions (--resume continues it)", line
    assert not list(out.rglob("*.tmp"))
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name in before} == before
    LearnedAgent(out / "best.npz", game="help")
    assert Learner.resume(out).counters["decisions"] == 0


def test_an_sb3_run_that_cannot_write_its_model_keeps_the_previous_one(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    shutil.copy(DEFAULT_MODEL, out / "best_model.zip")          # a model a run before this one kept
    previous = (out / "best_model.zip").read_bytes()
    r = train_py(*SB3_RUN, "--out", str(out), "--no-progress", limit=files_at_most(50_000))
    line = one_line_naming(r, out, "train.py --algo sb3")
    assert line == f"train.py --algo sb3: error: cannot write {out / 'best_model.zip'}: File too large; kept whole: " \
                   f"best_model.zip in {out}", line
    assert (out / "best_model.zip").read_bytes() == previous and not list(out.rglob("*.tmp"))
    assert zipfile.is_zipfile(out / "best_model.zip")
    PPOAgent(out / "best_model.zip", game="quando")


def test_the_commit_is_the_checkouts_head():
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    assert made_by() == {"version": "0.1.0", "commit": commit.strip() or None}


def test_without_git_the_commit_is_none_and_nothing_fails(tmp_path):
    r = subprocess.run([sys.executable, "-c", "from quando_env.provenance import made_by; print(made_by())"],
                       capture_output=True, text=True, env={**os.environ, "PATH": str(tmp_path),
                                                            "PYTHONPATH": str(ROOT)}, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "{'version': '0.1.0', 'commit': None}", r.stderr[-2000:]
