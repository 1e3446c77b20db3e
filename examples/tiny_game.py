"""Tiny: a 2-player "high card with a hidden card" game written against quando_env.core.Game alone, the smallest
complete game (docs/adding-a-game.md walks through it; the tests play it through every generic part).

Each round deals one card 0..9 to each seat from a shuffled 10-card deck (deck[p] to seat p, top first).
The starter (seat round % 2), then the other seat, chooses KEEP or SWAP (own card for the unseen top of the
rest of the deck). The higher card scores 1 point. The game ends when a total reaches `target`.
"""
from dataclasses import asdict, dataclass

import numpy as np
from numba import njit

from quando_env import rng
from quando_env.adapters.aec import GameAECEnv, wrap
from quando_env.checks import is_int, need
from quando_env.core import Game
from quando_env.game_info import GameInfo
from quando_env.kernels import Kernels
from quando_env.episode import F_ROUND_OVER, F_TERMINATED, F_TRUNCATED, first_error
from quando_env.options import check_episode_options
from quando_env.vector_parts import Parts
from quando_env.spec import GameSpec
from quando_env.tableview import FACE_DOWN, Card, TableView, Zone, seat_label, title_of

KEEP, SWAP = 0, 1
NUM_CARDS = 10
PH_FIRST, PH_SECOND, PH_OVER = 0, 1, 2
C_TARGET, C_ROUND_EPISODE, C_MAX_STEPS, C_WIN_REWARD, C_AUTORESET = range(5)
STATE_DTYPE = np.dtype([
    ("deck", np.int8, (NUM_CARDS,)), ("card", np.int8, (2,)), ("swapped", np.int8, (2,)), ("pos", np.int8),
    ("phase", np.int8), ("cur", np.int8), ("round", np.int32), ("steps", np.int32), ("total", np.int32, (2,)),
    ("points", np.int32, (2,)), ("shuffles", np.int32), ("rng", np.uint64, (1,))])


@dataclass(frozen=True)
class TinyConfig:
    num_players: int = 2
    target: int = 3
    episode: str = "game"
    reward: str = "points"
    max_steps: int = 1000

    def __post_init__(self):
        need(self.num_players == 2 and is_int(self.num_players), f"num_players={self.num_players!r}", "exactly 2")
        need(is_int(self.target) and self.target >= 1, f"target={self.target!r}", "a positive integer")
        check_episode_options(self)

    def to_dict(self):
        return asdict(self)

    def kernel_vector(self, autoreset):
        return np.array([self.target, self.episode == "round", self.max_steps, self.reward == "win", autoreset],
                        np.int64)


@njit(cache=True)
def _deal(s, deck, use_deck):
    for i in range(NUM_CARDS):
        s.deck[i] = deck[i] if use_deck else i
    if not use_deck:
        rng.shuffle(s.rng, 0, s.deck, NUM_CARDS)
    s.card[0], s.card[1] = s.deck[0], s.deck[1]
    s.swapped[:] = 0
    s.pos = 2
    s.phase = PH_FIRST
    s.cur = s.round % 2


@njit(cache=True)
def _start_game(s, deck, use_deck):
    s.total[:] = 0
    s.points[:] = 0
    s.round = s.steps = s.shuffles = 0
    _deal(s, deck, use_deck)


@njit(cache=True)
def mask_one(s, cfg, m):
    m[:] = 1 if s.phase != PH_OVER else 0


@njit(cache=True)
def step_one(s, a, cfg, rew, flg, mask):
    rew[:] = 0.0
    flg[:] = 0
    if s.phase == PH_OVER:
        return
    s.steps += 1
    p = s.cur
    if a == SWAP:
        s.card[p] = s.deck[s.pos]
        s.pos += 1
        s.swapped[p] = 1
    if s.phase == PH_FIRST:
        s.phase, s.cur = PH_SECOND, 1 - p
    else:  # the round ends: the higher card scores
        s.points[:] = 0
        if s.card[0] != s.card[1]:
            s.points[0 if s.card[0] > s.card[1] else 1] = 1
        for q in range(2):
            s.total[q] += s.points[q]
            rew[q] += s.points[q] if cfg[C_WIN_REWARD] == 0 else 0
        s.round += 1
        flg[F_ROUND_OVER] = 1
        if cfg[C_ROUND_EPISODE] == 1 or max(s.total[0], s.total[1]) >= cfg[C_TARGET]:
            flg[F_TERMINATED] = 1
            s.phase, s.cur = PH_OVER, -1
            for q in range(2):
                rew[q] += (1.0 if s.total[q] == max(s.total[0], s.total[1]) else -1.0) if cfg[C_WIN_REWARD] else 0
        else:
            _deal(s, s.deck, False)
    if flg[F_TERMINATED] == 0 and s.steps >= cfg[C_MAX_STEPS]:
        flg[F_TRUNCATED] = 1
        s.phase, s.cur = PH_OVER, -1
    if s.phase == PH_OVER and cfg[C_AUTORESET] == 1:
        _start_game(s, s.deck, False)
    mask_one(s, cfg, mask)


OBSERVATION_PARTS = Parts("tiny", "observation", lambda n: [
    ("card", NUM_CARDS, "one-hot own card"), ("to_move", 1, "1 if I decide now"),
    ("started", 1, "1 if I started this round"), ("opponent_swapped", 1, "1 if the opponent swapped this round"),
    ("totals", 2, "game totals, mine then the opponent's, / target")])
STATE_PARTS = Parts("tiny", "state", lambda n: [
    ("cards", 2 * NUM_CARDS, "one-hot card of seat 0, then of seat 1"),
    ("next_card", NUM_CARDS, "one-hot card a swap takes next"), ("decider", 2, "one-hot seat that decides now"),
    ("swapped", 2, "per seat: 1 if it swapped this round"), ("totals", 2, "game totals per seat, / target")])


ACTION_FEATURE_PARTS = Parts("tiny", "action features", lambda n: [
    ("kind", 2, "one-hot move: keep, swap"),
    ("card_after", 1, "the card I hold after the move / 9 (a swap: the mean of the cards other than mine)")])


@njit(cache=True)
def action_features_one(s, cfg, out):
    out[:, :] = 0.0
    if s.phase != PH_OVER:
        own = s.card[s.cur]
        out[KEEP, 0], out[KEEP, 2] = 1.0, own / 9.0
        out[SWAP, 1], out[SWAP, 2] = 1.0, (45 - own) / 81.0


@njit(cache=True)
def action_features_kernel(states, games, cfg, out):
    for i in range(games.shape[0]):
        action_features_one(states[games[i]], cfg, out[i])


@njit(cache=True)
def observe_one(s, p, cfg, o):
    o[:] = 0.0
    o[s.card[p]] = 1.0                                       # own card only
    o[10], o[11], o[12] = s.cur == p, s.round % 2 == p, s.swapped[1 - p]   # to move, I started, opp. swapped
    o[13], o[14] = s.total[p] / cfg[C_TARGET], s.total[1 - p] / cfg[C_TARGET]


@njit(cache=True)
def reset_kernel(states, games, masks, cfg, deck, use_deck):
    for g in games:
        _start_game(states[g], deck, use_deck)
        mask_one(states[g], cfg, masks[g])


@njit(cache=True)
def redeal_kernel(states, g, masks, cfg, deck):
    _deal(states[g], deck, True)
    mask_one(states[g], cfg, masks[g])


@njit(cache=True)
def step_kernel(states, games, actions, cfg, rewards, flags, masks):
    for i in range(games.shape[0]):
        g = games[i]
        step_one(states[g], actions[i], cfg, rewards[g], flags[g], masks[g])
    return first_error(flags, games)


@njit(cache=True)
def play_random_kernel(states, games, auto, cfg, rewards, flags, masks, action_streams):
    rew = np.zeros(rewards.shape[1], np.float32)
    flg = np.zeros(flags.shape[1], np.uint8)
    for g in games:
        s = states[g]
        rewards[g, :] = 0.0
        flags[g, :] = 0
        while s.phase != PH_OVER and auto[g, s.cur]:
            step_one(s, rng.sample_legal(masks[g], action_streams, g), cfg, rew, flg, masks[g])
            rewards[g, :] += rew
            flags[g, :] |= flg
            if flg[F_TERMINATED] or flg[F_TRUNCATED]:
                break
    return first_error(flags, games)


@njit(cache=True)
def mask_kernel(states, cfg, masks):
    for g in range(states.shape[0]):
        mask_one(states[g], cfg, masks[g])


@njit(cache=True)
def observe_kernel(states, players, cfg, out):
    for g in range(states.shape[0]):
        observe_one(states[g], players[g] if players[g] >= 0 else max(states[g].cur, 0), cfg, out[g])


@njit(cache=True)
def state_kernel(states, cfg, out):
    for g in range(states.shape[0]):
        s, o = states[g], out[g]
        o[:] = 0.0
        o[s.card[0]], o[10 + s.card[1]] = 1.0, 1.0
        if s.pos < NUM_CARDS:
            o[20 + s.deck[s.pos]] = 1.0                      # the next card a swap takes
        if s.cur >= 0:
            o[30 + s.cur] = 1.0
        for p in range(2):
            o[32 + p], o[34 + p] = s.swapped[p], s.total[p] / cfg[C_TARGET]


@njit(cache=True)
def info_kernel(states, cfg, out):
    for g in range(states.shape[0]):
        for p in range(2):
            out[g, 0, p], out[g, 1, p], out[g, 2, p] = states[g].total[p], states[g].points[p], states[g].round


def check_deck(deck) -> np.ndarray:
    ok = isinstance(deck, (list, tuple, np.ndarray)) and len(deck) == NUM_CARDS and all(is_int(x) for x in deck)
    need(ok and sorted(int(x) for x in deck) == list(range(NUM_CARDS)), f"deck={deck!r}",
         "a permutation of 0..9, top first")
    return np.array(deck, np.int8)


class TinyGame(Game):
    """`num_games` Tiny games. Forced setup: `deck`, the first round's 10 cards top first."""

    game_info = GameInfo(name="tiny", num_actions=2, action_names=("keep", "swap"), record_format="tiny-record/2",
                         setup_keys=("deck",), higher_total_wins=True)
    state_dtype = STATE_DTYPE
    config_class = TinyConfig
    kernels = Kernels(step=step_kernel, play_random=play_random_kernel, masks=mask_kernel, observe=observe_kernel,
                      state=state_kernel, infos=info_kernel, action_features=action_features_kernel)

    observation_parts = OBSERVATION_PARTS
    state_parts = STATE_PARTS
    action_feature_parts = ACTION_FEATURE_PARTS

    def _start(self, idx, setup):
        use = "deck" in setup
        deck = check_deck(setup["deck"]) if use else np.zeros(NUM_CARDS, np.int8)
        reset_kernel(self.states, idx, self.masks, self.cfg, deck, use)

    def render_text(self, g=0, seat=None):
        s = self.states[g]
        view = "omniscient view" if seat is None else f"view of player_{seat}"
        lines = [f"Tiny, round {int(s['round']) + 1}, {view}"]
        for p in range(2):
            card = int(s["card"][p]) if seat is None or seat == p else "?"
            lines.append(f"player_{p}: card {card}, total {int(s['total'][p])}" + " (swapped)" * int(s["swapped"][p])
                         + " <- to move" * (int(s["cur"]) == p))
        return "\n".join(lines)

    def table_view(self, g=0, seat=None):
        s = self.states[g]
        cards = [Card((str(int(s["card"][p])),)) if seat in (None, p) else FACE_DOWN for p in range(2)]
        seats = tuple(Zone(seat_label(p, seat), (cards[p],), note=f"total {int(s['total'][p])}"
                           + " · swapped" * int(s["swapped"][p]), to_move=int(s["cur"]) == p) for p in range(2))
        return TableView(title_of(f"Tiny, round {int(s['round']) + 1}", seat), seats, (), "keep or swap")

    def round_setup(self, g):
        return {"deck": [int(x) for x in self.states[g]["deck"]]}

    def redeal(self, g, deck):
        redeal_kernel(self.states, int(g), self.masks, self.cfg, check_deck(deck))



VectorGame = TinyGame   # the PettingZoo-style module's name for its engine

# every part of its observation and state stays within [0, 1] (totals stop at the target)
HIGHS = {"observation": lambda config: {}, "state": lambda config: {}}
# its parts named by this module's own name, whatever it is imported as
SPEC = GameSpec(name="tiny", title="Tiny", engine=f"{__name__}:TinyGame", pettingzoo=__name__,
                bounds=f"{__name__}:HIGHS")


class raw_env(GameAECEnv):
    game_class = TinyGame
    metadata = {"render_modes": ["ansi", "human"], "name": "tiny_v0", "is_parallelizable": False, "render_fps": 1}


def env(**kwargs):
    return wrap(raw_env(**kwargs))
