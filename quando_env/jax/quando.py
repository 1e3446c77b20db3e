"""Quando in JAX: the rules of quando_env.quando.engine as pure functions over one game's arrays, on Pgx's API.

One game is a `State` of per-card arrays (where each card is, which side faces its holder or up, its pile position,
when it was acquired, which sides each seat has seen); vmap makes a batch. A step is split into the game's events as
the numba engine's is: the decision's own event (`play_cards` with `turn_played`, `knock`, `draw`, `flip_zero`),
then the automatic part of the turn as stages run in the rules' order, each only where the turn has reached it
(`penalty`, `turn_draw`, `after_turn_draw`, `end_turn`), and `end_round`. Observations, masks and rewards are the
numba engine's (quando_env.quando.observation's layout), compared decision by decision in tests/test_jax_quando.py.
Rule ids (R*, D*, K*) refer to quando_env/quando/RULES.md.
"""
from dataclasses import field

import jax
import jax.numpy as jnp
import numpy as np
import pgx.core
from pgx.core import dataclass

from ..quando import engine as E
from ..quando.cards import (CARD_VALUES, FLIP_KNOWN, FLIP_UNKNOWN, KNOCK, MAX_SET, NUM_ACTIONS, NUM_CARDS,
                            NUM_VALUES, PAIR_TO_CARD, SET, TAKE_DOWN, deck_to_cards)
from ..quando.config import Config
from ..quando.observation import offsets
from . import ops
from .env import PgxGameEnv, as_list, decide, is_traced, pgx_fields, rules_class, truncated_at
from .table import Drawn

LOW = jnp.asarray(CARD_VALUES[:, 0], jnp.int32)     # per card id its two numbers: side 0 (low), side 1 (high)
HIGH = jnp.asarray(CARD_VALUES[:, 1], jnp.int32)
CARDS = jnp.arange(NUM_CARDS)
PAIR = jnp.asarray(PAIR_TO_CARD, jnp.int32)
DRAW, DISCARD = E.LOC_DRAW, E.LOC_DISCARD
# Work left after an event (the numba engine's T_* codes), and the one stage that ends the round.
DECIDE, TURN_DRAW, AFTER_TURN_DRAW, PENALTY_START, PENALTY_NEXT, END_TURN, END_ROUND = range(-1, 6)
NO_ACQ = 2**30      # beyond any acquisition stamp
# (110, 11): row side * 55 + card, one-hot the number on that side (a seen-sides count per number is a product)
SIDE_VALUES = jnp.asarray(np.eye(NUM_VALUES, dtype=np.float32)[np.concatenate([CARD_VALUES[:, 0],
                                                                                CARD_VALUES[:, 1]])])


@dataclass
class State(Drawn, pgx.core.State):
    """Pgx's fields (once the episode is over, current_player stays the seat that made the last decision), then one
    game's own. Per card id: place (seat, DRAW or DISCARD), side facing its holder or up, position in its pile from the
    bottom, acquisition stamp (D4, D5), and per seat the sides it has seen (bit 1 << side, K1-K4)."""

    _loc: jax.Array
    _face: jax.Array
    _pos: jax.Array
    _acq: jax.Array
    _seen: jax.Array
    _ndraw: jax.Array
    _ndisc: jax.Array
    _turns: jax.Array       # A/B turns per seat this round (R15)
    _total: jax.Array       # game totals (R19)
    _points: jax.Array      # the last finished round's points (R17, R18)
    _dealer: jax.Array
    _active: jax.Array
    _phase: jax.Array
    _knocker: jax.Array
    _triplet: jax.Array
    _drawctx: jax.Array     # 0: the turn's own draw, 1: a penalty draw
    _pen_cur: jax.Array
    _pen_left: jax.Array
    _acq_next: jax.Array
    _round: jax.Array
    _shuffles: jax.Array    # oya reshuffles in this episode

    _config: Config = field(default=None, metadata={"pytree_node": False})     # the env's, for pictures

    @property
    def env_id(self) -> str:
        return "quando"

    def record_fields(self) -> dict:
        """The numba record's piles (card ids, bottom first) and hand sizes."""
        loc, pos = np.asarray(self._loc), np.asarray(self._pos)
        piles = {name: np.flatnonzero(loc == where)[np.argsort(pos[loc == where])]
                 for name, where in (("draw", DRAW), ("disc", DISCARD))}
        return dict(piles, nhand=np.bincount(loc[loc < self.rewards.shape[0]], minlength=self.rewards.shape[0]))


Rules = rules_class(Config, lambda r: r.oya or not r.round_episode)


class Quando(PgxGameEnv):
    """Quando on Pgx's API, with quando_env.quando.Config's options. `init(key, options={"deck": 55 [up, down]
    pairs top first, "dealer": seat})` deals the given deck (R4-R6); `step` needs a key in the oya edition (its
    reshuffles, R11) and with episode="game" (each new round's deal)."""

    game = "quando"
    config_class = Config
    rules_class = Rules
    over_phase = E.PH_OVER
    setup_keys = ("deck", "dealer")

    def _checked_setup(self, setup):
        out = {"dealer": self.checked_seat(setup, "dealer", self.config.dealer)}
        if "deck" in setup:
            deck = setup["deck"]
            if is_traced(deck):     # inside jit or vmap: [up, down] pairs taken as given
                out["deck"] = PAIR[deck[:, 0], deck[:, 1]], (deck[:, 0] > deck[:, 1]).astype(jnp.int32)
            else:
                ids, ups = deck_to_cards(as_list(deck))
                out["deck"] = jnp.asarray(ids, jnp.int32), jnp.asarray(ups, jnp.int32)
        return out

    def _init_setup(self, key, setup):
        return init(self.rules, key, setup.get("deck"), setup.get("dealer", self.config.dealer))

    # the game's pure functions, defined below
    rules_step = staticmethod(lambda rules, state, action, key: step(rules, state, action, key))
    rules_observe = staticmethod(lambda rules, state, player: observe(rules, state, player))



# ---------------------------------------------------------------- cards and what each seat sees
def _values(face):
    """Per card: (the number its face shows, the number on its other side)."""
    front = jnp.where(face == 0, LOW, HIGH)
    return front, LOW + HIGH - front


def _seats(r):
    return jnp.arange(r.n)[:, None]


def _reveal_top(s):
    """K2: the top of the draw pile shows its up side to everyone."""
    top = (s._loc == DRAW) & (s._pos == s._ndraw - 1)
    return s.replace(_seen=s._seen | jnp.where(top, 1 << s._face, 0)[None, :])


def _into_hand(r, s, card, p):
    """The cards marked in `card` join seat p's hand (their face side the front), stamped in card order. K1: p sees
    the front, everyone else the back."""
    stamp = s._acq_next     # one card at a time
    sees = jnp.where(_seats(r) == p, 1 << s._face, 1 << (1 - s._face))
    return s.replace(_loc=jnp.where(card, p, s._loc), _acq=jnp.where(card, stamp, s._acq),
                     _acq_next=s._acq_next + card.sum(), _seen=s._seen | jnp.where(card, sees, 0))


def _discard(s, slot):
    """R10: the cards with slot >= 0 go front up onto the discard pile, slot 0 first; K3: everyone sees that
    side."""
    out = slot >= 0
    return s.replace(_loc=jnp.where(out, DISCARD, s._loc), _pos=jnp.where(out, s._ndisc + slot, s._pos),
                     _ndisc=s._ndisc + out.sum(), _seen=s._seen | jnp.where(out, 1 << s._face, 0)[None, :])


def _refill(r, s, seed):
    """R11: an empty draw pile is replaced by the discard pile at once (kendi: turned over; oya: shuffled, each card
    a random side up)."""
    go = (s._ndraw == 0) & (s._ndisc > 0)
    disc = go & (s._loc == DISCARD)
    m = s._ndisc
    if r.oya:
        pos, face = ops.random_order(seed, disc), _random_sides(seed)
    else:
        pos, face = m - 1 - s._pos, 1 - s._face
    s = s.replace(_loc=jnp.where(disc, DRAW, s._loc), _pos=jnp.where(disc, pos, s._pos),
                  _face=jnp.where(disc, face, s._face), _ndraw=jnp.where(go, m, s._ndraw),
                  _ndisc=jnp.where(go, 0, s._ndisc), _shuffles=s._shuffles + (go & r.oya))
    return _reveal_top(s)


def _held(r, s):
    """(n, 55) bool: seat q holds card c."""
    return s._loc[None, :] == _seats(r)


def knock_open(r, s):
    """R15 (kendi): nobody knocked yet and every seat completed `knock_min_turns` A/B turns this round."""
    if r.oya:
        return jnp.bool_(False)
    return (s._knocker < 0) & (s._turns >= r.kmin).all()


# ---------------------------------------------------------------- rounds
def _deal(r, s, place, up, dealer):
    """R4-R6: the deck (per card its place from the top and the side facing up) dealt one card at a time clockwise
    from the dealer's left; D1, K4: nothing else is seen."""
    n, dealt_cards = r.n, r.n * r.hand
    dealt = place < dealt_cards
    holder = (dealer + 1 + place % n) % n
    face = jnp.where(dealt, 1 - up, up)     # R5: the up side becomes the back
    sees = jnp.where(_seats(r) == holder[None, :], 1 << face, 1 << (1 - face))
    s = s.replace(_loc=jnp.where(dealt, holder, DRAW), _face=face, _pos=NUM_CARDS - 1 - place,
                  _acq=jnp.where(dealt, place, 0), _seen=jnp.where(dealt[None, :], sees, 0),
                  _ndraw=ops.i32(NUM_CARDS - dealt_cards), _ndisc=ops.i32(0), _acq_next=ops.i32(dealt_cards),
                  _turns=jnp.zeros(n, jnp.int32), _dealer=ops.i32(dealer), _knocker=ops.i32(-1), _triplet=ops.i32(0),
                  _pen_left=ops.i32(0), _active=(dealer + 1) % n, _phase=ops.i32(E.PH_ACT))
    s = s.replace(current_player=s._active)
    return _reveal_top(s)


def _random_sides(seed):
    return (ops.hashed_bits(seed, NUM_CARDS, 2) & 1).astype(jnp.int32)


def _shuffled(seed):
    """R4: a shuffled deck (per card its place from the top), each card a random side up."""
    return ops.random_order(seed, CARDS >= 0), _random_sides(seed)


def init(r, key, deck, dealer):
    """A new game: the given deal (deck: (card ids, up sides)) or a shuffled one."""
    n, z = r.n, ops.i32(0)
    s = State(**pgx_fields(n, offsets(n)["known_cards"][1], NUM_ACTIONS),
              _loc=jnp.zeros(NUM_CARDS, jnp.int32), _face=jnp.zeros(NUM_CARDS, jnp.int32),
              _pos=jnp.zeros(NUM_CARDS, jnp.int32), _acq=jnp.zeros(NUM_CARDS, jnp.int32),
              _seen=jnp.zeros((n, NUM_CARDS), jnp.int32), _ndraw=z, _ndisc=z, _turns=jnp.zeros(n, jnp.int32),
              _total=jnp.zeros(n, jnp.int32), _points=jnp.zeros(n, jnp.int32), _dealer=z, _active=z, _phase=z,
              _knocker=ops.i32(-1), _triplet=z, _drawctx=z, _pen_cur=z, _pen_left=z, _acq_next=z, _round=z,
              _shuffles=z)
    if deck is None:
        place, up = _shuffled(jax.random.bits(key, (), jnp.uint32))
    else:
        ids, up_top_first = deck
        place = jnp.zeros(NUM_CARDS, jnp.int32).at[ids].set(jnp.arange(NUM_CARDS, dtype=jnp.int32))
        up = jnp.zeros(NUM_CARDS, jnp.int32).at[ids].set(up_top_first)
    s = _deal(r, s, place, up, ops.i32(dealer))
    return s.replace(legal_action_mask=legal_actions(r, s))


def end_round(r, s, go, seed):
    """R17, R18 (with D3), R19 where `go`: points, totals, rewards; then the episode ends or the next round is
    dealt (the dealer moves on, R6)."""
    front, _ = _values(s._face)
    sums = (_held(r, s) * front[None, :]).sum(axis=1)
    low = sums.min()
    points = jnp.where(sums == low, 0, sums)
    k = s._knocker
    knocker_lost = (k >= 0) & ~((sums[k] == low) & ((sums == low).sum() == 1))
    points = jnp.where(knocker_lost & (jnp.arange(r.n) == k), sums + r.penalty, points)
    total = s._total + jnp.where(go, points, 0)
    over = go & (r.round_episode | ((total > r.target) | ((total == r.target) & (not r.oya))).any())
    rewards = s.rewards - jnp.where(go & (not r.win_reward), points, 0)
    if r.win_reward:
        rewards = rewards + jnp.where(over, jnp.where(total == total.min(), 1.0, -1.0), 0.0)
    s = s.replace(_points=jnp.where(go, points, s._points), _total=total, _round=s._round + go,
                  rewards=rewards.astype(jnp.float32), terminated=s.terminated | over,
                  _phase=jnp.where(over, E.PH_OVER, s._phase))
    if r.round_episode:
        return s
    place, up = _shuffled(seed)
    nxt = _deal(r, s, place, up, (s._dealer + 1) % r.n)
    again = go & ~over
    return jax.tree_util.tree_map(lambda a, b: jnp.where(again, a, b), nxt, s)


# ---------------------------------------------------------------- the decision's own events
def play_cards(r, s, p, a, go, seed):
    """A or B (R10) where `go`: a straight x, x+1, x+2 or k cards showing v, each value's cards in D4 order (highest
    back known to p, unseen = 5.5, then earliest acquired); then `turn_played`."""
    front, back = _values(s._face)
    mine = s._loc == p
    known = (s._seen[p] >> (1 - s._face)) & 1
    key2 = jnp.where(known == 1, 2 * back, 11)      # twice the D4 key: 5.5 -> 11
    acq = s._acq
    group = jnp.where(mine, front, -1)
    rank = ops.rank(lambda j, g, k, t: (g[j] == g) & ((k[j] > k) | ((k[j] == k) & (t[j] < t))),   # p's cards of
                    NUM_CARDS, group, key2, acq)                                            # the same front first
    straight = a < SET
    x, v, k = a, (a - SET) // MAX_SET, (a - SET) % MAX_SET + 1
    in_straight = mine & (front >= x) & (front <= x + 2) & (rank == 0)
    slot = jnp.where(straight, jnp.where(in_straight, front - x, -1), jnp.where(mine & (front == v) & (rank < k),
                                                                              rank, -1))
    s = _discard(s, jnp.where(go, slot, -1))
    s = s.replace(_triplet=jnp.where(go, ~straight & (k == 3), s._triplet).astype(jnp.int32))
    return turn_played(r, s, p, go, seed)


def turn_played(r, s, p, go, seed):
    """After A or B: the seat's A/B turn counts (R15), and a discard onto an empty table becomes the draw pile at
    once (R11)."""
    more = go & (s._turns[p] < E.MAX_TURNS)
    return _refill(r, s.replace(_turns=s._turns.at[p].add(more.astype(jnp.int32))), seed)


def knock(s, p, go):
    """K (R15, R15o): p knocks where `go`."""
    return s.replace(_knocker=jnp.where(go, p, s._knocker))


def draw(r, s, p, take_down, go, seed):
    """R9 where `go`: p takes the top card, choosing which side becomes the front; R11 refills an emptied pile."""
    top = go & (s._loc == DRAW) & (s._pos == s._ndraw - 1)
    s = s.replace(_face=jnp.where(top & take_down, 1 - s._face, s._face), _ndraw=s._ndraw - go)
    return _refill(r, _into_hand(r, s, top, p), seed)


def flip_zero(r, s, p, a, go):
    """R12, D5 where `go`: p flips a front 0 (the earliest acquired of those with a back p has not seen, or the one
    whose known back the action names); everyone sees both sides."""
    front, _ = _values(s._face)
    unknown = ((s._seen[p] >> (1 - s._face)) & 1) == 0
    first = jnp.argmin(jnp.where((s._loc == p) & (front == 0) & unknown, s._acq, NO_ACQ))
    named = PAIR[0, jnp.clip(a - FLIP_KNOWN + 1, 1, NUM_VALUES - 1)]
    pick = go & (CARDS == jnp.where(a == FLIP_UNKNOWN, first, named))
    return s.replace(_face=jnp.where(pick, 1 - s._face, s._face), _seen=jnp.where(pick, 3, s._seen))


# ---------------------------------------------------------------- the automatic part of a turn
# Each stage runs where `todo` says the turn has reached it and returns the next piece (DECIDE when a seat must
# decide). Their order, which differs by edition, lets each run once per step.
def penalty(r, s, todo):
    """R12: a triplet penalises every other seat once, clockwise from the active seat's left: the next who holds a
    front 0 flips one, else draws (D2: with nothing to draw, nothing). After the last, the turn ends (kendi) or the
    active seat draws (R12o)."""
    start = todo == PENALTY_START
    go = start | (todo == PENALTY_NEXT)
    left = jnp.where(start, r.n - 1, s._pen_left)
    cur = jnp.where(start, (s._active + 1) % r.n, s._pen_cur)
    front, _ = _values(s._face)
    zero = (_held(r, s) & (front == 0)[None, :]).any(axis=1)
    ahead = jnp.arange(r.n)
    seat = (cur + ahead) % r.n
    can = (ahead < left) & (zero[seat] | (s._ndraw > 0))
    found = go & can.any()
    k = jnp.argmax(can)
    p = seat[k]
    flips = zero[p]
    s = s.replace(_pen_left=jnp.where(found, left - k - 1, jnp.where(go, 0, s._pen_left)),
                  _pen_cur=jnp.where(found, (p + 1) % r.n, jnp.where(go, (cur + left) % r.n, s._pen_cur)),
                  _drawctx=jnp.where(found & ~flips, 1, s._drawctx))
    s = decide(s, found, jnp.where(flips, E.PH_FLIP, E.PH_DRAW), p)
    after = TURN_DRAW if r.oya else END_TURN
    return s, jnp.where(found, DECIDE, jnp.where(go, after, todo))


def turn_draw(r, s, todo):
    """The active seat draws (R9); D2: with nothing to draw, go on as if drawn."""
    go = (todo == TURN_DRAW) & (s._ndraw > 0)
    s = decide(s.replace(_drawctx=jnp.where(go, 0, s._drawctx)), go, E.PH_DRAW, s._active)
    return s, jnp.where(go, DECIDE, jnp.where(todo == TURN_DRAW, AFTER_TURN_DRAW, todo))


def after_turn_draw(r, s, todo):
    """R14, R13: only zeros ends the round (and cancels a pending penalty); oya: the knock decision (R15o); kendi: a
    triplet's penalty (R12)."""
    go = todo == AFTER_TURN_DRAW
    front, _ = _values(s._face)
    only_zeros = ~((s._loc == s._active) & (front != 0)).any()
    if r.oya:
        ask = s._knocker < 0
        s = decide(s, go & ~only_zeros & ask, E.PH_KNOCK, s._active)
        nxt = jnp.where(ask, DECIDE, END_TURN)
    else:
        nxt = jnp.where(s._triplet == 1, PENALTY_START, END_TURN)
    return s, jnp.where(go, jnp.where(only_zeros, END_ROUND, nxt), todo)


def end_turn(r, s, todo):
    """R16: the turn passes clockwise; back at the knocker the round ends."""
    go = todo == END_TURN
    nxt = (s._active + 1) % r.n
    ends = (s._knocker >= 0) & (nxt == s._knocker)
    moves = go & ~ends
    s = decide(s.replace(_active=jnp.where(moves, nxt, s._active), _triplet=jnp.where(moves, 0, s._triplet)),
                moves, E.PH_ACT, nxt)
    return s, jnp.where(go, jnp.where(ends, END_ROUND, DECIDE), todo)


def step(r, s, a, key):
    """One decision: the action's event, the automatic part of the turn, the round's end; then truncation at
    max_steps (D6) and the next legal actions."""
    a = ops.i32(a)
    pile_seed, deal_seed = jax.random.bits(key, (2,), jnp.uint32) if key is not None else (None, None)
    s = s.replace(rewards=jnp.zeros(r.n, jnp.float32))
    p, ph = s.current_player, s._phase
    acts = ph == E.PH_ACT
    plays = acts & (a < KNOCK)
    s = play_cards(r, s, p, a, plays, pile_seed)
    s = knock(s, p, (acts | (ph == E.PH_KNOCK)) & (a == KNOCK))
    s = draw(r, s, p, a == TAKE_DOWN, ph == E.PH_DRAW, pile_seed)
    s = flip_zero(r, s, p, a, ph == E.PH_FLIP)
    todo = jnp.select([plays, ph == E.PH_DRAW, ph == E.PH_FLIP],
                      [jnp.where(r.oya & (s._triplet == 1), PENALTY_START, TURN_DRAW),
                       jnp.where(s._drawctx == 0, AFTER_TURN_DRAW, PENALTY_NEXT), PENALTY_NEXT], END_TURN)
    stages = (penalty, turn_draw, after_turn_draw, end_turn) if r.oya else (turn_draw, after_turn_draw, penalty,
                                                                           end_turn)
    for stage in stages:
        s, todo = stage(r, s, todo)
    s = end_round(r, s, todo == END_ROUND, deal_seed)
    s = truncated_at(s, ~s.terminated & (s._step_count >= r.max_steps), E.PH_OVER)
    return s.replace(legal_action_mask=legal_actions(r, s))


# ---------------------------------------------------------------- what the player to move sees and may do
def legal_actions(r, s):
    """The action table's legal actions of the player to move (all True once over, as Pgx has it)."""
    p = s.current_player
    ph = s._phase
    front, back = _values(s._face)
    mine = s._loc == p
    count = ops.histogram(jnp.where(mine, front, NUM_VALUES), NUM_VALUES)
    straights = (count[:-2] > 0) & (count[1:-1] > 0) & (count[2:] > 0)
    sets = (jnp.arange(1, MAX_SET + 1)[None, :] <= count[:, None]).reshape(-1)
    acts, asks = ph == E.PH_ACT, ph == E.PH_KNOCK
    zeros = mine & (front == 0)
    known = ((s._seen[p] >> (1 - s._face)) & 1) == 1
    flip_known = ops.histogram(jnp.where(zeros & known, back, NUM_VALUES), NUM_VALUES)[1:] > 0
    flips = ph == E.PH_FLIP
    mask = jnp.concatenate([acts & straights, acts & sets, (acts & knock_open(r, s)) | asks,
                            (acts & (s._knocker >= 0)) | asks, jnp.stack([ph == E.PH_DRAW] * 2),
                            flips & (zeros & ~known).any(), flips & flip_known], axis=None)
    return mask | (ph == E.PH_OVER)


def observe(r, s, player):
    """Seat `player`'s observation, the numba engine's vector (quando_env.quando.observation):
    only the sides that seat has seen and public facts, seats relative to it."""
    n, off = r.n, offsets(r.n)
    p = player
    ph, live = s._phase, s._phase != E.PH_OVER
    rel = (jnp.arange(r.n) + p) % r.n      # the seat r seats clockwise from p

    def seat(q, on=True):
        return ops.relative_one_hot(q, p, n, on)

    front, back = _values(s._face)
    seen = s._seen[p]
    sees_front = (seen >> s._face) & 1
    sees_back = (seen >> (1 - s._face)) & 1
    nhand = _held(r, s).sum(axis=1)
    penalised = (s._pen_left > 0) | (ph == E.PH_FLIP) | ((ph == E.PH_DRAW) & (s._drawctx == 1))
    head = [jax.nn.one_hot(ph, 5), (live & (s.current_player == p))[None], seat(s._active, live),
            seat(s.current_player, live), (live & penalised)[None], (live * s._triplet)[None],
            (live & ((ph == E.PH_KNOCK) | knock_open(r, s)))[None], (s._knocker >= 0)[None],
            seat(s._knocker, s._knocker >= 0), seat(s._dealer), ops.div(s._turns[rel], 10, E.MAX_TURNS + 1),
            ops.div(s._total[rel], r.target, 2**15),
            ops.div(s._round, 10, 2**15)[None], ops.div(nhand[rel], 10, NUM_CARDS + 1)]
    # Hands (K1): my fronts by the back I know, opponents' backs by the front I know; piles by position from
    # the top, the sides I have seen (K2, K3) -- one scatter into [hands | draw pile | discard pile].
    held = s._loc < n
    r_seat = (s._loc - p) % n
    row = jnp.where(r_seat == 0, front, back)
    col = jnp.where(r_seat == 0, jnp.where(sees_back == 1, back, 11), jnp.where(sees_front == 1, front, 11))
    hand_idx = jnp.where(held, r_seat * 132 + row * 12 + col, -1)
    in_draw = s._loc == DRAW
    j = jnp.where(in_draw, s._ndraw - 1 - s._pos, s._ndisc - 1 - s._pos)
    pile_at = n * 132 + jnp.where(in_draw, 0, 110) + 2 * j
    up_seen = (in_draw & (sees_front == 1)) | (s._loc == DISCARD)
    idx = jnp.concatenate([hand_idx, jnp.where(held | ~up_seen, -1, pile_at), jnp.where(held, -1, pile_at + 1)])
    val = jnp.concatenate([jnp.ones(NUM_CARDS), ops.div(front + 1, 11, 12),
                           jnp.where(sees_back == 1, ops.div(back + 1, 11, 12), 0.0)])
    cards = jnp.zeros(n * 132 + 220, jnp.float32).at[jnp.where(idx < 0, n * 132 + 220, idx)].add(
        val.astype(jnp.float32), mode="drop")
    top = in_draw & (s._pos == s._ndraw - 1)
    t = jnp.argmax(top)
    shown = top[t]
    top_up = jax.nn.one_hot(front[t], 11) * (shown & (sees_front[t] == 1))
    top_down = jax.nn.one_hot(back[t], 11) * (shown & (sees_back[t] == 1))
    seen_count = jnp.dot(jnp.concatenate([seen & 1, seen >> 1]).astype(jnp.float32), SIDE_VALUES).astype(jnp.int32)
    where = jnp.where(held, r_seat, jnp.where(in_draw, n, n + 1))
    known = jax.nn.one_hot(where, n + 2) * (seen == 3)[:, None]
    # The small parts first, then the large ones: XLA's concatenation chooses an operand per element.
    head = ops.joined(head)
    middle = ops.joined([ops.div(jnp.stack([s._ndraw, s._ndisc]), 55, NUM_CARDS + 1), top_up, top_down])
    obs = ops.joined([head, cards[:n * 132], middle, cards[n * 132:], ops.div(10 - seen_count, 10, 11), known])
    assert obs.shape == (off["known_cards"][1],)
    return obs
