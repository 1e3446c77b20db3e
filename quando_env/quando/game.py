"""VectorGame: many Quando games stepped by one call (the game contract of quando_env.core)."""
import numpy as np

from ..checks import rule, shown, to_int
from ..core import Game
from ..game_info import GameInfo
from ..kernels import Kernels
from . import action_features as AF
from . import engine as E
from .batch import (mask_kernel, play_random_kernel, play_random_kernel_parallel, redeal_kernel, reset_kernel,
                    step_kernel, step_kernel_parallel)
from .state import STATE_PARTS, state_kernel
from .state_checks import STATE_PROBLEMS, check_kernel
from .info import hand_sums_kernel, info_kernel
from .determinize import draw_states
from .cards import (ACTION_NAMES, CARD_VALUES, KNOCK, NUM_ACTIONS, NUM_CARDS, PAIR_TO_CARD, PASS, card_pairs,
                    deck_to_cards)
from .config import Config
from .observation import PARTS, observe_kernel, observe_kernel_parallel
from . import render
from .render import render_text, table_view


class VectorGame(Game):
    """`num_games` independent Quando games of one configuration (the options of quando_env.quando.Config).

    Forced setup (reset's keywords): `deck`, 55 [up, down] pairs top first (R4), and `dealer`, the first
    round's dealer (R6).
    """

    game_info = GameInfo(name="quando", num_actions=NUM_ACTIONS, action_names=ACTION_NAMES,
                         record_format="quando-record/2", setup_keys=("deck", "dealer"), seat_info_keys=("hand_sum",),
                         knock_action=KNOCK, higher_total_wins=False)
    state_dtype = E.STATE_DTYPE
    state_problems = STATE_PROBLEMS
    config_class = Config
    kernels = Kernels(step=step_kernel, play_random=play_random_kernel, masks=mask_kernel,
                      observe=observe_kernel, state=state_kernel, infos=info_kernel,
                      check=check_kernel, action_features=AF.action_features_kernel)
    parallel_kernels = dict(step=step_kernel_parallel, play_random=play_random_kernel_parallel,
                            observe=observe_kernel_parallel,
                            action_features=AF.action_features_kernel_parallel)
    observation_parts = PARTS
    state_parts = STATE_PARTS
    action_feature_parts = AF.PARTS
    determinizer = staticmethod(draw_states)
    card_views = render

    def _checked_setup(self, setup):
        out = {}
        if "deck" in setup:
            out["deck"] = deck_to_cards(setup["deck"])
        out["dealer"] = self.checked_seat("dealer", setup.get("dealer", self.config.dealer))
        return out

    def _start(self, idx, setup):
        k = idx.size
        decks = np.zeros((k, NUM_CARDS), np.int8)
        ups = np.zeros((k, NUM_CARDS), np.int8)
        use = np.zeros(k, np.int8)
        if "deck" in setup:
            decks[:], ups[:] = setup["deck"]
            use[:] = 1
        reset_kernel(self.states, self.cfg, idx, self.masks, decks, ups, use, np.full(k, setup["dealer"], np.int8))

    def move_name(self, g, a):
        g = self.game_index(g)
        if a == PASS and self.states[g]["phase"] == E.PH_KNOCK:
            return "do not knock"
        return self.action_name(a)

    def render_text(self, g=0, seat=None):
        return render_text(self, *self.view_args(g, seat))

    def table_view(self, g=0, seat=None):
        return table_view(self, *self.view_args(g, seat))

    def narrator(self, labels, seat=0, terminal=True):
        from .play_text import Narrator

        return Narrator(self, labels, seat, terminal)

    # ------------------------------------------------------------------ records
    def round_setup(self, g):
        s = self.states[self.game_index(g)]
        return {"dealer": int(s["dealer"]), "deck": card_pairs(s["deck"], s["deck_up"])}

    def redeal(self, g, deck, dealer=None):
        g = self.game_index(g)
        s = self.states[g]
        if dealer is not None and not to_int(dealer) == s["dealer"]:
            raise ValueError(f"the record's dealer is {shown(dealer)}, the rules make it {int(s['dealer'])} (the deal "
                             f"passes one seat each round, {rule('quando', 'R6')})")
        ids, ups = deck_to_cards(deck)
        redeal_kernel(self.states, self.cfg, np.array([g]), ids[None], ups[None], self.masks)

    def reshuffle_record(self, g):
        s = self.states[self.game_index(g)]
        m = int(s["nshuf"])   # not ndraw: a round that ended in the reshuffle's step has dealt anew
        return {"pile": card_pairs(s["shuffle"][:m], s["shuffle_up"][:m])}

    def force_reshuffle(self, g, entry):
        g = self.game_index(g)
        try:
            ids, ups = _reshuffle_cards(entry)
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"malformed: {e}") from None
        s = self.states
        s["shuffle"][g, :] = -1
        s["shuffle"][g, : len(ids)] = ids
        s["shuffle_up"][g, : len(ids)] = ups
        s["forced"][g] = 1

    @classmethod
    def game_ends(cls, totals, config):
        """R19: a total over the target ends the game; one at the target too in kendi (oya: only above)."""
        t = np.asarray(totals)
        return ((t > config.target_score) | ((t == config.target_score) & (config.edition == "kendi"))).any(axis=1)

    @classmethod
    def points_bounds(cls, config):
        # minus the final total: below the target before the last round, which adds at most every card's
        # higher side and the knock penalty (R17, R18, R19)
        last_round = int(CARD_VALUES.max(axis=1).sum()) + config.knock_penalty
        return -float(last_round + (config.target_score if config.episode == "game" else 0)), 0.0

    # ------------------------------------------------------------------ Quando's own views

    def hands(self, g: int) -> list[list[tuple[int, int]]]:
        """Omniscient: each seat's cards in game g as (front, back), in acquisition order."""
        s = self.states[self.game_index(g)]
        out = []
        for p in range(self.num_players):
            cards = sorted((c for c in range(NUM_CARDS) if s["loc"][c] == p), key=lambda c: s["acq"][c])
            out.append([(int(CARD_VALUES[c, s["face"][c]]), int(CARD_VALUES[c, 1 - s["face"][c]])) for c in cards])
        return out

    def piles(self, g: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """Omniscient: (draw pile, discard pile) of game g as (up, down) pairs, top first."""
        s = self.states[self.game_index(g)]

        def pile(arr, k):
            return [(int(CARD_VALUES[c, s["face"][c]]), int(CARD_VALUES[c, 1 - s["face"][c]]))
                    for c in arr[:k][::-1]]
        return pile(s["draw"], s["ndraw"]), pile(s["disc"], s["ndisc"])

    def hand_sums(self, games=None) -> np.ndarray:
        """(k, n) sum of fronts per seat (R17); games: only these slots."""
        states = self.states[self.slots(games)]
        out = np.zeros((states.shape[0], self.num_players), np.int32)
        hand_sums_kernel(states, self.cfg, out)
        return out.astype(np.int64)


def _reshuffle_cards(entry):
    """Card ids and up sides of a recorded reshuffle ({"pile": [[up, down], ...] top first, 1..55 cards})."""
    pile = entry["pile"]
    if not (isinstance(pile, (list, tuple)) and 1 <= len(pile) <= NUM_CARDS):
        raise ValueError(f"the pile must be a list of 1..{NUM_CARDS} [up, down] pairs, got {shown(pile)}")
    for j, p in enumerate(pile):
        if not (isinstance(p, (list, tuple)) and len(p) == 2
                and all(to_int(x) is not None and 0 <= to_int(x) <= 10 for x in p)
                and p[0] != p[1]):
            raise ValueError(f"card {j} is {shown(p)}")
    pairs = [(to_int(u), to_int(d)) for u, d in pile]
    ids = np.array([PAIR_TO_CARD[u, d] for u, d in pairs], np.int8)
    if len(set(ids.tolist())) != len(ids):
        raise ValueError("a card appears twice")
    return ids, np.array([0 if u < d else 1 for u, d in pairs], np.int8)
