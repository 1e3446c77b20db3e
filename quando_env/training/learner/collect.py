"""Collection: the learner's games stepped `rollout_steps` times, each decision of a learner seat kept in a Rollout.

`Collector` holds what acting needs and learning does not: the games and who plays each seat (the learner, or an
opponent of the plan's pool, drawn when an episode starts), the rollout buffers, the generator every draw of
collecting comes from, the teacher and the heuristic, and the rewards each decision earns until its seat decides
again. The learner (loop) hands it a plan and the network that acts, and learns from the Rollout it fills.
"""
import numpy as np
import torch

from quando_env.registry import game_class

from .. import sparse
from .buffer import Rollout
from .hyper import Hyper
from .net import anchored, as_tensors, dense, masked_log_probs, masked_probs

LEARNER = -1        # owner of a seat played by the learner (pool entries are 0, 1, ...)


class Collector:
    """The games, who plays their seats, and the rollout buffers (`roll`: the one collected last, `spare`: the
    next one's with overlap). The learner sets `net` (its network: what policy and decide read unless given
    another) and `actor` (the network collect acts by: with overlap a copy, one update older); `settle` waits for
    a rollout being collected in another thread (the learner's)."""

    def __init__(self, hp: Hyper, heuristic, settle=lambda: None):
        from quando_env.agents import make_agent

        self.hp, self.heuristic, self.settle = hp, heuristic, settle
        self.rng = np.random.default_rng(hp.seed)
        self.game = game_class(hp.game)(hp.num_games, seed=hp.seed, autoreset=False, num_players=hp.num_players,
                                        **hp.options)
        g = self.game
        self.n, self.B, self.obs_dim, self.num_actions = g.num_players, g.num_games, g.obs_dim, g.num_actions
        self.teacher = heuristic if hp.teacher == "heuristic" else make_agent(
            "rollout", seed=hp.seed, game=hp.game, num_players=self.n, samples=hp.teacher_samples,
            knock_samples=2 * hp.teacher_samples, **hp.options)
        self.num_features = g.action_feature_dim if hp.move_hidden else 0
        self.dev = torch.device(hp.device)
        self.rows = np.arange(self.B)
        self.owner = np.full((self.B, self.n), LEARNER, np.int64)
        self.last = np.full((self.B, self.n), -1, np.int64)    # each seat's pending decision (buffer row)
        cap = self.B * hp.rollout_steps + self.B * self.n      # a rollout's decisions + the carried ones
        self.roll = Rollout(cap, self.obs_dim, self.num_actions, self.num_features)     # the one collected last
        # overlap: the next rollout is collected into the other buffer while the last one is learned from
        self.spare = Rollout(cap, self.obs_dim, self.num_actions, self.num_features) if hp.overlap else self.roll
        self.plan = self.net = self.actor = None
        if hp.round_credit:             # each seat's estimated chance to win its game, as of the last round's end
            self.credit = hp.win_model()
            self.win_p = np.full((self.B, self.n), self.credit.start())

    # ------------------------------------------------------------------ who plays which seat
    def start(self, plan: tuple) -> None:
        """New owners of every game's seats by `plan` (the learner's acting_plan: imitating, the pool's opponents,
        their draw probabilities), which later episodes keep until a rollout brings another."""
        self.plan = plan
        self.draw_owners(self.rows)

    def draw_owners(self, games: np.ndarray) -> None:
        """Owners of the seats of games starting an episode: one learner seat, the rest learner or pool."""
        k = games.size
        imitating, opponents, p = self.plan
        if imitating:                   # warm start: the heuristic plays every seat, all recorded
            self.owner[games] = LEARNER
            return
        own = self.rng.choice(len(opponents), size=(k, self.n), p=p / p.sum())
        own[self.rng.random((k, self.n)) < self.hp.self_play_share] = LEARNER
        own[np.arange(k), self.rng.integers(self.n, size=k)] = LEARNER
        self.owner[games] = own

    # ------------------------------------------------------------------ acting
    def seat_view(self) -> tuple[np.ndarray, np.ndarray]:
        """What the deciders are given in every game: the observation of the player to move and its legal mask
        (nothing else of the game reaches a policy; the move features, read per decider, are from its view).
        Called between iterations, it first waits for the rollout being collected, whose thread steps the games."""
        self.settle()
        return self.game.observe(), self.game.legal_action_mask

    def legal_features(self, games: np.ndarray, masks: np.ndarray) -> tuple | None:
        """The legal moves of the player to move in the listed games (None without a move scorer): (rows
        0..len(games)-1, actions, (L, F) features), row by row in action order. (Waits as seat_view does.)"""
        if not self.hp.move_hidden:
            return None
        self.settle()
        rows, acts = np.nonzero(masks)
        return rows, acts, self.game.action_features(games=games)[rows, acts]

    def anchor_moves(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray | None:
        """The heuristic's moves that an anchored run adds `anchor` to (None without an anchor). (Waits as seat_view
        does: the collecting thread plays the same heuristic agent.)"""
        if not self.hp.anchor:
            return None
        self.settle()
        return self.heuristic.act(obs, masks)

    def policy(self, obs: np.ndarray, masks: np.ndarray, moves=None, anchor=None, net=None) -> tuple:
        """The learner's policy (or `net`'s: collection's copy) on rows of observations and masks (anchor: the
        heuristic's moves of an anchored run): (probs (B, num_actions), the distribution the learner acts by (ppo:
        the masked softmax; dmc: epsilon-greedy on the action values), log-probabilities of the masked softmax,
        policy outputs, values (B,))."""
        with torch.no_grad():
            logits, value = (net or self.net)(sparse.sparse_rows(obs), as_tensors(moves, self.dev))
            logits = dense(anchored(logits, None if anchor is None else torch.from_numpy(anchor).to(self.dev),
                                    self.hp.anchor))
            legal = torch.from_numpy(np.ascontiguousarray(masks, bool)).to(self.dev)
            logp_all = masked_log_probs(logits, legal)
            probs = masked_probs(logp_all, legal).cpu().numpy().astype(np.float64)
        logits, logp_all, value = logits.cpu().numpy(), logp_all.cpu().numpy(), value.cpu()
        if self.hp.method != "ppo":
            probs = self.hp.epsilon * masks / masks.sum(axis=1, keepdims=True)
            probs[np.arange(len(obs)), np.where(masks, logits, -np.inf).argmax(axis=1)] += 1 - self.hp.epsilon
        return probs, logp_all, logits, value.numpy()

    def decide(self, obs, masks, labels=None, moves=None, anchor=None, net=None):
        """The learner's (actions, log-probabilities, values, actions played) for rows of observations and masks:
        actions drawn from `policy`'s probabilities, or in the warm start the teacher's `labels`, played as they
        are except for the `bc_dagger` share that plays a drawn action. dmc: the values are the chosen actions'
        values. (Waits as seat_view does: the draws come from the collecting thread's generator.)"""
        self.settle()
        probs, logp_all, logits, value = self.policy(obs, masks, moves, anchor, net)
        rows = np.arange(len(obs))
        dagger = labels is not None and self.hp.bc_dagger > 0
        if labels is None or dagger:        # inverse CDF: an action of probability 0 (illegal) is never drawn
            c = np.cumsum(probs, axis=1)
            drawn = (c > self.rng.random(len(obs))[:, None] * c[:, -1:]).argmax(axis=1)
        acts = drawn if labels is None else labels
        played = np.where(self.rng.random(len(obs)) < self.hp.bc_dagger, drawn, labels) if dagger else acts
        return acts, logp_all[rows, acts], logits[rows, acts] if self.hp.method == "dmc" else value, played

    # ------------------------------------------------------------------ experience
    def collect(self, plan: tuple) -> Rollout:
        """Step every game `rollout_steps` times, the learner's seats played by `actor` and the others by `plan`'s
        pool; returns the Rollout filled (also self.roll): its row ranges, one per step, the carried rows first,
        and `ready`, the rows whose rewards are complete."""
        hp, g = self.hp, self.game
        self.plan = plan
        imitating, opponents, _ = plan
        last, self.roll, self.spare = self.roll, self.spare, self.roll      # the same buffer without overlap
        held = self.last >= 0               # decisions still waiting for rewards move to the front
        self.roll.start(last, self.last[held], imitating)
        self.last[held] = np.arange(self.roll.count)
        roll = self.roll
        b, segments = roll.buf, roll.segments
        actions = np.empty(self.B, np.int64)
        for _ in range(hp.rollout_steps):
            obs, masks = self.seat_view()
            cur = g.current_player
            who = self.owner[self.rows, cur]
            mine = np.flatnonzero(who == LEARNER)
            start = roll.count
            if mine.size:
                o, m = obs[mine], masks[mine]
                f = self.legal_features(mine, m)
                anchor = self.anchor_moves(o, m)
                acts, logp, val, played = self.decide(o, m, self.teacher.act(o, m) if imitating else None, f,
                                                      anchor, self.actor)
                ids = start + np.arange(mine.size)
                if anchor is not None:
                    b.anchor[ids] = anchor
                b.obs[ids], b.mask[ids], b.act[ids], b.logp[ids], b.val[ids] = o, m, acts, logp, val
                roll.store_moves(ids, f)
                seats = cur[mine]
                prev = self.last[mine, seats]
                b.nxt[prev[prev >= 0]] = ids[prev >= 0]
                self.last[mine, seats] = ids
                actions[mine] = played
                roll.count += mine.size
            segments.append((start, roll.count))
            for k in np.unique(who[who != LEARNER]):
                idx = np.flatnonzero(who == k)
                feats = g.action_features(games=idx) if opponents[k].uses_action_features else None
                actions[idx] = opponents[k].act(obs[idx], masks[idx], features=feats)
            self.reward(g.step(actions))
        roll.ready = np.ones(roll.count, bool)
        roll.ready[self.last[self.last >= 0]] = False
        return roll

    def reward(self, r: np.ndarray) -> None:
        """Credit a step's (B, n) points to each learner seat's pending decision; end and restart the episodes
        that ended (win reward by the game's winners)."""
        hp, g, n = self.hp, self.game, self.n
        add = np.zeros_like(r)
        if hp.points_coef and n > 1:
            add += hp.points_coef * (r - (r.sum(axis=1, keepdims=True) - r) / (n - 1))
        ended = np.flatnonzero(g.game_over | g.truncated)
        won = np.zeros((0, n), bool)
        if ended.size:
            won = g.winners(ended)
            add[ended] += np.where(won, hp.win_reward, -hp.win_reward)
        if hp.round_credit:
            add += hp.round_credit * self.win_change(ended, won)
        held = self.last >= 0
        self.roll.buf.rew[self.last[held]] += add[held]
        if ended.size:
            mine = self.owner[ended] == LEARNER
            c = self.roll.tally
            c["episodes"] += ended.size
            c["learner_seats"] += int(mine.sum())
            c["learner_wins"] += int((mine & won).sum())
            self.last[ended] = -1
            g.reset(games=ended)
            self.draw_owners(ended)

    def win_change(self, ended: np.ndarray, won: np.ndarray) -> np.ndarray:
        """(B, n) change of each seat's chance to win over the last step: at a round's end the model's chance
        after it less before it, at the game's end 1 for its winners or 0 less before (so a game's changes add up
        to won - the chance at the start)."""
        g, now = self.game, self.win_p.copy()
        done = np.flatnonzero(g.round_over)
        if done.size:
            now[done] = self.credit.prob(g.totals[done], g.rounds_done[done])
        now[ended] = won
        change = now - self.win_p
        now[ended] = self.credit.start()       # the next episode
        self.win_p = now
        return change
