"""Named observations and states (quando_env.vector_parts): every game's layouts cover their vectors exactly, name
the right numbers, decode and encode real vectors exactly, reach the envs unchanged, and refuse bad input."""
import re
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from quando_env.adapters.gym_env import GameEnv
from quando_env.adapters.gym_vector_env import GameVectorEnv
from quando_env.adapters.sb3_vec_env import GameVecEnv
from quando_env.obs_reader import ObsReader
from quando_env.registry import game_class, game_module, gym_id

PLAYERS = {"quando": range(2, 7), "cabo": range(2, 7), "help": range(3, 6)}
TARGET = {"quando": "target_score", "cabo": "target", "help": "target"}     # the option totals are scaled by
CASES = [(name, n) for name, counts in PLAYERS.items() for n in counts]


def random_play(name, n, num_games=16, steps=20):
    """A game after `steps` random moves, with every step's (k, n, obs_dim) observations from each seat,
    (k, state_dim) states and state records (k = num_games * steps: a few hundred)."""
    g = game_class(name)(num_games, seed=n, num_players=n)
    obs, states, records = [], [], []
    for _ in range(steps):
        g.step(g.sample_actions())
        obs.append(np.stack([g.observe(players=p) for p in range(n)], axis=1))
        states.append(g.state())
        records.append(g.states.copy())
    return g, np.concatenate(obs), np.concatenate(states), np.concatenate(records)


@pytest.mark.parametrize("name,n", CASES)
def test_each_layout_covers_its_vector_exactly_once_with_the_engines_length(name, n):
    cls = game_class(name)
    g = cls(1, seed=0, num_players=n)
    for layout, dim, vector in ((cls.observation_layout_of(n), cls.obs_dim_of(n), g.observe()),
                                (cls.state_layout_of(n), cls.state_dim_of(n), g.state())):
        covered = np.zeros(layout.size, np.int64)
        for start, stop in layout.values():
            covered[start:stop] += 1
        assert (covered == 1).all(), f"{layout}: parts overlap or leave gaps at {np.flatnonzero(covered != 1)}"
        assert layout.size == dim == vector.shape[1]
        assert [(r[0], r[1], r[2]) for r in layout.rows()] == [(k, a, b) for k, (a, b) in layout.items()]
        assert all(isinstance(m, str) and len(m) > 10 for m in layout.meanings.values())
        assert (layout.game, layout.num_players) == (name, n)
    assert dict(g.observation_layout) == dict(cls.observation_layout_of(n))
    assert dict(g.state_layout) == dict(cls.state_layout_of(n))


@pytest.mark.parametrize("name,n", CASES)
def test_decoding_then_encoding_real_observations_and_states_gives_them_back_exactly(name, n):
    g, obs, states, _ = random_play(name, n)
    assert obs.shape[0] * n >= 300 and states.shape[0] >= 300
    for layout, x in ((g.observation_layout, obs), (g.state_layout, states)):
        parts = layout.decode(x)
        assert list(parts) == list(layout)
        assert all(parts[k].shape == (*x.shape[:-1], b - a) for k, (a, b) in layout.items())
        back = layout.encode(parts)
        assert back.dtype == np.float32 and np.array_equal(back, x)
        one = layout.decode(x.reshape(-1, layout.size)[5])
        assert all(np.array_equal(one[k], parts[k].reshape(-1, parts[k].shape[-1])[5]) for k in layout)
        assert np.array_equal(layout.encode(one), x.reshape(-1, layout.size)[5])


@pytest.mark.parametrize("name,n", CASES)
def test_named_parts_hold_the_phase_the_decider_and_the_totals(name, n):
    """The names point at the numbers their meanings describe: phase and totals in the observation (seats
    relative to the observer) and in the state (absolute seats), the seat deciding now in the state."""
    g, obs, states, records = random_play(name, n)
    target = getattr(g.config, TARGET[name])
    live = records["cur"] >= 0
    s = g.state_layout.decode(states)
    assert np.array_equal(s["phase"].argmax(-1), records["phase"])
    assert np.array_equal(s["decider"][live].argmax(-1), records["cur"][live])
    assert not s["decider"][~live].any()
    assert np.allclose(s["totals"] * target, records["total"][:, :n])
    o = g.observation_layout.decode(obs)
    assert np.array_equal(o["phase"].argmax(-1), np.repeat(records["phase"][:, None], n, 1))
    seat_of = (np.arange(n)[:, None] + np.arange(n)[None, :]) % n     # [observer, relative seat] -> seat
    assert np.allclose(o["totals"] * target, records["total"][:, seat_of])


@pytest.mark.parametrize("name,n", CASES)
def test_the_kernels_write_every_index_of_the_observation_and_the_state(name, n):
    g, _, _, records = random_play(name, n, steps=5)
    players = np.full(records.shape[0], -1, np.int64)
    for kernels in (g.kernels, g.parallel_kernels):
        out = np.full((records.shape[0], g.obs_dim), np.nan, np.float32)
        kernels.observe(records, players, g.cfg, out)
        assert not np.isnan(out).any()
    out = np.full((records.shape[0], g.state_dim), np.nan, np.float32)
    g.kernels.state(records, g.cfg, out)
    assert not np.isnan(out).any()


@pytest.mark.parametrize("name", PLAYERS)
def test_every_env_gives_its_engines_layouts(name):
    n = PLAYERS[name][1]
    engine = game_class(name)
    want_obs, want_state = engine.observation_layout_of(n), engine.state_layout_of(n)

    def same(layout, want):
        return (layout.rows(), layout.game, layout.num_players, layout.kind) == (
            want.rows(), want.game, want.num_players, want.kind)

    module = game_module(name)
    for aec in (module.raw_env(num_players=n), module.env(num_players=n)):
        assert same(aec.observation_layout, want_obs) and same(aec.state_layout, want_state)
    par = turn_based_aec_to_parallel(module.env(num_players=n))
    assert same(par.unwrapped.observation_layout, want_obs) and same(par.unwrapped.state_layout, want_state)
    assert same(GameEnv(name, num_players=n).observation_layout, want_obs)
    assert same(GameVectorEnv(2, name, num_players=n).observation_layout, want_obs)
    assert same(GameVecEnv(2, name, num_players=n).observation_layout, want_obs)
    made = gymnasium.make(gym_id(name), num_players=n)
    assert same(made.get_wrapper_attr("observation_layout"), want_obs)


def test_a_cabo_observation_given_to_a_quando_layout_is_refused_naming_both_lengths():
    cabo = game_class("cabo")(1, seed=0).observe()[0]
    layout = game_class("quando").observation_layout_of(4)
    with pytest.raises(ValueError, match=r"shape \(2015,\) .*a 4-player quando observation is a vector of 1152"):
        layout.decode(cabo)
    with pytest.raises(ValueError, match=r"shape \(\) .*4-player quando observation"):
        layout.decode(3.0)
    with pytest.raises(ValueError, match=r"dtype <U1: a 4-player quando observation"):
        layout.decode(["a"] * 1152)
    with pytest.raises(ValueError, match=r"shape \(2, 2015\): a 4-player quando observation"):
        ObsReader(layout, np.stack([cabo, cabo]))
    with pytest.raises(KeyError, match="4-player quando observation has no part 'slots'"):
        layout["slots"]
    with pytest.raises(ValueError, match="num_players=7 is not allowed: an integer 2..6"):
        game_class("quando").state_layout_of(7)


def test_encode_refuses_missing_unknown_or_misshapen_parts():
    layout = game_class("help").state_layout_of(3)
    parts = layout.decode(np.zeros((2, layout.size), np.float32))
    with pytest.raises(ValueError, match=r"missing names \['round'\] and unknown names \[\]: a 3-player help state"):
        layout.encode({k: v for k, v in parts.items() if k != "round"})
    with pytest.raises(ValueError, match=r"missing names \[\] and unknown names \['extra'\]"):
        layout.encode({**parts, "extra": np.zeros(1)})
    with pytest.raises(ValueError, match=r"part 'phase' has shape \(2, 5\) and dtype float32: in a 3-player help "
                                         r"state it is 6 numbers, shape \(\.\.\., 6\)"):
        layout.encode({**parts, "phase": np.zeros((2, 5), np.float32)})
    with pytest.raises(ValueError, match=r"part 'round' has batch shape \(3,\) but part 'hands' has \(2,\)"):
        layout.encode({**parts, "round": np.zeros((3, 1))})
    with pytest.raises(ValueError, match="parts is a list: give a dict name -> array"):
        layout.encode(list(parts.values()))


def test_obs_reader_reads_the_public_layouts_parts():
    g = game_class("quando")(1, seed=3, num_players=3)
    obs = g.observe()[0]
    reader, parts = ObsReader(g.observation_layout, obs), g.observation_layout.decode(obs)
    assert all(np.array_equal(reader.sec(k), parts[k]) for k in parts)
    assert reader.one("dealer", "dealer") == int(parts["dealer"].argmax())


def test_the_named_observations_page_runs_as_written():
    text = (Path(__file__).parent.parent / "docs" / "observations.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/observations.md", "exec"), {})


def test_index_constants_are_found_by_part_name():
    from quando_env.quando import observation as O

    assert (O.O_PHASE, O.O_KNOWN) == O.PARTS.indices("phase", "known_cards") == (0, len(O.offsets(4)) - 1)
    with pytest.raises(KeyError, match=r"no part\(s\) \['nope'\]"):
        O.PARTS.indices("phase", "nope")


def test_the_old_module_name_says_where_the_parts_are_now():
    with pytest.raises(ImportError, match=r"`quando_env\.layout` is now `quando_env\.vector_parts`"):
        import quando_env.layout  # noqa: F401
