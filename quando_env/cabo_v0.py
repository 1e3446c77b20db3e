"""Cabo: a knock game with a standard 52-card deck; lowest hand total wins, with peeks, Jack swaps,
Queen looks and snaps.

| | |
|---|---|
| Import | `from quando_env import cabo_v0` |
| Actions | Discrete(350), masked |
| Agents | `player_0` .. `player_{n-1}`, n = 2..6 (default 4); clockwise = increasing index |
| Action shape / values | (1,), 0..349 |
| Observation | `{"observation": Box(0, inf, (obs_dim,), float32), "action_mask": Box(0, 1, (350,), int8)}`; obs_dim = 1147, 1581, 2015, 2449, 2883 for 2..6 players |
| State | `env.state()`: perfect information, for centralised critics |

Every decision point of the rules is asked, even with one legal action: the draw (stock or discard), the
Jack exchange and the Queen look when they apply, the placing, each player's part of every snap window
(R7's upcard window included; a correct snap asks the same player again) and the knock decision. The
action table: 0 draw from the stock, 1 take the discard, 2+p swap into slot p, 10 discard the drawn
card, 11+p Queen look at slot p, 19+64(r-1)+8p+q Jack (own slot p with slot q of the player r seats
clockwise), 339+p snap slot p, 347 pass, 348 knock, 349 do not knock. The rules as implemented, with the
ids tests cite, are in `quando_env/cabo/RULES.md`; `env.observation_layout` names every part of the
observation (known cards as 52-way one-hots of the card id; nothing a player has not seen) with its index
range and meaning, and `env.state_layout` those of `env.state()` (docs/observations.md).

Rewards: `reward="points"` (default): when a round ends, minus what it adds to a player's game total
(the round points, less 25 when R25 applies), so an episode's return is minus the final total;
`reward="win"`: +1 for each winner (lowest total) and -1 for the others when the game ends.
`infos[agent]` always holds `hand_total` (R22), `score` (game total), `round_points` (of the last
finished round, R23, 0 until `rounds_done` > 0) and `rounds_done`.

Options: `num_players` (4), `hand_size` (4), `peek` (2), `knocker_final_turn` (True), `tie_doubles`
(False), `turn_limit` (200; 0 = none), `target` (100), `dealer` (first dealer, seat n-1), `episode`
("game" | "round"), `reward` ("points" | "win"), `max_steps` (10000, truncation), `render_mode`
("ansi", "human", "rgb_array"). `reset(seed=, options={"deck": 52 card ids top first, "dealer": seat})` fixes the
first round.

Version history:
- v0: the first release.
"""
from .adapters.aec import pettingzoo_pair
from .cabo.game import VectorGame

__all__ = ["VectorGame", "env", "raw_env"]

raw_env, env = pettingzoo_pair(
    VectorGame, __name__, "Cabo for 2-6 players (options: quando_env.cabo.Config's fields plus render_mode).")
