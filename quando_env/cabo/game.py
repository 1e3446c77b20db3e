"""VectorGame: many Cabo games stepped by one call (the game contract of quando_env.core)."""
import numpy as np

from ..checks import rule, shown, to_int
from ..core import Game
from ..game_info import GameInfo
from ..kernels import Kernels
from . import action_features as AF
from . import engine as E
from .batch import mask_kernel, redeal_kernel, reset_kernel, step_kernel, step_kernel_parallel
from .state import STATE_PARTS, state_kernel
from .state_checks import STATE_PROBLEMS, check_kernel
from .info import info_kernel
from .determinize import draw_states
from .cards import (ACTION_NAMES, CARD_VALUES, JACK_SWAP, KNOCK, NUM_ACTIONS, NUM_CARDS, NUM_SLOTS, SNAP, check_deck,
                    decode_jack)
from .config import Config
from .observation import PARTS, observe_kernel, observe_kernel_parallel
from . import render
from .render import render_text, table_view


class VectorGame(Game):
    """`num_games` independent Cabo games of one configuration (the options of quando_env.cabo.Config).

    Forced setup (reset's keywords): `deck`, the 52 card ids top first (R4), and `dealer`, the first
    round's dealer (R24). Cabo has no randomness inside a round (D14): the generic reshuffle hooks raise.
    """

    game_info = GameInfo(name="cabo", num_actions=NUM_ACTIONS, action_names=ACTION_NAMES,
                         record_format="cabo-record/2", setup_keys=("deck", "dealer"), seat_info_keys=("hand_total",),
                         knock_action=KNOCK, higher_total_wins=False)
    state_dtype = E.STATE_DTYPE
    state_problems = STATE_PROBLEMS
    config_class = Config
    kernels = Kernels(step=step_kernel, masks=mask_kernel, observe=observe_kernel, state=state_kernel,
                      infos=info_kernel, check=check_kernel, action_features=AF.action_features_kernel)
    parallel_kernels = dict(step=step_kernel_parallel, observe=observe_kernel_parallel,
                            action_features=AF.action_features_kernel_parallel)
    observation_parts = PARTS
    state_parts = STATE_PARTS
    action_feature_parts = AF.PARTS
    determinizer = staticmethod(draw_states)
    card_views = render

    def _checked_setup(self, setup):
        out = {"dealer": self.checked_seat("dealer", setup.get("dealer", self.config.first_dealer))}
        if "deck" in setup:
            out["deck"] = check_deck(setup["deck"])
        return out

    def _start(self, idx, setup):
        k = idx.size
        decks = np.zeros((k, NUM_CARDS), np.int8)
        use = np.zeros(k, np.int8)
        if "deck" in setup:
            decks[:] = setup["deck"]
            use[:] = 1
        reset_kernel(self.states, self.cfg, idx, self.masks, decks, use, np.full(k, setup["dealer"], np.int8))

    def move_name(self, g, a):
        """Told of the seat that decides (replay's omniscient story): its own slots, and a Jack's other seat
        absolutely (player_3), not relative to the decider as the action's own name does (player+2)."""
        s = self.states[self.game_index(g)]
        if JACK_SWAP <= a < SNAP:
            r, i, j = decode_jack(a)
            return f"Jack: own slot {i} with player_{(int(s['cur']) + r) % self.num_players}'s slot {j}"
        return self.action_name(a).replace("my slot", "own slot")

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
        return {"dealer": int(s["dealer"]), "deck": s["deck"].tolist()}

    def redeal(self, g, deck, dealer=None):
        g = self.game_index(g)
        s = self.states[g]
        if dealer is not None and not to_int(dealer) == s["dealer"]:
            raise ValueError(f"the record's dealer is {shown(dealer)}, the rules make it {int(s['dealer'])} (the "
                             f"dealer advances one seat each round, {rule('cabo', 'R24')})")
        ids = check_deck(deck)
        redeal_kernel(self.states, self.cfg, np.array([g]), ids[None], self.masks)

    @classmethod
    def game_ends(cls, totals, config):
        """R26: a total over the target ends the game."""
        return (np.asarray(totals) > config.target).any(axis=1)

    @classmethod
    def points_bounds(cls, config):
        # minus the final total: at most the target before the last round, which adds at most a doubled
        # full hand of the highest card (R22, R23, R26)
        last_round = 2 * NUM_SLOTS * int(CARD_VALUES.max())
        return -float(last_round + (config.target if config.episode == "game" else 0)), 0.0

    # ------------------------------------------------------------------ Cabo's own views
    def hands(self, g: int) -> list[list[int | None]]:
        """Omniscient: each seat's 8 slots in game g (card id or None)."""
        s = self.states[self.game_index(g)]
        return [[int(c) if c >= 0 else None for c in s["slot"][p]] for p in range(self.num_players)]

    def piles(self, g: int) -> tuple[list[int], list[int]]:
        """Omniscient: (stock, discard pile) of game g as card ids, top first."""
        s = self.states[self.game_index(g)]
        return ([int(c) for c in s["stock"][: s["nstock"]][::-1]], [int(c) for c in s["disc"][: s["ndisc"]][::-1]])

    def seen_cards(self, g: int, seat: int) -> set[int]:
        """The card ids `seat` has seen this round in game g (K1-K9)."""
        seen = self.states[self.game_index(g)]["seen"][self.checked_seat("seat", seat)]
        return {int(c) for c in np.flatnonzero(seen)}

    def hand_totals(self, games=None) -> np.ndarray:
        """(k, n) hand totals per seat (R22)."""
        return self.info_arrays(games)["hand_total"]

