"""The heuristic play-out of Help!'s rollout search, fused into one numba kernel over the cores."""
import numpy as np
from numba import njit, prange

from quando_env.help.cards import NUM_ACTIONS
from quando_env.core import F_ERROR
from quando_env.help.engine import CFG_SIZE, mask_one, step_one
from quando_env.help.observation import observe_one

from .heuristic import HeuristicAgent, decide


@njit(cache=True, parallel=True)
def playout_kernel(states, cfg, obs_dim, n, prm, horizon):
    """HeuristicAgent (parameters prm) in every seat of every game until its episode ends (a round, for the
    search's games), or for `horizon` decisions per game (< 0: no limit). The same play as stepping a
    VectorGame with HeuristicAgent's actions, fused into one call that spreads the games over the cores."""
    off = cfg[CFG_SIZE:]
    for g in prange(states.shape[0]):
        o = np.empty(obs_dim, np.float32)
        m = np.zeros(NUM_ACTIONS, np.uint8)
        rew = np.zeros(n, np.float32)
        flg = np.zeros(4, np.uint8)
        mask_one(states[g], cfg, m)
        k = 0
        while states[g].cur >= 0 and (horizon < 0 or k < horizon):
            observe_one(states[g], states[g].cur, cfg, o)
            step_one(states[g], decide(o, m, off, n, prm), cfg, rew, flg, m)
            if flg[F_ERROR]:
                break
            k += 1


def heuristic_playout(agent: HeuristicAgent):
    """A playout(game, horizon) for the rollout search: `agent` in every seat, in the fused kernel."""
    def playout(game, horizon):
        playout_kernel(game.states, game.cfg, game.obs_dim, game.num_players, agent.prm,
                       -1 if horizon is None else horizon)
    return playout
