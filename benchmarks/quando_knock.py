"""Where Quando's learned model gains and loses against the heuristic: its knock decisions against its card play.

    python benchmarks/quando_knock.py [--games 4000] [--seeds 5000000 7000000] [--model PATH]

Every row plays the same games against three heuristic players (4 players, seats rotating, evaluate.py's
counting). Two rows mix the players (an ablation for analysis, not an agent to ship: it reads the heuristic):
- "heuristic, learned knocks": the heuristic's moves, except that where knocking is legal the learned model
  decides whether to knock (when it does not and the heuristic would, the heuristic's best other move);
- "learned, heuristic knocks": the other way round.
If the first row beats both players, the model's knocks are what it learned and its discards and draws are
what it lacks.
"""
import argparse

import numpy as np

from quando_env.agents import make_agent
from quando_env.agents.base import Agent
from quando_env.evaluation.matches import MAX_GAMES, play_match
from quando_env import argtypes
from quando_env.quando.cards import KNOCK

PLAYERS = 4


class KnockMix(Agent):
    """`cards` plays, except where knocking is legal: then `knocks` decides whether to knock; when `cards` chose
    to knock and `knocks` does not, `cards`' best move other than the knock is played."""

    game = "quando"

    def __init__(self, knocks: str, learned, heuristic):
        self.learned, self.heuristic, self.knocks = learned, heuristic, knocks

    def act_batch(self, obs, masks):
        scores, (heu, vals) = self.learned.scores(obs, masks), self.heuristic.action_values(obs, masks)
        lrn = scores.argmax(1)                      # the learned agent's move (scores: -inf where illegal)
        scores[:, KNOCK] = -np.inf
        vals = np.where(masks, vals, np.inf)        # the heuristic's worths: lower is better
        vals[:, KNOCK] = np.inf
        cards, other = (heu, vals.argmin(1)) if self.knocks == "learned" else (lrn, scores.argmax(1))
        knock = (lrn if self.knocks == "learned" else heu) == KNOCK
        can = masks[:, KNOCK]
        return np.where(can & knock, KNOCK, np.where(can & (cards == KNOCK), other, cards))


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=argtypes.int_in(1, MAX_GAMES), default=4000, help="games per seed and row")
    p.add_argument("--seeds", type=argtypes.seed, nargs="+", default=[5_000_000, 7_000_000])
    p.add_argument("--model", default="", help="a learned Quando model (default: the shipped one)")
    args = p.parse_args(argv)
    try:
        learned = make_agent(f"learned:{args.model}" if args.model else "learned", game="quando",
                             num_players=PLAYERS)
    except (ValueError, FileNotFoundError) as e:
        p.error(f"argument --model: {e}")
    heuristic = make_agent("heuristic", game="quando", num_players=PLAYERS)
    rows = [("learned", learned), ("heuristic", heuristic),
            ("heuristic, learned knocks", KnockMix("learned", learned, heuristic)),
            ("learned, heuristic knocks", KnockMix("heuristic", learned, heuristic))]
    print(f"Quando, 4 players, each row against three heuristic players, {args.games} games per seed")
    print("| player | seed | win rate [95% CI] | points/round | knock rate | knocks won |")
    print("|---|---:|---|---:|---:|---:|")
    for name, agent in rows:
        for seed in args.seeds:
            r = play_match([agent] + [heuristic] * (PLAYERS - 1), args.games, seed=seed, progress=False,
                           names=["row"] + ["others"] * (PLAYERS - 1), game="quando").pooled()["row"]
            lo, hi = r["win_rate_ci95"]
            print(f"| {name} | {seed} | {r['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] | {r['mean_round_points']:.2f} | "
                  f"{r['knock_rate']:.3f} | {r['knock_success_rate']:.3f} |", flush=True)


if __name__ == "__main__":
    main()
