"""Help! in JAX: the rules of quando_env.help.engine as pure functions over one game's arrays, on Pgx's API.

Cards of one kind are interchangeable (R2): hands are counts by kind; the draw pile, the discard pile and the row
hold kind indices, as in the numba engine; vmap makes a batch. A step is split into the game's events as the numba
engine's is: a play (`play_number`, `play_wild`, `switch`, `zap`, `no`) and the end of the turn (`refill` with its
`reshuffle`, `pass_turn`), or a help's `ask`, `give`, `give_back`; then `end_round`. Observations, masks and
rewards are the numba engine's (quando_env.help.observation's layout), compared decision by decision in
tests/test_jax_help.py. Rule ids (R*, D*, K*) refer to quando_env/help/RULES.md.
"""
from dataclasses import field

import jax
import jax.numpy as jnp
import pgx.core
from pgx.core import dataclass

from ..help import engine as E
from ..help.cards import (ASK, FULL_DECK, GIVE, GIVE_BACK, K_NO, K_SWITCH, K_WILD, K_ZAP, NO, NUM_ACTIONS, NUM_CARDS,
                          NUM_KINDS, PLAY, ROW_CAP, SWITCH, WILD, ZAP, deck_to_kinds)
from ..help.config import Config
from ..help.observation import offsets
from . import ops
from .env import PgxGameEnv, as_list, decide, is_traced, pgx_fields, rules_class, truncated_at
from .table import Drawn

KINDS = jnp.arange(NUM_KINDS)
SLOTS = jnp.arange(ROW_CAP)
VALUES = jnp.arange(1, 12)
POSITIONS = jnp.arange(NUM_CARDS)
MAX_HAND = 6        # hand_size is 3..6


@dataclass
class State(Drawn, pgx.core.State):
    """Pgx's fields (once the episode is over, current_player stays the seat that made the last decision), then one
    game's own: hands by kind, the draw pile (kinds, top at _dpos, bottom at _dend - 1), the discard pile (kinds, first
    discarded first), the row (kinds and values, left to right), the No!s in front, R5's callers and calls, and the
    round's latest help."""

    _hand: jax.Array
    _draw: jax.Array
    _dpos: jax.Array
    _dend: jax.Array
    _disc: jax.Array
    _ndisc: jax.Array
    _row_kind: jax.Array
    _row_val: jax.Array
    _nrow: jax.Array
    _no: jax.Array
    _caller: jax.Array
    _calls: jax.Array
    _starter: jax.Array
    _opening: jax.Array
    _dir: jax.Array
    _active: jax.Array
    _phase: jax.Array
    _asker: jax.Array
    _helper: jax.Array
    _given: jax.Array
    _back: jax.Array
    _total: jax.Array
    _points: jax.Array
    _round: jax.Array
    _steps: jax.Array       # decisions in this round (R22)
    _shuffles: jax.Array    # reshuffles (option "shuffle") in this episode

    _config: Config = field(default=None, metadata={"pytree_node": False})     # the env's, for pictures

    @property
    def env_id(self) -> str:
        return "help"


Rules = rules_class(Config, lambda r: r.shuffled or not r.round_episode)


class Help(PgxGameEnv):
    """Help! on Pgx's API, with quando_env.help.Config's options. `init(key, options={"deck": 105 card codes top
    first, "starter": seat})` deals the given deck (R3) and lets the given seat start (else R5 chooses); inside jit
    or vmap the deck is given as kind indices and a starter of -1 leaves the choice to R5. `step` needs a key with
    reshuffle="shuffle" (R15) and with episode="game" (each new round's deal)."""

    game = "help"
    config_class = Config
    rules_class = Rules
    over_phase = E.PH_OVER
    setup_keys = ("deck", "starter")

    def _checked_setup(self, setup):
        out = {"starter": self.checked_seat(setup, "starter", -1) if "starter" in setup else -1}
        if "deck" in setup:
            deck = setup["deck"]
            out["deck"] = ops.i32(deck if is_traced(deck) else deck_to_kinds(as_list(deck)))
        return out

    def _init_setup(self, key, setup):
        return init(self.rules, key, setup.get("deck"), setup.get("starter", -1))

    # the game's pure functions, defined below
    rules_step = staticmethod(lambda rules, state, action, key: step(rules, state, action, key))
    rules_observe = staticmethod(lambda rules, state, player: observe(rules, state, player))



# ---------------------------------------------------------------- the row (R10-R12), judged on the row alone
def _last(s):
    return s._row_val[jnp.maximum(s._nrow - 1, 0)]


def number_fits(s, v):
    """R10: number v goes at the end of the row iff the row is empty or v exceeds the last value."""
    return (s._nrow == 0) | (v > _last(s))


def wild_values(s):
    """R11: per slot 0..5 the value a Wild takes there: 1 at the start, else the value on its left plus one."""
    return jnp.where(SLOTS == 0, 1, s._row_val[jnp.maximum(SLOTS - 1, 0)] + 1)


def wild_fits(s):
    """R11: per slot 0..5, a Wild fits there (slot <= row length, value <= 11, below the card that follows)."""
    w = wild_values(s)
    return (SLOTS <= s._nrow) & (w <= 11) & ((SLOTS == s._nrow) | (w < s._row_val))


def switch_fits(s):
    """(5, 11) R12, D4: number v in place of the card at slot keeps the row ascending (slot < row length)."""
    slot, v = SLOTS[:ROW_CAP - 1, None], VALUES[None, :]
    left = (slot == 0) | (s._row_val[jnp.maximum(slot - 1, 0)] < v)
    right = (slot >= s._nrow - 1) | (s._row_val[jnp.minimum(slot + 1, ROW_CAP - 1)] > v)
    return (slot < s._nrow) & left & right


def givable(s):
    """R17, D8: per kind, a card of it is playable on the row, judged on the row alone."""
    return jnp.concatenate([number_fits(s, VALUES), wild_fits(s).any()[None], (s._nrow > 0)[None],
                            (s._nrow > 0)[None], jnp.ones(1, jnp.bool_)])


def plays(s, held, numbers):
    """(105,) the legal plays of the kinds marked in `held` (R10-R14); a Switch puts any number card the player
    holds (`numbers`, per value, D5)."""
    switches = held[K_SWITCH] & switch_fits(s) & numbers[None, :]
    return jnp.concatenate([held[:11] & number_fits(s, VALUES), held[K_WILD] & wild_fits(s), switches.reshape(-1),
                            (held[K_ZAP] & (s._nrow > 0))[None], held[K_NO][None], jnp.zeros(31, jnp.bool_)])


# ---------------------------------------------------------------- cards moving
def _discard(s, kinds, count):
    """kinds[:count] go onto the discard pile in order (D13)."""
    j = jnp.arange(kinds.shape[0])
    at = jnp.where(j < count, s._ndisc + j, NUM_CARDS)
    return s.replace(_disc=s._disc.at[at].set(kinds, mode="drop"), _ndisc=s._ndisc + count)


def _add(s, p, k, d):
    """Seat p's count of kind k changes by d."""
    return s.replace(_hand=s._hand.at[p, jnp.clip(k, 0, NUM_KINDS - 1)].add(d))


def play(r, s, p, a, go):
    """A play of seat p where `go` (R10-R14): a number, a Wild at a slot, a Switch, a Zap or a No!."""
    number, wild = go & (a < WILD), go & (a >= WILD) & (a < SWITCH)
    swap, zaps, nos = go & (a >= SWITCH) & (a < ZAP), go & (a == ZAP), go & (a == NO)
    kind = jnp.select([number, wild, swap, zaps], [a - PLAY, K_WILD, K_SWITCH, K_ZAP], K_NO)
    s = _add(s, p, kind, -ops.i32(go))
    # R10, R11 (D4): the card goes into the row at `slot` (a number at the end), the cards right of it move on
    slot = jnp.where(wild, a - WILD, s._nrow)
    value = jnp.where(wild, wild_values(s)[jnp.clip(slot, 0, ROW_CAP - 1)], a - PLAY + 1)
    moved = jnp.where(SLOTS < slot, SLOTS, jnp.maximum(SLOTS - 1, 0))
    enters = number | wild
    row_kind = jnp.where(SLOTS == slot, kind, s._row_kind[moved])
    row_val = jnp.where(SLOTS == slot, value, s._row_val[moved])
    s = s.replace(_row_kind=jnp.where(enters, row_kind, s._row_kind), _row_val=jnp.where(enters, row_val, s._row_val),
                  _nrow=s._nrow + enters)
    full = enters & (s._nrow == r.row_max)         # R7: a full row goes to the discard pile, leftmost first
    s = _discard(s, s._row_kind, jnp.where(full, s._nrow, 0))
    s = s.replace(_nrow=jnp.where(full, 0, s._nrow))
    # R12 (D5): the Switch is discarded, number v leaves the hand, the card at the slot joins it
    k = jnp.clip(a - SWITCH, 0, 54)
    at, v = k // 11, k % 11 + 1
    s = _discard(s, jnp.full(1, K_SWITCH), swap.astype(jnp.int32))
    s = _add(_add(s, p, v - 1, -ops.i32(swap)), p, s._row_kind[at], ops.i32(swap))
    s = s.replace(_row_kind=s._row_kind.at[at].set(jnp.where(swap, v - 1, s._row_kind[at])),
                  _row_val=s._row_val.at[at].set(jnp.where(swap, v, s._row_val[at])))
    # R13: the Zap, then the last row card, go to the discard pile
    last = s._row_kind[jnp.maximum(s._nrow - 1, 0)]
    s = _discard(s, jnp.stack([ops.i32(K_ZAP), last]), 2 * zaps)
    s = s.replace(_nrow=s._nrow - zaps)
    # R14: the No! goes in front of p
    return s.replace(_no=s._no.at[p].set(jnp.where(nos, E.NO_FRESH, s._no[p])))


def reshuffle(r, s, go, order):
    """R15, D11 where `go`: the discard pile (only) becomes the draw pile: shuffled (`order`: a random new place for
    each of its positions), or turned over so that the first-discarded card is drawn first."""
    m = s._ndisc
    if r.shuffled:
        pile = jnp.zeros(NUM_CARDS, jnp.int32).at[order].set(s._disc)
    else:
        pile = s._disc
    return s.replace(_draw=jnp.where(go, pile, s._draw), _dpos=jnp.where(go, 0, s._dpos),
                     _dend=jnp.where(go, m, s._dend), _ndisc=jnp.where(go, 0, s._ndisc),
                     _shuffles=s._shuffles + (go & r.shuffled))


def _draw_cards(s, p, count):
    """Seat p takes `count` cards from the top of the draw pile."""
    j = jnp.arange(MAX_HAND)
    kinds = jnp.where(j < count, s._draw[jnp.clip(s._dpos + j, 0, NUM_CARDS - 1)], NUM_KINDS)
    return s.replace(_hand=s._hand.at[p].add(ops.histogram(kinds, NUM_KINDS)), _dpos=s._dpos + count)


def refill(r, s, p, go, order):
    """R15 where `go`: p draws until holding hand_size cards, reshuffling lazily when a card is needed (D11)."""
    need = jnp.where(go, r.hand - s._hand[p].sum(), 0)
    first = jnp.minimum(need, s._dend - s._dpos)
    s = _draw_cards(s, p, first)
    more = need - first
    s = reshuffle(r, s, (more > 0) & (s._ndisc > 0), order)
    return _draw_cards(s, p, jnp.minimum(more, s._dend - s._dpos))


def pass_turn(r, s, p, go):
    """R8 where `go`: the turn goes on in the round's direction; a fresh No! skips its owner (now spent), a spent one
    is discarded and its owner takes a normal turn (D6, D13)."""
    q = (p + s._dir * jnp.arange(1, r.n + 1)) % r.n
    fresh = s._no[q] == E.NO_FRESH
    k = jnp.where(fresh.all(), 0, jnp.argmax(~fresh))       # all fresh: around once, back at the first, now spent
    skipped = go & ((jnp.arange(r.n) < k) | fresh.all())
    no = s._no.at[q].set(jnp.where(skipped, E.NO_SPENT, s._no[q]))
    t = q[k]
    spent = go & (no[t] == E.NO_SPENT)
    s = _discard(s.replace(_no=no.at[t].set(jnp.where(spent, E.NO_NONE, no[t]))), jnp.full(1, K_NO),
                 spent.astype(jnp.int32))
    return s.replace(_active=jnp.where(go, t, s._active), current_player=jnp.where(go, t, s.current_player),
                     _phase=jnp.where(go, E.PH_PLAY, s._phase))


def ask(r, s, p, go):
    """R16 where `go`: p asks the first seat backwards without a No!; returns the state and the round's end (R20b if
    there is none: 2, R20a if it holds no givable card: 1, else 0 and the helper decides what to give)."""
    q = (p - s._dir * jnp.arange(1, r.n)) % r.n
    free = s._no[q] == E.NO_NONE
    h = jnp.where(free.any(), q[jnp.argmax(free)], -1)
    gifts = (s._hand[jnp.maximum(h, 0)] > 0) & givable(s)
    end = jnp.where(h < 0, E.END_NO_HELPER, jnp.where(gifts.any(), E.END_NONE, E.END_NO_GIFT))
    s = s.replace(_asker=jnp.where(go, p, s._asker), _given=jnp.where(go, -1, s._given),
                  _back=jnp.where(go, -1, s._back), _helper=jnp.where(go, h, s._helper))
    s = decide(s, go & (end == E.END_NONE), E.PH_GIVE, h)
    return s, jnp.where(go, end, E.END_NONE)


def give(s, k, go):
    """R17 where `go`: the helper gives a card of kind k to the asker, who then gives one back (D9)."""
    s = _add(_add(s, s._helper, k, -ops.i32(go)), s._asker, k, ops.i32(go))
    return s.replace(_given=jnp.where(go, k, s._given), _phase=jnp.where(go, E.PH_BACK, s._phase),
                     current_player=jnp.where(go, s._asker, s.current_player))


def give_back(s, k, go):
    """R18 where `go`: the asker gives the helper a card of kind k; then R19: play the received card, or the help
    failed (R20a, returned as 1)."""
    p = s._asker
    s = _add(_add(s, p, k, -ops.i32(go)), s._helper, k, ops.i32(go))
    received = KINDS == s._given
    can = plays(s, received, s._hand[p, :11] > 0).any()
    s = s.replace(_back=jnp.where(go, k, s._back), _phase=jnp.where(go & can, E.PH_RECV, s._phase))
    return s, jnp.where(go & ~can, E.END_NO_GIFT, E.END_NONE)


# ---------------------------------------------------------------- rounds
def _lowest_number(s):
    """Per seat its lowest number card (0 if none; a Wild is no number), R5, D2."""
    numbers = s._hand[:, :11] > 0
    return jnp.where(numbers.any(axis=1), jnp.argmax(numbers, axis=1) + 1, 0)


def choose_starter(r, s):
    """R5, R6, D2, D14: the callers call their lowest number; the lowest call starts (ties: lowest seat). If no
    caller calls, every seat holding a number calls; if none does, the lowest caller starts, calling nothing."""
    low = _lowest_number(s)
    caller = s._caller == 1
    own = caller & (low > 0)
    calls = jnp.where(own.any(), jnp.where(caller, low, 0), low)
    valid = calls > 0
    best = jnp.argmin(jnp.where(valid, calls, 99))
    start = jnp.where(valid.any(), best, jnp.argmax(caller))
    opening = jnp.where(valid.any() & r.open_lowest, calls[best], 0)
    return s.replace(_calls=calls, _starter=start, _active=start, current_player=start, _opening=opening,
                     _phase=jnp.where(opening > 0, E.PH_OPEN, E.PH_PLAY))


def _deal(r, s, deck, starter):
    """R3, D1: seat i receives deck[h*i .. h*i+h-1], the rest is the draw pile in order; then R5, R6, or the given
    starter (-1: none), who takes a normal turn."""
    n, h = r.n, r.hand
    first = jnp.arange(n * h)
    hands = jnp.zeros((n, NUM_KINDS), jnp.int32).at[first // h, deck[first]].add(1)
    s = s.replace(_hand=hands, _draw=deck, _dpos=ops.i32(n * h), _dend=ops.i32(NUM_CARDS), _ndisc=ops.i32(0),
                  _nrow=ops.i32(0), _no=jnp.zeros(n, jnp.int32), _asker=ops.i32(-1), _helper=ops.i32(-1),
                  _given=ops.i32(-1), _back=ops.i32(-1), _steps=ops.i32(0))
    chosen = choose_starter(r, s)
    forced = s.replace(_calls=jnp.zeros(n, jnp.int32), _opening=ops.i32(0), _starter=starter, _active=starter,
                       current_player=starter, _phase=ops.i32(E.PH_PLAY))
    return jax.tree_util.tree_map(lambda a, b: jnp.where(starter >= 0, a, b), forced, chosen)


def _shuffled(place):
    """R2: a shuffled deck, kinds top first (`place`: a random place for each card of FULL_DECK)."""
    return jnp.zeros(NUM_CARDS, jnp.int32).at[place].set(jnp.asarray(FULL_DECK, jnp.int32))


def init(r, key, deck, starter):
    """A new episode: round 0 with direction +1 (R4), every seat a caller (R5)."""
    n, z = r.n, ops.i32(0)
    s = State(**pgx_fields(n, offsets(n)["totals"][1], NUM_ACTIONS),
              _hand=jnp.zeros((n, NUM_KINDS), jnp.int32), _draw=jnp.zeros(NUM_CARDS, jnp.int32), _dpos=z, _dend=z,
              _disc=jnp.zeros(NUM_CARDS, jnp.int32), _ndisc=z, _row_kind=jnp.zeros(ROW_CAP, jnp.int32),
              _row_val=jnp.zeros(ROW_CAP, jnp.int32), _nrow=z, _no=jnp.zeros(n, jnp.int32),
              _caller=jnp.ones(n, jnp.int32), _calls=jnp.zeros(n, jnp.int32), _starter=z, _opening=z,
              _dir=ops.i32(1), _active=z, _phase=z, _asker=z, _helper=z, _given=z, _back=z,
              _total=jnp.zeros(n, jnp.int32), _points=jnp.zeros(n, jnp.int32), _round=z, _steps=z, _shuffles=z)
    if deck is None:
        deck = _shuffled(ops.random_order(jax.random.bits(key, (), jnp.uint32), POSITIONS >= 0))
    s = _deal(r, s, deck, ops.i32(starter))
    return s.replace(legal_action_mask=legal_actions(r, s))


def end_round(r, s, reason, p, h, order):
    """R20 (a: every seat other than p and h scores 1; b: p alone scores 1), R21: totals, the end of the game at the
    target, else the next round (R4 flips the direction, R5 picks the callers)."""
    go = reason != E.END_NONE
    seats = jnp.arange(r.n)
    points = jnp.where(reason == E.END_NO_GIFT, ((seats != p) & (seats != h)).astype(jnp.int32),
                       (seats == p).astype(jnp.int32))
    points = jnp.where(go, points, 0)
    total = s._total + points
    over = go & (r.round_episode | (total.max() >= r.target))
    rewards = s.rewards + (0 if r.win_reward else points)
    if r.win_reward:
        rewards = rewards + jnp.where(over, jnp.where(total == total.max(), 1.0, -1.0), 0.0)
    s = s.replace(_points=jnp.where(go, points, s._points), _total=total, _round=s._round + go,
                  rewards=rewards.astype(jnp.float32), terminated=s.terminated | over,
                  _phase=jnp.where(over, E.PH_OVER, s._phase))
    if r.round_episode:
        return s
    again = go & ~over
    nxt = _deal(r, s.replace(_dir=-s._dir, _caller=(points == 0).astype(jnp.int32)), _shuffled(order), ops.i32(-1))
    return jax.tree_util.tree_map(lambda a, b: jnp.where(again, a, b), nxt, s)


def step(r, s, a, key):
    """One decision: a play and the end of the turn, or a step of a help; the round's end; then truncation at
    max_steps decisions of the round (R22) and the next legal actions."""
    a = ops.i32(a)
    seed = jax.random.bits(key, (), jnp.uint32) if key is not None else jnp.uint32(0)
    s = s.replace(rewards=jnp.zeros(r.n, jnp.float32), _steps=s._steps + 1)
    p, ph = s.current_player, s._phase
    asker, helper = s._asker, s._helper
    plays_card = ((ph == E.PH_OPEN) | (ph == E.PH_PLAY) | (ph == E.PH_RECV)) & (a != ASK)
    s = play(r, s, p, a, plays_card)
    # One random order serves the step: a play's turn may reshuffle the discard pile (R15), a help's failure may
    # deal the next round (episode="game"), never both.
    order = ops.random_order(seed, jnp.where(plays_card, POSITIONS < s._ndisc, True)) if r.shuffled or not \
        r.round_episode else None
    s = refill(r, s, p, plays_card, order)
    s = pass_turn(r, s, p, plays_card)
    s, asked_end = ask(r, s, p, (ph == E.PH_PLAY) & (a == ASK))
    s = give(s, a - GIVE, ph == E.PH_GIVE)
    s, back_end = give_back(s, a - GIVE_BACK, ph == E.PH_BACK)
    reason = jnp.maximum(asked_end, back_end)
    helper = jnp.where(ph == E.PH_BACK, helper, s._helper)
    asker = jnp.where(ph == E.PH_BACK, asker, p)
    round_over = reason != E.END_NONE
    s = end_round(r, s, reason, asker, helper, order)
    s = truncated_at(s, ~round_over & (s._steps >= r.max_steps), E.PH_OVER)
    return s.replace(legal_action_mask=legal_actions(r, s))


# ---------------------------------------------------------------- what the seat to decide sees and may do
def legal_actions(r, s):
    """The action table's legal actions of the seat that decides (from its hand, the row and the phase only, K4;
    all True once over, as Pgx has it)."""
    p = s.current_player
    ph = s._phase
    hand = s._hand[p]
    held = hand > 0
    numbers = held[:11]
    in_turn = plays(s, held, numbers)
    opening = (jnp.arange(NUM_ACTIONS) == PLAY + s._opening - 1) & (ph == E.PH_OPEN)
    turn = (ph == E.PH_PLAY) & (in_turn | ((jnp.arange(NUM_ACTIONS) == ASK) & ~in_turn.any()))
    received = (ph == E.PH_RECV) & plays(s, KINDS == s._given, numbers)
    gives = jnp.zeros(NUM_ACTIONS, jnp.bool_).at[GIVE:GIVE + NUM_KINDS].set((ph == E.PH_GIVE) & held & givable(s))
    backs = (ph == E.PH_BACK) & (hand - (KINDS == s._given) > 0)
    backs = jnp.zeros(NUM_ACTIONS, jnp.bool_).at[GIVE_BACK:GIVE_BACK + NUM_KINDS].set(backs)
    return opening | turn | received | gives | backs | (ph == E.PH_OVER)


def observe(r, s, player):
    """Seat `player`'s observation, the numba engine's vector (quando_env.help.observation):
    its own hand, the public table, and the cards of the latest help it gave or received."""
    n, h = r.n, r.hand
    p = player
    ph, live = s._phase, s._phase != E.PH_OVER
    rel = (jnp.arange(n) + p) % n

    def seat(q, on=True):
        return ops.relative_one_hot(q, p, n, on)

    in_row = SLOTS < s._nrow
    row = jnp.concatenate([(s._row_val[:, None] == VALUES[None, :]) & in_row[:, None],
                           ((s._row_kind == K_WILD) & in_row)[:, None]], axis=1)
    asked = s._asker >= 0
    involved = (p == s._asker) | (p == s._helper)
    played = (ph == E.PH_OPEN) | (ph == E.PH_PLAY)
    no = s._no[rel]
    discards = ops.histogram(jnp.where(POSITIONS < s._ndisc, s._disc, NUM_KINDS), NUM_KINDS)
    calls = (s._calls[rel][:, None] == VALUES[None, :])
    obs = ops.joined([jax.nn.one_hot(ph, E.NUM_PHASES), (live & (s.current_player == p))[None],
                      seat(s.current_player, live), seat(s._active, live), jnp.stack([s._dir == 1, s._dir != 1]),
                      ops.div(s._hand[p], h, 2 * NUM_CARDS), ops.div(s._hand.sum(axis=1)[rel], h, 2 * NUM_CARDS),
                      row, ops.div(s._nrow, r.row_max, ROW_CAP + 1)[None],
                      ops.div(s._dend - s._dpos, 105, NUM_CARDS + 1)[None], ops.div(discards, 8, NUM_CARDS + 1),
                      ops.div(s._ndisc, 105, NUM_CARDS + 1)[None], no == E.NO_FRESH, no == E.NO_SPENT,
                      seat(s._asker, asked), seat(s._helper, asked & (s._helper >= 0)),
                      (KINDS == s._given) & asked & (involved | played), (KINDS == s._back) & asked & involved,
                      calls, s._caller[rel], seat(s._starter, s._starter >= 0),
                      ops.div(s._total[rel], r.target, 2**15)])
    assert obs.shape == (offsets(n)["totals"][1],)
    return obs
