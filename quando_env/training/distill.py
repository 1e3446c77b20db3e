"""The rollout search distilled into the move-scoring policy (expert iteration): label, then train.

    python -m quando_env.training.distill label --game quando --out labels/quando --shards 8 --ray local
    python -m quando_env.training.distill label --game quando --teacher search --opponents heuristic --out labels/q
    python -m quando_env.training.distill train labels/quando --out distilled.npz \
        --init quando_env/agents/models/learned_quando_4p.npz
    python -m quando_env.training.distill stats labels/quando

label: games are played by a behaviour policy (the game's heuristic, or learned:PATH) in every seat (`--opponents self`)
or in one seat per game against the game's heuristic (`--opponents heuristic`: game slot g's policy sits in seat g mod
players, and only its decisions are labelled); a share `--every` of the decisions with two or more legal moves is
recorded and labelled by the teacher (`--teacher rollout`: RolloutAgent; `search`: the fast SearchAgent; `--prior
learned:PATH`: with that network's policy as its prior) through candidate_values: each searched candidate's mean score
(higher is better for the mover) and the search's choice. Shard i (OUT/shard_00000.npz ...) is made by one task from the
seed `seed + i` alone (its games, which decisions are labelled, the search's worlds), so the labels are the same however
the shards are split between calls or machines, in this process or as Ray tasks (`--ray local|ADDRESS`). A shard is
written whole (through a temporary file) once it is done, then entered in OUT/manifest.json with its SHA-256; a stopped
run given the same options skips the shards the manifest lists and makes the others. A listed shard whose bytes no
longer match its checksum is refused in one line naming it (delete it to have it made again).

A shard's format: quando_env.training.label_shards.

train: the learner's Net (training.learner, with its move scorer where the game has move features) is fitted to the
labels of one or more folders (all of one game and options) by cross-entropy between its softmax over the legal
moves and the softmax of the searched candidates' values / --temperature (the search's choice alone where it
searched one candidate, or with --temperature 0), and its imitation accuracy (its best move is the search's choice)
is reported on held-out shards (each folder's last --holdout ones). With --min-margin POINTS, a decision the
search's best candidate won by fewer points keeps the --init model's own policy as its target, so the network
changes only where the search was sure. The model file is agents.learned's (format 2),
its info listing every folder and its labels: `learned:PATH` plays it, `train.py --set init=PATH` fine-tunes it.
"""
import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, fields
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from quando_env import rng
from quando_env.checks import need, printable
from quando_env import argtypes
from quando_env.registry import game_class, game_names

from .label_shards import FORMAT, MANIFEST, check_shard, read_manifest, read_shard, shard_path, write_shard

TEACHERS = ("rollout", "search")
OPPONENTS = ("self", "heuristic")
MAX_SHARDS = 1_000_000
MAX_SHARD_SIZE = 1_000_000
SEARCH_SEEDS = 5 << 40      # the salt of a shard's own generator (its games' seeds, labelled decisions, worlds)


@dataclass(frozen=True)
class LabelSettings:
    """What a shard's labels follow from (stored in every shard's header; a resumed run must repeat them)."""

    game: str = None                # the game's name (or engine class): required
    options: dict = None            # the game's config as a dict (num_players included)
    policy: str = "heuristic"       # the behaviour policy: the game's heuristic, or learned:PATH
    opponents: str = "self"         # the policy's opponents: itself (every seat) or the game's heuristic
    teacher: str = "rollout"        # the labelling search: rollout (RolloutAgent) or search (SearchAgent)
    samples: int = 96               # the search's worlds per decision (RolloutAgent's defaults)
    knock_samples: int = 192        # ... where knocking (the game's always-tried moves) is legal
    max_candidates: int | None = 3  # heuristic-ranked moves searched besides its choice (None: every legal move)
    shard_size: int = 1000          # decisions labelled per shard
    every: float = 0.1              # share of the eligible decisions labelled (spreads a shard over whole games)
    games: int = 8                  # games a shard plays side by side
    seed: int = 0
    first: int = 8                  # search only: worlds every candidate is played out in (SearchAgent)
    horizon: int | None | str = "game"  # search only: decisions played after the move (None: to the round's end;
    #                                     "game": the game's own, SearchKit.search_horizon)
    prior: str | None = None        # the teacher's prior: the heuristic (None), or a learned model (learned:PATH)

    def __post_init__(self):
        game_class(self.game)       # ValueError naming game and the games' names
        need(self.teacher in TEACHERS, f"teacher={self.teacher!r}", " or ".join(TEACHERS))
        need(self.opponents in OPPONENTS, f"opponents={self.opponents!r}", " or ".join(OPPONENTS))

    def search(self) -> dict:
        """The teacher's options (what make_agent(teacher, ...) is given)."""
        out = {"samples": self.samples, "knock_samples": self.knock_samples, "max_candidates": self.max_candidates}
        out = {**out, "prior": self.prior} if self.prior else out
        return out if self.teacher == "rollout" else {**out, "first": self.first, "horizon": self.horizon}


def label_shard(settings: LabelSettings, index: int, policy=None, search=None) -> dict:
    """The arrays of shard `index` (what a Ray task returns; the caller writes them), and its seconds. policy /
    search: agents to use instead of those the settings name (the game's heuristic or learned:PATH, and its
    rollout search: a game without an agents package, such as a test's, passes its own)."""
    from quando_env.agents import make_agent

    t0 = time.perf_counter()
    s = settings
    cls = game_class(s.game)
    n = s.options["num_players"]
    rules = {k: v for k, v in s.options.items() if k != "num_players"}
    policy = policy or make_agent(s.policy, game=s.game, num_players=n, options=rules, seed=0)
    search = search or make_agent(s.teacher, seed=0, game=s.game, num_players=n, options=rules, **s.search())
    rival = make_agent("heuristic", game=s.game, num_players=n, options=rules) if s.opponents == "heuristic" else None
    own = np.random.default_rng([SEARCH_SEEDS, s.seed + index])
    vg = cls(s.games, seed=0, autoreset=False, **s.options)
    vg.reset(seed=own.integers(2**62, size=s.games))
    acting = rng.streams(own.integers(2**62, size=s.games), rng.SALT_AGENT)      # the behaviour policy's draws
    has_features = cls.action_feature_parts is not None
    kept = {"states": [], "obs": [], "masks": [], "features": [], "played": [], "seat": [], "game": []}
    slots = np.arange(s.games)
    count = 0
    while count < s.shard_size:
        obs, masks = vg.observe(), vg.legal_action_mask
        feats = vg.action_features() if has_features else None
        streams = acting.copy()
        acts = policy.act(obs, masks, streams=streams if policy.uses_streams else None,
                          features=feats if policy.uses_action_features else None)
        acting[:] = streams
        seat = vg.current_player
        mine = seat == slots % n if rival is not None else np.ones(s.games, bool)
        if rival is not None:
            acts = np.where(mine, acts, rival.act(obs, masks))
        pick = np.flatnonzero((masks.sum(axis=1) >= 2) & (own.random(s.games) < s.every) & mine)
        pick = pick[:s.shard_size - count]
        if pick.size:
            kept["states"].append(vg.states[pick].copy())
            kept["obs"].append(obs[pick])
            kept["masks"].append(masks[pick])
            kept["played"].append(acts[pick])
            kept["seat"].append(seat[pick].astype(np.int8))
            kept["game"].append(pick.astype(np.int32))
            if has_features:
                kept["features"].append(feats[pick][masks[pick]])
            count += pick.size
        vg.step(acts)
        ended = np.flatnonzero(vg.game_over | vg.truncated)
        if ended.size:
            vg.reset(games=ended)           # each game goes on with its own stream: a new deal
    arrays = {k: np.concatenate(v) for k, v in kept.items() if v}
    if not has_features:
        arrays["features"] = np.zeros((0, 0), np.float32)
    worlds = rng.streams(own.integers(2**62, size=count), rng.SALT_AGENT)         # the search's, per decision
    values, choice, visits = teacher_labels(search, arrays["obs"], arrays["masks"], worlds)
    arrays["values"], arrays["choice"], arrays["visits"] = values.astype(np.float32), choice.astype(np.int64), visits
    header = {"format": FORMAT, "game": s.game, "options": s.options, "samples": count, "seed": s.seed + index,
              "shard": index, "policy": s.policy, "opponents": s.opponents, "teacher": s.teacher,
              "search": s.search(), "every": s.every, "games": s.games}
    arrays["header"] = np.array(json.dumps(header))
    return {"index": index, "arrays": arrays, "seconds": time.perf_counter() - t0}


def teacher_labels(search, obs, masks, streams):
    """(values, choices, visits) of a teacher: SearchAgent's own visits, or RolloutAgent's (all of a searched
    move's worlds)."""
    if hasattr(search, "candidate_stats"):
        return search.candidate_stats(obs, masks, streams)
    values, choice = search.candidate_values(obs, masks, streams)
    worlds = np.where(masks[:, list(search.kit.always_try)].any(axis=1), search.knock_samples, search.samples)
    return values, choice, np.where(np.isnan(values), 0, worlds[:, None]).astype(np.int32)


def done_shards(out, settings: LabelSettings, indices) -> list[int]:
    """The shards of `indices` already complete in out (those its manifest lists; a shard file it does not list,
    from a run stopped before entering it, is made again). ValueError when the folder's labels were made with
    other settings (never mixed), or naming a listed shard that is damaged or missing."""
    manifest = read_manifest(out)
    made = manifest["settings"]
    if made is not None:        # settings added since a folder was made read as their defaults (prior: none)
        made = {**{f.name: f.default for f in fields(LabelSettings)}, **made}
    if made is not None and made != asdict(settings):
        raise ValueError(f"{Path(out) / MANIFEST} lists labels made with other settings ({json.dumps(made)}): give "
                         "another --out, or the options it was made with")
    return [i for i in indices if check_shard(out, i, manifest)]


def label(settings: LabelSettings, out, indices, runner=None, log=None, policy=None, search=None) -> dict:
    """Make the shards of `indices` missing in out (as Ray tasks with a runner: evaluation.ray_tasks.RayRunner);
    returns {"shards", "labels", "seconds" (wall), "task_seconds" (the tasks' own), "skipped"}."""
    out = Path(out)
    skipped = done_shards(out, settings, indices)
    todo = [i for i in indices if i not in set(skipped)]
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    make = partial(label_shard, settings, policy=policy, search=search)
    results = runner.run(make, todo) if runner is not None else (make(i) for i in todo)
    stats = {"shards": 0, "labels": 0, "seconds": 0.0, "task_seconds": 0.0, "skipped": len(skipped)}
    for r in results:
        write_shard(out, r, settings)
        stats["shards"] += 1
        stats["labels"] += int(r["arrays"]["choice"].size)
        stats["task_seconds"] += r["seconds"]
        stats["seconds"] = time.perf_counter() - t0
        if log:
            log(f"shard {r['index']} done: {stats['shards']}/{len(todo)} shards, {stats['labels']:,} labels, "
                f"{stats['labels'] / stats['seconds']:.1f} labels/s")
    return stats


# ---------------------------------------------------------------------------------------------- training
def load_labels(folder) -> tuple[dict, list[dict]]:
    """(header of the first shard, [arrays of each shard, by index]) of every shard the folder's manifest lists,
    which must all be of one game and options and match their checksums; ValueError naming the shard otherwise."""
    manifest = read_manifest(folder)
    if not manifest["shards"]:
        raise ValueError(f"no label shards listed in {Path(folder) / MANIFEST}")
    paths = [shard_path(folder, int(i)) for i in manifest["shards"] if check_shard(folder, int(i), manifest)]
    first, shards = None, []
    for path in paths:
        header, arrays = read_shard(path)
        if first is None:
            first = header
        elif (header["game"], header["options"]) != (first["game"], first["options"]):
            raise ValueError(f"{path} labels {header['game']} {header['options']}, {paths[0]} "
                             f"{first['game']} {first['options']}: one game and options per folder")
        shards.append(arrays)
    return first, shards


def load_folders(folders, holdout: int = 0) -> tuple[dict, list[dict], list[dict], list[dict]]:
    """(header, training shards, held-out shards, [{"folder", "labels"}]) of label folders all of one game and
    options: each folder's last `holdout` shards are held out (none with 0); ValueError naming the folders that
    differ, or one with `holdout` or fewer shards."""
    first, fit, held, listed = None, [], [], []
    for folder in folders:
        header, shards = load_labels(folder)
        if first is None:
            first = (folder, header)
        elif (header["game"], header["options"]) != (first[1]["game"], first[1]["options"]):
            raise ValueError(f"{folder} labels {header['game']} {header['options']}, {first[0]} "
                             f"{first[1]['game']} {first[1]['options']}: give folders of one game and options")
        need(holdout < len(shards) or holdout == 0, f"holdout={holdout}", f"fewer than the {len(shards)} shards "
             f"of {folder} (or 0: report on the training shards)")
        fit += shards[:len(shards) - holdout]
        held += shards[len(shards) - holdout:] if holdout else []
        listed.append({"folder": str(folder), "labels": sum(int(s["choice"].size) for s in shards)})
    return first[1], fit, held, listed


def joined(shards: list[dict]) -> dict:
    """The shards' arrays end to end, with "fstart": where each decision's feature rows begin."""
    data = {k: np.concatenate([s[k] for s in shards]) for k in ("obs", "masks", "values", "choice")}
    data["features"] = np.concatenate([s["features"] for s in shards])
    counts = data["masks"].sum(axis=1)
    data["fstart"] = np.cumsum(counts) - counts
    return data


def targets(values: np.ndarray, masks: np.ndarray, choice: np.ndarray, temperature: float, own=None,
            min_margin: float = 0.0) -> np.ndarray:
    """(B, A) target distributions: softmax of the searched candidates' values / temperature, the search's choice
    alone where it searched fewer than two candidates or temperature is 0; with `own` ((B, A): the init's policy), a
    decision the search's best won by fewer than `min_margin` points takes its row of `own` instead."""
    searched = ~np.isnan(values) & masks
    rows = np.arange(len(values))
    out = np.zeros(values.shape, np.float32)
    soft = (searched.sum(axis=1) >= 2) & (temperature > 0)
    if soft.any():
        v = np.where(searched[soft], values[soft], -np.inf) / max(temperature, 1e-12)
        e = np.exp(v - v.max(axis=1, keepdims=True))
        out[soft] = e / e.sum(axis=1, keepdims=True)
    out[rows[~soft], choice[~soft]] = 1.0
    if own is not None:
        unsure = margins(values) < min_margin
        out[unsure] = own[unsure]
    return out


def margins(values: np.ndarray) -> np.ndarray:
    """Per decision, the points by which the search's best candidate beat its second (0 where it searched fewer
    than two)."""
    v = np.sort(np.where(np.isnan(values), -np.inf, values), axis=1)
    gap = v[:, -1] - v[:, -2]
    return np.where(np.isfinite(gap), gap, 0.0)


def batch(data: dict, j: np.ndarray, device: str = "cpu") -> tuple:
    """(observations, legal moves, masks) tensors of decisions j (training.learner.Net's inputs)."""
    import torch

    from .learner import legal_moves
    from .sparse import runs

    masks = data["masks"][j]
    feats = data["features"][runs(data["fstart"][j], masks.sum(axis=1))] if data["features"].size else None
    moves = legal_moves(masks, feats, device) if feats is not None else None
    return torch.from_numpy(data["obs"][j]).to(device), moves, torch.from_numpy(masks).to(device)


def policy(net, data: dict, played=None, size: int = 4096) -> np.ndarray:
    """(decisions, num_actions) float32: the network's move probabilities over each decision's legal moves, through
    `played(logits, rows)` where given (an anchored model's heuristic bonus)."""
    import torch

    from .learner import dense

    out = []
    with torch.no_grad():
        for j in np.array_split(np.arange(len(data["choice"])), max(1, -(-len(data["choice"]) // size))):
            obs, moves, masks = batch(data, j)
            logits, _ = net(obs, moves)
            logits = played(logits, j) if played else logits
            out.append(torch.softmax(dense(logits).masked_fill(~masks, -math.inf), 1).numpy())
    return np.concatenate(out) if out else np.zeros((0, data["masks"].shape[1]), np.float32)


def evaluate(net, data: dict, played=None, init=None) -> dict:
    """Imitation accuracy (the policy's best legal move is the search's choice) and regret (the searched value
    of the search's best candidate less that of the policy's move, where the policy's move was searched); with
    `init` (the init model's best moves on these decisions), versus_init's shares too."""
    best = policy(net, data, played).argmax(1) if len(data["choice"]) else np.zeros(0, np.int64)
    got = data["values"][np.arange(len(best)), best]
    ok = ~np.isnan(got)
    n = max(len(best), 1)
    out = {"accuracy": float((best == data["choice"]).sum()) / n,
           "regret": float((np.nanmax(data["values"][ok], axis=1) - got[ok]).sum()) / max(int(ok.sum()), 1),
           "searched": int(ok.sum()) / n}
    return {**out, **versus_init(best, init, data["choice"])} if init is not None else out


def versus_init(best: np.ndarray, init: np.ndarray, choice: np.ndarray) -> dict:
    """What training did to the init's moves (a greedy player's): the share it changed, the share of the search's
    departures from the init (choice != init) it now plays, and the share of the moves the search agreed with that
    it no longer plays. A network can agree with the search more often and still lose what it had: both shares
    count, since each move changed away from a tuned policy tends to cost."""
    departed = init != choice
    mean = lambda x: float(x.mean()) if x.size else 0.0       # noqa: E731
    return {"init_accuracy": mean(~departed), "changed": mean(best != init),
            "departures_learned": mean((best == choice)[departed]), "agreed_broken": mean((best != choice)[~departed])}


def train(folders, out, hidden=(128, 128), move_hidden=(128, 64), init: str = "", temperature: float = 1.0,
          epochs: int = 10, lr: float = 1e-3, minibatch: int = 256, holdout: int = 1, seed: int = 0,
          threads: int = 1, min_margin: float = 0.0, log=print) -> dict:
    """Fit the learner's Net to the label shards of `folders` (one folder or several, of one game and options) and
    write the model to `out` (agents.learned's format); returns the held-out evaluation (on each folder's last
    `holdout` shards; the training shards where holdout is 0). With `min_margin`, a decision the search won by fewer
    points keeps the init's own policy as its target: the network moves only where the search is sure."""
    import torch

    from quando_env.agents import make_agent
    from quando_env.agents.learned import load_model, save_model
    from .learner import Hyper, Learner, anchored, dense, masked_log_probs
    from quando_env.agents.random_agent import RandomAgent

    need(init or not min_margin, f"min_margin={min_margin:g} without init", "an init model, whose policy the "
         "decisions the search was not sure of keep")
    folders = [folders] if isinstance(folders, (str, Path)) else list(folders)
    header, fit_shards, held_shards, listed = load_folders(folders, holdout)
    options = dict(header["options"])
    n = options.pop("num_players")
    if not game_class(header["game"]).action_feature_parts:
        move_hidden = ()
    # The learner's network and its init rules (a flat model starts the move scorer at zero). An anchored init
    # (its heuristic's move gets a bonus at play) keeps its anchor: the network learns what the bonus leaves.
    weight = load_model(init, game=header["game"])[0].get("anchor", {}).get("weight", 0.0) if init else 0.0
    heuristic = make_agent("heuristic", game=header["game"], num_players=n, options=options) if weight else \
        RandomAgent()
    learner = Learner(Hyper(game=header["game"], num_players=n, options=options, hidden=tuple(hidden),
                            move_hidden=tuple(move_hidden), init=init, seed=seed, threads=threads, num_games=1,
                            rollout_steps=1, anchor=weight), heuristic=heuristic)
    net = learner.net
    fit = joined(fit_shards)
    held = joined(held_shards) if holdout else fit
    for data in (fit, held) if weight else ():
        data["anchor"] = torch.from_numpy(np.asarray(heuristic.act(data["obs"], data["masks"]), np.int64))

    def played(data):       # the network's outputs on rows j of data as the model plays (an anchor's bonus added)
        return lambda logits, j: anchored(logits, data["anchor"][j], weight) if weight else logits
    own = policy(net, fit, played(fit)) if min_margin > 0 else None       # the init's, as it plays
    first = policy(net, held, played(held)).argmax(1) if init else None      # the init's moves on held-out decisions
    if init:
        log(f"the init plays the search's choice on {np.mean(first == held['choice']):.3f} of the held-out labels")
    target = targets(fit["values"], fit["masks"], fit["choice"], temperature, own, min_margin)
    if own is not None:
        log(f"{(margins(fit['values']) >= min_margin).mean():.1%} of the labels were won by {min_margin:g} points or "
            "more; the others keep the init's policy")
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    order = np.random.default_rng(seed)
    for epoch in range(epochs):
        losses = []
        for j in np.array_split(order.permutation(len(target)), max(1, -(-len(target) // minibatch))):
            j = np.sort(j)
            obs, moves, masks = batch(fit, j)
            logits, _ = net(obs, moves)
            logp = masked_log_probs(dense(played(fit)(logits, j)), masks)
            loss = -(torch.from_numpy(target[j]) * torch.where(masks, logp, 0.0)).sum(1).mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            losses.append(loss.item())
        e = evaluate(net, held, played(held), first)
        log(f"epoch {epoch + 1}/{epochs}: loss {np.mean(losses):.4f}, held-out accuracy {e['accuracy']:.3f}, "
            f"regret {e['regret']:.3f}" + (f"; of the init's moves {e['changed']:.1%} changed: "
                                           f"{e['departures_learned']:.1%} of the search's departures from them "
                                           f"learned, {e['agreed_broken']:.1%} of those it agreed with lost"
                                           if init else ""))
    head = learner.header()
    head["info"] = {"method": "distill", "labels": int(len(target)), "labels_folders": listed,
                    "temperature": temperature, "epochs": epochs, "seed": seed, "init": init,
                    "min_margin": min_margin, "held_out": {k: round(v, 4) for k, v in e.items()}}
    save_model(out, head, learner.weights())
    return e


# ---------------------------------------------------------------------------------------------- command line
def widths(text: str) -> tuple:
    """--hidden / --move-hidden: integers separated by commas (none: no move scorer)."""
    if text == "none":
        return ()
    try:
        out = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give widths separated by commas, e.g. 128,64") from None
    if not all(1 <= w <= 1 << 16 for w in out):
        raise argparse.ArgumentTypeError(f"{text!r}: widths 1..65536")
    return out


def shard_range(text: str) -> tuple[int, int]:
    """--shards: N (shards 0..N-1) or A:B (shards A..B-1)."""
    a, colon, b = text.partition(":")
    try:
        lo, hi = (int(a), int(b)) if colon else (0, int(a))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give N (shards 0..N-1) or A:B (shards A..B-1)") from None
    if not 0 <= lo < hi <= MAX_SHARDS:
        raise argparse.ArgumentTypeError(f"{text!r}: give 0 <= A < B <= {MAX_SHARDS:,} (at least one shard)")
    return lo, hi


def _search_defaults() -> dict:
    import inspect

    from quando_env.agents.search import SearchAgent
    return {k: v.default for k, v in inspect.signature(SearchAgent).parameters.items() if k in ("samples",
                                                                                                 "knock_samples")}


SEARCH_DEFAULTS = _search_defaults()       # the search teacher's worlds, label's defaults with --teacher search


def parser(prog: str = "python -m quando_env.training.distill") -> argparse.ArgumentParser:
    from quando_env.evaluation.cli import ray_address

    p = argparse.ArgumentParser(prog=prog, description="Distil the rollout search into the move-scoring policy: "
                                "label decisions with the search (label), then fit a network to them (train). Bad "
                                "options are refused before anything is written.", allow_abbrev=False)
    sub = p.add_subparsers(dest="command", required=True)
    d = SimpleNamespace(**{f.name: f.default for f in fields(LabelSettings)})     # the settings' defaults
    lab = sub.add_parser("label", help="label decisions with the rollout search, in shards", allow_abbrev=False,
                         description="Play games with a behaviour policy and label a share of the decisions with the "
                         "search's value of each candidate; shard i is made from seed + i alone, written whole, "
                         "entered in the folder's manifest.json with its checksum, and skipped by a later run with "
                         "the same options.")
    lab.add_argument("--game", default="quando", choices=game_names())
    lab.add_argument("--players", type=argtypes.int_in(1, 64), default=4)
    lab.add_argument("--edition", default=None, help="the game's edition (Quando's)")
    lab.add_argument("--policy", default=d.policy, help="the behaviour policy: heuristic (the game's), or "
                     "learned:PATH")
    lab.add_argument("--opponents", choices=OPPONENTS, default=d.opponents, help="the policy in every seat (self, "
                     "the default), or in one seat per game against the game's heuristic (only its decisions "
                     "labelled)")
    lab.add_argument("--teacher", choices=TEACHERS, default=d.teacher, help="the labelling search: rollout (the "
                     "default) or search (the fast teacher: successive halving, play-outs cut at --horizon)")
    lab.add_argument("--prior", default=None, metavar="learned[:PATH]", help="the teacher's prior: a learned "
                     "model whose policy ranks the candidates and gives the move kept unless beaten, the heuristic's "
                     "choice searched besides (default: the heuristic)")
    lab.add_argument("--first", type=argtypes.int_in(2, 100_000), default=d.first, help="search: worlds every "
                     f"candidate is played out in (default {d.first})")
    lab.add_argument("--horizon", type=argtypes.int_in(0, 100_000), default=None, help="search: decisions "
                     "played after the move, 0: to the round's end (default: the game's own, 16 in Quando, 48 in "
                     "Cabo, the round's end in Help!)")
    lab.add_argument("--out", required=True, type=argtypes.output_dir, help="the shards' folder")
    lab.add_argument("--shards", type=shard_range, default=(0, 1), help="N (shards 0..N-1, default 1) or A:B "
                     "(shards A..B-1: split the work between calls or machines)")
    lab.add_argument("--shard-size", type=argtypes.int_in(1, MAX_SHARD_SIZE), default=d.shard_size,
                     help=f"decisions labelled per shard (default {d.shard_size})")
    lab.add_argument("--every", type=argtypes.float_in(0.0, 1.0, above=True), default=d.every,
                     help=f"share of the decisions with two or more legal moves that are labelled (default {d.every})")
    lab.add_argument("--games", type=argtypes.int_in(1, 4096), default=d.games,
                     help=f"games a shard plays side by side (default {d.games})")
    lab.add_argument("--samples", type=argtypes.int_in(2, 100_000), default=None,
                     help=f"the search's worlds per decision (default: the teacher's own, {d.samples} for rollout, "
                     f"{SEARCH_DEFAULTS['samples']} for search)")
    lab.add_argument("--knock-samples", type=argtypes.int_in(2, 100_000), default=None,
                     help=f"worlds where knocking is legal (default: the teacher's own, {d.knock_samples} for "
                     f"rollout, {SEARCH_DEFAULTS['knock_samples']} for search)")
    lab.add_argument("--max-candidates", type=argtypes.int_in(0, 10_000), default=d.max_candidates,
                     help="heuristic-ranked moves searched besides its choice and the always-tried ones (default "
                     f"{d.max_candidates})")
    lab.add_argument("--all-candidates", action="store_true", help="search every legal move")
    lab.add_argument("--seed", type=argtypes.int_in(0, 2**62), default=0, help="shard i's seed is seed + i")
    lab.add_argument("--ray", metavar="ADDRESS", type=ray_address, help="make the shards as Ray tasks (one CPU "
                     "each): local, HOST:PORT, ray://HOST:PORT or auto; the same labels as without --ray")
    lab.add_argument("--quiet", action="store_true", help="no progress lines")
    tr = sub.add_parser("train", help="fit the move-scoring policy to label shards", allow_abbrev=False,
                        description="Fit the learner's network (with its move scorer) to the search's labels.")
    tr.add_argument("labels", type=existing_folder, nargs="+", help="folders of label shards, all of one game and "
                    "options (e.g. the policy's games against itself and against the heuristic)")
    tr.add_argument("--out", required=True, type=argtypes.output_file, help="the model file to write (.npz)")
    tr.add_argument("--hidden", type=widths, default=(128, 128), help="trunk widths (default 128,128)")
    tr.add_argument("--move-hidden", type=widths, default=(128, 64), help="the move scorer's two widths (default "
                    "128,64; none: no scorer)")
    tr.add_argument("--init", default="", help="a learned model whose weights start the network (a flat one "
                    "included: its scorer starts at zero; an anchored one keeps its anchor)")
    tr.add_argument("--min-margin", type=argtypes.float_in(0.0, 1e6), default=0.0, help="points: a decision the "
                    "search's best candidate won by fewer points keeps the --init model's own policy as its target "
                    "(default 0: every label is the search's)")
    tr.add_argument("--temperature", type=argtypes.float_in(0.0, 1e6), default=1.0, help="of the target softmax "
                    "over the candidates' values, in points (default 1; 0: the search's choice alone)")
    tr.add_argument("--epochs", type=argtypes.int_in(1, 100_000), default=10)
    tr.add_argument("--lr", type=argtypes.float_in(0.0, 1.0, above=True), default=1e-3)
    tr.add_argument("--minibatch", type=argtypes.int_in(1, 1 << 20), default=256)
    tr.add_argument("--holdout", type=argtypes.int_in(0, MAX_SHARDS), default=1, help="shards of each folder (its "
                    "last ones) held out for the accuracy (default 1; 0: report on the training shards)")
    tr.add_argument("--seed", type=argtypes.int_in(0, 2**32 - 1), default=0)
    tr.add_argument("--threads", type=argtypes.int_in(1, 1024), default=1, help="torch threads (default 1)")
    st = sub.add_parser("stats", help="what label folders hold, per decision phase", allow_abbrev=False,
                        description="Per decision phase and in all: labels, how often the search's choice differs "
                        "from the played move and from the heuristic's, the mean gap between the best and second "
                        "searched values, candidates, legal moves and worlds per label (training.label_stats).")
    st.add_argument("labels", type=existing_folder, nargs="+", help="folders of label shards")
    st.add_argument("--json", action="store_true", help="JSON instead of tables")
    st.add_argument("--no-heuristic", action="store_true", help="skip the comparison with the heuristic's choice")
    return p


def existing_folder(text: str) -> str:
    if not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder")
    return text


def parse_args(argv=None, prog: str = "python -m quando_env.training.distill") -> argparse.Namespace:
    """The command line, checked before anything is written: label's game options and policy, train's init."""
    from quando_env.agents import check_prior, game_package, make_agent

    p = parser(prog)
    args = p.parse_args(argv)
    if args.command == "label":
        config = argtypes.check_game_options(p, args.game, args.players, args.edition)
        rules = {k: v for k, v in config.to_dict().items() if k != "num_players"}
        for option, name in (("--policy", args.policy), ("--prior", args.prior)):
            if name is None:
                continue
            try:        # built, so that a model of another game, player count or rules is refused here
                if option == "--prior":
                    check_prior(f"{args.teacher}:{name}", name, args.game, args.players)
                make_agent(name, game=args.game, num_players=args.players, options=rules)
            except (ValueError, OSError) as e:
                p.error(f"argument {option}: {printable(e)}")
        key = args.policy.partition(":")[0]
        if key not in ("heuristic", "learned"):
            p.error(f"argument --policy: {args.policy!r}: give heuristic or learned:PATH")
        try:
            game_package(args.game).search_kit
        except (ValueError, AttributeError):
            p.error(f"argument --game: {args.game} has no rollout search to label with")
        own = SEARCH_DEFAULTS if args.teacher == "search" else {"samples": LabelSettings.samples,
                                                                 "knock_samples": LabelSettings.knock_samples}
        args.samples = own["samples"] if args.samples is None else args.samples
        args.knock_samples = own["knock_samples"] if args.knock_samples is None else args.knock_samples
        if args.teacher == "search" and args.first > min(args.samples, args.knock_samples):
            p.error(f"argument --first: {args.first}: at most --samples and --knock-samples")
        args.settings = LabelSettings(
            game=args.game, options=config.to_dict(), policy=args.policy, opponents=args.opponents,
            teacher=args.teacher, first=args.first,
            horizon="game" if args.horizon is None else (args.horizon or None),
            samples=args.samples, knock_samples=args.knock_samples,
            max_candidates=None if args.all_candidates else args.max_candidates, shard_size=args.shard_size,
            every=args.every, games=args.games, seed=args.seed, prior=args.prior)
        try:
            done_shards(args.out, args.settings, range(*args.shards))
        except ValueError as e:
            p.error(f"argument --out: {e}")
    elif args.command == "train":
        if args.init and not Path(args.init).is_file():
            p.error(f"argument --init: no learned model at {args.init}")
        if args.min_margin and not args.init:
            p.error(f"argument --min-margin: {args.min_margin:g} keeps the --init model's policy: give --init")
        if args.move_hidden and len(args.move_hidden) != 2:
            p.error(f"argument --move-hidden: {','.join(map(str, args.move_hidden))}: give two widths, or none")
    return args


def main(argv=None, prog: str = "python -m quando_env.training.distill") -> int:
    """Exit status 0; 2 for a bad option (nothing written); 1 when training or stats refuse the labels, or
    training its init."""
    args = parse_args(argv, prog)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    if args.command == "stats":
        from .label_stats import main as stats_text
        try:
            print(stats_text(args.labels, args.json, not args.no_heuristic))
        except ValueError as err:
            print(f"{prog} stats: error: {printable(err)}", file=sys.stderr)
            return 1
        return 0
    if args.command == "train":
        try:
            e = train(args.labels, args.out, args.hidden, args.move_hidden, args.init, args.temperature, args.epochs,
                      args.lr, args.minibatch, args.holdout, args.seed, args.threads, args.min_margin, log=log)
        except ValueError as err:
            print(f"{prog} train: error: {printable(err)}", file=sys.stderr)
            return 1
        before = f"; the init's {e['init_accuracy']:.3f}" if "init_accuracy" in e else ""
        print(f"wrote {args.out}: held-out accuracy {e['accuracy']:.3f} (the search's choice{before}), regret "
              f"{e['regret']:.3f} points where its move was searched ({e['searched']:.0%})")
        return 0
    from quando_env.evaluation.cli import ray_runner

    try:
        runner = ray_runner(args.ray)
    except ValueError as e:
        print(f"{prog} label: error: {e}", file=sys.stderr)
        return 2
    if runner is None:
        import numba
        numba.set_num_threads(1)        # one core, as a Ray task has: the per-core rate means the same
    s = args.settings
    stats = label(s, args.out, range(*args.shards), runner, None if args.quiet else log)
    cores = runner.num_cpus if runner else 1
    search = ", ".join(f"{k}={v}" for k, v in s.search().items())
    where = f"{stats['skipped']} complete shard(s) skipped; " if stats["skipped"] else ""
    if not stats["labels"]:
        print(f"{where}nothing to label: shards {args.shards[0]}..{args.shards[1] - 1} are in {args.out}")
        return 0
    print(f"{where}{stats['labels']:,} labels in {stats['seconds']:.1f}s on {cores} core(s): "
          f"{stats['labels'] / stats['seconds']:.2f} labels/s, {stats['labels'] / stats['task_seconds']:.2f} labels/s "
          f"per core ({s.game}, {s.options['num_players']} players, policy {s.policy} against {s.opponents}, "
          f"{s.teacher} {search}, every={s.every})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
