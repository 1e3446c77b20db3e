"""A game's options are declared once (quando_env.options.setting): the config checks each from its declaration, the
kernels' vector puts each at the engine's index it declares, the JAX rules hold what the kernels read, and a
declaration that misses or repeats a kernel slot, or an option declared without one, is refused when the class is
defined."""
from dataclasses import dataclass, fields

import numpy as np
import pytest

from quando_env.checks import as_int
from quando_env.options import Options, setting
from quando_env.registry import game_class, game_names


@pytest.mark.parametrize("name", game_names())
def test_each_option_sits_at_its_declared_kernel_slot(name):
    config_class = game_class(name).config_class
    assert issubclass(config_class, Options)
    config = config_class(episode="round", reward="win", max_steps=77)
    v = config.kernel_vector(True)
    reads = config.kernel_reads()
    for f in fields(config_class):
        index, kernel_name = f.metadata["kernel"][:2]
        assert v[index] == int(reads[kernel_name]), f.name
    assert v[config.autoreset_slot] == 1 and config.kernel_vector(False)[config.autoreset_slot] == 0
    assert reads["round_episode"] is True and reads["win_reward"] is True and reads["max_steps"] == 77
    np.testing.assert_array_equal(v[config.kernel_size:], config.observation_starts(config.num_players))


def declared(size: int, **options):
    """A config class of `options` (name -> a setting, or a plain default) with `size` kernel slots, the last for
    autoreset."""
    namespace = {"kernel_size": size, "autoreset_slot": size - 1, "__annotations__": dict.fromkeys(options, int)}
    return dataclass(frozen=True)(type("Declared", (Options,), {**namespace, **options}))


def n_at(index: int):
    return setting(2, as_int, 2, 2, kernel=(index, "n"))


@pytest.mark.parametrize("size, options, message", [
    (3, {"num_players": n_at(0)}, r"declare the kernel slots \[0, 2\], not each of 0..2 once"),
    (2, {"num_players": n_at(0), "target": setting(2, as_int, 1, 9, kernel=(0, "target"))},
     r"declare the kernel slots \[0, 0, 1\]"),
    (2, {"num_players": n_at(0), "target": 3}, r"declares option\(s\) \['target'\] without setting"),
])
def test_a_kernel_slot_missing_or_twice_or_an_option_without_a_setting_is_refused(size, options, message):
    with pytest.raises(TypeError, match=message):
        declared(size, **options)
    assert declared(2, num_players=n_at(0)).kernel_size == 2     # each slot once: defined


def test_a_bound_that_depends_on_an_earlier_option_reads_it():
    from quando_env.cabo.config import Config

    assert Config(hand_size=6, peek=6).peek == 6
    with pytest.raises(ValueError, match=r"peek=5 is not allowed: an integer 0..hand_size \(3\)"):
        Config(hand_size=3, peek=5)
