"""Regenerate the docs' pictures (docs/images/<game>.png): each game after some seeded random moves, as
the player to move sees it. Run from the repository: `python docs/make_images.py` (needs the render extra)."""
import pathlib
import sys

from quando_env import picture
from quando_env.registry import game_class

# game -> (options, random decisions played before the picture): positions with cards on every zone
POSITIONS = {"quando": ({"num_players": 4}, 41), "cabo": ({"num_players": 4}, 32), "help": ({"num_players": 4}, 27)}


def make_images(out_dir) -> list[pathlib.Path]:
    """Write one PNG per game into out_dir; returns their paths."""
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, (options, moves) in POSITIONS.items():
        game = game_class(name)(1, seed=7, **options)
        for _ in range(moves):
            game.step(game.sample_actions())
        path = out / f"{name}.png"
        picture.save_png(picture.game_frame(game, 0, int(game.current_player[0])), path)
        paths.append(path)
    return paths


if __name__ == "__main__":
    for p in make_images(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent / "images"):
        print(p)
