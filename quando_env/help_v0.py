"""Help! (Kim Vandenbroucke): build ascending rows; who cannot play asks for help, and a failed help costs
the others a point.

| | |
|---|---|
| Import | `from quando_env import help_v0` |
| Actions | Discrete(105), masked |
| Agents | `player_0` .. `player_{n-1}`, n = 3..5 (default 4); the direction alternates per round (R4) |
| Action shape / values | (1,), 0..104 |
| Observation | `{"observation": Box(0, inf, (obs_dim,), float32), "action_mask": Box(0, 1, (105,), int8)}`; obs_dim = 207, 228, 249 for 3..5 players |
| State | `env.state()`: perfect information, for centralised critics |

Actions: 0..10 play the number 1..11; 11..16 a Wild at row slot 0..5; 17 + 11*s + (v-1) a Switch taking row
slot s and putting the number v; 72 Zap; 73 No!; 74 ask for help; 75 + k the helper gives a card of kind k;
90 + k the asker gives back a card of kind k (kinds: 0..10 the numbers 1..11, 11 Wild, 12 Switch, 13 Zap,
14 No!). Every decision of the rules is asked, even with one legal action: the starter's forced opening,
asking for help, the helper's gift, the give-back and the play of the received card. The rules as
implemented, with the ids tests cite, are in `quando_env/help/RULES.md`; `env.observation_layout` and
`env.state_layout` name the parts of the observation and of `env.state()` (docs/observations.md).

Rewards: `reward="points"` (default): +1 per point a player scores, when the round ends (an episode's
return is the player's final total; the game is won by reaching the target); `reward="win"`: +1 for each
winner (highest total) and -1 for the others when the game ends. A round reaching `max_steps` decisions
truncates the game (`truncations`, no reward). `infos[agent]` always holds `score` (game total),
`round_points` (of the last finished round, 0 until `rounds_done` > 0) and `rounds_done`.

Options: `num_players` (4), `hand_size` (4), `row_max` (6), `target` (3), `open_lowest` (True),
`reshuffle` ("shuffle" | "flip"), `episode` ("game" | "round"), `reward` ("points" | "win"), `max_steps`
(1000 per round), `render_mode` ("ansi", "human", "rgb_array"). `reset(seed=, options={"deck": 105 card
codes top first, "starter": seat})` fixes the first round.

Version history:
- v0: the first release.
"""
from .adapters.aec import pettingzoo_pair
from .help.game import VectorGame

__all__ = ["VectorGame", "env", "raw_env"]

raw_env, env = pettingzoo_pair(
    VectorGame, __name__, "Help! for 3-5 players (options: quando_env.help.Config's fields plus render_mode).")
