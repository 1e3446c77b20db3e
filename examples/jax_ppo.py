"""Masked PPO in JAX, end to end: the game and the learner compiled together, in the PureJaxRL style.

    python examples/jax_ppo.py --game cabo --decisions 3000000 --out runs/jax_cabo

The learner takes one seat (drawn per round) of `--envs` games of `quando_env.jax.make(game, episode="round")`,
vmapped; the other seats play random legal moves inside the same program. One `jax.jit` runs `--updates-per-log`
PPO updates, each a `lax.scan` over `--steps` decisions of every game (all seats' moves, the learner's stored
with their log-probabilities and values), advantages by GAE over the learner's own decisions (the rewards of the
others' moves in between added to its last), then `--epochs` passes over shuffled minibatches with `optax`'s Adam.
Writes DIR/model.npz (the project's learned-model format: `python evaluate.py --game cabo --agents
learned:DIR/model.npz random random random` plays it on the numba engine), DIR/curve.png and DIR/log.json (the
measures of every update). Needs the `jax` extra, optax and matplotlib.
"""
import argparse
import json
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax

from quando_env import jax as qjax
from quando_env.agents.learned import save_model


@dataclass(frozen=True)
class Hyper:
    """Every hyperparameter in one place (the command line sets the first ones)."""

    game: str = "cabo"
    players: int = 4
    envs: int = 256             # games stepped together (vmapped)
    steps: int = 128            # decisions of each game (all seats') per update
    decisions: int = 3_000_000  # all seats' decisions in all games, at least (whole calls of the program)
    updates_per_log: int = 10   # updates run by one call of the jitted program, then logged
    hidden: tuple = (256, 256)
    lr: float = 3e-4
    seed: int = 0
    reward_scale: float = 0.05  # the game's rewards (Cabo: minus a round's points) times this are the learner's
    gamma: float = 1.0          # per learner decision; rounds end
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    epochs: int = 4
    minibatches: int = 4
    room: float = 1.25          # rows trained on per update: the learner's expected share of decisions times this

    @property
    def calls(self) -> int:
        """Calls of the jitted program: enough updates for `decisions`, a whole number of calls."""
        return -(-self.decisions // (self.envs * self.steps * self.updates_per_log))

    @property
    def rows(self) -> int:
        """The learner's decisions an update trains on (the others' are dropped; a rare excess too), a multiple of
        the minibatches."""
        rows = min(self.envs * self.steps, int(self.room * self.envs * self.steps / self.players))
        return max(self.minibatches, rows - rows % self.minibatches)


# The numbers each update logs, by name.
MEASURES = {
    "rounds": "rounds that ended in the update's rollout",
    "round_return": "the learner's mean reward in those rounds, before reward_scale (Cabo: minus its points)",
    "round_win_rate": "the share of those rounds in which no seat scored better than the learner",
    "learner_decisions": "the learner's decisions in the rollout (at most Hyper.rows are trained on)",
    "policy_loss": "PPO's clipped surrogate loss, mean over the minibatches",
    "value_loss": "the value head's squared error against the GAE targets",
    "entropy": "the policy's entropy over the legal moves",
    "approx_kl": "the estimated KL divergence of the updated policy from the rollout's",
}


# ---------------------------------------------------------------- the network (torch's (out, in) layout)

def init_params(key, obs_dim: int, hidden: tuple, num_actions: int) -> dict:
    """A ReLU MLP trunk and policy and value heads, named and shaped as the project's model files hold them."""
    sizes = [obs_dim, *hidden]
    keys = jax.random.split(key, len(hidden) + 2)
    params = {}
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        params[f"trunk.{2 * i}.weight"] = jax.nn.initializers.orthogonal(np.sqrt(2))(keys[i], (b, a))
        params[f"trunk.{2 * i}.bias"] = jnp.zeros(b)
    params["policy.weight"] = jax.nn.initializers.orthogonal(0.01)(keys[-2], (num_actions, sizes[-1]))
    params["policy.bias"] = jnp.zeros(num_actions)
    params["value.weight"] = jax.nn.initializers.orthogonal(1.0)(keys[-1], (1, sizes[-1]))
    params["value.bias"] = jnp.zeros(1)
    return params


def forward(params: dict, obs):
    """(logits, value) for observations (..., obs_dim): the same function as quando_env.agents.learned.forward."""
    x = obs.astype(jnp.float32)
    i = 0
    while f"trunk.{i}.weight" in params:
        x = jax.nn.relu(x @ params[f"trunk.{i}.weight"].T + params[f"trunk.{i}.bias"])
        i += 2
    return x @ params["policy.weight"].T + params["policy.bias"], (x @ params["value.weight"].T)[..., 0] \
        + params["value.bias"][0]


def masked(logits, mask):
    return jnp.where(mask, logits, -1e9)


# ---------------------------------------------------------------- the program

def make_train(hp: Hyper, env):
    """(init, run): init(key) -> the carry; run(carry) -> (carry, measures of hp.updates_per_log updates), jitted."""
    num_actions, (obs_dim,) = env.num_actions, env.observation_shape
    optimizer = optax.chain(optax.clip_by_global_norm(hp.max_grad_norm), optax.adam(hp.lr, eps=1e-5))

    def new_game(key):
        """A fresh round and the learner's seat in it."""
        k1, k2 = jax.random.split(key)
        return env.init(k1), jax.random.randint(k2, (), 0, hp.players)

    def env_step(params, game, key):
        """One decision of one game: the learner's (sampled from the policy) or a random legal one."""
        state, seat, ret = game
        k1, k2, k3 = jax.random.split(key, 3)
        logits, value = forward(params, state.observation)
        mine = state.current_player == seat
        logits = jnp.where(mine, masked(logits, state.legal_action_mask), masked(0.0, state.legal_action_mask))
        action = jax.random.categorical(k1, logits)
        logp = jax.nn.log_softmax(logits)[action]
        next_state = env.step(state, action, k2)
        reward = next_state.rewards * hp.reward_scale
        ret = ret + next_state.rewards
        done = next_state.terminated | next_state.truncated
        stats = (done, ret[seat], done & (ret[seat] >= ret.max()))
        fresh, fresh_seat = new_game(k3)
        game = jax.tree_util.tree_map(lambda a, b: jnp.where(done, a, b), (fresh, fresh_seat, jnp.zeros_like(ret)),
                                      (next_state, seat, ret))
        step = dict(obs=state.observation, mask=state.legal_action_mask, action=action, logp=logp, value=value,
                    mine=mine, reward=reward[seat], done=done)
        return game, (step, stats)

    def advantages(steps, last_value):
        """GAE over the learner's decisions only: going back in time, the carry holds the value and advantage of
        its next decision and the rewards it received since this step; a round's end clears them."""
        def back(carry, s):
            next_value, next_adv, acc = carry
            zero = s["done"]
            next_value, next_adv, acc = (jnp.where(zero, 0.0, next_value), jnp.where(zero, 0.0, next_adv),
                                         jnp.where(zero, 0.0, acc))
            acc = acc + s["reward"]
            delta = acc + hp.gamma * next_value - s["value"]
            adv = delta + hp.gamma * hp.gae_lambda * next_adv
            m = s["mine"]
            carry = (jnp.where(m, s["value"], next_value), jnp.where(m, adv, next_adv), jnp.where(m, 0.0, acc))
            return carry, jnp.where(m, adv, 0.0)
        zeros = jnp.zeros_like(last_value)
        _, adv = jax.lax.scan(back, (last_value, zeros, zeros), steps, reverse=True)
        return adv

    def loss_fn(params, batch):
        logits, value = forward(params, batch["obs"])
        logits = masked(logits, batch["mask"])
        logp_all = jax.nn.log_softmax(logits)
        logp = jnp.take_along_axis(logp_all, batch["action"][:, None], axis=1)[:, 0]
        w = batch["mine"].astype(jnp.float32)
        count = jnp.maximum(w.sum(), 1.0)
        mean = lambda x: (x * w).sum() / count                      # noqa: E731
        adv = batch["adv"]
        adv = (adv - mean(adv)) / (jnp.sqrt(mean((adv - mean(adv)) ** 2)) + 1e-8)
        ratio = jnp.exp(logp - batch["logp"])
        policy_loss = -mean(jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - hp.clip, 1 + hp.clip) * adv))
        value_loss = mean((value - batch["target"]) ** 2)
        entropy = mean(-(jnp.exp(logp_all) * logp_all).sum(axis=1))
        approx_kl = mean((ratio - 1) - (logp - batch["logp"]))
        total = policy_loss + hp.vf_coef * value_loss - hp.ent_coef * entropy
        return total, (policy_loss, value_loss, entropy, approx_kl)

    def update(carry, _):
        params, opt_state, games, key = carry
        key, k_roll, k_perm = jax.random.split(key, 3)
        games, (steps, stats) = jax.lax.scan(
            lambda g, k: jax.vmap(env_step, (None, 0, 0))(params, g, jax.random.split(k, hp.envs)),
            games, jax.random.split(k_roll, hp.steps))
        state, seat, _ = games
        # The learner's view where the rollout stops (whoever is to move).
        own_obs = jax.vmap(env.observe_seat)(state, seat)
        last_value = jnp.where(state.terminated | state.truncated, 0.0, forward(params, own_obs)[1])
        adv = advantages(steps, last_value)
        batch = dict(steps, adv=adv, target=adv + steps["value"])
        batch = jax.tree_util.tree_map(lambda x: x.reshape((-1,) + x.shape[2:]), batch)
        rows = jnp.argsort(~batch["mine"], stable=True)[:hp.rows]    # the learner's decisions first
        batch = jax.tree_util.tree_map(lambda x: x[rows], batch)

        def epoch(c, k):
            perm = jax.random.permutation(k, hp.rows).reshape(hp.minibatches, -1)

            def minibatch(c, idx):
                params, opt_state = c
                grads, aux = jax.grad(loss_fn, has_aux=True)(params, jax.tree_util.tree_map(lambda x: x[idx], batch))
                updates, opt_state = optimizer.update(grads, opt_state)
                return (optax.apply_updates(params, updates), opt_state), aux
            return jax.lax.scan(minibatch, c, perm)
        (params, opt_state), aux = jax.lax.scan(epoch, (params, opt_state), jax.random.split(k_perm, hp.epochs))
        done, ret, won = stats
        rounds = done.sum()
        measures = dict(rounds=rounds, round_return=(ret * done).sum() / jnp.maximum(rounds, 1),
                        round_win_rate=won.sum() / jnp.maximum(rounds, 1), learner_decisions=steps["mine"].sum(),
                        **dict(zip(list(MEASURES)[4:], (a.mean() for a in aux))))
        return (params, opt_state, games, key), measures

    def init(key):
        k_params, k_games, key = jax.random.split(key, 3)
        params = init_params(k_params, obs_dim, hp.hidden, num_actions)
        state, seat = jax.vmap(new_game)(jax.random.split(k_games, hp.envs))
        games = (state, seat, jnp.zeros((hp.envs, hp.players), jnp.float32))
        return params, optimizer.init(params), games, key

    @jax.jit
    def run(carry):
        return jax.lax.scan(update, carry, None, length=hp.updates_per_log)
    return init, run


# ---------------------------------------------------------------- export, curve, command line

def export(params: dict, hp: Hyper, env, path: Path, info: dict) -> Path:
    """The network as a model file of quando_env.agents.learned (format 1: trunk, policy and value heads)."""
    weights = {name: np.asarray(w, np.float32) for name, w in params.items()}
    header = {"format": "quando_env-learned/1", "game": hp.game, "options": env.config.to_dict(),
              "obs_dim": int(weights["trunk.0.weight"].shape[1]), "num_actions": int(weights["policy.bias"].shape[0]),
              "hidden": list(hp.hidden), "head": "policy", "info": info}
    return save_model(path, header, weights)


def plot(log: list, path: Path, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [r["decisions"] for r in log]
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.6))
    a.plot(x, [r["round_win_rate"] for r in log])
    a.set(xlabel="decisions (all seats)", ylabel="rounds won by the learner", title=title)
    b.plot(x, [r["round_return"] for r in log])
    b.set(xlabel="decisions (all seats)", ylabel="learner's reward per round")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plan(hp: Hyper) -> list[str]:
    """What the run will do, said before the long compilation: the decisions, rounded up to whole calls."""
    per_call = hp.envs * hp.steps * hp.updates_per_log
    total = hp.calls * per_call
    lines = [f"--decisions {hp.decisions:,} rounded up to {total:,}: {hp.calls} calls of {hp.updates_per_log} "
             f"updates, each {hp.envs} games x {hp.steps} decisions"] if total != hp.decisions else []
    return lines + ["compiling the games and the learner into one program (a minute or two on a CPU; the first "
                    "logged update comes after it) ..."]


def train(hp: Hyper, out: Path, quiet: bool = False) -> list:
    """Train, log, write DIR/model.npz, DIR/curve.png and DIR/log.json; returns the log (one dict per update)."""
    env = qjax.make(hp.game, num_players=hp.players, episode="round")
    print("\n".join(plan(hp)), flush=True)
    init, run = make_train(hp, env)
    carry = jax.jit(init)(jax.random.PRNGKey(hp.seed))
    out.mkdir(parents=True, exist_ok=True)
    log, start = [], time.perf_counter()
    for _ in range(hp.calls):
        carry, measures = run(carry)
        measures = jax.device_get(measures)
        for i in range(hp.updates_per_log):
            update = len(log) + 1
            log.append({"update": update, "decisions": update * hp.envs * hp.steps,
                        "seconds": round(time.perf_counter() - start, 1),
                        **{k: float(measures[k][i]) for k in MEASURES}})
        if not quiet:
            print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in log[-1].items()),
                  flush=True)
    info = {"method": "examples/jax_ppo.py", "hyper": {k: list(v) if isinstance(v, tuple) else v
                                                       for k, v in asdict(hp).items()},
            "decisions": log[-1]["decisions"], "seconds": log[-1]["seconds"]}
    export(carry[0], hp, env, out / "model.npz", info)
    (out / "log.json").write_text(json.dumps(log, indent=1))
    plot(log, out / "curve.png", f"{hp.game}, {hp.players} players: learner vs random ({log[-1]['seconds']:.0f} s)")
    return log


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def parse_args(argv=None) -> argparse.Namespace:
    """The command line, checked before anything is compiled."""
    d = Hyper()
    p = argparse.ArgumentParser(prog="examples/jax_ppo.py", description=__doc__.split("\n")[0])
    p.add_argument("--game", default=d.game, choices=sorted(qjax.games()), help=f"default {d.game}")
    p.add_argument("--players", type=int, default=d.players, choices=range(2, 7), metavar="2..6",
                   help=f"default {d.players}")
    p.add_argument("--envs", type=positive, default=d.envs, help=f"games stepped together, default {d.envs}")
    p.add_argument("--steps", type=positive, default=d.steps, help=f"decisions per game per update, default {d.steps}")
    p.add_argument("--decisions", type=positive, default=d.decisions, help=f"in all, default {d.decisions:,}")
    p.add_argument("--updates-per-log", type=positive, default=d.updates_per_log,
                   help=f"updates per jitted call, default {d.updates_per_log}")
    p.add_argument("--hidden", type=positive, nargs="+", default=list(d.hidden), help=f"default {d.hidden}")
    p.add_argument("--lr", type=float, default=d.lr, help=f"Adam's step size, default {d.lr}")
    p.add_argument("--seed", type=int, default=d.seed, help=f"default {d.seed}")
    p.add_argument("--reward-scale", type=float, default=d.reward_scale,
                   help=f"the game's rewards times this are the learner's, default {d.reward_scale}")
    p.add_argument("--out", type=Path, required=True, help="folder for model.npz, curve.png and log.json")
    p.add_argument("--quiet", action="store_true", help="no line per logged update")
    args = p.parse_args(argv)
    if not 0 < args.lr < 1:
        p.error(f"--lr must be in (0, 1), got {args.lr}")
    if not 0 < args.reward_scale <= 1000:
        p.error(f"--reward-scale must be in (0, 1000], got {args.reward_scale}")
    try:                # the game checks its player count (building the env compiles nothing)
        qjax.make(args.game, num_players=args.players, episode="round")
    except ValueError as e:
        p.error(f"--players: {e}")
    return args


def main(argv=None) -> list:
    args = parse_args(argv)
    hp = replace(Hyper(), game=args.game, players=args.players, envs=args.envs, steps=args.steps,
                 decisions=args.decisions, updates_per_log=args.updates_per_log, hidden=tuple(args.hidden),
                 lr=args.lr, seed=args.seed, reward_scale=args.reward_scale)
    return train(hp, args.out, args.quiet)


if __name__ == "__main__":
    main()
