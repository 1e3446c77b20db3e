"""Pictures (render_mode="rgb_array" and "human"): every game's frames have one shape and change as play goes
on, Gymnasium's RecordVideo records them, and a picture shows a seat only what it has seen: changing the cards
it has not seen (as the games' information tests do) leaves its frame pixel-identical, while a planted leak
(the opponents' hidden cards drawn) fails the same check."""
import dataclasses
import os
import random
import sys

os.environ["SDL_VIDEODRIVER"] = "dummy"     # no display needed; "human" then prints text (no real display)

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from gymnasium.error import DependencyNotInstalled  # noqa: E402
from gymnasium.wrappers import RecordVideo  # noqa: E402

import quando_env  # noqa: E402
from quando_env import picture  # noqa: E402
from quando_env.registry import game_class, game_module, game_names, gym_id  # noqa: E402
from quando_env.tableview import Card, TableView, Zone  # noqa: E402

import test_cabo_information as cabo_info  # noqa: E402
import test_help_information as help_info  # noqa: E402
import test_quando_information as quando_info  # noqa: E402

SHAPE = (picture.FRAME_HEIGHT, picture.FRAME_WIDTH, 3)
PLAYERS = {"quando": 4, "cabo": 3, "help": 4}


def leaky_frame(game, g, seat):
    """A planted leak: the seat's picture with every other seat's hand drawn as the omniscient view has it."""
    honest, everything = game.table_view(g, seat), game.table_view(g, None)
    seats = tuple(z if q == seat else everything.seats[q] for q, z in enumerate(honest.seats))
    return picture.frame(dataclasses.replace(honest, seats=seats))


@pytest.mark.parametrize("name", game_names())
def test_aec_frames_have_one_shape_and_change_with_every_decision(name):
    env = game_module(name).env(num_players=PLAYERS[name], render_mode="rgb_array")
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    frames = [env.render()]
    for _ in range(25):
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        frames.append(env.render())
    assert all(f.shape == SHAPE and f.dtype == np.uint8 for f in frames)
    assert all((a != b).any() for a, b in zip(frames, frames[1:]))
    seat = int(env.unwrapped.game.current_player[0])
    assert np.array_equal(frames[-1], picture.game_frame(env.unwrapped.game, 0, seat))   # the seat to move
    assert np.array_equal(env.unwrapped.render(seat=(seat + 1) % PLAYERS[name]),
                          picture.game_frame(env.unwrapped.game, 0, (seat + 1) % PLAYERS[name]))


@pytest.mark.parametrize("name", game_names())
def test_record_video_of_a_gymnasium_episode(name, tmp_path):
    from moviepy import VideoFileClip

    folder = tmp_path / "videos"
    env = RecordVideo(gym.make(gym_id(name), render_mode="rgb_array", seat=0, episode="round"), str(folder),
                      episode_trigger=lambda episode: True)
    env.reset(seed=3)
    steps, done = 0, False
    while not done and steps < 12:
        frame = env.render()
        assert frame.shape == SHAPE and frame.dtype == np.uint8
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        done, steps = terminated or truncated, steps + 1
    env.close()
    (video,) = folder.glob("*.mp4")
    with VideoFileClip(str(video)) as clip:
        frames = [f.astype(np.int16) for f in clip.iter_frames()]
    assert len(frames) >= steps and frames[0].shape == SHAPE
    assert max(np.abs(a - b).max() for a, b in zip(frames, frames[1:])) > 100    # the picture changes


def frames_equal(a, b, seat, draw=picture.game_frame):
    return np.array_equal(draw(a, 0, seat), draw(b, 0, seat))


def one_game(name, state, n):
    game = game_class(name)(1, seed=0, num_players=n)
    game.load_states(np.array([state]))
    return game


@pytest.mark.parametrize("name,swaps", [("quando", lambda s, p, n, rng: quando_info.unseen_swaps(s, p, rng)),
                                        ("help", help_info.unseen_swaps)])
def test_changing_unseen_cards_leaves_the_seats_picture_pixel_identical(name, swaps):
    """Quando's and Help!'s information tests' changes (identities of unseen sides, other hands and the draw
    pile) on states of random games: the seat's frame stays; someone's frame changes; the planted leak is seen."""
    n = PLAYERS[name]
    rng = np.random.default_rng(5)
    g = game_class(name)(3, seed=5, num_players=n)
    checks = noticed = leaks = 0
    for t in range(48):
        g.step(g.sample_actions())
        if t % 6:
            continue
        for i in range(3):
            p = int(rng.integers(n))
            one = one_game(name, g.states[i], n)
            probe = one_game(name, swaps(g.states[i], p, n, rng), n)
            assert frames_equal(one, probe, p), (name, t, i, p)
            checks += 1
            noticed += not frames_equal(one, probe, None)
            leaks += not frames_equal(one, probe, p, leaky_frame)
    assert checks == 24 and noticed > checks // 2 and leaks > checks // 4


def test_cabo_exchanging_two_cards_a_seat_never_saw_leaves_its_pictures_pixel_identical():
    """Cabo's information test (two cards a seat never saw exchanged in the deck, the same actions replayed):
    every frame of that seat is the same, while the leaky frames differ."""
    rng = random.Random(2)
    n, checks, leaks = 3, 0, 0
    for r in range(5):
        deck = list(range(52))
        rng.shuffle(deck)
        actions, seen = cabo_info.play_round(n, deck, 2, rng)
        p = r % n
        opponents = [c for c in deck[:4 * n] if c not in deck[p:4 * n:n]]
        pair = cabo_info.pick_pair(rng, seen[p], deck, among=opponents)
        if pair is None:
            continue
        a, b = cabo_info.new_round(n, deck, 2), cabo_info.new_round(n, cabo_info.swapped(deck, *pair), 2)
        leaked = False
        for k, act in enumerate(actions):
            if a.current_player[0] < 0:
                break
            if k % 5 == 0:
                assert frames_equal(a, b, p), (r, k)
                leaked |= not frames_equal(a, b, p, leaky_frame)
            a.step(np.array([act]))
            b.step(np.array([act]))
        checks += 1
        leaks += leaked
    assert checks >= 3 and leaks >= checks - 1


def test_human_mode_prints_the_text_view_without_a_display(capsys):
    env = quando_env.raw_env(num_players=3, render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert "view of player_0" in capsys.readouterr().out
    env.close()


def test_a_window_shows_the_picture():
    view = game_class("cabo")(1, seed=0, num_players=2).table_view(0, 1)
    window = picture.Window("cabo", fps=1000)
    window.show(view)
    pg = picture.pygame_module()
    shown = pg.surfarray.array3d(pg.display.get_surface()).transpose(1, 0, 2)
    assert np.array_equal(shown, picture.frame(view))
    window.close()


def test_pngs_of_every_game(tmp_path):
    import runpy

    make = runpy.run_path(os.path.join(os.path.dirname(__file__), "..", "docs", "make_images.py"))["make_images"]
    paths = make(tmp_path)
    pg = picture.pygame_module()
    assert sorted(p.name for p in paths) == sorted(f"{name}.png" for name in game_names())
    for path in paths:
        assert pg.image.load(str(path)).get_size() == (picture.FRAME_WIDTH, picture.FRAME_HEIGHT)


def test_bad_views_and_a_missing_pygame_raise_clear_errors(monkeypatch):
    with pytest.raises(TypeError, match="TableView"):
        picture.frame("the table")
    with pytest.raises(ValueError, match="ink='pink'"):
        Card(("7",), ink="pink")
    with pytest.raises(ValueError, match="faces"):
        Card((7,))
    assert picture.frame(TableView("t", (Zone("p", (None, Card())),), (), "s")).shape == SHAPE
    monkeypatch.setitem(sys.modules, "pygame", None)       # as if the render extra were not installed
    with pytest.raises(DependencyNotInstalled, match=r'pip install -c constraints\.txt -e "\.\[render\]"'):
        quando_env.env(render_mode="rgb_array")
    quando_env.env(render_mode="ansi")                      # text needs no pygame
