"""The learner: collect a rollout of every game, learn from it, repeat (`Learner.iteration`).

`Learner` holds a run's learning (the network, the optimizer, the pool, the counters): the plan a rollout is
collected by, the advantages, the updates, the model it makes, and saving and resuming (no pickle). Its
`collector` (collect.Collector) holds the games, who plays their seats, acting and the rewards each decision
earns. The package's docstring says how it plays and learns.
"""
import copy
import dataclasses
import json
import threading
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numba
import numpy as np
import torch
from torch import nn

from quando_env.checks import need, shown

from .. import sparse
from quando_env.agents.learned import FORMAT, LearnedAgent, load_model, replace_file, save_arrays, save_model
from .buffer import Rollout, Transition
from .collect import Collector
from .hyper import Hyper
from .losses import loss_function
from .net import Net, anchored, as_tensors
from .state import check_state, read_state


def thread_counts(threads: int) -> None:
    """torch's threads and numba's (at most as many), for the calling thread: both counts hold per thread. Set
    before the first batch: one threaded kernel starts numba's OpenMP threads, which then compete with torch."""
    torch.set_num_threads(threads)
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))


class Diverged(ValueError):
    """An update made the weights NaN or infinite (they are restored to what they were before it)."""


class Learner:
    """The state of a run: the network, the optimizer, the pool, the counters, and its collector (the games)."""

    def __init__(self, hp: Hyper, heuristic=None):
        from quando_env.agents import game_agents

        self.hp = hp
        thread_counts(hp.threads)
        torch.manual_seed(hp.seed)
        self.ahead = None                   # the rollout being collected (a Future), with overlap
        self.heuristic = heuristic if heuristic is not None else game_agents(hp.game)["heuristic"]()
        self.collector = Collector(hp, self.heuristic, self.settle)
        self.game = self.collector.game
        c = self.collector
        self.n, self.B, self.obs_dim, self.num_actions = c.n, c.B, c.obs_dim, c.num_actions
        self.num_features = c.num_features
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
        # overlap: the next rollout is collected by a copy of the network (`actor`) while the last one is learned
        # from
        self.actor = copy.deepcopy(self.net) if hp.overlap else self.net
        c.net, c.actor = self.net, self.actor
        self.update_rng = np.random.default_rng([hp.seed, 1])     # the minibatches' order: learning draws
                                                                    # nothing of what collecting draws
        self.worker = ThreadPoolExecutor(1, initializer=thread_counts, initargs=(hp.threads,)) if hp.overlap \
            else None                       # (it holds no reference to the learner, which can then be freed)
        self.collecting = self.worker.submit(threading.get_ident).result() if hp.overlap else None  # its thread
        self.counters = {"decisions": 0, "bc_decisions": 0, "rl_decisions": 0, "updates": 0, "episodes": 0,
                         "learner_seats": 0, "learner_wins": 0, "loop_seconds": 0.0, "loop_decisions": 0}
        self.imitating = hp.bc_decisions > 0
        c.start(self.acting_plan())

    # ------------------------------------------------------------------ who plays the other seats
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
    def buf(self) -> Transition:
        """The decisions of the rollout collected last (once one being collected is done)."""
        self.settle()
        return self.collector.roll.buf

    @property
    def count(self) -> int:
        self.settle()
        return self.collector.roll.count

    def move_header(self) -> dict | None:
        return {"features": self.num_features, "hidden": list(self.hp.move_hidden)} if self.hp.move_hidden else None

    # ------------------------------------------------------------------ experience
    def collect(self, plan=None) -> tuple[list, np.ndarray]:
        """Collect a rollout by `plan` (acting_plan: the current one if None). Returns (row ranges of the buffer, one
        per step, the carried rows first; ready: rows whose rewards are complete), also kept in collector.roll
        with the rollout; with overlap its minibatches are prepared too (in the collecting thread)."""
        roll = self.collector.collect(plan or self.acting_plan())
        if self.hp.overlap:
            self.prepare(roll)
        return roll.segments, roll.ready

    def advantages(self, roll: Rollout, lam: float) -> tuple[np.ndarray, np.ndarray]:
        """(advantages, returns) by GAE along each seat's chain of decisions, newest step first; a chain that
        reaches a pending decision is cut there (bootstrapped by its value)."""
        b, gamma, ready = roll.buf, self.hp.gamma, roll.ready
        adv = np.zeros(roll.count, np.float32)
        val = b.val[:roll.count]
        for s, e in reversed(roll.segments):
            nx = b.nxt[s:e]
            has = nx >= 0
            nv = np.where(has, val[nx], 0.0)
            na = np.where(has & ready[nx], adv[nx], 0.0)
            adv[s:e] = b.rew[s:e] + gamma * nv - val[s:e] + gamma * lam * na
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
        obs, roll.batches = sparse.sparse_rows(b.obs[:roll.count]), []
        for _ in range(hp.epochs):
            for j in np.array_split(idx[self.update_rng.permutation(idx.size)],
                                    max(1, -(-idx.size // hp.minibatch))):
                j = np.sort(j)
                roll.batches.append((obs.take(j).with_columns(), roll.stored_moves(j) if hp.move_hidden else None,
                                     *(x[j] for x in (b.mask, b.act, b.logp, adv, ret, b.anchor))))
        roll.returns, roll.values = ret[idx], b.val[idx]

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
        logits = anchored(logits, anchor if self.hp.anchor else None, self.hp.anchor)
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
        roll = self.collector.roll
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
        if self.ahead is not None and threading.get_ident() != self.collecting:
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

    def evaluate(self, games: int | None = None, deadline: float | None = None,
                 clock=time.perf_counter) -> dict | None:
        """Win rate (and its 95% Wilson interval) of the current policy against n - 1 heuristic players,
        seats rotating, on the same games every time (eval_seed); with a deadline (on `clock`) the games that end
        by it (budget.play_by: "games" says how many; None when none did)."""
        from ..budget import play_by

        hp = self.hp
        self.settle()                   # the heuristic agent is not shared between threads
        match, played = play_by([self.agent()] + [self.heuristic] * (self.n - 1), games or hp.eval_games, deadline,
                                clock, seed=hp.eval_seed, names=["learned"] + ["heuristic"] * (self.n - 1),
                                game=hp.game, num_players=self.n, **hp.options)
        if match is None:
            return None
        res = match.pooled()["learned"]
        return {"decisions": self.counters["decisions"], "win_rate": res["win_rate"], "ci": res["win_rate_ci95"],
                "mean_round_points": res["mean_round_points"], "games": played}

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
                           "rng": self.collector.rng.bit_generator.state,
                           "update_rng": self.update_rng.bit_generator.state}, indent=1)
        replace_file(out / "state.json", lambda tmp: tmp.write_text(text))     # last: what --resume starts from

    @classmethod
    def resume(cls, out: Path, heuristic=None) -> "Learner":
        """A learner continuing the run saved in `out` (new games, seeded from the run's seed and updates);
        ValueError naming the run when one of its files cannot be read."""
        try:
            return cls._resume(out, heuristic)
        except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as e:
            raise ValueError(f"the run saved in {out} cannot be read: {type(e).__name__}: {e}") from None

    def check_moments(self, moments: dict) -> None:
        """state.npz's arrays are Adam's state of this network: per weight none, or its step count and two finite
        moments of its shape (ValueError naming the first that is not)."""
        params = [tuple(p.shape) for p in self.net.parameters()]
        for i, shape in enumerate(params):
            keys = [f"{i}.{k}" for k in ("step", "exp_avg", "exp_avg_sq")]
            held = [k for k in keys if k in moments]
            need(len(held) in (0, 3), f"state.npz holding {held}", f"all of {keys} or none")
        for k, v in moments.items():
            i, _, name = k.partition(".")
            shape = params[int(i)] if i.isdigit() and int(i) < len(params) else None
            need(shape is not None and name in ("step", "exp_avg", "exp_avg_sq"), f"state.npz's array {k!r}",
                 f"Adam's step, exp_avg and exp_avg_sq of the {len(params)} weights")
            shape = () if name == "step" else shape
            need(v.dtype.kind == "f" and v.shape == shape and np.isfinite(v).all(),
                 f"state.npz's {k} of {v.dtype} {v.shape}", f"finite numbers of shape {shape}")

    def check_model(self, path: Path) -> None:
        """`path` is a model file of this run's game and network (ValueError naming it otherwise)."""
        header, _ = load_model(path, game=self.hp.game, obs_dim=self.obs_dim)
        mine = self.header()
        differ = [f"{k}={shown(header.get(k))}" for k in ("num_actions", "hidden", "head", "move", "anchor")
                  if header.get(k) != mine.get(k)]
        need(not differ, f"{path} has {', '.join(differ)}", "a model of the run's network: "
             + ", ".join(f"{k}={shown(mine.get(k))}" for k in ("hidden", "head", "move", "anchor")))

    @classmethod
    def _resume(cls, out: Path, heuristic) -> "Learner":
        state = read_state(out)
        hp = Hyper(**{"overlap": False, **state["hyper"]})     # runs saved before overlap went on as they were
        self = cls(dataclasses.replace(hp, init=""), heuristic)    # the run's model replaces init's weights
        check_state(state, self.counters, hp.pool_size)
        self.hp = hp
        _, weights = load_model(out / "model.npz", game=hp.game, obs_dim=self.obs_dim)
        self.load_weights(weights)
        with np.load(out / "state.npz", allow_pickle=False) as f:
            moments = {k: f[k] for k in f.files}
        self.check_moments(moments)
        sd = self.opt.state_dict()
        for i in range(len(list(self.net.parameters()))):
            if f"{i}.exp_avg" in moments:
                sd["state"][i] = {k: torch.from_numpy(moments[f"{i}.{k}"]) for k in ("step", "exp_avg", "exp_avg_sq")}
        self.opt.load_state_dict(sd)
        self.counters.update(state["counters"])
        self.imitating = state["imitating"]
        self.snapshots = [LearnedAgent(out / p, game=hp.game) for p in state["snapshots"]]
        self.collector.rng.bit_generator.state = state["rng"]
        if "update_rng" in state:           # runs saved before it had its own
            self.update_rng.bit_generator.state = state["update_rng"]
        self.game.reset(seed=hp.seed + 1_000_003 * self.counters["updates"])
        self.collector.start(self.acting_plan())
        return self
