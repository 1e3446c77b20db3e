"""How strong a Help! player gets against three random players, and what seeing hidden cards is worth.

    python benchmarks/help_ceiling.py [--games 1000] [--samples 96] [--z 2.0] [--seed 2000000]

Issue 12 asks the heuristic to win half its games against three random players; it wins about 0.49. This
probe asks whether better choices from the same observation would get there. Every row plays the same
games (the player in seat 0, three uniformly random players, 4-player Help! with the default options; a game
is won by every seat at the target, as evaluate.py counts it):

- greedy, heuristic: the agents of agents.help;
- rollout: the heuristic improved by a one-step search (quando_env.agents.rollout.RolloutAgent: every legal action is
  tried in `--samples` worlds and replaces the heuristic's choice only when it scores more round points by
  `--z` standard errors), whose play-outs use the true opponent model (seat 0 the heuristic, the others
  random) and whose worlds are the determinization of its observation: what it may know;
- the same search in worlds it may not know, as upper bounds (not players): the opponents' hands as they
  are with the draw pile reshuffled ("sees hands"), or the whole true state ("sees hands and draws").

If the rollout row does not beat the heuristic while the seeing rows do, the heuristic's choices are about as
good as its observation allows, and what it lacks to win more is information, not play.
"""
import argparse
import time
from dataclasses import replace

import numpy as np
from tqdm.auto import tqdm

from quando_env.agents import RandomAgent
from quando_env.evaluation.matches import wilson
from quando_env.agents.help import GreedyAgent, HeuristicAgent, search_kit
from quando_env.agents.rollout import RolloutAgent
from quando_env.help import VectorGame

PLAYERS = 4


def play_out(game, me, others, before_me=None) -> None:
    """Step every game of `game` to its end: seat 0 played by `me`, the other seats by `others`;
    before_me(games) is called with the games where seat 0 is about to decide."""
    while (live := np.flatnonzero(game.current_player >= 0)).size:
        obs, masks = game.observe(games=live), game.legal_action_mask[live]
        acts = others.act(obs, masks)
        mine = np.flatnonzero(game.current_player[live] == 0)
        if mine.size:
            if before_me is not None:
                before_me(live[mine])
            acts[mine] = me.act(obs[mine], masks[mine])
        game.step(acts, games=live)


def true_model_playout(seed: int):
    """A search kit's play-out: seat 0 (the searching player) plays the heuristic, the others play at random,
    as in the games measured."""
    me, others = HeuristicAgent(), RandomAgent(seed=seed)
    return lambda game, horizon: play_out(game, me, others)


class SeeingRollout(RolloutAgent):
    """The rollout search with worlds copied from the true game states (`true_states`, one per observation
    row, set before each act call), each world with its own random stream. sees="hands": the draw pile is
    reshuffled in every world (the opponents' hands are known, the coming draws are not); "all": nothing is."""

    def __init__(self, sees: str, **options):
        super().__init__(**options)
        self.sees = sees
        self.true_states = None

    def worlds(self, obs, i, k, cfg, seed):
        gen = np.random.default_rng(seed)
        w = np.repeat(self.true_states[i:i + 1], k)
        w["rng"][:, 0] = gen.integers(1, 2**63, size=k, dtype=np.uint64)
        if self.sees == "hands":
            for j in range(k):
                gen.shuffle(w["draw"][j, w["dpos"][j]:w["dend"][j]])
        return w


def play(agent, games: int, seed: int, desc: str) -> dict:
    """Play `games` games with `agent` in seat 0 and three random players (game j of the batch is the same
    deal in every row); wins count every seat at the target."""
    vg = VectorGame(games, seed=seed, autoreset=False, num_players=PLAYERS)
    vg.reset(seed=seed)
    bar = tqdm(total=games, desc=desc, unit="game", leave=False)

    def before_me(rows):
        if isinstance(agent, SeeingRollout):
            agent.true_states = vg.states[rows]
        bar.update(games - (vg.current_player >= 0).sum() - bar.n)
    t0 = time.time()
    play_out(vg, agent, RandomAgent(seed=seed), before_me)
    bar.close()
    wins = int(vg.winners()[:, 0].sum())
    return {"wins": wins, "games": games, "points_per_round": vg.totals[:, 0].sum() / vg.rounds_done.sum(),
            "seconds": time.time() - t0}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--samples", type=int, default=96, help="worlds per searched decision")
    p.add_argument("--z", type=float, default=2.0, help="standard errors a searched action must win by")
    p.add_argument("--seed", type=int, default=2_000_000)
    args = p.parse_args(argv)
    kit = replace(search_kit(), playout=true_model_playout(args.seed + 1))
    search = dict(samples=args.samples, knock_samples=args.samples, max_candidates=None, relative=0.0, z=args.z,
                  seed=args.seed, kit=kit)
    rows = [("greedy", GreedyAgent()), ("heuristic", HeuristicAgent()),
            ("rollout (its observation)", RolloutAgent(**search)),
            ("rollout, sees hands", SeeingRollout("hands", **search)),
            ("rollout, sees hands and draws", SeeingRollout("all", **search))]
    print(f"{args.games} games of 4-player Help!, the player in seat 0 against three random players, seed "
          f"{args.seed}; search: {args.samples} worlds, z = {args.z}")
    print(f"{'player':32s} {'win rate':>8s} {'95% CI':>16s} {'pts/round':>9s} {'seconds':>8s}")
    for name, agent in rows:
        r = play(agent, args.games, args.seed, name)
        lo, hi = wilson(r["wins"], r["games"])
        print(f"{name:32s} {r['wins'] / r['games']:8.3f} [{lo:.3f}, {hi:.3f}] {r['points_per_round']:9.3f} "
              f"{r['seconds']:8.0f}", flush=True)


if __name__ == "__main__":
    main()
