"""Cabo in JAX: the rules of quando_env.cabo.engine as pure functions over one game's arrays, on Pgx's API.

One game is a `State`: each seat's 8 slots (D6) with the card ids they hold, per card where it is and its position
in its pile, per seat the cards it has seen this round (K1-K9); vmap makes a batch. A step is split into the game's
events as the numba engine's is: the decision's own event (`draw_stock`, `take_discard`, `jack_swap`, `queen_peek`,
`place`, `snap` with its `penalty`, `knock`), then the automatic part as stages run in the rules' order, each only
where the turn has reached it (`window`, `after_window`, `next_turn`, `end_round`). Observations, masks and rewards
are the numba engine's (quando_env.cabo.observation's layout), compared decision by decision in
tests/test_jax_cabo.py. Rule ids (R*, D*, K*) refer to quando_env/cabo/RULES.md.
"""
from dataclasses import field

import jax
import jax.numpy as jnp
import numpy as np
import pgx.core
from pgx.core import dataclass

from ..cabo import engine as E
from ..cabo.cards import (CARD_RANKS, CARD_VALUES, DISCARD_DRAWN, DRAW_STOCK, JACK, JACK_SWAP, KNOCK, NUM_ACTIONS,
                          NUM_CARDS, NUM_SLOTS, PASS, PLACE, QUEEN, QUEEN_LOOK, SNAP, check_deck)
from ..cabo.config import Config
from ..cabo.observation import offsets
from . import ops
from .env import PgxGameEnv, as_list, decide, is_traced, pgx_fields, rules_class, truncated_at
from .table import Drawn

RANK = jnp.asarray(CARD_RANKS, jnp.int32)
VALUE = jnp.asarray(CARD_VALUES, jnp.int32)
CARDS = jnp.arange(NUM_CARDS)
STOCK, DISC, DRAWN = E.LOC_STOCK, E.LOC_DISC, E.LOC_DRAWN
# Work left after an event (the numba engine's T_* codes), and the stage that ends the round.
DECIDE, WINDOW, AFTER_WINDOW, NEXT_TURN, END_ROUND = range(-1, 4)
BIG = 2**15     # table sizes of the observation's quotients (counts beyond get XLA's quotient)


@dataclass
class State(Drawn, pgx.core.State):
    """Pgx's fields (once the episode is over, current_player stays the seat that made the last decision), then one
    game's own: per seat its slots' card ids (-1 empty); per card its place (seat, STOCK, DISC or DRAWN) and position in
    its pile from the bottom; per seat and card 1 once that seat saw it this round."""

    _slot: jax.Array
    _loc: jax.Array
    _ppos: jax.Array
    _seen: jax.Array
    _nstock: jax.Array
    _ndisc: jax.Array
    _nhand: jax.Array
    _out: jax.Array         # R20: went out this round
    _total: jax.Array       # game totals (R24, R25)
    _points: jax.Array      # the last finished round's points (R23)
    _dealer: jax.Array
    _active: jax.Array      # whose turn it is (the dealer during R7's window)
    _phase: jax.Array
    _knocker: jax.Array
    _out_turn: jax.Array    # R20: T, in whose turn someone first went out
    _drawn: jax.Array       # the card drawn this turn and not yet placed, or -1
    _from_stock: jax.Array
    _final: jax.Array       # this turn is the knocker's last (R19, D11)
    _discarder: jax.Array   # the snap window's discarder (R13)
    _in_turn: jax.Array     # 0: R7's window (not a turn, D13)
    _snap_k: jax.Array      # the window's position: 0..n-2 the others, n-1 the discarder
    _turns: jax.Array       # completed turns this round (D13)
    _round: jax.Array

    _config: Config = field(default=None, metadata={"pytree_node": False})     # the env's, for pictures

    @property
    def env_id(self) -> str:
        return "cabo"

    def record_fields(self) -> dict:
        """The numba record's piles (card ids, bottom first) and each held card's slot."""
        loc, ppos, slots = np.asarray(self._loc), np.asarray(self._ppos), np.asarray(self._slot)
        held = slots >= 0
        pos = np.zeros(NUM_CARDS, np.int8)
        pos[slots[held]] = np.nonzero(held)[1]
        piles = {name: np.flatnonzero(loc == where)[np.argsort(ppos[loc == where])]
                 for name, where in (("stock", STOCK), ("disc", DISC))}
        return dict(piles, pos=pos)


Rules = rules_class(Config, lambda r: not r.round_episode)     # D14: nothing random inside a round


class Cabo(PgxGameEnv):
    """Cabo on Pgx's API, with quando_env.cabo.Config's options. `init(key, options={"deck": the 52 card ids top
    first, "dealer": seat})` deals the given deck (R4-R7); `step` needs a key with episode="game" (each new round's
    deal). Cabo draws nothing at random inside a round (D14)."""

    game = "cabo"
    config_class = Config
    rules_class = Rules
    over_phase = E.PH_OVER
    setup_keys = ("deck", "dealer")

    def _checked_setup(self, setup):
        out = {"dealer": self.checked_seat(setup, "dealer", self.config.first_dealer)}
        if "deck" in setup:
            deck = setup["deck"]
            if is_traced(deck):     # inside jit or vmap: card ids taken as given
                out["deck"] = ops.i32(deck)
            else:
                out["deck"] = ops.i32(check_deck(as_list(deck)))
        return out

    def _init_setup(self, key, setup):
        return init(self.rules, key, setup.get("deck"), setup.get("dealer", self.config.first_dealer))

    # the game's pure functions, defined below
    rules_step = staticmethod(lambda rules, state, action, key: step(rules, state, action, key))
    rules_observe = staticmethod(lambda rules, state, player: observe(rules, state, player))



# ---------------------------------------------------------------- cards moving, and who sees them (K rules)
def _show_all(s, card):
    """K2, K4, K5, K8: every seat sees the cards marked in `card`."""
    return s.replace(_seen=jnp.where(card[None, :], 1, s._seen))


def _card(c):
    """(52,) bool: card id c (none for c < 0)."""
    return CARDS == c


def _to_discard(s, card):
    """R12, R14: the card marked goes face up onto the discard pile (K4: everyone sees it)."""
    any_ = card.any()
    s = s.replace(_loc=jnp.where(card, DISC, s._loc), _ppos=jnp.where(card, s._ndisc, s._ppos),
                  _ndisc=s._ndisc + any_)
    return _show_all(s, card)


def _restock(s, go):
    """R17, D14 where `go` and the stock is empty: the discard pile but its top, turned over as one block (the oldest
    discard on top), becomes the stock."""
    m = s._ndisc
    go = go & (s._nstock == 0) & (m >= 2)
    disc = s._loc == DISC
    under = go & disc & (s._ppos < m - 1)
    return s.replace(_loc=jnp.where(under, STOCK, s._loc),
                     _ppos=jnp.where(under, m - 2 - s._ppos, jnp.where(go & disc, 0, s._ppos)),
                     _nstock=jnp.where(go, m - 1, s._nstock), _ndisc=jnp.where(go, 1, s._ndisc))


def _take_stock(s, go):
    """The stock's top card where `go` (restocking first if the stock is empty, R17): the state and the card as a
    (52,) bool (none if there is no card)."""
    s = _restock(s, go)
    has = go & (s._nstock > 0)
    top = has & (s._loc == STOCK) & (s._ppos == s._nstock - 1)
    return s.replace(_nstock=s._nstock - has), top


def _hold(s, card, p, i):
    """The card marked goes into seat p's slot i."""
    c = jnp.argmax(card)
    return s.replace(_slot=s._slot.at[p, i].set(jnp.where(card.any(), c, s._slot[p, i])),
                     _loc=jnp.where(card, p, s._loc))


# ---------------------------------------------------------------- the decision's own events
def draw_stock(r, s, go):
    """R9 from the stock (K3: the drawer sees it), then R10's Jack or R11's Queen if it is one (D8, K5)."""
    p = s._active
    s, card = _take_stock(s, go)
    c = jnp.argmax(card)
    others_hold = ((jnp.arange(r.n) != p) & (s._nhand > 0)).any()
    jack = go & (RANK[c] == JACK) & others_hold
    queen = go & (RANK[c] == QUEEN)
    s = s.replace(_loc=jnp.where(card, DRAWN, s._loc), _seen=s._seen.at[p].set(jnp.where(card, 1, s._seen[p])),
                  _drawn=jnp.where(go, c, s._drawn), _from_stock=jnp.where(go, 1, s._from_stock))
    s = _show_all(s, card & (jack | queen))
    return s.replace(_phase=jnp.select([jack, queen, go], [E.PH_JACK, E.PH_QUEEN, E.PH_PLACE], s._phase))


def take_discard(s, go):
    """R9: the discard pile's top card (public, K4); D8: no Jack or Queen rule; D9: it must be placed."""
    card = go & (s._loc == DISC) & (s._ppos == s._ndisc - 1)
    return s.replace(_loc=jnp.where(card, DRAWN, s._loc), _ndisc=s._ndisc - go,
                     _drawn=jnp.where(go, jnp.argmax(card), s._drawn), _from_stock=jnp.where(go, 0, s._from_stock),
                     _phase=jnp.where(go, E.PH_PLACE, s._phase))


def jack_swap(r, s, a, go):
    """R10, K6: exchange own slot i with slot j of the seat r seats clockwise; nobody looks."""
    k = jnp.clip(a - JACK_SWAP, 0, 64 * (r.n - 1) - 1)
    p, t, i, j = s._active, (s._active + k // 64 + 1) % r.n, (k % 64) // 8, k % 8
    mine, theirs = s._slot[p, i], s._slot[t, j]
    slot = s._slot.at[p, i].set(theirs).at[t, j].set(mine)
    loc = jnp.where(_card(mine), t, jnp.where(_card(theirs), p, s._loc))
    return s.replace(_slot=jnp.where(go, slot, s._slot), _loc=jnp.where(go, loc, s._loc),
                     _phase=jnp.where(go, E.PH_PLACE, s._phase))


def queen_peek(s, a, go):
    """R11, K7: the drawer looks at own slot a - QUEEN_LOOK (the others learn only which slot)."""
    p = s._active
    c = s._slot[p, jnp.clip(a - QUEEN_LOOK, 0, NUM_SLOTS - 1)]
    return s.replace(_seen=s._seen.at[p].set(jnp.where(go & _card(c), 1, s._seen[p])),
                     _phase=jnp.where(go, E.PH_PLACE, s._phase))


def place(s, a, go):
    """R12: the drawn card replaces an own card, which is discarded, or (stock draws) is discarded itself; the
    discard opens the turn's snap window."""
    p, drawn = s._active, _card(s._drawn)
    keeps = go & (a != DISCARD_DRAWN)
    i = jnp.clip(a - PLACE, 0, NUM_SLOTS - 1)
    old = _card(s._slot[p, i])
    s = _to_discard(s, go & jnp.where(keeps, old, drawn))
    s = _hold(s, keeps & drawn, p, i)
    return s.replace(_drawn=jnp.where(go, -1, s._drawn), _discarder=jnp.where(go, p, s._discarder),
                     _in_turn=jnp.where(go, 1, s._in_turn), _snap_k=jnp.where(go, 0, s._snap_k))


def penalty(s, q, go):
    """R16, D7, K9 where `go`: one stock card (R17 restocks) into q's lowest empty slot; nobody sees it."""
    s, card = _take_stock(s, go)
    s = _hold(s, card, q, jnp.argmax(s._slot[q] < 0))
    return s.replace(_nhand=s._nhand.at[q].add(card.any()))


def snap(r, s, a, go):
    """R13-R16, K8: the deciding seat snaps own slot a - SNAP or passes. A correct snap (same rank as the discard
    top, D3) discards the card and the seat decides again; the last card snapped puts it out (R20). A wrong snap
    shows the card, which stays, and costs a penalty card."""
    q = s.current_player
    snaps = go & (a != PASS)
    i = jnp.clip(a - SNAP, 0, NUM_SLOTS - 1)
    c = s._slot[q, i]
    card = snaps & _card(c)
    s = _show_all(s, card)
    top = jnp.argmax((s._loc == DISC) & (s._ppos == s._ndisc - 1))
    right = snaps & (RANK[c] == RANK[top])
    s = _to_discard(s, card & right)
    left = s._nhand[q] - right
    goes_out = right & (left == 0)
    s = s.replace(_slot=s._slot.at[q, i].set(jnp.where(right, -1, c)), _nhand=s._nhand.at[q].set(left),
                  _out=s._out.at[q].set(jnp.where(goes_out, 1, s._out[q])),
                  _out_turn=jnp.where(goes_out & (s._out_turn < 0), s._active, s._out_turn))
    s = penalty(s, q, snaps & ~right)
    return s.replace(_snap_k=s._snap_k + (go & ~right))


def knock(s, a, go):
    """R18: the active seat knocks (or not)."""
    return s.replace(_knocker=jnp.where(go & (a == KNOCK), s._active, s._knocker))


# ---------------------------------------------------------------- the automatic part
# Each stage runs where `todo` says the turn has reached it and returns the next piece (DECIDE when a seat must
# decide); in this order each runs once per step.
def window(r, s, todo):
    """R13, R15: the next seat of the snap window holding 1..7 cards decides (the others clockwise from the
    discarder's left, then the discarder); when none is left the window closes."""
    go = todo == WINDOW
    k = jnp.arange(r.n)
    seat = jnp.where(k == r.n - 1, s._discarder, (s._discarder + 1 + k) % r.n)
    held = s._nhand[seat]
    asked = (k >= s._snap_k) & (held >= 1) & (held <= NUM_SLOTS - 1)
    found = go & asked.any()
    first = jnp.argmax(asked)
    s = decide(s, found, E.PH_SNAP, seat[first])
    s = s.replace(_snap_k=jnp.where(found, first, jnp.where(go, r.n, s._snap_k)))
    return s, jnp.where(found, DECIDE, jnp.where(go, AFTER_WINDOW, todo))


def after_window(r, s, todo):
    """D13: a turn is complete once its window closed; R21 and R19 end the round; R18, D10: the knock decision."""
    go = (todo == AFTER_WINDOW) & (s._in_turn == 1)
    turns = s._turns + go
    ends = go & (((r.tlimit > 0) & (turns >= r.tlimit)) | (s._final == 1))
    asks = go & ~ends & (s._knocker < 0) & (s._out_turn < 0)
    s = decide(s.replace(_turns=turns), asks, E.PH_KNOCK, s._active)
    nxt = jnp.where(ends, END_ROUND, jnp.where(asks, DECIDE, NEXT_TURN))
    return s, jnp.where(todo == AFTER_WINDOW, nxt, todo)


def next_turn(r, s, todo):
    """R8 (empty hands are skipped), R19 (after a knock, the knocker's last turn ends the lap), R20 and D12 (after a
    going out in T's turn the round ends when the turn would come back to T; the earlier end applies)."""
    go = todo == NEXT_TURN
    q = (s._active + 1 + jnp.arange(r.n)) % r.n
    holds = s._nhand[q] > 0
    at_knocker = (s._knocker >= 0) & (q == s._knocker)
    ends = ((s._out_turn >= 0) & (q == s._out_turn)) | (at_knocker & ~(r.final & holds))
    decided = ends | holds
    k = jnp.argmax(decided)
    round_ends = go & (~decided.any() | ends[k])
    moves = go & ~round_ends
    s = s.replace(_final=jnp.where(moves, at_knocker[k], s._final).astype(jnp.int32),
                  _active=jnp.where(moves, q[k], s._active), _from_stock=jnp.where(moves, 0, s._from_stock))
    s = decide(s, moves, E.PH_DRAW, q[k])
    return s, jnp.where(round_ends, END_ROUND, jnp.where(moves, DECIDE, todo))


def end_round(r, s, todo, seed):
    """R22-R26 where the round ends: reveal, score, add to the game totals; the episode ends or the next round is
    dealt (the dealer moves on, R24), its upcard window next."""
    go = todo == END_ROUND
    held = s._loc[None, :] == jnp.arange(r.n)[:, None]
    tot = (held * VALUE[None, :]).sum(axis=1)
    k = s._knocker
    lower = (tot < tot[k]) | ((tot == tot[k]) & r.tie)
    doubled = (k >= 0) & (lower & (jnp.arange(r.n) != k)).any()
    points = jnp.where(doubled & (jnp.arange(r.n) == k), 2 * tot, tot)
    new = s._total + points
    new = jnp.where((points > 0) & ((new == 25) | (new == 50) | (new == 75) | (new == 100)), new - 25, new)   # R25
    total = jnp.where(go, new, s._total)
    over = go & (r.round_episode | (total > r.target).any())
    rewards = s.rewards - jnp.where(go & (not r.win_reward), total - s._total, 0)
    if r.win_reward:
        rewards = rewards + jnp.where(over, jnp.where(total == total.min(), 1.0, -1.0), 0.0)
    s = s.replace(_points=jnp.where(go, points, s._points), _total=total, _round=s._round + go,
                  _seen=jnp.where(go, 1, s._seen), rewards=rewards.astype(jnp.float32),
                  terminated=s.terminated | over, _phase=jnp.where(over, E.PH_OVER, s._phase))
    todo = jnp.where(go, DECIDE, todo)
    if r.round_episode:
        return s, todo
    again = go & ~over
    nxt = _deal(r, s, _shuffled(seed), (s._dealer + 1) % r.n)
    return jax.tree_util.tree_map(lambda a, b: jnp.where(again, a, b), nxt, s), jnp.where(again, WINDOW, todo)


def advance(r, s, todo, seed):
    """The automatic part of the state machine until a seat must decide or the episode ends."""
    s, todo = window(r, s, todo)
    s, todo = after_window(r, s, todo)
    s, todo = next_turn(r, s, todo)
    s, todo = end_round(r, s, todo, seed)
    if not r.round_episode:
        s, todo = window(r, s, todo)
        s, todo = after_window(r, s, todo)      # R7's window: straight to the first turn
        s, todo = next_turn(r, s, todo)
    return s


# ---------------------------------------------------------------- rounds
def _shuffled(seed):
    """R4: a shuffled deck, card ids top first."""
    place = ops.random_order(seed, CARDS >= 0)
    return jnp.zeros(NUM_CARDS, jnp.int32).at[place].set(CARDS.astype(jnp.int32))


def _deal(r, s, deck, dealer):
    """R5-R7: the deck (card ids top first) dealt one card a round from the dealer's left, card i to slot i; the
    upcard opens R7's window with the dealer as discarder; K1, D2: each seat sees its slots 0..peek-1."""
    n, dealt = r.n, r.n * r.hand
    place = jnp.zeros(NUM_CARDS, jnp.int32).at[deck].set(jnp.arange(NUM_CARDS, dtype=jnp.int32))
    seats, slots = jnp.arange(n)[:, None], jnp.arange(NUM_SLOTS)[None, :]
    slot = jnp.where(slots < r.hand, deck[jnp.clip(slots * n + (seats - dealer - 1) % n, 0, NUM_CARDS - 1)], -1)
    holder = (dealer + 1 + place % n) % n
    loc = jnp.where(place < dealt, holder, jnp.where(place == dealt, DISC, STOCK))
    peeked = (loc[None, :] == jnp.arange(n)[:, None]) & (place // n < r.peek)[None, :]
    seen = (peeked | (place == dealt)[None, :]).astype(jnp.int32)
    z = ops.i32(0)
    return s.replace(_slot=slot, _loc=loc, _ppos=jnp.where(place == dealt, 0, NUM_CARDS - 1 - place), _seen=seen,
                     _nstock=ops.i32(NUM_CARDS - dealt - 1), _ndisc=ops.i32(1), _nhand=jnp.full(n, r.hand, jnp.int32),
                     _out=jnp.zeros(n, jnp.int32), _dealer=ops.i32(dealer), _active=ops.i32(dealer),
                     current_player=ops.i32(dealer), _knocker=ops.i32(-1), _out_turn=ops.i32(-1),
                     _drawn=ops.i32(-1), _from_stock=z, _final=z, _turns=z, _discarder=ops.i32(dealer), _in_turn=z,
                     _snap_k=z)


def init(r, key, deck, dealer):
    """A new game: the given deal (deck: card ids top first) or a shuffled one, run up to the first decision."""
    n, z = r.n, ops.i32(0)
    seed = jax.random.bits(key, (), jnp.uint32)
    s = State(**pgx_fields(n, offsets(n)["seen"][1], NUM_ACTIONS),
              _slot=jnp.full((n, NUM_SLOTS), -1, jnp.int32), _loc=jnp.zeros(NUM_CARDS, jnp.int32),
              _ppos=jnp.zeros(NUM_CARDS, jnp.int32), _seen=jnp.zeros((n, NUM_CARDS), jnp.int32), _nstock=z,
              _ndisc=z, _nhand=jnp.zeros(n, jnp.int32), _out=jnp.zeros(n, jnp.int32), _total=jnp.zeros(n, jnp.int32),
              _points=jnp.zeros(n, jnp.int32), _dealer=z, _active=z, _phase=ops.i32(E.PH_SNAP), _knocker=z,
              _out_turn=z, _drawn=z, _from_stock=z, _final=z, _discarder=z, _in_turn=z, _snap_k=z, _turns=z,
              _round=z)
    s = _deal(r, s, _shuffled(seed) if deck is None else deck, ops.i32(dealer))
    s = advance(r, s, ops.i32(WINDOW), seed)
    return s.replace(legal_action_mask=legal_actions(r, s))


def step(r, s, a, key):
    """One decision: the action's event, the automatic part, the round's end; then truncation at max_steps and the
    next legal actions."""
    a = ops.i32(a)
    seed = jax.random.bits(key, (), jnp.uint32) if key is not None else jnp.uint32(0)
    s = s.replace(rewards=jnp.zeros(r.n, jnp.float32))
    ph = s._phase
    s = draw_stock(r, s, (ph == E.PH_DRAW) & (a == DRAW_STOCK))
    s = take_discard(s, (ph == E.PH_DRAW) & (a != DRAW_STOCK))
    s = jack_swap(r, s, a, ph == E.PH_JACK)
    s = queen_peek(s, a, ph == E.PH_QUEEN)
    s = place(s, a, ph == E.PH_PLACE)
    s = snap(r, s, a, ph == E.PH_SNAP)
    s = knock(s, a, ph == E.PH_KNOCK)
    todo = jnp.select([(ph == E.PH_PLACE) | (ph == E.PH_SNAP), ph == E.PH_KNOCK], [WINDOW, NEXT_TURN], DECIDE)
    s = advance(r, s, todo, seed)
    s = truncated_at(s, ~s.terminated & (s._step_count >= r.max_steps), E.PH_OVER)
    return s.replace(legal_action_mask=legal_actions(r, s))


# ---------------------------------------------------------------- what the player to move sees and may do
def legal_actions(r, s):
    """The action table's legal actions of the player to move (only occupied slots; all True once over, as Pgx
    has it)."""
    p = s.current_player
    ph = s._phase
    occupied = s._slot >= 0
    mine = occupied[p]
    others = jnp.zeros((5, NUM_SLOTS), jnp.bool_).at[:r.n - 1].set(occupied[(p + jnp.arange(1, r.n)) % r.n])
    jack = (mine[None, :, None] & others[:, None, :]).reshape(-1)      # r, own slot, their slot
    draws, places = ph == E.PH_DRAW, ph == E.PH_PLACE
    snaps, knocks = ph == E.PH_SNAP, ph == E.PH_KNOCK
    mask = jnp.concatenate([jnp.stack([draws & ((s._nstock > 0) | (s._ndisc >= 2)), draws & (s._ndisc > 0)]),
                            places & mine, (places & (s._from_stock == 1))[None], (ph == E.PH_QUEEN) & mine,
                            (ph == E.PH_JACK) & jack, snaps & mine, snaps[None], knocks[None], knocks[None]])
    return mask | (ph == E.PH_OVER)


def observe(r, s, player):
    """Seat `player`'s observation, the numba engine's vector (quando_env.cabo.observation):
    the cards that seat has seen, where they are, and public facts, seats relative to it."""
    n = r.n
    p = player
    ph, live = s._phase, s._phase != E.PH_OVER
    rel = (jnp.arange(n) + p) % n
    seen = s._seen[p]

    def seat(q, on=True):
        return ops.relative_one_hot(q, p, n, on)

    drawn = s._drawn >= 0
    knocked, gone = s._knocker >= 0, s._out_turn >= 0
    turns_left = ops.div(r.tlimit - s._turns, 100, BIG) if r.tlimit > 0 else jnp.float32(0)
    head = [jax.nn.one_hot(ph, E.NUM_PHASES), (live & (s.current_player == p))[None], seat(s._active, live),
            seat(s.current_player, live), seat(s._discarder, live & (ph == E.PH_SNAP)),
            (live & (ph == E.PH_SNAP) & (s._in_turn == 0))[None],
            jnp.stack([live & drawn & (s._from_stock == 1), live & drawn & (s._from_stock == 0)]),
            (CARDS == s._drawn) & live & drawn & (seen[jnp.maximum(s._drawn, 0)] == 1), knocked[None],
            seat(s._knocker, knocked), (live * s._final)[None], s._out[rel], gone[None], seat(s._out_turn, gone),
            seat(s._dealer), ops.div(s._turns, 100, BIG)[None], jnp.atleast_1d(turns_left),
            ops.div(s._total[rel], r.target, BIG), ops.div(s._points[rel], r.target, BIG),
            ops.div(s._round, 10, BIG)[None], ops.div(s._nhand[rel], 8, NUM_SLOTS + 1)]
    slots = s._slot[rel]                                                         # (n, 8), seats relative to p
    known = (slots[..., None] == CARDS) & (seen[jnp.maximum(slots, 0)] == 1)[..., None]
    in_disc, in_stock = s._loc == DISC, s._loc == STOCK
    piles = [ops.div(jnp.stack([s._nstock, s._ndisc]), 52, NUM_CARDS + 1), in_disc & (s._ppos == s._ndisc - 1),
             jnp.where(in_disc, ops.div(s._ndisc - s._ppos, 52, NUM_CARDS + 1), 0.0),
             jnp.where(in_stock & (seen == 1), ops.div(s._nstock - s._ppos, 52, NUM_CARDS + 1), 0.0), seen]
    obs = ops.joined([ops.joined(head), slots >= 0, known, ops.joined(piles)])
    assert obs.shape == (offsets(n)["seen"][1],)
    return obs
