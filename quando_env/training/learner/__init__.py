"""A batched self-play learner written once over the game contract (quando_env.core.Game): any game with a
heuristic agent trains with it, and the result plays as agents.learned.LearnedAgent.

    python -m quando_env.training.learner --game cabo --seconds 600 --out runs/learned_cabo

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
win the game over the round (training.credit: fitted from the public totals; at the game's end the chance becomes 1
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

The package, one concept a module, in reading order:

- `hyper`: the settings of a run (`Hyper`) and each game's recipe from its spec (`recipe`,
  `default_decisions`, `finish`; RECIPES, DEFAULT_DECISIONS, FINISH hold them for the package's games);
- `net`: the network (`Net`, its move scorer's `Legal` outputs) and the masked softmax it acts by;
- `losses`: what an update minimizes, per method and phase (PPO, imitation, DMC);
- `buffer`: the buffer of one rollout's decisions (`Rollout`, its arrays a `Transition`);
- `collect`: collecting a rollout (`Collector`: the games, who plays their seats, acting, the rewards);
- `state`: what resuming reads of a saved run, checked;
- `loop`: the learner itself (`Learner`: the plan, advantages, updates, the model, save, resume);
- `run`: a run folder (`Run`: log, TensorBoard, evaluations, best.npz, curve.png, summary.json);
- `cli`: the command line (`parse_args`, `main`); `__main__` runs it.

Every name is importable from the package itself (`from quando_env.training.learner import Hyper, Learner`).
"""
from .hyper import (AGAINST_HEURISTIC, DEFAULT_DECISIONS, FINISH, MAX_ROLLOUT, MAX_ROUND_CREDIT, MAX_THREADS,
                    OTHER_GAMES_DECISIONS, RECIPES, SEED_MAX32, Hyper, default_decisions, finish, recipe)
from .net import Legal, Net, anchored, as_tensors, dense, legal_moves, masked_log_probs, masked_probs, policy_terms
from .losses import LOSSES, dmc_imitation_loss, dmc_loss, imitation_loss, loss_function, ppo_loss
from .buffer import Rollout, Transition
from .collect import LEARNER, Collector
from .state import check_state, is_pcg64_state, read_state
from .loop import Diverged, Learner, thread_counts
from .run import Run, open_run, phase, plot_curve, read_summary
from .cli import finish_args, main, parse_args, parser, read_recipe, saved_hyper, train_stage

__all__ = ["AGAINST_HEURISTIC", "DEFAULT_DECISIONS", "FINISH", "MAX_ROLLOUT", "MAX_ROUND_CREDIT", "MAX_THREADS",
           "OTHER_GAMES_DECISIONS", "RECIPES", "SEED_MAX32", "Hyper", "default_decisions", "finish", "recipe",
           "Legal", "Net", "anchored", "as_tensors", "dense", "legal_moves", "masked_log_probs", "masked_probs",
           "policy_terms",
           "LOSSES", "dmc_imitation_loss", "dmc_loss", "imitation_loss", "loss_function", "ppo_loss",
           "Rollout", "Transition", "LEARNER", "Collector",
           "check_state", "is_pcg64_state", "read_state",
           "Diverged", "Learner", "thread_counts",
           "Run", "open_run", "phase", "plot_curve", "read_summary",
           "finish_args", "main", "parse_args", "parser", "read_recipe", "saved_hyper", "train_stage"]
