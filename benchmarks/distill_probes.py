"""Why a network fitted to the search's labels can win less: three probes on held-out labels of search:learned.

    python benchmarks/distill_probes.py LABELS... --model PATH [--distilled PATH] [--held 3] [--worlds 64]
                                        [--retest 2000] [--seed 0]

LABELS are folders of `distill label --teacher search --prior learned:PATH` (the search with the model PATH as its
prior); the held-out decisions are the first --held shards of each (train on the others). A departure is a decision
where the search chose another move than the model's own best. Each probe plays what the deciding seat has seen:
worlds are the game's determinization of its observation (the search's own), and the opponents play the game's
heuristic, as in the games the labels come from.

- retest: the first --retest held-out decisions searched again with fresh worlds (the folders' search settings):
  how often a departure repeats. Noise would not; a departure that repeats is the search's view of the position.
- departures: at every held-out departure, the model's move and the search's played out to the round's end in
  --worlds fresh worlds, the deciding seat continuing with the game's heuristic (what the search's play-outs assume)
  or with the model: is the departure better for the model too? Scores are the search's (the seat's round points
  less half the opponents' mean; higher is better here).
- changes (with --distilled): at every held-out decision where the distilled network's move differs from the
  model's, both moves played out the same way with the distilled network continuing, split into the search's
  departures it learned, the moves the search agreed with that it lost, and others; per decision, what its changes
  are worth.
"""
import argparse
import json
from dataclasses import replace

import numpy as np

from quando_env import argtypes, rng
from quando_env.agents import game_package, make_agent
from quando_env.agents.learned import LearnedAgent
from quando_env.agents.rollout import RolloutAgent
from quando_env.training.label_shards import read_manifest, read_shard, shard_path

from help_ceiling import play_out


class Continued(RolloutAgent):
    """The rollout search with its play-outs to the round's end played by `own` for seat 0 (the searching seat) and
    `others` for every other seat (help_ceiling's play_out as the kit's play-out), instead of the kit's policy."""

    def __init__(self, kit, own, others, worlds: int, options: dict):
        kit = replace(kit, playout=lambda game, horizon: play_out(game, own, others))
        super().__init__(kit, samples=worlds, knock_samples=worlds, max_worlds=1 << 22, **options)

    def gains(self, obs, masks, first, second, seed: int) -> np.ndarray:
        """Per decision, the search's score of move `second` less that of `first`, in the same fresh worlds."""
        n = self.kit.players_of_obs(obs.shape[1])
        values = np.full(masks.shape, np.nan)
        chunk = [(i, np.unique([first[i], second[i]]), self.samples, int(first[i]), seed + i) for i in range(len(obs))]
        for c in range(0, len(chunk), 64):
            self._search(obs, chunk[c:c + 64], n, np.zeros(len(obs), np.int64), values)
        rows = np.arange(len(obs))
        return values[rows, second] - values[rows, first]


def held_out(folders, held: int) -> tuple[dict, dict]:
    """(header, arrays) of the first `held` shards of every folder, joined."""
    shards = []
    for folder in folders:
        listed = sorted(int(i) for i in read_manifest(folder)["shards"])
        shards += [read_shard(shard_path(folder, i)) for i in listed[:held]]
    header = shards[0][0]
    return header, {k: np.concatenate([s[1][k] for s in shards]) for k in ("obs", "masks", "choice")}


def summary(gain: np.ndarray) -> dict:
    n = len(gain)
    return {"decisions": n, "better": float(np.mean(gain > 0)) if n else 0.0, "mean_gain": float(gain.mean()) if n
            else 0.0, "se": float(gain.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0}


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    p.add_argument("labels", nargs="+", help="label folders of the search with --model as its prior")
    p.add_argument("--model", required=True, help="the learned model the labels' search had as its prior")
    p.add_argument("--distilled", help="a network fitted to the other shards, for the changes probe")
    p.add_argument("--held", type=argtypes.int_in(1, 10**6), default=3, help="held-out shards per folder (default 3)")
    p.add_argument("--worlds", type=argtypes.int_in(2, 4096), default=64, help="worlds per decision (default 64)")
    p.add_argument("--retest", type=argtypes.int_in(0, 10**7), default=2000, help="decisions searched again "
                   "(default 2000; 0: skip)")
    p.add_argument("--seed", type=argtypes.int_in(0, 2**32 - 1), default=0)
    p.add_argument("--json", help="write the results here too")
    args = p.parse_args(argv)

    header, data = held_out(args.labels, args.held)
    game, options = header["game"], dict(header["options"])
    n = options.pop("num_players")
    obs, masks, choice = data["obs"], data["masks"], data["choice"]
    model = LearnedAgent(args.model, game=game, num_players=n)
    heuristic = make_agent("heuristic", game=game, num_players=n, options=options)
    kit = game_package(game).search_kit()
    base = model.act(obs, masks)
    departed = np.flatnonzero(base != choice)
    out = {"game": game, "held_out": int(len(obs)), "departures": float(len(departed) / max(len(obs), 1))}
    print(f"{game}: {len(obs):,} held-out decisions, the search departs from the model's move on "
          f"{out['departures']:.1%}")

    if args.retest:
        j = np.arange(min(args.retest, len(obs)))
        search = make_agent("search", seed=0, game=game, num_players=n, options=options, **header["search"])
        worlds = rng.streams(np.random.default_rng([args.seed, 1]).integers(2**62, size=j.size), rng.SALT_AGENT)
        again = search.candidate_stats(obs[j], masks[j], worlds)[1]
        was = base[j] != choice[j]
        out["retest"] = {"decisions": int(j.size), "departures": int(was.sum()),
                         "same_move": float(np.mean(again[was] == choice[j][was])) if was.any() else 0.0}
        print(f"retest: of {was.sum()} departures, {out['retest']['same_move']:.1%} repeat with fresh worlds")

    out["departures_played_out"] = {}
    for name, own in (("heuristic", heuristic), ("model", model)):
        search = Continued(kit, own, heuristic, args.worlds, options)
        gain = search.gains(obs[departed], masks[departed], base[departed], choice[departed], args.seed + 10**6)
        out["departures_played_out"][name] = s = summary(gain)
        print(f"departures, the {name} continuing: better on {s['better']:.1%}, {s['mean_gain']:+.3f} ± "
              f"{1.96 * s['se']:.3f} points each")

    if args.distilled:
        fitted = LearnedAgent(args.distilled, game=game, num_players=n)
        moves = fitted.act(obs, masks)
        rows = np.flatnonzero(moves != base)
        search = Continued(kit, fitted, heuristic, args.worlds, options)
        gain = search.gains(obs[rows], masks[rows], base[rows], moves[rows], args.seed + 2 * 10**6)
        kind = np.where(moves[rows] == choice[rows], "learned", np.where(base[rows] == choice[rows], "lost", "other"))
        out["changes"] = {k: {**summary(gain[kind == k]), "share": float(np.mean(kind == k) * len(rows) / len(obs))}
                          for k in ("learned", "lost", "other")}
        out["changes"]["per_decision"] = float(gain.sum() / len(obs))
        for k, s in out["changes"].items():
            if k != "per_decision":
                print(f"changed moves, {k}: {s['share']:.2%} of the decisions, {s['mean_gain']:+.3f} ± "
                      f"{1.96 * s['se']:.3f} points each")
        print(f"the distilled network's changes: {out['changes']['per_decision']:+.4f} points per decision")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return out


if __name__ == "__main__":
    main()
