"""VectorGame: many Help! games stepped by one call (the game contract of quando_env.core)."""
import numpy as np

from ..checks import rule, shown
from ..core import Game
from ..game_info import GameInfo
from ..kernels import Kernels
from . import action_features as AF
from . import engine as E
from .batch import mask_kernel, redeal_kernel, reset_kernel, step_kernel, step_kernel_parallel
from .state import STATE_PARTS, state_kernel
from .state_checks import STATE_PROBLEMS, check_kernel
from .info import info_kernel
from . import render
from .determinize import draw_states
from .cards import (ACTION_NAMES, ASK, CODES, K_WILD, NUM_ACTIONS, NUM_CARDS, SWITCH, WILD, ZAP, a_card, codes_of,
                    deck_to_kinds, pile_to_kinds)
from .config import Config
from .observation import PARTS, observe_kernel, observe_kernel_parallel

PHASE_NAMES = {E.PH_OPEN: "open", E.PH_PLAY: "play", E.PH_GIVE: "give", E.PH_BACK: "give_back",
               E.PH_RECV: "play_received", E.PH_OVER: "over"}


class VectorGame(Game):
    """`num_games` independent Help! games of one configuration (the options of quando_env.help.Config).

    Forced setup (reset's keywords): `deck`, 105 card codes top first (R2), and `starter`, the first round's
    starter (it then calls nothing and takes a normal turn; without it R5 picks the starter, every seat
    calling).
    """

    game_info = GameInfo(name="help", num_actions=NUM_ACTIONS, action_names=ACTION_NAMES,
                         record_format="help-record/2", setup_keys=("deck", "starter"), higher_total_wins=True)
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
        out = {"starter": self.checked_seat("starter", setup["starter"]) if "starter" in setup else -1}
        if "deck" in setup:
            out["deck"] = deck_to_kinds(setup["deck"])
        return out

    def _start(self, idx, setup):
        k = idx.size
        decks = np.zeros((k, NUM_CARDS), np.int8)
        use = np.zeros(k, np.int8)
        if "deck" in setup:
            decks[:] = setup["deck"]
            use[:] = 1
        reset_kernel(self.states, self.cfg, idx, self.masks, decks, use, np.full(k, setup["starter"], np.int8))

    def move_name(self, g, a):
        """The name of legal move a in game g's decision, with what the context adds: the Wild's value, the
        card a Switch takes, the seat asked."""
        s = self.states[self.game_index(g)]
        name = self.action_name(a)
        a = int(a)
        if WILD <= a < SWITCH:
            slot = a - WILD
            w = 1 if slot == 0 else int(s["row_val"][slot - 1]) + 1
            return f"{name} (value {w})"
        if SWITCH <= a < ZAP:
            slot, k = divmod(a - SWITCH, 11)
            if slot < s["nrow"]:
                taken = int(s["row_val"][slot])
                what = f"the Wild ({taken})" if s["row_kind"][slot] == K_WILD else f"the {taken}"
                return f"Switch: take {what}, put {a_card(k)}"
        if a == ASK and s["phase"] in (E.PH_OPEN, E.PH_PLAY):
            n = self.num_players
            p = int(s["cur"])
            for i in range(1, n):
                q = (p - i * int(s["dir"])) % n
                if s["no"][q] == E.NO_NONE:
                    return f"ask player_{q} for help"
            return "ask for help (nobody can help)"
        return name

    def step_notes(self, g, before):
        """R15's refill (a round's end deals anew instead)."""
        from .render import refill

        g = self.game_index(g)
        p, drawn = refill(before, self.states[g])
        return [f"player_{p} draws {drawn}"] if drawn and not self.round_over[g] else []

    def render_text(self, g=0, seat=None):
        from .render import render_text

        return render_text(self, *self.view_args(g, seat))

    def table_view(self, g=0, seat=None):
        from .render import table_view

        return table_view(self, *self.view_args(g, seat))

    def narrator(self, labels, seat=0, terminal=True):
        from .play_text import Narrator

        return Narrator(self, labels, seat, terminal)

    @classmethod
    def game_ends(cls, totals, config):
        """R21: a total reaching the target ends the game."""
        return np.asarray(totals).max(axis=1) >= config.target

    @classmethod
    def points_bounds(cls, config):
        # the final total: a round gives a seat at most 1 point and the game ends at the target (R20, R21)
        return 0.0, float(config.target if config.episode == "game" else 1)

    @classmethod
    def max_decisions(cls, config):
        # max_steps truncates a round (R22); every round gives someone a point, so n * (target - 1) + 1
        # rounds at most (R20, R21)
        rounds = config.num_players * (config.target - 1) + 1 if config.episode == "game" else 1
        return int(config.max_steps) * rounds

    # ------------------------------------------------------------------ records
    def round_setup(self, g):
        s = self.states[self.game_index(g)]
        return {"deck": codes_of(s["deck"]), "starter": int(s["starter"]) if s["forced_start"] else None}

    def redeal(self, g, deck, starter=None):
        g = self.game_index(g)
        kinds = deck_to_kinds(deck)
        if starter is not None:
            self.checked_seat("starter", starter)
        before = self.states[g].copy(), self.masks[g].copy()   # R5 names the starter only once dealt
        redeal_kernel(self.states, self.cfg, np.array([g]), kinds[None], self.masks)
        made = int(self.states[g]["starter"])
        if starter is not None and starter != made:
            self.states[g], self.masks[g] = before
            raise ValueError(f"the record's starter is {shown(starter)}, the rules make it {made} (chosen from the "
                             f"deal among the callers, {rule('help', 'R5')})")

    def reshuffle_record(self, g):
        s = self.states[self.game_index(g)]
        return {"pile": codes_of(s["shuffle"][: int(s["nshuf"])])}

    def force_reshuffle(self, g, entry):
        g = self.game_index(g)
        try:
            kinds = pile_to_kinds(entry["pile"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"malformed: {e}") from None
        s = self.states
        s["shuffle"][g, :] = -1
        s["shuffle"][g, : kinds.size] = kinds
        s["forced"][g] = 1

    # ------------------------------------------------------------------ Help!'s own views (omniscient)
    def hands(self, g: int) -> list[list[str]]:
        """Each seat's cards in game g as codes, sorted by kind."""
        s = self.states[self.game_index(g)]
        return [[CODES[k] for k in range(15) for _ in range(int(s["hand"][p, k]))] for p in range(self.num_players)]

    def row(self, g: int) -> list[tuple[str, int]]:
        """The row of game g as (code, value) pairs, left to right."""
        s = self.states[self.game_index(g)]
        return [(CODES[int(s["row_kind"][j])], int(s["row_val"][j])) for j in range(int(s["nrow"]))]

    def draw_pile(self, g: int) -> list[str]:
        """The draw pile of game g, top first."""
        s = self.states[self.game_index(g)]
        return codes_of(s["draw"][int(s["dpos"]): int(s["dend"])])

    def discard_pile(self, g: int) -> list[str]:
        """The discard pile of game g, the first-discarded card first."""
        s = self.states[self.game_index(g)]
        return codes_of(s["disc"][: int(s["ndisc"])])

    def no_cards(self, g: int) -> list:
        """Per seat: None, "fresh" or "spent" (the No! in front of it, R8)."""
        return [(None, "fresh", "spent")[int(x)] for x in self.states[self.game_index(g)]["no"][: self.num_players]]

    def calls(self, g: int) -> dict:
        """The public calls of game g's round (R5, D14): {seat: called number}."""
        c = self.states[self.game_index(g)]["calls"]
        return {p: int(c[p]) for p in range(self.num_players) if c[p] > 0}

    def direction(self, g: int) -> int:
        return int(self.states[self.game_index(g)]["dir"])

    def phase(self, g: int) -> str:
        return PHASE_NAMES[int(self.states[self.game_index(g)]["phase"])]
