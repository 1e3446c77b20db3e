"""The settings of a run and each game's recipe: read first, since everything else takes a `Hyper`.

`Hyper` holds every setting of a run (stored with it; `--set name=value` changes one) and checks them all, the
game's options included, before a run uses any. `recipe`, `default_decisions` and `finish` (read from the game's
spec) are what `train.py --game G` runs: the warm start and learning rate of each game, the decisions a run collects
when given no budget, and the finishing stage that made each shipped model.
"""
import math
from dataclasses import dataclass, field

import numpy as np
import torch

from quando_env.checks import as_bool, as_choice, as_int, need, shown, to_int
from quando_env.registry import game_class, game_names, game_spec

from quando_env.evaluation.matches import MAX_GAMES as MAX_MATCH_GAMES
from quando_env.agents.learned import MAX_ANCHOR_WEIGHT


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
                                                   # game (training.credit; 0: none)
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
        need(not (self.anchor and self.method == "dmc"), f"anchor={shown(self.anchor)} with method='dmc'",
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
        """The win-probability model that round credit reads (training.credit), checked against the run's game."""
        from .. import credit

        path = self.credit_model or credit.shipped_path(self.game, self.num_players)
        need(bool(self.credit_model) or path.exists(), f"round_credit={self.round_credit} for {self.game} with "
             f"{self.num_players} players",
             "a credit_model: none ships for them (python -m quando_env.training.credit)")
        return credit.load(path, self.game, self.num_players, self.options)


# Each game's recipe is in its spec (quando_env.spec.GameSpec: recipe, decisions, finish; agents/models/README.md
# tells how each shipped model was made). Decisions a new run collects when given neither --seconds nor --timesteps,
# so that `train.py --game G` alone ends, for a game whose spec gives none:
OTHER_GAMES_DECISIONS = 10_000_000
# The finishing stage that made each shipped model from a first run's best.npz: PPO against the heuristic alone
# (every other seat a heuristic player), with what helped that game (its spec's finish settings) over these.
# `train.py --game G` alone runs it after the recipe, in OUT/finish.
AGAINST_HEURISTIC = dict(bc_decisions=0, self_play_share=0.0, heuristic_share=1.0, lr=1e-4)


def recipe(game: str) -> dict:
    """The settings `train.py --game G` starts a run with (the learning rate and warm start of the game's spec)."""
    return dict(game_spec(game).recipe)


def default_decisions(game: str) -> int:
    """The decisions a new run of `game` collects when given no budget."""
    decisions = game_spec(game).decisions
    return OTHER_GAMES_DECISIONS if decisions is None else decisions


def finish(game: str) -> tuple[dict, int] | None:
    """The finishing stage of `game`: (settings over a run's, decisions), or None for a game without one."""
    stage = game_spec(game).finish
    return None if stage is None else ({**AGAINST_HEURISTIC, **stage[0]}, stage[1])


# the games of the package by name (their specs read at import)
RECIPES = {game: recipe(game) for game in game_names()}
DEFAULT_DECISIONS = {game: default_decisions(game) for game in game_names()}
FINISH = {game: finish(game) for game in game_names() if finish(game) is not None}
