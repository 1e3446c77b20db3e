"""The invariants every game keeps after every batched step, checked with numpy over whole batches.

A second opinion on the engines: the checks read the state records' fields and the public views (masks,
flags, rewards, observations, state vectors, totals, winners, info arrays) and recompute what must hold
from the rules (quando_env/<game>/RULES.md), never through the engines' own helper functions
(only their constants: card tables, location and phase codes). Every check returns {invariant: (B,) bool,
True in the games where it fails}, so a failure names what broke and where.

`Rules` holds what the checks need to know about one batch; `Tracker` counts what happened in each game's
episode (decisions, rounds, summed rewards); `check_step` judges one step from a `Snapshot` without
changing the tracker, so a test can plant a violation in a copy and see it caught; `run` plays a seeded
batch with random legal moves (sample_actions) and collects the first failure of every invariant.
"""
import importlib
from dataclasses import dataclass, field

import numpy as np

from quando_env.cabo import cards as cabo_cards
from quando_env.cabo import engine as cabo_engine
from quando_env.help import cards as help_cards
from quando_env.help import engine as help_engine
from quando_env.quando import cards as quando_cards
from quando_env.quando import engine as quando_engine

ENGINES = {"quando": quando_engine, "cabo": cabo_engine, "help": help_engine}


# ---------------------------------------------------------------- cards conserved
def in_range(length, start, stop):
    """(B, length) True at the positions start[g] <= i < stop[g], and (B,) True where the range does not
    fit the array."""
    start = np.broadcast_to(np.asarray(start, np.int64), np.shape(stop))
    stop = np.asarray(stop, np.int64)
    pos = np.arange(length)
    listed = (pos >= start[:, None]) & (pos < stop[:, None])
    return listed, (start < 0) | (stop > length) | (start > stop)


def counts(items, listed, k):
    """(B, k) how often each value 0..k-1 is listed (items[g, i] where listed[g, i]), and (B,) True where a
    listed value lies outside 0..k-1."""
    b = items.shape[0]
    v = items.reshape(b, -1).astype(np.int64)
    listed = listed.reshape(b, -1)
    inside = (v >= 0) & (v < k)
    flat = (np.arange(b)[:, None] * k + v)[listed & inside]
    return np.bincount(flat, minlength=b * k).reshape(b, k), (listed & ~inside).any(axis=1)


def pile_counts(states, cards_field, start, stop, k):
    """counts() of a pile held as a list with its bounds; bad also where the bounds do not fit."""
    items = states[cards_field]
    listed, bad_range = in_range(items.shape[1], start, stop)
    c, bad = counts(items, listed, k)
    return c, bad | bad_range


def quando_cards_ok(states, n):
    """R1: each of the 55 cards is in exactly one hand or pile; `loc`, the pile lists and the hand counts
    say the same; every card shows side 0 or 1."""
    E = quando_engine
    num = quando_cards.NUM_CARDS
    loc = states["loc"].astype(np.int64)
    in_draw, bad_draw = pile_counts(states, "draw", 0, states["ndraw"], num)
    in_disc, bad_disc = pile_counts(states, "disc", 0, states["ndisc"], num)
    held = (loc >= 0) & (loc < n)
    nhand = states["nhand"].astype(np.int64)
    per_seat = np.stack([(loc == p).sum(axis=1) for p in range(n)], axis=1)
    return {
        "cards_conserved": (held + in_draw + in_disc != 1).any(axis=1) | bad_draw | bad_disc
        | (states["ndraw"] + states["ndisc"] + nhand[:, :n].sum(axis=1) != num),
        "card_places_agree": ~(held | (loc == E.LOC_DRAW) | (loc == E.LOC_DISCARD)).all(axis=1)
        | (in_draw != (loc == E.LOC_DRAW)).any(axis=1) | (in_disc != (loc == E.LOC_DISCARD)).any(axis=1)
        | (nhand[:, :n] != per_seat).any(axis=1) | (nhand[:, n:] != 0).any(axis=1)
        | ~np.isin(states["face"], (0, 1)).all(axis=1),
    }


def cabo_cards_ok(states, n):
    """R1: each of the 52 cards is in exactly one slot, the stock, the discard pile or the drawer's hand
    (drawn, not yet placed); `loc`, `pos`, the pile lists and the hand counts say the same."""
    E = cabo_engine
    num = cabo_cards.NUM_CARDS
    b = states.shape[0]
    slot = states["slot"].astype(np.int64)
    occupied = slot[:, :n] >= 0
    in_slots, bad_slots = counts(slot[:, :n], occupied, num)
    in_stock, bad_stock = pile_counts(states, "stock", 0, states["nstock"], num)
    in_disc, bad_disc = pile_counts(states, "disc", 0, states["ndisc"], num)
    drawn = states["drawn"].astype(np.int64)
    in_drawn = (np.arange(num)[None, :] == drawn[:, None]).astype(np.int64)
    loc = states["loc"].astype(np.int64)
    gi, pi, ii = np.nonzero(occupied)
    c = np.clip(slot[gi, pi, ii], 0, num - 1)
    misplaced = np.zeros(b, bool)
    misplaced[gi[(loc[gi, c] != pi) | (states["pos"][gi, c] != ii)]] = True
    nhand = states["nhand"].astype(np.int64)
    return {
        "cards_conserved": (in_slots + in_stock + in_disc + in_drawn != 1).any(axis=1)
        | bad_slots | bad_stock | bad_disc | (slot[:, n:] != -1).any(axis=(1, 2)),
        "card_places_agree": misplaced | (in_stock != (loc == E.LOC_STOCK)).any(axis=1)
        | (in_disc != (loc == E.LOC_DISC)).any(axis=1) | (in_drawn != (loc == E.LOC_DRAWN)).any(axis=1)
        | (nhand[:, :n] != occupied.sum(axis=2)).any(axis=1) | (nhand[:, n:] != 0).any(axis=1),
    }


def help_cards_ok(states, n, row_max):
    """R1: the 105 cards by kind are all in the hands, the draw pile, the discard pile, the row and the
    No!s in front of seats; R7: between decisions the row holds 0..row_max-1 numbers and Wilds with
    strictly ascending values 1..11, a number card valued at its number."""
    C = help_cards
    k = C.NUM_KINDS
    hand = states["hand"].astype(np.int64)
    in_draw, bad_draw = pile_counts(states, "draw", states["dpos"], states["dend"], k)
    in_disc, bad_disc = pile_counts(states, "disc", 0, states["ndisc"], k)
    in_row, bad_row = pile_counts(states, "row_kind", 0, states["nrow"], k)
    in_front = np.zeros_like(in_row)
    in_front[:, C.K_NO] = (states["no"][:, :n] != help_engine.NO_NONE).sum(axis=1)
    everywhere = hand[:, :n].sum(axis=1) + in_draw + in_disc + in_row + in_front
    nrow = states["nrow"].astype(np.int64)
    listed, _ = in_range(states["row_val"].shape[1], 0, nrow)
    kind = states["row_kind"].astype(np.int64)
    val = states["row_val"].astype(np.int64)
    number = kind < C.K_WILD
    rises = np.diff(val, axis=1) > 0
    return {
        "cards_conserved": (everywhere != C.KIND_COUNTS[None, :]).any(axis=1) | bad_draw | bad_disc | bad_row
        | (hand < 0).any(axis=(1, 2)) | (hand[:, n:] != 0).any(axis=(1, 2)),
        "row_valid": (nrow < 0) | (nrow >= row_max)
        | (listed & ~(number | (kind == C.K_WILD))).any(axis=1)
        | (listed & ((val < 1) | (val > C.MAX_VALUE) | (number & (val != kind + 1)))).any(axis=1)
        | (listed[:, 1:] & ~rises).any(axis=1),
    }


def hand_values(name, states, n):
    """(B, n) what each seat's hand counts at a round's end, from the cards: Quando the fronts (R17),
    Cabo the card values (R22); None for Help."""
    if name == "quando":
        loc = states["loc"].astype(np.int64)
        front = quando_cards.CARD_VALUES[np.arange(quando_cards.NUM_CARDS)[None, :], states["face"]].astype(np.int64)
        return np.stack([np.where(loc == p, front, 0).sum(axis=1) for p in range(n)], axis=1)
    if name == "cabo":
        slot = states["slot"][:, :n].astype(np.int64)
        return np.where(slot >= 0, cabo_cards.CARD_VALUES[np.clip(slot, 0, None)], 0).sum(axis=2)
    return None


# ---------------------------------------------------------------- what one batch's checks need to know
@dataclass
class Rules:
    """One batch's game and configuration, as the checks read them."""

    name: str
    n: int
    autoreset: bool
    win: bool               # reward="win": +1 / -1 at the end, else the points convention
    round_episode: bool
    max_steps: int
    round_limit: bool       # Help!: max_steps counts the decisions of a round (R22), else of the episode
    sign: int               # reward="points": the episode's return is sign * final total
    highest_wins: bool
    totals_grow: bool       # totals never fall (not Cabo: R25 takes 25 off a total landing on 25, 50, ...)
    target: int
    strict: int             # the game ends when a total reaches target + strict (R19 oya, Cabo R26: >)
    over_phase: int
    returns: tuple          # (lowest, highest) episode return (the contract's return_bounds)
    cards: object           # states -> {invariant: (B,) bool}
    lo: np.ndarray          # an observation's documented range, per entry
    hi: np.ndarray
    sections: dict          # section name -> (start, stop)

    @classmethod
    def of(cls, game):
        name, cfg, n = game.name, game.config, game.num_players
        E = ENGINES[name]
        target = cfg.target_score if name == "quando" else cfg.target
        cards = {"quando": lambda s: quando_cards_ok(s, n), "cabo": lambda s: cabo_cards_ok(s, n),
                 "help": lambda s: help_cards_ok(s, n, cfg.row_max)}[name]
        sections, lo, hi = observation_ranges(game)
        return cls(name=name, n=n, autoreset=game.autoreset, win=cfg.reward == "win",
                   round_episode=cfg.episode == "round", max_steps=cfg.max_steps, round_limit=name == "help",
                   sign=1 if name == "help" else -1, highest_wins=name == "help", totals_grow=name != "cabo",
                   target=target,
                   strict=int(name == "cabo" or (name == "quando" and cfg.edition == "oya")),
                   over_phase=E.PH_OVER, returns=game.return_bounds(cfg), cards=cards, lo=lo, hi=hi, sections=sections)

    def winners(self, totals):
        """(B, n) the seats with the best total (the lowest; Help!'s highest, R21)."""
        best = totals.max(axis=1, keepdims=True) if self.highest_wins else totals.min(axis=1, keepdims=True)
        return totals == best

    def reached(self, totals):
        """(B,) some total reached the target: the game ends (Quando R19, Cabo R26, Help! R21)."""
        return (totals >= self.target + self.strict).any(axis=1)


def observation_ranges(game):
    """The observation's sections and each entry's documented range (the layouts' meanings): everything
    is a count, a fraction or a one-hot, so >= 0 and <= 1 unless the meaning scales a count that can pass
    its divisor (listed here with its bound from the options)."""
    cfg, name = game.config, game.name
    sections = importlib.import_module(f"quando_env.{name}.observation").offsets(game.num_players)
    if name == "quando":
        worst_total = -game.points_bounds(cfg)[0]
        wide = {"turns": cfg.max_steps / 10, "totals": worst_total / cfg.target_score, "round": cfg.max_steps / 10,
                "hand_sizes": quando_cards.NUM_CARDS / 10, "own_hand": 10, "opponents": 10}
    elif name == "cabo":
        most_turns = max(cfg.turn_limit, cfg.max_steps) / 100
        wide = {"turns": most_turns, "totals": -game.points_bounds(cfg)[0] / cfg.target,
                "round_points": 2 * cabo_cards.NUM_SLOTS * 13 / cfg.target, "round": cfg.max_steps / 10}
    else:   # a seat holds at most hand_size cards, the asker one more during a help (R15-R18)
        most = (cfg.hand_size + 1) / cfg.hand_size
        wide = {"own_hand": most, "hand_sizes": most, "totals": game.points_bounds(cfg)[1] / cfg.target}
    hi = np.ones(game.obs_dim, np.float32)     # float32 as the observation: 4/3 rounds up there
    for section, bound in wide.items():
        a, b = sections[section]
        hi[a:b] = bound
    return sections, np.zeros(game.obs_dim, np.float32), hi


# ---------------------------------------------------------------- one step
@dataclass
class Snapshot:
    """What one batched step showed: the move that was sampled (with the mask it was sampled from) and
    everything observable after it."""

    cur_before: np.ndarray
    mask_before: np.ndarray
    actions: np.ndarray
    states: np.ndarray
    mask: np.ndarray
    rewards: np.ndarray
    round_over: np.ndarray
    game_over: np.ndarray
    truncated: np.ndarray
    obs: np.ndarray             # observe() of the player to move (seat 0 once over)
    state: np.ndarray           # state()
    winners: np.ndarray         # winners()

    def copy(self):
        return Snapshot(**{k: np.array(v, copy=True) for k, v in vars(self).items()})


@dataclass
class Tracker:
    """Per game, since its episode started: decisions, decisions of the current round, rounds finished,
    summed rewards, and the totals after the last step."""

    steps: np.ndarray
    round_steps: np.ndarray
    rounds: np.ndarray
    ret: np.ndarray
    totals: np.ndarray

    @classmethod
    def fresh(cls, b, n):
        z = np.zeros(b, np.int64)
        return cls(z.copy(), z.copy(), z.copy(), np.zeros((b, n), np.float64), np.zeros((b, n), np.int64))

    def after(self, snap):
        """The counters including this step (before games that ended start anew)."""
        return Tracker(self.steps + 1, self.round_steps + 1, self.rounds + snap.round_over,
                       self.ret + snap.rewards, snap.states["total"][:, : self.ret.shape[1]].astype(np.int64))

    def advance(self, snap):
        """Take the step in: a round's end restarts the round's count, an episode's end everything."""
        new = self.after(snap)
        new.round_steps[snap.round_over] = 0
        ended = snap.game_over | snap.truncated
        for a in (new.steps, new.round_steps, new.rounds, new.ret, new.totals):
            a[ended] = 0
        vars(self).update(vars(new))


def state_violations(rules, states, mask):
    """The invariants of any moment: cards conserved, a non-empty mask exactly when a game is live (a seat
    decides, current_player >= 0), and the phase "over" exactly when no seat decides."""
    cur = states["cur"].astype(np.int64)
    live = cur >= 0
    return {**rules.cards(states),
            "mask_live": (mask.any(axis=1) != live) | (cur < -1) | (cur >= rules.n),
            "over_phase": (states["phase"] == rules.over_phase) == live}


def view_violations(rules, states, obs, players):
    """Seat players[i]'s observation obs[i] of game i (players[i] < 0: the player to move, seat 0 once
    over): finite, inside its documented range, and showing the phase, whether it is to move and the
    totals (by relative seat) of the state."""
    cur = states["cur"].astype(np.int64)
    p = np.where(players >= 0, players, np.maximum(cur, 0))
    b = obs.shape[0]
    a, z = rules.sections["phase"]
    phase = np.zeros((b, z - a))
    phase[np.arange(b), states["phase"].astype(np.int64)] = 1.0
    a_tot, z_tot = rules.sections["totals"]
    seats = (p[:, None] + np.arange(rules.n)[None, :]) % rules.n
    totals = states["total"].astype(np.float64)[np.arange(b)[:, None], seats] / rules.target
    return {
        "obs_range": ~((obs >= rules.lo) & (obs <= rules.hi)).all(axis=1),    # NaN fails both
        "obs_phase": (obs[:, a:z] != phase).any(axis=1),
        "obs_to_move": obs[:, rules.sections["to_move"][0]] != (cur == p),
        "obs_totals": ~np.isclose(obs[:, a_tot:z_tot], totals, rtol=1e-6, atol=1e-6).all(axis=1),
    }


def check_step(rules, track, snap):
    """{invariant: (B,) bool, True where it fails} after one step (the tracker is left as it was)."""
    s = snap.states
    n = rules.n
    b = s.shape[0]
    rows = np.arange(b)
    new = track.after(snap)
    ro, go, tr = snap.round_over, snap.game_over, snap.truncated
    ended = go | tr
    live = s["cur"] >= 0
    own = ~(ended & rules.autoreset)            # the records still show the episode the step played in
    totals = s["total"][:, :n].astype(np.int64)
    was_live = snap.cur_before >= 0
    a = snap.actions
    legal = snap.mask_before[rows, np.clip(a, 0, snap.mask_before.shape[1] - 1)] & (a >= 0)
    limit = (new.round_steps if rules.round_limit else new.steps) == rules.max_steps
    ends_first = ro if rules.round_limit else go    # what ends before truncation can (Help! R22; D6)
    expect_steps = np.where(ro & ~go, 0, new.round_steps) if rules.round_limit else new.steps
    mine = rules.winners(totals)
    bad = {
        **state_violations(rules, s, snap.mask),
        "sampled_legal": np.where(was_live, ~legal, a != -1),
        # game_over implies round_over, never with truncated; episode="round" ends at every round's end;
        # an episode that ended shows no player to move (autoreset off) or a new one (on)
        "episode_flags": (go & ~ro) | (go & tr) | (rules.round_episode & (ro != go))
        | (~live if rules.autoreset else ended == live),
        # truncation exactly when max_steps decisions are reached and the rules did not end it first
        "truncation": tr != (limit & ~ends_first),
        # the engine's own counters follow the episode; a restarted game starts from nothing
        "counters": np.where(own, (s["round"] != new.rounds) | (s["steps"] != expect_steps),
                             (s["round"] != 0) | (s["steps"] != 0) | (totals != 0).any(axis=1)
                             | (s["points"][:, :n] != 0).any(axis=1)),
        # totals change only when a round ends, never fall below 0, and (but in Cabo) never fall
        "totals": own & ((totals < 0).any(axis=1) | (~ro & (totals != track.totals).any(axis=1))
                         | (rules.totals_grow & (totals < track.totals).any(axis=1))),
        "return_bounds": ended & ((new.ret < rules.returns[0]) | (new.ret > rules.returns[1])).any(axis=1),
        # the game ends exactly when a total reaches the target (episode="game")
        "target_rule": own & ~rules.round_episode & np.where(go, ~rules.reached(totals), ro & rules.reached(totals)),
        "winners": go & own & (snap.winners != mine).any(axis=1),
        "state_finite": ~np.isfinite(snap.state).all(axis=1) | (snap.state < 0).any(axis=1),
        **view_violations(rules, s, snap.obs, np.full(b, -1)),
    }
    if rules.win:    # +1 exactly for the winners, -1 for the others, at the end of a game only
        plus_minus = np.isin(snap.rewards, (-1.0, 1.0)).all(axis=1) & (snap.rewards == 1.0).any(axis=1)
        bad["rewards"] = np.where(go, np.where(own, (snap.rewards != np.where(mine, 1.0, -1.0)).any(axis=1),
                                               ~plus_minus), (snap.rewards != 0).any(axis=1))
    else:            # the rewards summed over the episode so far are sign * the totals
        bad["rewards"] = own & (new.ret != rules.sign * totals).any(axis=1)
    return bad


# ---------------------------------------------------------------- a seeded run
@dataclass
class Report:
    """What a run saw: decisions taken, events, and the first failure of every invariant."""

    decisions: int = 0
    events: dict = field(default_factory=lambda: dict(round_over=0, game_over=0, truncated=0, reshuffles=0))
    failures: dict = field(default_factory=dict)

    def note(self, bad, when):
        for name, where in bad.items():
            slots = np.flatnonzero(where)
            if slots.size and name not in self.failures:
                self.failures[name] = f"{when}: games {slots[:5].tolist()}"


def every_seat_violations(rules, game):
    """Every seat's observation of every game (all of view_violations), and the info arrays against the
    state records: score, round_points, rounds_done, and the hand's value where the game reports it."""
    s = game.states
    n = rules.n
    bad = {}
    for p in range(n):
        for name, where in view_violations(rules, s, game.observe(players=p), np.full(game.num_games, p)).items():
            bad[name] = bad.get(name, False) | where
    info = game.info_arrays()
    wrong = (info["score"] != s["total"][:, :n]).any(axis=1) | (info["round_points"] != s["points"][:, :n]).any(axis=1)
    wrong |= (info["rounds_done"] != s["round"][:, None]).any(axis=1)
    hands = hand_values(rules.name, s, n)
    if hands is not None:
        wrong |= (info[game.seat_info_keys[0]] != hands).any(axis=1)
    bad["info"] = wrong
    return bad


def snapshot(game, cur_before, mask_before, actions, rewards):
    """The Snapshot of the step just taken."""
    return Snapshot(cur_before, mask_before, actions, game.states.copy(), game.legal_action_mask.copy(), rewards,
                    game.round_over, game.game_over, game.truncated, game.observe(), game.state(), game.winners())


def step_once(game):
    """One batched step of random legal moves; its Snapshot."""
    cur, mask = game.current_player, game.legal_action_mask.copy()
    actions = game.sample_actions()
    rewards = game.step(actions)
    return snapshot(game, cur, mask, actions, rewards)


def reshuffles(states):
    """In-round reshuffles (oya, Help!'s either option) so far in each episode."""
    names = states.dtype.names
    return states["shuffles"].astype(np.int64) + (states["flips"] if "flips" in names else 0)


def run(game, steps, every_seat=16):
    """Play `steps` batched steps of random legal moves in `game` (seeded: sample_actions' streams), judging
    the invariants after the start and every step, every seat's view every `every_seat` steps. Games
    that ended are restarted by autoreset, or else here with reset(games=...) once judged."""
    rules = Rules.of(game)
    track = Tracker.fresh(game.num_games, rules.n)
    report = Report()
    report.note(state_violations(rules, game.states, game.legal_action_mask), "after reset")
    report.note(every_seat_violations(rules, game), "after reset")
    for t in range(1, steps + 1):
        snap = step_once(game)
        report.decisions += int((snap.cur_before >= 0).sum())
        report.note(check_step(rules, track, snap), f"step {t}")
        if t % every_seat == 0:
            report.note(every_seat_violations(rules, game), f"step {t}, every seat")
        ev = report.events
        ev["round_over"] += int(snap.round_over.sum())
        ev["game_over"] += int(snap.game_over.sum())
        ev["truncated"] += int(snap.truncated.sum())
        ev["reshuffles"] = max(ev["reshuffles"], int(reshuffles(snap.states).max()))
        track.advance(snap)
        ended = np.flatnonzero(snap.game_over | snap.truncated)
        if not rules.autoreset and ended.size:
            game.reset(games=ended)     # each goes on with its own random stream
            report.note(state_violations(rules, game.states, game.legal_action_mask), f"step {t}, restarted")
    return report
