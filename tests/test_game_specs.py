"""Every game is declared once, in its spec (quando_env.spec.GameSpec), and every part a spec names imports and is
what it must be: a missing or broken part fails here by name, not later (or silently) where it is used."""
import dataclasses

import numpy as np
import pytest
import tiny_game

from quando_env import bounds, registry
from quando_env.agents import game_agents
from quando_env.evaluation.strength import table
from quando_env.cli.first_use import first_kernels
from quando_env.cli.warmup import kernel_modules, kernels
from quando_env.jax import games as jax_games
from quando_env.registry import GAMES, game_spec
from quando_env.spec import PARTS, GameSpec, check


@pytest.mark.parametrize("name", list(GAMES))
def test_every_part_of_every_spec_imports_and_is_what_it_must_be(name):
    spec = game_spec(name)
    check(spec)
    assert spec.name == name and spec.part("engine") is registry.game_class(name)
    assert spec.part("jax")().num_players >= 2 and name in jax_games()
    assert "heuristic" in game_agents(name) and first_kernels(name, agents=True)[-1] is spec.part("heuristic_kernel")
    assert spec.decisions > 0 and spec.finish is not None and f"| {spec.title} |" in table()
    found = kernels(kernel_modules(name))                   # what warmup counts as the game's kernels
    assert spec.part("engine").kernels.step in found and spec.part("heuristic_kernel") in found


@pytest.mark.parametrize("part", PARTS)
def test_a_spec_with_a_part_that_does_not_import_fails_naming_the_game_and_the_part(part):
    broken = dataclasses.replace(GAMES["cabo"], **{part: "quando_env.cabo.nowhere:HIGHS"})
    with pytest.raises(ValueError, match=f"game 'cabo''s {part} part 'quando_env.cabo.nowhere:HIGHS' does not import"):
        check(broken)
    wrong_attribute = dataclasses.replace(GAMES["cabo"], **{part: "quando_env.cabo.bounds:NOTHING"})
    with pytest.raises(ValueError, match=f"{part} part .* has no 'NOTHING'"):
        check(wrong_attribute)


def test_a_spec_without_bounds_fails_loudly_instead_of_giving_infinite_ones(monkeypatch):
    with pytest.raises(TypeError, match="bounds"):
        GameSpec(name="tiny", title="Tiny", engine="tiny_game:TinyGame", pettingzoo="tiny_game")
    monkeypatch.setitem(GAMES, "tiny", dataclasses.replace(tiny_game.SPEC, bounds="tiny_game:NO_HIGHS"))
    with pytest.raises(ValueError, match="game 'tiny''s bounds part 'tiny_game:NO_HIGHS' does not import"):
        bounds.high(tiny_game.TinyGame(2, seed=0), "observation")
    monkeypatch.setitem(GAMES, "tiny", tiny_game.SPEC)
    assert (bounds.high(tiny_game.TinyGame(2, seed=0), "observation") == 1).all()


def test_the_registry_adds_a_spec_once_and_refuses_another_of_the_same_name(monkeypatch):
    monkeypatch.setitem(GAMES, "tiny", tiny_game.SPEC)       # taken out again after the test
    del GAMES["tiny"]
    registry.register(tiny_game.SPEC)
    registry.register(tiny_game.SPEC)
    assert registry.game_class("tiny") is tiny_game.TinyGame and registry.game_module("tiny") is tiny_game
    with pytest.raises(ValueError, match="a game named 'tiny' is registered already"):
        registry.register(dataclasses.replace(tiny_game.SPEC, title="Other"))
    with pytest.raises(ValueError, match="a quando_env.spec.GameSpec"):
        registry.register("tiny_game")
    with pytest.raises(ValueError, match="game 'tiny' has no jax part"):
        registry.game_spec("tiny").part("jax")
    check(tiny_game.SPEC)
    assert np.isfinite(bounds.high(tiny_game.TinyGame(2, seed=0), "state")).all()
