"""Quando (KENDi, 2024): lowest hand sum wins, with 55 double-sided cards.

| | |
|---|---|
| Import | `from quando_env import quando_v0` |
| Actions | Discrete(134), masked |
| Agents | `player_0` .. `player_{n-1}`, n = 2..6 (default 4); clockwise = increasing index |
| Action shape / values | (1,), 0..133 |
| Observation | `{"observation": Box(0, inf, (obs_dim,), float32), "action_mask": Box(0, 1, (134,), int8)}`; obs_dim = 764, 958, 1152, 1346, 1540 for 2..6 players |
| State | `env.state()`: perfect information, for centralised critics |

Every decision point of the rules is asked, even with one legal action: the active player's discard,
knock or pass; their draw (visible or hidden side); each penalised player's flip or draw after a
triplet; in the oya edition the knock decision after drawing. The rules as implemented, with the ids
tests cite, are in `quando_env/quando/RULES.md`; the action table and the observation layout are in
README; `env.observation_layout` and `env.state_layout` name the parts of the observation and of `env.state()`
(docs/observations.md).

Rewards: `reward="points"` (default): minus a player's round points when a round ends, so an episode's
return is minus the final total; `reward="win"`: +1 for each winner (lowest total) and -1 for the others
when the game ends. `infos[agent]` always holds `hand_sum`, `score` (game total), `round_points` (of the
last finished round, 0 until `rounds_done` > 0) and `rounds_done`.

Options: `num_players` (4), `edition` ("kendi" | "oya"), `episode` ("game" | "round"), `hand_size`,
`target_score` (50), `knock_penalty` (5), `knock_min_turns` (2), `first_dealer` (seat n-1), `max_steps`
(10000, truncation), `reward`, `render_mode` ("ansi", "human", "rgb_array"). `reset(seed=, options={"deck":
55 [up, down] pairs top first, "dealer": seat})` fixes the first round.

Version history:
- v0: the first release. Since the game interface (quando_env.core), infos carry every key from reset on
  (`round_points` is 0 with `rounds_done` == 0 before the first round ends).
"""
from .adapters.aec import pettingzoo_pair
from .quando.game import VectorGame

__all__ = ["VectorGame", "env", "raw_env"]

raw_env, env = pettingzoo_pair(
    VectorGame, __name__, "Quando for 2-6 players (options: quando_env.quando.Config's fields plus render_mode).")
