"""A batched self-play learner written once over the game contract (quando_env.core.Game): any game with a
heuristic agent trains with it, and the result plays as agents.learned.LearnedAgent.

    python -m quando_env.agents.learner --game cabo --seconds 600 --out runs/learned_cabo

How it plays. `num_games` games of one VectorGame are stepped together; every game has an owner per seat, drawn
when its episode starts: the learner, or an opponent from the pool (the game's heuristic, frozen snapshots of
the learner). One seat per game is always the learner's; each other seat is too with probability
`self_play_share`. Per step, all games' observations of the player to move and legal masks are read at once
(`seat_view`); the learner's rows go through the torch MLP in one batch (masked categorical), the opponents' rows
through each pool entry's act in one batch. The policy sees the seat's observation alone.

How decisions earn rewards (per-seat trajectories). Rewards are those of reward="points", shaped: a step's
reward for a seat is `points_coef` times its points less the mean of the other seats' (round points, oriented by
the game so that more is better), and at the end of an episode +-`win_reward` by the game's own `winners`. With
`round_credit` > 0 each round's end also gives every seat that weight times the change of its estimated chance to
win the game over the round (agents.credit: fitted from the public totals; at the game's end the chance becomes 1
or 0 by the winners, so a game's credit adds up to won - the chance at its start). What
a seat collects between two of its decisions belongs to the earlier one (`last[g, seat]` is the seat's pending
decision, `nxt` links it to the seat's next one). A decision still pending when a rollout ends is carried into
the next rollout, so every trained decision has its full reward; its predecessor's advantage is cut there
(lambda-truncated, bootstrapped by the pending decision's value).

How it learns (`method`):
- "ppo": PPO with GAE over the per-seat chains, clipped ratio, entropy bonus, value loss;
- "dmc": Deep Monte-Carlo (DouZero): the policy head is read as action values, trained toward the seat's
  return (lambda = 1), epsilon-greedy acting;
- `bc_decisions` > 0 first, a warm start: every seat is recorded and the policy imitates the teacher's choice
  (cross-entropy, or for "dmc" the value of its move fitted to the return that followed while every other legal
  move's value is held `margin` below, DQfD's large-margin loss), the value head learns the returns. The teacher
  is the heuristic, or with teacher="rollout" the rollout search (expert iteration: slower, stronger moves);
  `init` starts from a model already trained. With `bc_dagger` > 0 (DAgger) that share of the decisions plays
  the policy's own move while still learning the teacher's, so the policy also learns to recover from the
  states its own mistakes lead to.

Speed: with `overlap` (the default), a second thread collects the next rollout (a copy of the network acting, one
update older than the one learning) while the last is learned from, and prepares its minibatches; PPO's ratio to
the stored log-probabilities of the policy that acted accounts for the lag, as in asynchronous PPO.

Reproducible: torch, numpy and the engine are seeded from `seed`; with the same seed and thread count the run
and its weights are the same, with or without overlap (collecting and learning draw from their own generators;
what a rollout is collected by is fixed when it starts). Model files hold no pickle (agents.learned).
"""
import argparse
import copy
import dataclasses
import json
import math
import sys
import threading
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np
import torch
from torch import nn

from quando_env.checks import as_bool, as_choice, as_int, need, shown, to_int
from quando_env.cli import argtypes
from quando_env.registry import game_class, game_names

from . import sparse
from .evaluation import MAX_GAMES as MAX_MATCH_GAMES
from .learned import FORMAT, MAX_ANCHOR_WEIGHT, LearnedAgent, load_model, replace_file, save_arrays, save_model
from .stops import Stopped, lock_folder, sigterm_stops

LEARNER = -1        # owner of a seat played by the learner (pool entries are 0, 1, ...)
SEED_MAX32 = 2**32 - 1  # seeds of a run (torch and numpy take them; a resumed run's games use seed + 1_000_003 k)
MAX_THREADS = 1024
MAX_ROUND_CREDIT = 1e6          # round_credit's weight: a chance changes by at most 1
MAX_ROLLOUT = 1 << 18           # decisions a rollout holds (its buffer: that many observations, 2 GB for Cabo;
                                # overlap keeps two)


@dataclass
class Hyper:
    """Every setting of a run (stored with it; `--set name=value` changes one)."""

    game: str = None                               # required: one of game_names()
    num_players: int = 4
    options: dict = field(default_factory=dict)    # the game's other options (defaults otherwise)
    method: str = "ppo"                            # "ppo" or "dmc"
    seed: int = 0
    threads: int = 1                               # torch threads (numba: at most as many)
    overlap: bool = True                           # collect the next rollout in a second thread (a second core,
                                                   # a second rollout buffer) while learning from the last (its
                                                   # policy one update older, which PPO's ratio to the stored
                                                   # log-probabilities accounts for)
    device: str = "cpu"                            # where the network runs: "cpu" or "cuda" (the games: the CPU)
    num_games: int = 256                           # games stepped together
    rollout_steps: int = 64                        # steps of every game per update
    hidden: tuple = (128, 128)                     # MLP trunk widths
    move_hidden: tuple = ()                        # the move scorer's widths (h1, h2); () for none (games with
                                                   # legal-move features only)
    lr: float = 3e-4
    bc_lr: float = 1e-3                            # learning rate of the warm start
    gamma: float = 0.997
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    epochs: int = 2                                # passes over each rollout
    minibatch: int = 2048
    epsilon: float = 0.05                          # dmc: share of random legal moves
    margin: float = 0.1                            # dmc warm start: teacher's move valued this far above the others
    win_reward: float = 1.0                        # +- at the end of an episode, by the game's winners
    points_coef: float = 0.02                      # times (own points - mean of the others'), per step
    round_credit: float = 0.0                      # times each round's change in the seat's chance to win the
                                                   # game (agents.credit; 0: none)
    credit_model: str = ""                         # its fitted model (.json; '': the one shipped for the game)
    self_play_share: float = 0.5                   # chance that each other seat is the learner too
    heuristic_share: float = 0.5                   # of the pool draws, once there are snapshots
    pool_size: int = 4                             # snapshots kept
    snapshot_every: int = 1_000_000                # decisions between snapshots (0: none)
    bc_decisions: int = 0                          # teacher decisions imitated first (0: no warm start)
    bc_dagger: float = 0.0                         # warm start: share of decisions played by the policy's own move
    teacher: str = "heuristic"                     # warm start: whose moves are imitated ("heuristic" or "rollout")
    teacher_samples: int = 32                      # rollout teacher: worlds per decision (twice that to knock)
    init: str = ""                                 # a learned model (.npz) whose weights start the run
    anchor: float = 0.0                            # ppo: added to the output of the heuristic's move (0: none);
                                                   # the model then plays on the heuristic (agents.learned)
    eval_games: int = 400
    eval_seed: int = 10_000_000

    def __post_init__(self):
        """Every setting checked (ValueError naming it) before a run uses any: the game's config included."""
        from quando_env.core import MAX_GAMES, make_config

        self.game = as_choice(self.game, "game", game_names())
        self.method = as_choice(self.method, "method", ("ppo", "dmc"))
        self.teacher = as_choice(self.teacher, "teacher", ("heuristic", "rollout"))
        self.device = as_choice(self.device, "device", ("cpu", "cuda"))
        need(self.device == "cpu" or torch.cuda.is_available(), "device='cuda'",
             "'cpu' on this machine: torch sees no CUDA device")
        need(isinstance(self.init, str), f"init={shown(self.init)}", "the path of a learned model, or ''")
        self.overlap = as_bool(self.overlap, "overlap")
        for name, lo, hi in (("num_players", 1, None), ("num_games", 1, MAX_GAMES), ("rollout_steps", 1, None),
                             ("epochs", 1, None), ("minibatch", 1, None), ("pool_size", 1, None),
                             ("threads", 1, MAX_THREADS), ("eval_games", 1, MAX_MATCH_GAMES),
                             ("snapshot_every", 0, None), ("bc_decisions", 0, None), ("teacher_samples", 2, 10_000),
                             ("seed", 0, SEED_MAX32), ("eval_seed", 0, SEED_MAX32)):
            setattr(self, name, as_int(getattr(self, name), name, lo, hi))
        hidden = self.hidden if isinstance(self.hidden, (tuple, list)) else ()
        widths = [to_int(h) for h in hidden]
        need(0 < len(widths) <= 16 and all(h is not None and 1 <= h <= 1 << 16 for h in widths),
             f"hidden={shown(self.hidden)}", "1 to 16 integer widths 1..65536")
        self.hidden = tuple(widths)
        move = self.move_hidden if isinstance(self.move_hidden, (tuple, list)) else None
        moves = [to_int(h) for h in move] if move is not None else None
        need(moves is not None and len(moves) in (0, 2) and all(h is not None and 1 <= h <= 1 << 16 for h in moves),
             f"move_hidden={shown(self.move_hidden)}", "() or two integer widths 1..65536")
        self.move_hidden = tuple(moves)
        need(not (self.anchor and self.method == "dmc"), f"anchor={self.anchor!r} with method='dmc'",
             "anchor=0 for dmc (an anchor shifts a policy's outputs, not action values)")
        need(not self.move_hidden or game_class(self.game).action_feature_parts is not None,
             f"move_hidden={list(self.move_hidden)}", f"() for {self.game}, which has no legal-move features")
        for name, lo, hi, above in (("lr", 0.0, 1.0, True), ("bc_lr", 0.0, 1.0, True), ("gamma", 0.0, 1.0, False),
                                    ("gae_lambda", 0.0, 1.0, False), ("clip", 0.0, None, True),
                                    ("ent_coef", 0.0, None, False), ("vf_coef", 0.0, None, False),
                                    ("max_grad_norm", 0.0, None, True), ("epsilon", 0.0, 1.0, False),
                                    ("margin", 0.0, None, False),
                                    ("win_reward", 0.0, None, False), ("points_coef", 0.0, None, False),
                                    ("round_credit", 0.0, MAX_ROUND_CREDIT, False),
                                    ("self_play_share", 0.0, 1.0, False), ("heuristic_share", 0.0, 1.0, False),
                                    ("bc_dagger", 0.0, 1.0, False), ("anchor", 0.0, MAX_ANCHOR_WEIGHT, False)):
            x = getattr(self, name)
            ok = isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_)) \
                and math.isfinite(x) and (x > lo if above else x >= lo) and (hi is None or x <= hi)
            need(ok, f"{name}={shown(x)}", f"a number {'>' if above else '>='} {lo}" + (f" and <= {hi}" if hi else ""))
            setattr(self, name, float(x))
        need(isinstance(self.options, dict) and "num_players" not in self.options, f"options={shown(self.options)}",
             "a dict of the game's options other than num_players")
        make_config(game_class(self.game).config_class, num_players=self.num_players, **self.options)
        need(isinstance(self.credit_model, str), f"credit_model={shown(self.credit_model)}",
             "the path of a fitted win-probability model (.json), or ''")
        if self.round_credit:
            self.win_model()            # refused here, before a run, when missing or fitted for other options
        need(self.num_games * self.rollout_steps <= MAX_ROLLOUT, f"num_games * rollout_steps={self.num_games} * "
             f"{self.rollout_steps}", f"at most {MAX_ROLLOUT:,} decisions held per rollout")

    def win_model(self):
        """The win-probability model that round credit reads (agents.credit), checked against the run's game."""
        from . import credit

        path = self.credit_model or credit.shipped_path(self.game, self.num_players)
        need(bool(self.credit_model) or path.exists(), f"round_credit={self.round_credit} for {self.game} with "
             f"{self.num_players} players", "a credit_model: none ships for them (python -m quando_env.agents.credit)")
        return credit.load(path, self.game, self.num_players, self.options)


# Default recipe of each game: what `train.py --game G` runs (see agents/models/README.md): a warm start of 10M
# decisions imitating the heuristic, half of them playing the policy's own moves (DAgger), then PPO at a lower
# learning rate against the pool (it took Cabo from 0.19 after imitation to 0.60 against three heuristics). Help!
# keeps the recipe of its shipped model.
RECIPES = {
    "quando": dict(bc_decisions=10_000_000, bc_dagger=0.5, lr=1e-4),
    "cabo": dict(bc_decisions=10_000_000, bc_dagger=0.5, lr=1e-4),
    "help": dict(bc_decisions=5_000_000, lr=1e-4),
}
# Decisions a new run collects when given neither --seconds nor --timesteps, so that `train.py --game G` alone ends:
# about what each shipped model's first run collected (Quando's 28.2M took 116 minutes beside other runs; the
# learner collects 20-55k decisions a second on the idle machine).
DEFAULT_DECISIONS = {"quando": 30_000_000, "cabo": 20_000_000, "help": 50_000_000}
OTHER_GAMES_DECISIONS = 10_000_000
# The stage that made each shipped model from a first run's best.npz: PPO against the heuristic alone (every other
# seat a heuristic player), with what helped that game: Cabo's move scorer, Quando's anchor on the heuristic and
# its round points weighted more. (settings changed, decisions). `train.py --game G` alone runs it after the
# recipe, in OUT/finish; Quando's shipped model had two more runs between the two, Cabo's used the scorer (128, 64),
# which from the same start won as (64, 32) does (agents/models/README.md).
AGAINST_HEURISTIC = dict(bc_decisions=0, self_play_share=0.0, heuristic_share=1.0, lr=1e-4)
FINISH = {
    "quando": ({**AGAINST_HEURISTIC, "anchor": 4.0, "points_coef": 0.06}, 9_000_000),
    "cabo": ({**AGAINST_HEURISTIC, "move_hidden": (64, 32)}, 12_000_000),
    "help": (AGAINST_HEURISTIC, 80_000_000),
}


class Net(nn.Module):
    """A ReLU MLP trunk with a policy head (one output per action) and a value head; with `move` = (F, (h1, h2)),
    a move scorer adds to each legal move's output a score of the trunk's output and the move's features (the
    candidate move as an input of the network, as in DouZero; agents.learned has the formula)."""

    def __init__(self, obs_dim: int, num_actions: int, hidden: tuple, move: tuple | None = None):
        super().__init__()
        layers, width = [], obs_dim
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Linear(width, num_actions)
        self.value = nn.Linear(width, 1)
        self.has_move = bool(move)
        if move:
            features, (h1, h2) = move
            self.move_state = nn.Linear(width, h1, bias=False)
            self.move_feat = nn.Linear(features, h1)
            self.move_hidden = nn.Linear(h1, h2)
            self.move_out = nn.Linear(h2, 1)
        for layer in self.modules():
            if isinstance(layer, nn.Linear):
                nn.init.orthogonal_(layer.weight, 0.01 if layer is self.policy else 2 ** 0.5)
                if layer.bias is not None:
                    nn.init.zeros_(layer.bias)
        if move:        # scores start at 0: a model given as init plays as it did until the scorer learns
            nn.init.zeros_(self.move_out.weight)

    def forward(self, x, moves=None):
        """x: a tensor of observations, or their nonzeros (agents.sparse: the same result, faster); moves: the
        legal moves (rows, actions, features (L, F)) for a model with a move scorer. Returns (policy outputs,
        values): outputs (B, num_actions), or with a scorer `Legal`: the legal moves' outputs alone (Cabo has about
        6 legal of 350 actions, and the scorer's rows are most of the work)."""
        z = self.trunk(x) if torch.is_tensor(x) else self.trunk[1:](sparse.linear(x, self.trunk[0]))
        value = self.value(z).squeeze(-1)
        logits = self.policy(z)
        if not self.has_move:
            return logits, value
        rows, acts, feats = moves
        size = logits.shape[1]
        state = torch.index_select(self.move_state(z) + self.move_feat.bias, 0, rows)
        h = torch.relu(torch.addmm(state, feats, self.move_feat.weight.t()))     # move_state(z) + move_feat(feats)
        score = torch.index_select(logits.reshape(-1), 0, rows * size + acts) \
            + self.move_out(torch.relu(self.move_hidden(h))).squeeze(-1)
        return Legal(score, rows, acts, len(z), size), value


@dataclass
class Legal:
    """A policy's outputs of the legal moves alone: `score[i]` is row rows[i]'s output of action acts[i], row by
    row in action order (legal_moves' order). The masked softmax and its loss terms are computed on these L
    numbers rather than on (B, num_actions) outputs that are -1e9 but for them."""

    score: torch.Tensor
    rows: torch.Tensor
    acts: torch.Tensor
    num_rows: int
    num_actions: int

    def index(self, actions: torch.Tensor) -> torch.Tensor:
        """Where each row's action (a legal one) is in `score`."""
        rows = torch.arange(self.num_rows, device=actions.device)
        return torch.searchsorted(self.rows * self.num_actions + self.acts, rows * self.num_actions + actions)

    def add(self, actions: torch.Tensor, weight: float) -> "Legal":
        """The same outputs with `weight` added to each row's action (a legal one)."""
        return dataclasses.replace(self, score=self.score.index_add(0, self.index(actions),
                                                                    self.score.new_full((len(actions),), weight)))

    def dense(self) -> torch.Tensor:
        """(B, num_actions) outputs, -1e9 for the illegal ones (as `masked_log_probs` makes them)."""
        size = self.num_actions
        out = self.score.new_full((self.num_rows * size,), -1e9)
        return out.index_copy(0, self.rows * size + self.acts, self.score).view(self.num_rows, size)

    def per_row(self, x: torch.Tensor) -> torch.Tensor:
        """(B,) sums of x (L,) over each row's legal moves."""
        return x.new_zeros(self.num_rows).index_add(0, self.rows, x)

    def row_max(self, x: torch.Tensor) -> torch.Tensor:
        """(B,) maxima of x (L,) over each row's legal moves (no gradient)."""
        return x.new_full((self.num_rows,), -torch.inf).scatter_reduce(0, self.rows, x.detach(), "amax")

    def log_probs(self) -> torch.Tensor:
        """(L,) log-softmax of each row's legal outputs."""
        shifted = self.score - self.row_max(self.score)[self.rows]
        return shifted - self.per_row(shifted.exp()).log()[self.rows]


def legal_moves(masks: np.ndarray, feats: np.ndarray, device="cpu") -> tuple:
    """(rows, actions, features) tensors of the legal moves of a batch, row by row: feats holds their feature rows
    in that order (L, F)."""
    return as_tensors((*np.nonzero(masks), feats), device)


def as_tensors(moves: tuple | None, device="cpu") -> tuple | None:
    """(rows, actions, features) arrays as tensors on the device (None stays None)."""
    return None if moves is None else tuple(torch.from_numpy(np.ascontiguousarray(x)).to(device) for x in moves)


def masked_log_probs(logits, masks):
    """log-softmax over the legal actions (illegal ones get -1e9: probability 0, no NaN in p * log p)."""
    return torch.log_softmax(logits.masked_fill(~masks, -1e9), dim=-1)


def masked_probs(logp_all, masks):
    """exp(masked_log_probs), 0 where illegal, without exp(-1e9) (an underflow that makes exp ~15x slower)."""
    return torch.where(masks, logp_all, 0.0).exp() * masks


def dense(logits) -> torch.Tensor:
    """(B, num_actions) policy outputs, from the network's (dense, or `Legal`)."""
    return logits.dense() if isinstance(logits, Legal) else logits


def policy_terms(logits, masks, acts) -> tuple:
    """(log-probability of each row's action, mean entropy, whether the action is the likeliest legal one) of the
    masked softmax, from dense outputs or `Legal` ones."""
    if isinstance(logits, Legal):
        logp_legal = logits.log_probs()
        logp = logp_legal[logits.index(acts)]
        entropy = -logits.per_row(logp_legal.exp() * logp_legal).mean()
        return logp, entropy, logp.detach() >= logits.row_max(logp_legal)
    logp_all = masked_log_probs(logits, masks)
    logp = logp_all.gather(1, acts[:, None]).squeeze(1)
    entropy = -(masked_probs(logp_all, masks) * logp_all).sum(1).mean()
    return logp, entropy, logp_all.argmax(1) == acts


# ---------------------------------------------------------------------------------------------- losses
# Each takes (hp, policy outputs, values, masks, actions, old log-probabilities, advantages, returns) of a
# minibatch and returns its parts by name, "loss/total" the one minimized.
def ppo_loss(hp, logits, value, masks, acts, old_logp, adv, ret) -> dict:
    """PPO: the clipped policy loss, an entropy bonus and the value loss."""
    v_loss = 0.5 * ((value - ret) ** 2).mean()
    logp, entropy, _ = policy_terms(logits, masks, acts)
    log_ratio = logp - old_logp
    ratio = log_ratio.exp()
    pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - hp.clip, 1 + hp.clip)).mean()
    out = {"loss/value": v_loss, "loss/entropy": entropy, "loss/policy": pg,
           "loss/total": pg - hp.ent_coef * entropy + hp.vf_coef * v_loss}
    with torch.no_grad():
        out["loss/approx_kl"] = ((ratio - 1) - log_ratio).mean()
        out["loss/clip_fraction"] = ((ratio - 1).abs() > hp.clip).float().mean()
    return out


def imitation_loss(hp, logits, value, masks, acts, old_logp, adv, ret) -> dict:
    """A policy's warm start: cross-entropy toward the teacher's moves (acts), and the value loss."""
    v_loss = 0.5 * ((value - ret) ** 2).mean()
    logp, entropy, top = policy_terms(logits, masks, acts)
    imitation = -logp.mean()
    return {"loss/value": v_loss, "loss/entropy": entropy, "loss/imitation": imitation,
            "loss/imitation_accuracy": top.float().mean(),
            "loss/total": imitation + hp.vf_coef * v_loss}


def dmc_loss(hp, logits, value, masks, acts, old_logp, adv, ret) -> dict:
    """Deep Monte-Carlo: the chosen action's value (the policy output) fitted to the return, and the value loss."""
    v_loss = 0.5 * ((value - ret) ** 2).mean()
    q = dense(logits).gather(1, acts[:, None]).squeeze(1)
    q_loss = 0.5 * ((q - ret) ** 2).mean()
    return {"loss/value": v_loss, "loss/q": q_loss, "loss/total": q_loss + hp.vf_coef * v_loss}


def dmc_imitation_loss(hp, logits, value, masks, acts, old_logp, adv, ret) -> dict:
    """An action-value warm start: `dmc_loss` on the teacher's moves plus DQfD's large margin (fitting the
    teacher's moves alone leaves the other moves' values arbitrary, and the greedy move one of them): every
    other legal move valued at least `margin` below the teacher's."""
    logits = dense(logits)
    v_loss = 0.5 * ((value - ret) ** 2).mean()
    q = logits.gather(1, acts[:, None]).squeeze(1)
    q_loss = 0.5 * ((q - ret) ** 2).mean()
    out = {"loss/value": v_loss, "loss/q": q_loss, "loss/total": q_loss + hp.vf_coef * v_loss}
    legal = logits.masked_fill(~masks, -math.inf)
    rival = (legal + hp.margin).scatter(1, acts[:, None], q[:, None]).max(1).values
    out["loss/margin"] = (rival - q).mean()
    out["loss/imitation_accuracy"] = (legal.argmax(1) == acts).float().mean()
    out["loss/total"] = out["loss/total"] + out["loss/margin"]
    return out


LOSSES = {("ppo", False): ppo_loss, ("ppo", True): imitation_loss, ("dmc", False): dmc_loss,
          ("dmc", True): dmc_imitation_loss}


def loss_function(method: str, imitating: bool):
    """The loss of a method ("ppo" or "dmc"), in its warm start (imitating) or after."""
    return LOSSES[method, bool(imitating)]


def thread_counts(threads: int) -> None:
    """torch's threads and numba's (at most as many), for the calling thread: both counts hold per thread. Set
    before the first batch: one threaded kernel starts numba's OpenMP threads, which then compete with torch."""
    torch.set_num_threads(threads)
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))


class Diverged(ValueError):
    """An update made the weights NaN or infinite (they are restored to what they were before it)."""


class Rollout:
    """One rollout's decisions (`buf`, rows 0..count-1: the carried ones first), their legal moves' feature rows
    (decision i's from buf["fstart"][i], in order), and how it was collected: `segments` (row ranges, one per step),
    `ready` (rows whose rewards are complete), `imitating` (the warm start's), `tally` (episodes ended, learner
    seats in them, their wins)."""

    def __init__(self, cap: int, obs_dim: int, num_actions: int, num_features: int):
        self.buf = {"obs": np.zeros((cap, obs_dim), np.float32), "mask": np.zeros((cap, num_actions), bool),
                    "act": np.zeros(cap, np.int64), "logp": np.zeros(cap, np.float32),
                    "val": np.zeros(cap, np.float32), "rew": np.zeros(cap, np.float32),
                    "nxt": np.full(cap, -1, np.int64), "fstart": np.zeros(cap, np.int64),
                    "nlegal": np.zeros(cap, np.int64),   # legal moves (rows of feats from fstart)
                    "anchor": np.zeros(cap, np.int64)}   # the heuristic's move (anchored runs)
        self.count = 0
        self.moves = num_features > 0
        self.feats = np.zeros((cap * 8 if self.moves else 0, num_features), np.float32)
        self.lacts = np.zeros(len(self.feats), np.int64)     # their actions
        self.fcount = 0
        self.segments, self.ready, self.imitating = [], np.zeros(0, bool), False
        self.batches = None                 # its minibatches, once prepared (Learner.prepare), and the ready
        self.returns = self.values = np.zeros(0, np.float32)    # decisions' returns and values
        self.tally = {"episodes": 0, "learner_seats": 0, "learner_wins": 0}

    def store_moves(self, ids: np.ndarray, moves: tuple) -> None:
        """Keep the legal moves (rows 0.., actions, features: `Learner.legal_features`) of decisions ids
        (consecutive, in order)."""
        if not self.moves:
            return
        rows, acts, feats = moves
        counts = np.bincount(rows, minlength=len(ids))
        end = self.fcount + len(feats)
        if end > len(self.feats):
            size = max(2 * len(self.feats), end)
            self.feats = np.concatenate([self.feats[:self.fcount], np.zeros((size - self.fcount, feats.shape[1]),
                                                                            np.float32)])
            self.lacts = np.concatenate([self.lacts[:self.fcount], np.zeros(size - self.fcount, np.int64)])
        self.buf["fstart"][ids] = self.fcount + np.cumsum(counts) - counts
        self.buf["nlegal"][ids] = counts
        self.feats[self.fcount:end], self.lacts[self.fcount:end] = feats, acts
        self.fcount = end

    def stored_moves(self, ids: np.ndarray) -> tuple:
        """The legal moves (rows 0..len(ids)-1, actions, features) of decisions ids (any order)."""
        counts = self.buf["nlegal"][ids]
        at = sparse.runs(self.buf["fstart"][ids], counts)
        return np.repeat(np.arange(len(ids)), counts), self.lacts[at], self.feats[at]

    def start(self, src: "Rollout", held: np.ndarray, imitating: bool) -> None:
        """Begin a rollout: src's decisions held (still waiting for rewards) become rows 0..k-1 (src may be this
        rollout)."""
        k = held.size
        kept = src.stored_moves(held) if self.moves and k else None
        for key, arr in self.buf.items():
            arr[:k] = src.buf[key][held]
        self.buf["rew"][k:] = 0.0
        self.buf["nxt"][:] = -1
        self.count, self.fcount = k, 0
        if kept is not None:
            self.store_moves(np.arange(k), kept)
        self.segments, self.imitating, self.batches = [(0, k)], imitating, None
        self.tally = dict.fromkeys(self.tally, 0)


class Learner:
    """The state of a run: the games, the network, the optimizer, the pool, the rollout buffer, the counters."""

    def __init__(self, hp: Hyper, heuristic=None):
        from . import game_agents, make_agent

        self.hp = hp
        thread_counts(hp.threads)
        torch.manual_seed(hp.seed)
        self.rng = np.random.default_rng(hp.seed)
        self.game = game_class(hp.game)(hp.num_games, seed=hp.seed, autoreset=False, num_players=hp.num_players,
                                        **hp.options)
        g = self.game
        self.n, self.B, self.obs_dim, self.num_actions = g.num_players, g.num_games, g.obs_dim, g.num_actions
        self.heuristic = heuristic if heuristic is not None else game_agents(hp.game)["heuristic"]()
        self.teacher = self.heuristic if hp.teacher == "heuristic" else make_agent(
            "rollout", seed=hp.seed, game=hp.game, num_players=self.n, samples=hp.teacher_samples,
            knock_samples=2 * hp.teacher_samples, **hp.options)
        self.num_features = g.action_feature_dim if hp.move_hidden else 0
        self.dev = torch.device(hp.device)
        self.net = Net(self.obs_dim, self.num_actions, hp.hidden,
                       (self.num_features, hp.move_hidden) if hp.move_hidden else None).to(self.dev)
        if hp.init:
            header, weights = load_model(hp.init, game=hp.game, obs_dim=self.obs_dim)
            need(tuple(header["hidden"]) == hp.hidden, f"init={hp.init!r} has layers {header['hidden']}",
                 f"the run's hidden={list(hp.hidden)}")
            head = "q" if hp.method == "dmc" else "policy"
            need(header["head"] == head, f"init={hp.init!r} has a {header['head']} head",
                 f"a {head} head ({hp.method})")
            move = header.get("move")
            need(not move or move == self.move_header(), f"init={hp.init!r} has the move scorer {move}",
                 f"the run's {self.move_header()} (move_hidden)")
            self.load_weights(weights, strict=bool(move) or not hp.move_hidden)   # a flat model starts a scorer
        self.opt = torch.optim.Adam(self.net.parameters(), lr=hp.bc_lr if hp.bc_decisions > 0 else hp.lr, eps=1e-5)
        self.snapshots = []                 # LearnedAgents holding frozen copies of the weights
        self.rows = np.arange(self.B)
        self.owner = np.full((self.B, self.n), LEARNER, np.int64)
        self.last = np.full((self.B, self.n), -1, np.int64)    # each seat's pending decision (buffer row)
        cap = self.B * hp.rollout_steps + self.B * self.n      # a rollout's decisions + the carried ones
        self.roll = Rollout(cap, self.obs_dim, self.num_actions, self.num_features)     # the one collected last
        # overlap: the next rollout is collected into the other buffer by a copy of the network (`actor`) while
        # the last one is learned from
        self.spare = Rollout(cap, self.obs_dim, self.num_actions, self.num_features) if hp.overlap else self.roll
        self.actor = copy.deepcopy(self.net) if hp.overlap else self.net
        self.update_rng = np.random.default_rng([hp.seed, 1])     # the minibatches' order: learning draws
                                                                    # nothing of what collecting draws
        self.worker = ThreadPoolExecutor(1, initializer=thread_counts, initargs=(hp.threads,)) if hp.overlap \
            else None                       # (it holds no reference to the learner, which can then be freed)
        self.collector = self.worker.submit(threading.get_ident).result() if hp.overlap else None   # its thread
        self.ahead = None                   # the rollout being collected (a Future), with overlap
        self.counters = {"decisions": 0, "bc_decisions": 0, "rl_decisions": 0, "updates": 0, "episodes": 0,
                         "learner_seats": 0, "learner_wins": 0, "loop_seconds": 0.0, "loop_decisions": 0}
        self.imitating = hp.bc_decisions > 0
        self.plan = self.acting_plan()
        if hp.round_credit:             # each seat's estimated chance to win its game, as of the last round's end
            self.credit = hp.win_model()
            self.win_p = np.full((self.B, self.n), self.credit.start())
        self.draw_owners(self.rows)

    # ------------------------------------------------------------------ who plays which seat
    def pool(self) -> tuple[list, np.ndarray]:
        """(opponents, draw probabilities): the heuristic, then the snapshots."""
        if not self.snapshots:
            return [self.heuristic], np.ones(1)
        k = len(self.snapshots)
        return [self.heuristic, *self.snapshots], np.array([self.hp.heuristic_share] +
                                                          [(1 - self.hp.heuristic_share) / k] * k)

    def acting_plan(self) -> tuple:
        """What a rollout is collected by, fixed when it starts: (imitating, the pool's opponents, their draw
        probabilities)."""
        return (self.imitating, *self.pool())

    @property
    def buf(self) -> dict:
        """The arrays of the rollout collected last (once one being collected is done)."""
        self.settle()
        return self.roll.buf

    @property
    def count(self) -> int:
        self.settle()
        return self.roll.count

    def draw_owners(self, games: np.ndarray) -> None:
        """Owners of the seats of games starting an episode: one learner seat, the rest learner or pool."""
        k = games.size
        imitating, opponents, p = self.plan
        if imitating:                   # warm start: the heuristic plays every seat, all recorded
            self.owner[games] = LEARNER
            return
        own = self.rng.choice(len(opponents), size=(k, self.n), p=p / p.sum())
        own[self.rng.random((k, self.n)) < self.hp.self_play_share] = LEARNER
        own[np.arange(k), self.rng.integers(self.n, size=k)] = LEARNER
        self.owner[games] = own

    # ------------------------------------------------------------------ acting
    def seat_view(self) -> tuple[np.ndarray, np.ndarray]:
        """What the deciders are given in every game: the observation of the player to move and its legal mask
        (nothing else of the game reaches a policy; the move features, read per decider, are from its view).
        Called between iterations, it first waits for the rollout being collected, whose thread steps the games."""
        self.settle()
        return self.game.observe(), self.game.legal_action_mask

    def move_header(self) -> dict | None:
        return {"features": self.num_features, "hidden": list(self.hp.move_hidden)} if self.hp.move_hidden else None

    def legal_features(self, games: np.ndarray, masks: np.ndarray) -> tuple | None:
        """The legal moves of the player to move in the listed games (None without a move scorer): (rows
        0..len(games)-1, actions, (L, F) features), row by row in action order. (Waits as seat_view does.)"""
        if not self.hp.move_hidden:
            return None
        self.settle()
        rows, acts = np.nonzero(masks)
        return rows, acts, self.game.action_features(games=games)[rows, acts]

    def anchor_moves(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray | None:
        """The heuristic's moves that an anchored run adds `anchor` to (None without an anchor). (Waits as seat_view
        does: the collecting thread plays the same heuristic agent.)"""
        if not self.hp.anchor:
            return None
        self.settle()
        return self.heuristic.act(obs, masks)

    def anchored(self, logits, anchor):
        """The policy's outputs: the network's, plus `anchor` on the heuristic's move (as agents.learned plays)."""
        if anchor is None:
            return logits
        if isinstance(logits, Legal):
            return logits.add(anchor, self.hp.anchor)
        rows = torch.arange(len(anchor), device=logits.device)
        return logits.index_put((rows, anchor), logits.new_tensor(self.hp.anchor), accumulate=True)

    def policy(self, obs: np.ndarray, masks: np.ndarray, moves=None, anchor=None, net=None) -> tuple:
        """The current policy (or `net`'s: collection's copy) on rows of observations and masks (anchor: the
        heuristic's moves of an anchored run): (probs (B, num_actions), the distribution the learner acts by (ppo:
        the masked softmax; dmc: epsilon-greedy on the action values), log-probabilities of the masked softmax,
        policy outputs, values (B,))."""
        with torch.no_grad():
            logits, value = (net or self.net)(sparse.sparse_rows(obs), as_tensors(moves, self.dev))
            logits = dense(self.anchored(logits, None if anchor is None else torch.from_numpy(anchor).to(self.dev)))
            legal = torch.from_numpy(np.ascontiguousarray(masks, bool)).to(self.dev)
            logp_all = masked_log_probs(logits, legal)
            probs = masked_probs(logp_all, legal).cpu().numpy().astype(np.float64)
        logits, logp_all, value = logits.cpu().numpy(), logp_all.cpu().numpy(), value.cpu()
        if self.hp.method != "ppo":
            probs = self.hp.epsilon * masks / masks.sum(axis=1, keepdims=True)
            probs[np.arange(len(obs)), np.where(masks, logits, -np.inf).argmax(axis=1)] += 1 - self.hp.epsilon
        return probs, logp_all, logits, value.numpy()

    def decide(self, obs, masks, labels=None, moves=None, anchor=None, net=None):
        """The learner's (actions, log-probabilities, values, actions played) for rows of observations and
        masks: actions drawn from `policy`'s probabilities, or in the warm start the teacher's `labels`, played
        as they are except for the `bc_dagger` share that plays a drawn action. dmc: the values are the chosen
        actions' values. (Waits as seat_view does: the draws come from the collecting thread's generator.)"""
        self.settle()
        probs, logp_all, logits, value = self.policy(obs, masks, moves, anchor, net)
        rows = np.arange(len(obs))
        dagger = labels is not None and self.hp.bc_dagger > 0
        if labels is None or dagger:        # inverse CDF: an action of probability 0 (illegal) is never drawn
            c = np.cumsum(probs, axis=1)
            drawn = (c > self.rng.random(len(obs))[:, None] * c[:, -1:]).argmax(axis=1)
        acts = drawn if labels is None else labels
        played = np.where(self.rng.random(len(obs)) < self.hp.bc_dagger, drawn, labels) if dagger else acts
        return acts, logp_all[rows, acts], logits[rows, acts] if self.hp.method == "dmc" else value, played

    # ------------------------------------------------------------------ experience
    def collect(self, plan=None) -> tuple[list, np.ndarray]:
        """Step every game `rollout_steps` times by `plan` (acting_plan: the current one if None). Returns (row
        ranges of the buffer, one per step, the carried rows first; ready: rows whose rewards are complete), also
        kept in self.roll with the rollout."""
        hp, g = self.hp, self.game
        self.plan = plan or self.acting_plan()
        imitating, opponents, _ = self.plan
        last, self.roll, self.spare = self.roll, self.spare, self.roll      # the same buffer without overlap
        held = self.last >= 0               # decisions still waiting for rewards move to the front
        self.roll.start(last, self.last[held], imitating)
        self.last[held] = np.arange(self.roll.count)
        roll = self.roll
        b, segments = roll.buf, roll.segments
        actions = np.empty(self.B, np.int64)
        for _ in range(hp.rollout_steps):
            obs, masks = self.seat_view()
            cur = g.current_player
            who = self.owner[self.rows, cur]
            mine = np.flatnonzero(who == LEARNER)
            start = roll.count
            if mine.size:
                o, m = obs[mine], masks[mine]
                f = self.legal_features(mine, m)
                anchor = self.anchor_moves(o, m)
                acts, logp, val, played = self.decide(o, m, self.teacher.act(o, m) if imitating else None, f,
                                                      anchor, self.actor)
                ids = start + np.arange(mine.size)
                if anchor is not None:
                    b["anchor"][ids] = anchor
                b["obs"][ids], b["mask"][ids], b["act"][ids], b["logp"][ids], b["val"][ids] = o, m, acts, logp, val
                roll.store_moves(ids, f)
                seats = cur[mine]
                prev = self.last[mine, seats]
                b["nxt"][prev[prev >= 0]] = ids[prev >= 0]
                self.last[mine, seats] = ids
                actions[mine] = played
                roll.count += mine.size
            segments.append((start, roll.count))
            for k in np.unique(who[who != LEARNER]):
                idx = np.flatnonzero(who == k)
                feats = g.action_features(games=idx) if opponents[k].uses_action_features else None
                actions[idx] = opponents[k].act(obs[idx], masks[idx], features=feats)
            self.reward(g.step(actions))
        roll.ready = np.ones(roll.count, bool)
        roll.ready[self.last[self.last >= 0]] = False
        if hp.overlap:
            self.prepare(roll)
        return segments, roll.ready

    def reward(self, r: np.ndarray) -> None:
        """Credit a step's (B, n) points to each learner seat's pending decision; end and restart the episodes
        that ended (win reward by the game's winners)."""
        hp, g, n = self.hp, self.game, self.n
        add = np.zeros_like(r)
        if hp.points_coef and n > 1:
            add += hp.points_coef * (r - (r.sum(axis=1, keepdims=True) - r) / (n - 1))
        ended = np.flatnonzero(g.game_over | g.truncated)
        won = np.zeros((0, n), bool)
        if ended.size:
            won = g.winners(ended)
            add[ended] += np.where(won, hp.win_reward, -hp.win_reward)
        if hp.round_credit:
            add += hp.round_credit * self.win_change(ended, won)
        held = self.last >= 0
        self.roll.buf["rew"][self.last[held]] += add[held]
        if ended.size:
            mine = self.owner[ended] == LEARNER
            c = self.roll.tally
            c["episodes"] += ended.size
            c["learner_seats"] += int(mine.sum())
            c["learner_wins"] += int((mine & won).sum())
            self.last[ended] = -1
            g.reset(games=ended)
            self.draw_owners(ended)

    def win_change(self, ended: np.ndarray, won: np.ndarray) -> np.ndarray:
        """(B, n) change of each seat's chance to win over the last step: at a round's end the model's chance
        after it less before it, at the game's end 1 for its winners or 0 less before (so a game's changes add up
        to won - the chance at the start)."""
        g, now = self.game, self.win_p.copy()
        done = np.flatnonzero(g.round_over)
        if done.size:
            now[done] = self.credit.prob(g.totals[done], g.rounds_done[done])
        now[ended] = won
        change = now - self.win_p
        now[ended] = self.credit.start()       # the next episode
        self.win_p = now
        return change

    def advantages(self, roll: Rollout, lam: float) -> tuple[np.ndarray, np.ndarray]:
        """(advantages, returns) by GAE along each seat's chain of decisions, newest step first; a chain that
        reaches a pending decision is cut there (bootstrapped by its value)."""
        b, gamma, ready = roll.buf, self.hp.gamma, roll.ready
        adv = np.zeros(roll.count, np.float32)
        val = b["val"][:roll.count]
        for s, e in reversed(roll.segments):
            nx = b["nxt"][s:e]
            has = nx >= 0
            nv = np.where(has, val[nx], 0.0)
            na = np.where(has & ready[nx], adv[nx], 0.0)
            adv[s:e] = b["rew"][s:e] + gamma * nv - val[s:e] + gamma * lam * na
        return adv, adv + val

    # ------------------------------------------------------------------ learning
    def prepare(self, roll: Rollout) -> None:
        """A rollout's minibatches for every epoch (roll.batches), with their numpy work done: advantages, the
        nonzeros, the legal moves. With overlap the collecting thread does it, and learning is torch's work alone."""
        hp, b = self.hp, roll.buf
        lam = hp.gae_lambda if hp.method == "ppo" and not roll.imitating else 1.0
        adv, ret = self.advantages(roll, lam)
        idx = np.flatnonzero(roll.ready)
        if idx.size > 1:                    # PPO's advantages, normalized over the rollout
            adv = (adv - adv[idx].mean()) / (adv[idx].std() + 1e-8)
        obs, roll.batches = sparse.sparse_rows(b["obs"][:roll.count]), []
        for _ in range(hp.epochs):
            for j in np.array_split(idx[self.update_rng.permutation(idx.size)],
                                    max(1, -(-idx.size // hp.minibatch))):
                j = np.sort(j)
                roll.batches.append((obs.take(j).with_columns(), roll.stored_moves(j) if hp.move_hidden else None,
                                     *(x[j] for x in (b["mask"], b["act"], b["logp"], adv, ret, b["anchor"]))))
        roll.returns, roll.values = ret[idx], b["val"][idx]

    def update(self, roll: Rollout) -> dict:
        """One learning step on the ready decisions of a rollout: PPO, DMC, or imitation (as it was collected).
        Returns the logged numbers (means over minibatches)."""
        hp = self.hp
        if roll.batches is None:
            self.prepare(roll)
        for group in self.opt.param_groups:
            group["lr"] = hp.bc_lr if roll.imitating else hp.lr
        logs = {}
        for obs, moves, *arrays in roll.batches:
            out = self.loss(roll.imitating, obs, as_tensors(moves, self.dev),
                            *(torch.from_numpy(x).to(self.dev) for x in arrays))
            self.opt.zero_grad()
            out["loss/total"].backward()
            out["loss/grad_norm"] = nn.utils.clip_grad_norm_(self.net.parameters(), hp.max_grad_norm)
            self.opt.step()
            for k, v in out.items():
                logs.setdefault(k, []).append(float(v.detach()))
        roll.batches = None
        logs = {k: float(np.mean(v)) for k, v in logs.items()}
        ret = roll.returns                  # of its ready decisions (a rollout may finish none)
        var = float(np.var(ret)) if ret.size else 0.0
        logs["loss/explained_variance"] = 1 - float(np.var(ret - roll.values)) / var if var > 0 else 0.0
        logs["rollout/mean_return"] = float(ret.mean()) if ret.size else 0.0
        return logs

    def loss(self, imitating, obs, moves, masks, acts, old_logp, adv, ret, anchor) -> dict:
        """The minibatch loss of a phase and the method (`loss_function`), with its parts by name."""
        logits, value = self.net(obs, moves)
        logits = self.anchored(logits, anchor if self.hp.anchor else None)
        return loss_function(self.hp.method, imitating)(self.hp, logits, value, masks, acts, old_logp, adv, ret)

    def iteration(self) -> dict:
        """Collect one rollout and learn from it (with overlap: take the rollout collected meanwhile, start the
        next, learn); returns the logged numbers."""
        t0 = time.perf_counter()
        c = self.counters
        before = dict(c)
        if self.ahead is None:
            self.collect()
        else:
            self.ahead.result()
            self.ahead = None
        roll = self.roll
        done = int(roll.ready.sum())
        for k, v in roll.tally.items():
            c[k] += v
        c["decisions"] += done
        c["bc_decisions" if roll.imitating else "rl_decisions"] += done
        if self.imitating and c["bc_decisions"] >= self.hp.bc_decisions:
            self.imitating = False          # warm start over: episodes starting from now on get pool owners
        if self.hp.overlap:
            self.actor.load_state_dict(self.net.state_dict())
            self.ahead = self.worker.submit(self.collect, self.acting_plan())
        t1 = time.perf_counter()
        good = copy.deepcopy(self.net.state_dict()), copy.deepcopy(self.opt.state_dict())
        logs = self.update(roll)
        if not all(torch.isfinite(p).all() for p in self.net.parameters()):
            self.net.load_state_dict(good[0])       # the last good model stays, and Adam's moments with it
            self.opt.load_state_dict(good[1])
            raise Diverged(f"the learning diverged at {c['decisions']:,} decisions (update {c['updates'] + 1}): "
                           f"weights became NaN or infinite (loss {logs.get('loss/total', float('nan')):.4g})")
        t2 = time.perf_counter()
        c["updates"] += 1
        c["loop_seconds"] += t2 - t0
        c["loop_decisions"] += done
        seats = c["learner_seats"] - before["learner_seats"]
        logs.update({"rollout/decisions": done, "rollout/episodes": c["episodes"] - before["episodes"],
                     "rollout/learner_win_rate": (c["learner_wins"] - before["learner_wins"]) / seats if seats
                     else float("nan"), "pool/snapshots": len(self.snapshots), "phase/imitating": int(roll.imitating),
                     "perf/collect_seconds": t1 - t0, "perf/update_seconds": t2 - t1,
                     "perf/decisions_per_second": done / (t2 - t0)})
        if not roll.imitating and self.hp.snapshot_every and \
                c["rl_decisions"] // self.hp.snapshot_every > before["rl_decisions"] // self.hp.snapshot_every:
            self.snapshots = (self.snapshots + [self.agent()])[-self.hp.pool_size:]
        return logs

    def settle(self) -> None:
        """Wait for a rollout being collected (overlap): the run's state, its games included, is then whole (to
        save it, or to read the games from another thread). Nothing to wait for in the collecting thread itself."""
        if self.ahead is not None and threading.get_ident() != self.collector:
            self.ahead.result()

    # ------------------------------------------------------------------ the model
    def weights(self) -> dict:
        """name -> float32 numpy copy of every weight (the model file's arrays)."""
        return {k: v.detach().cpu().numpy().copy() for k, v in self.net.state_dict().items()}

    def header(self) -> dict:
        hp = self.hp
        return {"format": FORMAT, "game": self.game.name, "options": self.game.config.to_dict(),
                "obs_dim": self.obs_dim, "num_actions": self.num_actions, "hidden": list(hp.hidden),
                "head": "q" if hp.method == "dmc" else "policy", **({"move": self.move_header()} if hp.move_hidden
                                                                    else {}),
                **({"anchor": {"agent": "heuristic", "weight": hp.anchor}} if hp.anchor else {}),
                "info": {"method": hp.method, "decisions": self.counters["decisions"], "seed": hp.seed}}

    def agent(self) -> LearnedAgent:
        """The current policy as an agent (a frozen copy)."""
        return LearnedAgent(header=self.header(), weights=self.weights())

    def load_weights(self, weights: dict, strict: bool = True) -> None:
        self.net.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in weights.items()}, strict=strict)

    def evaluate(self, games: int | None = None) -> dict:
        """Win rate (and its 95% Wilson interval) of the current policy against n - 1 heuristic players,
        seats rotating, on the same games every time (eval_seed)."""
        from .evaluation import play_match

        hp = self.hp
        self.settle()                   # the heuristic agent is not shared between threads
        res = play_match([self.agent()] + [self.heuristic] * (self.n - 1), games or hp.eval_games,
                         seed=hp.eval_seed, names=["learned"] + ["heuristic"] * (self.n - 1), progress=False,
                         game=hp.game, num_players=self.n, **hp.options).pooled()["learned"]
        return {"decisions": self.counters["decisions"], "win_rate": res["win_rate"], "ci": res["win_rate_ci95"],
                "mean_round_points": res["mean_round_points"]}

    # ------------------------------------------------------------------ saving and resuming (no pickle)
    def save_state(self, out: Path) -> None:
        """The model (out/model.npz), the snapshots, and what resuming needs (out/state.npz: Adam's moments;
        out/state.json: settings, counters, random state)."""
        self.settle()
        save_model(out / "model.npz", self.header(), self.weights())
        (out / "snapshots").mkdir(exist_ok=True)
        snaps = []
        for i, s in enumerate(self.snapshots):
            snaps.append(f"snapshots/pool_{i}.npz")
            save_model(out / snaps[-1], s.header, s.weights)
        arrays = {}
        for i, st in self.opt.state_dict()["state"].items():
            for k, v in st.items():
                arrays[f"{i}.{k}"] = np.asarray(v.detach().cpu().numpy() if torch.is_tensor(v) else v)
        save_arrays(out / "state.npz", arrays)
        hp = dataclasses.asdict(self.hp)
        hp["hidden"] = list(hp["hidden"])
        text = json.dumps({"hyper": hp, "counters": self.counters, "imitating": self.imitating, "snapshots": snaps,
                           "rng": self.rng.bit_generator.state, "update_rng": self.update_rng.bit_generator.state},
                          indent=1)
        replace_file(out / "state.json", lambda tmp: tmp.write_text(text))     # last: what --resume starts from

    @classmethod
    def resume(cls, out: Path, heuristic=None) -> "Learner":
        """A learner continuing the run saved in `out` (new games, seeded from the run's seed and updates);
        ValueError naming the run when one of its files cannot be read."""
        try:
            return cls._resume(out, heuristic)
        except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as e:
            raise ValueError(f"the run saved in {out} cannot be read: {type(e).__name__}: {e}") from None

    @classmethod
    def _resume(cls, out: Path, heuristic) -> "Learner":
        state = json.loads((out / "state.json").read_text())
        hp = Hyper(**{"overlap": False, **state["hyper"]})     # runs saved before overlap went on as they were
        self = cls(dataclasses.replace(hp, init=""), heuristic)    # the run's model replaces init's weights
        self.hp = hp
        _, weights = load_model(out / "model.npz", game=hp.game, obs_dim=self.obs_dim)
        self.load_weights(weights)
        with np.load(out / "state.npz", allow_pickle=False) as f:
            moments = {k: f[k] for k in f.files}
        sd = self.opt.state_dict()
        for i in range(len(list(self.net.parameters()))):
            if f"{i}.exp_avg" in moments:
                sd["state"][i] = {k: torch.from_numpy(moments[f"{i}.{k}"]) for k in ("step", "exp_avg", "exp_avg_sq")}
        self.opt.load_state_dict(sd)
        self.counters.update(state["counters"])
        self.imitating = state["imitating"]
        self.snapshots = [LearnedAgent(out / p, game=hp.game) for p in state["snapshots"]]
        self.rng.bit_generator.state = state["rng"]
        if "update_rng" in state:           # runs saved before it had its own
            self.update_rng.bit_generator.state = state["update_rng"]
        self.game.reset(seed=hp.seed + 1_000_003 * self.counters["updates"])
        self.plan = self.acting_plan()
        self.draw_owners(self.rows)
        return self


# ---------------------------------------------------------------------------------------------- command line
def parser(prog: str = "python -m quando_env.agents.learner") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description="Train a learned agent by batched "
                                "self-play against a pool (the game's heuristic, snapshots of itself). Bad options "
                                "are refused before anything is written.", allow_abbrev=False)
    p.add_argument("--game", default=None, choices=game_names(), help="the game (default quando)")
    p.add_argument("--seconds", type=argtypes.float_in(0.0, 10.0**9, above=True), default=None,
                   help="stop after this many seconds (wall time)")
    p.add_argument("--timesteps", type=argtypes.positive_int, default=None,
                   help="stop at the first update with at least this many decisions of experience "
                   "(a new run given neither option: quando "
                   f"{DEFAULT_DECISIONS['quando']:,}, cabo {DEFAULT_DECISIONS['cabo']:,}, help "
                   f"{DEFAULT_DECISIONS['help']:,}, another game {OTHER_GAMES_DECISIONS:,})")
    p.add_argument("--seed", type=argtypes.int_in(0, SEED_MAX32), default=None, help=f"0..{SEED_MAX32} (default 0)")
    p.add_argument("--threads", type=argtypes.int_in(1, MAX_THREADS), default=None,
                   help="torch threads, numba at most as many (default 1)")
    p.add_argument("--device", default=None, choices=("cpu", "cuda"), help="where the network runs (default cpu; "
                   "cuda: an NVIDIA GPU, the games still step on the CPU)")
    p.add_argument("--out", default=None, type=argtypes.output_dir, help="run folder, created if missing (default "
                   "runs/learned_GAME)")
    p.add_argument("--resume", action="store_true", help="continue the run saved in --out, with its own settings "
                   "(--game, --seed, --threads, --eval-games and --set may only repeat them)")
    p.add_argument("--eval-every", type=argtypes.positive_int, default=2_000_000,
                   help="decisions between evaluations (default 2,000,000; a short run wants fewer)")
    p.add_argument("--eval-games", type=argtypes.positive_int, default=None, help="games per evaluation (default "
                   "400)")
    p.add_argument("--checkpoint-every", type=argtypes.positive_int, default=5_000_000,
                   help="decisions between checkpoints (default 5,000,000)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="change a setting of Hyper "
                   "(e.g. --set method=dmc --set hidden=128,128 --set num_players=3 --set 'options={\"edition\": "
                   "\"oya\"}')")
    p.add_argument("--finish", action=argparse.BooleanOptionalAction, default=None,
                   help="after the run, the game's finishing stage (agents.learner.FINISH: PPO against the heuristic "
                   "alone from the run's best.npz, in OUT/finish; default: on for a new run given none of --set, "
                   "--seconds and --timesteps, and for a resumed run that had it)")
    p.add_argument("--no-progress", action="store_true")
    return p


def _setting(p: argparse.ArgumentParser, item: str) -> tuple[str, object]:
    """(name, value) of one --set NAME=VALUE, converted to the setting's type (the program ends otherwise)."""
    fields = {f.name: f.type for f in dataclasses.fields(Hyper) if f.name != "game"}
    name, eq, text = item.partition("=")
    if not eq or name not in fields:
        p.error(f"argument --set: {shown(item)}: give NAME=VALUE with NAME one of {', '.join(fields)}")
    kind = fields[name]
    try:
        if kind is dict:
            value = json.loads(text)
            if not isinstance(value, dict):
                raise ValueError
        elif kind is tuple:
            value = tuple(int(x) for x in text.split(",")) if text or name != "move_hidden" else ()
        elif kind is float:
            value = float(text)
        elif kind is bool:
            value = {"1": True, "true": True, "0": False, "false": False}[text.lower()]
        else:
            value = kind(text)
    except (ValueError, KeyError):
        what = {dict: "a JSON object", tuple: "integers separated by commas", float: "a number", int: "an integer",
                bool: "1, 0, true or false"}
        p.error(f"argument --set: {shown(item)}: {name} takes {what.get(kind, 'a string')}")
    return name, value


def parse_args(argv=None, prog: str = "python -m quando_env.agents.learner") -> argparse.Namespace:
    """The command line, checked as a whole before anything is written (argparse's exit 2, naming the option,
    otherwise): args.hyper is the run's checked settings (the game's recipe, then --set, --seed, --threads,
    --eval-games), or with --resume those saved in --out, which the options given must repeat; a new run given
    neither --seconds nor --timesteps gets the game's DEFAULT_DECISIONS (a resumed one runs until stopped, or to
    the first run's budget of a recipe with its finishing stage); args.finish says whether FINISH follows and
    args.recipe what a new such run saves of its plan."""
    p = parser(prog)
    args = p.parse_args(argv)
    game = args.game or "quando"
    args.out = argtypes.check(p, "--out", argtypes.output_dir, args.out or f"runs/learned_{game}")
    given = {"--game": {"game": args.game}, "--seed": {"seed": args.seed}, "--threads": {"threads": args.threads},
             "--device": {"device": args.device},
             "--eval-games": {"eval_games": args.eval_games}, "--set": dict(_setting(p, x) for x in args.set)}
    given = {k: {n: v for n, v in d.items() if v is not None} for k, d in given.items()}
    twice = [f"{n}={shown(v)} and {option} {shown(d[n])}" for option, d in given.items() if option != "--set"
             for n, v in given["--set"].items() if n in d and v != d[n]]
    if twice:
        p.error(f"argument --set: {'; '.join(twice)} disagree: give one")
    kw = {"game": game, **RECIPES.get(game, {})}
    for d in given.values():
        kw.update(d)
    try:
        hp = Hyper(**kw)
    except ValueError as e:
        option = next((k for k, d in given.items() if str(e).partition("=")[0] in d), "--set")
        p.error(f"argument {option}: {e}")
    args.hyper = hp
    if args.resume:
        args.hyper = saved_hyper(p, Path(args.out), given)
    elif (Path(args.out) / "state.json").exists():
        p.error(f"argument --out: {args.out} holds a run already: --resume continues it, another --out starts a new "
                "one")
    recipe = read_recipe(p, Path(args.out)) if args.resume else {}
    plain = not (args.set or args.seconds or args.timesteps)
    if args.finish is None:
        args.finish = recipe.get("finish", False) if args.resume else plain and args.hyper.game in FINISH
    if args.finish and args.hyper.game not in FINISH:
        p.error(f"argument --finish: {args.hyper.game} has no finishing stage (games with one: {', '.join(FINISH)})")
    if args.resume and args.timesteps is None:
        args.timesteps = recipe.get("timesteps")
    if args.seconds is None and args.timesteps is None and not args.resume:
        args.timesteps = DEFAULT_DECISIONS.get(args.hyper.game, OTHER_GAMES_DECISIONS)
    args.recipe = {"finish": True, "timesteps": args.timesteps} if args.finish and not args.resume else None
    return args


def read_recipe(p: argparse.ArgumentParser, out: Path) -> dict:
    """What a run followed by its finishing stage saved of its plan (out/recipe.json; {} for another run)."""
    try:
        recipe = json.loads((out / "recipe.json").read_text())
        if not (isinstance(recipe, dict) and isinstance(recipe.get("finish"), bool)
                and (recipe.get("timesteps") is None or type(recipe["timesteps"]) is int)):
            raise ValueError("not a recipe: {\"finish\": true|false, \"timesteps\": an integer or null}")
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        p.error(f"argument --resume: {out / 'recipe.json'} cannot be read: {type(e).__name__}: {e}")
    return recipe


def finish_args(args: argparse.Namespace) -> argparse.Namespace:
    """The finishing stage of a run: FINISH's settings over the run's, from its best.npz, in out/finish, for FINISH's
    decisions (resumed where it has begun)."""
    out = Path(args.out) / "finish"
    settings, decisions = FINISH[args.hyper.game]
    resume = (out / "state.json").exists()
    hp = None if resume else dataclasses.replace(args.hyper, **settings, init=str(Path(args.out) / "best.npz"))
    return argparse.Namespace(**{**vars(args), "out": str(out), "resume": resume, "hyper": hp,
                                 "timesteps": decisions, "seconds": None, "finish": False, "recipe": None})


def saved_hyper(p: argparse.ArgumentParser, out: Path, given: dict) -> Hyper:
    """The settings of the run saved in `out`; the program ends if there is none or an option given differs
    from them (a resumed run keeps its settings: its random streams, network and games follow from them)."""
    try:
        hp = Hyper(**json.loads((out / "state.json").read_text())["hyper"])
    except FileNotFoundError:
        p.error(f"argument --resume: no run saved in {out} (no state.json there)")
    except (OSError, ValueError, TypeError, KeyError) as e:
        p.error(f"argument --resume: the run saved in {out} cannot be read: {type(e).__name__}: {e}")
    for option, settings in given.items():
        differ = [f"{n}={shown(v)} (the run has {shown(getattr(hp, n))})" for n, v in settings.items()
                  if (tuple(v) if isinstance(v, list) else v) != getattr(hp, n)]
        if differ:
            p.error(f"argument {option}: --resume continues the run in {out} with its own settings: "
                    f"{'; '.join(differ)}")
    return hp


def read_summary(path: Path) -> dict:
    """The summary.json of a run, checked as far as resuming reads it (ValueError otherwise)."""
    s = json.loads(path.read_text())
    evals = s.get("evaluations") if isinstance(s, dict) else None
    numbers = (int, float)
    if not (isinstance(evals, list) and all(isinstance(s.get(k), numbers) for k in ("wall_seconds", "cpu_seconds"))
            and all(isinstance(e, dict) and isinstance(e.get("win_rate"), numbers) and
                    isinstance(e.get("decisions"), int) for e in evals)):
        raise ValueError("not the summary of a run (evaluations, wall_seconds, cpu_seconds)")
    return s


def phase(learner) -> str:
    """What the progress bar calls the run's current phase: the warm start's imitation, then the method."""
    hp = learner.hp
    return f"{hp.game} {'imitation of ' + hp.teacher if learner.imitating else hp.method.upper()}"


def plot_curve(evaluations: list, path: Path, game: str, num_players: int) -> None:
    """curve.png: win rate against the heuristic players (95% interval) over decisions and over wall time."""
    from .plots import pyplot

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    wr = np.array([e["win_rate"] for e in evaluations])
    err = np.abs(np.array([e["ci"] for e in evaluations]).T - wr)
    for ax, key, label in ((axes[0], "decisions", "decisions of experience"), (axes[1], "wall_seconds",
                                                                                 "wall time (s)")):
        ax.errorbar([e[key] for e in evaluations], wr, yerr=err, marker="o", capsize=3)
        ax.axhline(1 / num_players, color="gray", ls="--", label=f"1/{num_players}")
        ax.set_xlabel(label)
        ax.legend()
    axes[0].set_ylabel(f"win rate vs {num_players - 1} heuristic players")
    fig.suptitle(f"{game}: learned agent against the heuristic")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def open_run(args, prog: str) -> tuple | int:
    """(learner, summary of the run so far, the --out folder's lock): everything read and checked before
    anything is written; 2, the message printed, when something cannot be."""
    out = Path(args.out)
    prior = {"wall_seconds": 0.0, "cpu_seconds": 0.0, "evaluations": []}
    option = "--resume" if args.resume else "--set init" if args.hyper.init else "--set"
    try:
        if args.resume:
            learner = Learner.resume(out)
            if (out / "summary.json").exists():
                option = f"--resume: {out / 'summary.json'}"
                prior.update(read_summary(out / "summary.json"))
        else:
            learner = Learner(args.hyper)
        option = "--out"
        out.mkdir(parents=True, exist_ok=True)
        lock = lock_folder(out)         # one run per folder, held until this process ends
    except (OSError, ValueError, TypeError) as e:
        print(f"{prog}: error: argument {option}: {e}", file=sys.stderr)
        return 2
    return learner, prior, lock


class Run:
    """What a run writes while it trains: its log (out/log.txt), TensorBoard scalars (out/tb), the progress
    bar, the evaluations (best.npz, curve.png), checkpoints, the saved state and summary.json."""

    def __init__(self, args, prog: str, argv, learner: Learner, prior: dict, started: tuple):
        from torch.utils.tensorboard import SummaryWriter
        from tqdm.auto import tqdm

        self.args, self.prog, self.learner, self.prior = args, prog, learner, prior
        self.t_start, self.cpu_start = started
        self.out = Path(args.out)
        self.write = tqdm.write
        self.logf = open(self.out / "log.txt", "a")
        self.evaluations = list(prior["evaluations"])
        self.log(f"{prog} {' '.join(sys.argv[1:] if argv is None else argv)}")
        self.writer = SummaryWriter(str(self.out / "tb"))
        c = learner.counters
        self.bar = tqdm(total=args.timesteps, initial=c["decisions"], unit="dec", desc=phase(learner),
                        disable=args.no_progress, smoothing=0.1)
        if self.evaluations:
            self.bar.set_postfix(eval=f"{self.evaluations[-1]['win_rate']:.3f}", refresh=False)
        self.next_eval = (c["decisions"] // args.eval_every + 1) * args.eval_every
        self.next_ckpt = (c["decisions"] // args.checkpoint_every + 1) * args.checkpoint_every

    def log(self, msg: str) -> None:
        self.write(msg)
        self.logf.write(msg + "\n")
        self.logf.flush()

    def wall(self) -> float:
        """Wall seconds of the run, its earlier sessions included."""
        return self.prior["wall_seconds"] + time.perf_counter() - self.t_start

    def summary(self) -> dict:
        """Write out/summary.json (settings, counters, speed, evaluations) and return it."""
        learner, hp, c = self.learner, self.learner.hp, self.learner.counters
        s = {"game": hp.game, "num_players": hp.num_players, "options": learner.game.config.to_dict(),
             "method": hp.method, "decisions": c["decisions"], "bc_decisions": c["bc_decisions"],
             "decisions_per_second": c["loop_decisions"] / max(c["loop_seconds"], 1e-9),
             "wall_seconds": self.wall(),
             "cpu_seconds": self.prior["cpu_seconds"] + time.process_time() - self.cpu_start,
             "evaluations": self.evaluations, "model": str(self.out / "best.npz"),
             "final_model": str(self.out / "model.npz"),
             "hyper": {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(hp).items()}}
        replace_file(self.out / "summary.json", lambda tmp: tmp.write_text(json.dumps(s, indent=1)))
        return s

    def evaluate(self) -> None:
        """Evaluate the policy against the heuristic: logged, plotted, and saved as best.npz when the best yet."""
        learner, c, out = self.learner, self.learner.counters, self.out
        t = time.perf_counter()
        e = {**learner.evaluate(), "wall_seconds": self.wall()}
        self.evaluations.append(e)
        for k in ("win_rate", "mean_round_points"):
            self.writer.add_scalar(f"eval/{k}", e[k], c["decisions"])
        self.writer.add_scalar("eval/ci_low", e["ci"][0], c["decisions"])
        self.writer.add_scalar("eval/ci_high", e["ci"][1], c["decisions"])
        best = max(x["win_rate"] for x in self.evaluations)
        line = (f"[eval] {c['decisions']:>11,} decisions  win rate vs {learner.n - 1} heuristic {e['win_rate']:.3f} "
                f"[{e['ci'][0]:.3f}, {e['ci'][1]:.3f}]  pts/round {e['mean_round_points']:.2f}  "
                f"({time.perf_counter() - t:.0f}s)")
        self.bar.set_postfix(eval=f"{e['win_rate']:.3f}", refresh=False)
        if e["win_rate"] >= best:
            save_model(out / "best.npz", learner.header(), learner.weights())
            line += "  best so far: best.npz"
        self.log(line)
        plot_curve(self.evaluations, out / "curve.png", learner.hp.game, learner.n)

    def save(self) -> None:
        """The model and what resuming needs, and the summary."""
        self.learner.save_state(self.out)
        self.summary()

    def checkpoint(self) -> None:
        """out/checkpoints/model_DECISIONS.npz, and the state saved."""
        learner = self.learner
        (self.out / "checkpoints").mkdir(exist_ok=True)
        save_model(self.out / "checkpoints" / f"model_{learner.counters['decisions']}.npz", learner.header(),
                   learner.weights())
        self.save()

    def iteration(self) -> None:
        """One iteration of the learner, logged; evaluations and checkpoints when their turn has come."""
        learner, c, args = self.learner, self.learner.counters, self.args
        logs = learner.iteration()
        for k, v in logs.items():
            self.writer.add_scalar(k, v, c["decisions"])
        self.bar.set_description(phase(learner), refresh=False)
        self.bar.update(logs["rollout/decisions"])
        if c["decisions"] >= self.next_eval:
            self.next_eval += args.eval_every
            self.evaluate()
        if c["decisions"] >= self.next_ckpt:
            self.next_ckpt += args.checkpoint_every
            self.checkpoint()

    def going(self) -> bool:
        """Whether the run goes on: neither --timesteps nor --seconds reached."""
        goal, seconds = self.args.timesteps, self.args.seconds
        return (goal is None or self.learner.counters["decisions"] < goal) and (
            seconds is None or time.perf_counter() - self.t_start < seconds)

    def train(self) -> None:
        """Evaluate first (a new run), iterate while `going`, evaluate the last policy, save."""
        if not self.evaluations:
            self.evaluate()
        while self.going():
            self.iteration()
        if self.evaluations[-1]["decisions"] != self.learner.counters["decisions"]:
            self.evaluate()
        self.save()

    def close(self) -> None:
        self.bar.close()
        self.writer.close()
        self.logf.close()

    def stopped(self, e: KeyboardInterrupt) -> int:
        """Ctrl-C or SIGTERM: save, say so; exit status 130 or 143."""
        self.bar.close()
        self.save()
        how = "stopped by SIGTERM" if isinstance(e, Stopped) else "interrupted"
        print(f"{how} at {self.learner.counters['decisions']:,} decisions: model and state saved in {self.out} "
              "(--resume continues)")
        self.close()
        return 143 if isinstance(e, Stopped) else 130

    def diverged(self, e: Diverged) -> int:
        """An update diverged: the last good model and state saved; exit status 1."""
        self.bar.close()
        self.save()
        self.log(f"{self.prog}: error: {e}; the last good model and state are saved in {self.out} (--resume "
                 "continues from them: lower lr or max_grad_norm with --set)")
        self.close()
        return 1

    def done(self) -> int:
        self.bar.close()
        self.writer.close()
        s = self.summary()
        self.log(f"done: {s['decisions']:,} decisions at {s['decisions_per_second']:,.0f}/s, final win rate "
                 f"{self.evaluations[-1]['win_rate']:.3f}, model {self.out / 'model.npz'}, best "
                 f"{self.out / 'best.npz'}")
        self.logf.close()
        return 0


def main(argv=None, prog: str = "python -m quando_env.agents.learner") -> int:
    """Exit status 0; 2 for a bad option (nothing written) or an --out folder another run is writing to; 130
    after Ctrl-C, 143 after SIGTERM (a scheduler's or kill's stop; a background job of a shell ignores Ctrl-C),
    both with the model and state saved; 1 when an update diverged (the last good model and state saved). `prog`:
    the command's name in its messages and log (train.py runs this with its own). With --finish, the finishing
    stage follows a run that ended well (a stopped one resumes first)."""
    args = parse_args(argv, prog)
    if not (args.finish and args.resume and (Path(args.out) / "finish" / "state.json").exists()):
        status = train_stage(args, prog, argv)
        if status or not args.finish:
            return status
    stage = finish_args(args)
    settings = " ".join(f"{k}={shown(v)}" for k, v in FINISH[args.hyper.game][0].items())
    print(f"{prog}: the finishing stage of {args.hyper.game} ({settings}) "
          f"{'resumed' if stage.resume else 'from ' + stage.hyper.init} in {stage.out}")
    return train_stage(stage, prog, argv)


def train_stage(args: argparse.Namespace, prog: str, argv) -> int:
    """One run as parse_args describes it (main's exit statuses)."""
    started = time.perf_counter(), time.process_time()
    opened = open_run(args, prog)
    if isinstance(opened, int):
        return opened
    learner, prior, lock = opened
    if args.recipe is not None:
        replace_file(Path(args.out) / "recipe.json", lambda tmp: tmp.write_text(json.dumps(args.recipe)))
    run = Run(args, prog, argv, learner, prior, started)
    stops = sigterm_stops()
    stops.__enter__()
    c, goal = learner.counters, args.timesteps
    if goal is not None and c["decisions"] >= goal:
        run.log(f"the run has {c['decisions']:,} decisions already, at least --timesteps {goal:,}: nothing to train")
    try:
        run.train()
    except KeyboardInterrupt as e:
        return run.stopped(e)
    except Diverged as e:
        return run.diverged(e)
    finally:
        stops.__exit__(None, None, None)
        lock.close()
    return run.done()


if __name__ == "__main__":
    sys.exit(main())
