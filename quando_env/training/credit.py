"""A seat's chance of winning the game, estimated from the public game totals alone: what round-level credit
(the learner's `round_credit`) rewards each round by, its change over the round.

The model is a logistic regression on a few features of one seat's view of the totals (its lead over the best
and over the mean of the others, how near the game's end the leader is, their products, the rounds played),
fitted by Newton's method on the rounds of games played by the game's heuristic agents. Everything it reads is
seen by every player. A fit is a small JSON file (no pickle) per game, player count and options:

    python -m quando_env.training.credit --game quando --games 4000 --seed 0 --out win_quando_4p.json

The game's own rules say which way totals count (`higher_total_wins`) and where the game ends (`game_ends`):
the end total is the smallest single total that ends it.
"""
import argparse
import dataclasses
import json
import math
import sys
from pathlib import Path

import numpy as np

from quando_env.checks import as_int, need, shown
from quando_env.core import MAX_TARGET, make_config
from quando_env.files import read_json, write_text
from quando_env.registry import game_class, game_names

FORMAT = 1
FEATURES = ("lead_best", "lead_mean", "end_near", "lead_best_near", "lead_mean_near", "rounds")
MODELS = Path(__file__).resolve().parent.parent / "agents" / "models"
MAX_FIT_GAMES = 1_000_000
MAX_SEED = 2**62        # the games of a fit take seeds seed .. seed + games - 1
RIDGE = 1e-3            # L2 on the standardized weights: keeps Newton's steps finite when a feature separates


def shipped_path(game: str, num_players: int) -> Path:
    """Where the fitted model of a game and player count ships (default options)."""
    return MODELS / f"win_{game}_{num_players}p.json"


def model_options(config) -> dict:
    """The options that change play or its end (a model holds for these): the episode's reward, max_steps and
    the player count (kept apart) left out."""
    d = dataclasses.asdict(config)
    for k in ("num_players", "reward", "max_steps"):
        d.pop(k, None)
    return d


def end_total(cls, config) -> int:
    """The smallest total that ends a game by the game's own `game_ends`, the other seats at 0."""
    n = config.num_players

    def ends(t):
        row = np.zeros((1, n), np.int64)
        row[0, 0] = t
        return bool(cls.game_ends(row, config)[0])

    lo, hi = 0, 2 * MAX_TARGET
    need(ends(hi), f"game {cls.name!r}", "a game whose totals end it (game_ends)")
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ends(mid) else (mid + 1, hi)
    return max(lo, 1)


def features(totals: np.ndarray, rounds: np.ndarray, end: int, higher_wins: bool) -> np.ndarray:
    """(k, n, F) features of each seat's view of (k, n) game totals after `rounds` (k,) finished rounds: leads
    oriented so that more is better, in units of the end total."""
    t = np.asarray(totals, np.float64) / end
    k, n = t.shape
    u = t if higher_wins else -t
    others = np.where(np.eye(n, dtype=bool)[None], -np.inf, u[:, None, :])            # (k, seat, other)
    lead_best = u - others.max(axis=2)
    lead_mean = u - (u.sum(axis=1, keepdims=True) - u) / (n - 1)
    near = np.broadcast_to(t.max(axis=1, keepdims=True), (k, n))
    r = np.broadcast_to(np.asarray(rounds, np.float64)[:, None], (k, n))
    return np.stack([lead_best, lead_mean, near, lead_best * near, lead_mean * near, r], axis=2)


@dataclasses.dataclass(frozen=True)
class WinModel:
    """P(seat wins | public totals, rounds) of one game, player count and options."""

    game: str
    num_players: int
    options: dict
    end: int
    higher_wins: bool
    mean: tuple
    scale: tuple
    coef: tuple
    bias: float
    fit: dict

    def prob(self, totals, rounds) -> np.ndarray:
        """(k, n) chance that each seat wins, for (k, n) game totals after (k,) rounds."""
        x = (features(totals, rounds, self.end, self.higher_wins) - np.array(self.mean)) / np.array(self.scale)
        return 1.0 / (1.0 + np.exp(-(x @ np.array(self.coef) + self.bias)))

    def start(self) -> float:
        """The chance of each seat before the first round."""
        return float(self.prob(np.zeros((1, self.num_players), np.int64), np.zeros(1))[0, 0])

    def to_json(self) -> dict:
        return {"format": FORMAT, "model": "win_probability", "game": self.game, "num_players": self.num_players,
                "options": self.options, "end_total": self.end, "higher_total_wins": self.higher_wins,
                "features": list(FEATURES), "mean": list(self.mean), "scale": list(self.scale),
                "coef": list(self.coef), "bias": self.bias, "fit": self.fit}


def save(model: WinModel, path) -> None:
    write_text(path, json.dumps(model.to_json(), indent=1) + "\n")


def load(path, game: str | None = None, num_players: int | None = None, options: dict | None = None) -> WinModel:
    """A fitted model from its JSON file, checked (ValueError naming the file and what is wrong); with game,
    num_players and options given, it must have been fitted for them."""
    path = Path(path)
    try:
        d = read_json(path, "win-probability model")
    except ValueError as e:
        raise ValueError(f"win-probability model {str(path)!r} could not be read: {e}") from None
    what = f"win-probability model {str(path)!r}"
    need(isinstance(d, dict) and d.get("model") == "win_probability", what, "a JSON object with model "
         "'win_probability' (written by quando_env.training.credit)")
    need(d.get("format") == FORMAT, f"{what} has format {shown(d.get('format'))}", f"format {FORMAT}")
    need(d.get("features") == list(FEATURES), f"{what} has features {shown(d.get('features'))}", f"{list(FEATURES)}")
    need(d.get("game") in game_names(), f"{what} has game {shown(d.get('game'))}", f"one of {game_names()}")
    cls = game_class(d["game"])
    need(isinstance(d.get("options"), dict), f"{what} has options {shown(d.get('options'))}", "a dict")
    try:
        config = make_config(cls.config_class, num_players=d.get("num_players"), **d["options"])
    except (ValueError, TypeError) as e:
        raise ValueError(f"{what} has options the game refuses: {e}") from None
    end = end_total(cls, config)
    need(d.get("end_total") == end and d.get("higher_total_wins") is bool(cls.higher_total_wins),
         f"{what} has end_total {shown(d.get('end_total'))}, higher_total_wins {shown(d.get('higher_total_wins'))}",
         f"the game's {end} and {bool(cls.higher_total_wins)}")
    arrays = {}
    for key in ("mean", "scale", "coef"):
        v = d.get(key)
        ok = isinstance(v, list) and len(v) == len(FEATURES) and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in v)
        need(ok, f"{what} has {key}={shown(v)}", f"{len(FEATURES)} finite numbers")
        arrays[key] = tuple(float(x) for x in v)
    need(all(s > 0 for s in arrays["scale"]), f"{what} has scale={list(arrays['scale'])}", "numbers > 0")
    b = d.get("bias")
    need(isinstance(b, (int, float)) and not isinstance(b, bool) and math.isfinite(b), f"{what} has bias={shown(b)}",
         "a finite number")
    model = WinModel(d["game"], config.num_players, model_options(config), end, bool(cls.higher_total_wins),
                     arrays["mean"], arrays["scale"], arrays["coef"], float(b), d.get("fit", {}))
    for name, want, have in (("game", game, model.game), ("num_players", num_players, model.num_players)):
        need(want is None or want == have, f"{what} is for {name} {have!r}", f"a model for {want!r}")
    if options is not None:
        want = model_options(make_config(cls.config_class, num_players=model.num_players, **options))
        need(want == model.options, f"{what} was fitted with options {model.options}",
             f"a model fitted with {want} (fit one: python -m quando_env.training.credit)")
    return model


def play_rounds(game: str, num_players: int, options: dict, games: int, seed: int) -> tuple:
    """Games played by the game's heuristic agents at every seat: (totals (m, n), rounds (m,), won (m, n)), one
    row per game and round start that did not end the game (the first round's included)."""
    from quando_env.agents import game_agents

    cls = game_class(game)
    g = cls(games, seed=seed, autoreset=False, num_players=num_players, **options)
    agent = game_agents(game)["heuristic"]()
    rows_t, rows_r, rows_g = [g.totals.copy()], [g.rounds_done.copy()], [np.arange(games)]
    won = np.zeros((games, g.num_players), bool)
    live = np.ones(games, bool)
    actions = np.zeros(games, np.int64)
    while live.any():
        idx = np.flatnonzero(live)
        obs, masks = g.observe(), g.legal_action_mask
        feats = g.action_features(games=idx) if agent.uses_action_features else None
        actions[idx] = agent.act(obs[idx], masks[idx], features=feats)
        g.step(actions)
        over = live & (g.game_over | g.truncated)
        nxt = np.flatnonzero(live & g.round_over & ~over)
        rows_t.append(g.totals[nxt])
        rows_r.append(g.rounds_done[nxt])
        rows_g.append(nxt)
        if over.any():
            won[over] = g.winners(np.flatnonzero(over))
            live &= ~over
    gi = np.concatenate(rows_g)
    return np.concatenate(rows_t), np.concatenate(rows_r), won[gi]


def fit(game: str, num_players: int = 4, options: dict | None = None, games: int = 4000, seed: int = 0,
        iterations: int = 50) -> WinModel:
    """Fit the model on `games` heuristic games from seed `seed` (every seat of every kept round one row)."""
    need(options is None or isinstance(options, dict) and "num_players" not in options, f"options={shown(options)}",
         "a dict of the game's options other than num_players")
    options = dict(options or {})
    need(game in game_names(), f"game={shown(game)}", f"one of {game_names()}")
    games = as_int(games, "games", 1, MAX_FIT_GAMES)
    seed = as_int(seed, "seed", 0, MAX_SEED)
    cls = game_class(game)
    config = make_config(cls.config_class, num_players=num_players, **options)
    need(config.num_players > 1, f"num_players={config.num_players}", "2 or more (a game with rivals)")
    end, higher = end_total(cls, config), bool(cls.higher_total_wins)
    totals, rounds, won = play_rounds(game, config.num_players, options, games, seed)
    x = features(totals, rounds, end, higher).reshape(-1, len(FEATURES))
    y = won.reshape(-1).astype(np.float64)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    ridge = RIDGE * len(z) * np.r_[np.ones(len(FEATURES)), 0.0]
    for _ in range(iterations):                         # Newton's method on the penalised log-likelihood
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        grad = z.T @ (p - y) + ridge * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(ridge + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    p = np.clip(1.0 / (1.0 + np.exp(-(z @ w))), 1e-12, 1 - 1e-12)
    info = {"games": games, "seed": seed, "rows": int(len(y)), "agents": "heuristic",
            "log_loss": round(float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean()), 6)}
    return WinModel(game, config.num_players, model_options(config), end, higher, tuple(mean.tolist()),
                    tuple(scale.tolist()), tuple(w[:-1].tolist()), float(w[-1]), info)


def calibration(model: WinModel, totals, rounds, won, bins: int = 10) -> list:
    """[(mean predicted, share that won, rows)] per bin of predicted chance (equal widths, empty bins left out)."""
    p = model.prob(totals, rounds).reshape(-1)
    y = np.asarray(won, np.float64).reshape(-1)
    which = np.minimum((p * bins).astype(np.int64), bins - 1)
    return [(float(p[which == b].mean()), float(y[which == b].mean()), int((which == b).sum()))
            for b in range(bins) if (which == b).any()]


def parser() -> argparse.ArgumentParser:
    from quando_env import argtypes

    p = argparse.ArgumentParser(prog="python -m quando_env.training.credit", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", required=True, choices=game_names())
    p.add_argument("--players", type=argtypes.int_in(2, 64), default=4)
    p.add_argument("--games", type=argtypes.int_in(1, MAX_FIT_GAMES), default=4000,
                   help="heuristic games to fit on (default 4000)")
    p.add_argument("--seed", type=argtypes.int_in(0, MAX_SEED), default=0)
    argtypes.add_game_options(p)
    p.add_argument("--out", default=None, type=argtypes.output_file,
                   help="the JSON file (default: the shipped model's path)")
    return p


def main(argv=None) -> int:
    from quando_env import argtypes

    p = parser()
    args = p.parse_args(argv)
    try:
        model = fit(args.game, args.players, argtypes.rule_options(args), args.games, args.seed)
    except ValueError as e:
        p.error(str(e))
    out = args.out or shipped_path(args.game, model.num_players)
    save(model, out)
    print(f"{out}: {model.fit['rows']} rows from {args.games} games, log loss {model.fit['log_loss']:.4f}, "
          f"start {model.start():.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
