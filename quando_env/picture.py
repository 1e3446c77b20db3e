"""Pictures of a table: any game's TableView (quando_env.tableview) drawn with pygame, for render_mode="rgb_array"
(Gymnasium's RecordVideo, notebooks) and render_mode="human" (a window where a display exists).

Written once for every game: a game only says what one seat sees (`Game.table_view(g, seat)`), so a picture
shows exactly what that seat has seen. pygame is imported on first use, never by `import quando_env` (it comes
with the `render` extra). Every frame has the shape (FRAME_HEIGHT, FRAME_WIDTH, 3), whatever the game and the
number of players, so a game's frames make a video; drawing uses pygame's bundled font only, so equal views
give pixel-identical frames.
"""
import importlib.util
import os
from functools import lru_cache

import numpy as np
from gymnasium.error import DependencyNotInstalled

from .extras import missing
from .table_style import (BACK, BACK_STRIPE, BOTTOM, CARD_EDGE, CARD_FACE, EMPTY, FELT, FRAME_HEIGHT, FRAME_WIDTH, GAP,
                          GOLD, INK_RGB, MARGIN, MAX_CARD, MAX_ZONE, PANEL, PANEL_TO_MOVE, SEATS_WIDTH, SOFT, TOP,
                          WHITE)
from .tableview import TableView


def pygame_module():
    """pygame, imported on first use; DependencyNotInstalled naming the extra when it is missing."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
    except ImportError as e:
        raise DependencyNotInstalled(missing("render", 'pictures (render_mode="rgb_array" or "human")',
                                             "pygame")) from e
    if not pygame.font.get_init():
        pygame.font.init()
    return pygame


def render_modes() -> list:
    """The render modes that work here: "ansi" always, the pictures ("human", "rgb_array") where pygame is
    installed (what an env's metadata offers, so checkers such as Gymnasium's check_env try only these)."""
    return ["ansi", "human", "rgb_array"] if importlib.util.find_spec("pygame") is not None else ["ansi"]


@lru_cache(maxsize=None)
def _font(size: int):
    return pygame_module().font.Font(None, size)     # pygame's bundled font: the same pixels everywhere


def frame(view: TableView) -> np.ndarray:
    """The picture of `view`: an (FRAME_HEIGHT, FRAME_WIDTH, 3) uint8 RGB array."""
    pg = pygame_module()
    surface = pg.Surface((FRAME_WIDTH, FRAME_HEIGHT))
    draw(surface, view)
    return np.frombuffer(pg.image.tobytes(surface, "RGB"), np.uint8).reshape(FRAME_HEIGHT, FRAME_WIDTH, 3).copy()


def game_frame(game, g: int = 0, seat: int | None = None) -> np.ndarray:
    """The picture of game g as `seat` sees it (everything when seat is None: for debugging only)."""
    return frame(game.table_view(g, seat))


def save_png(image: np.ndarray, path) -> None:
    """Write a frame as a PNG file."""
    image = np.ascontiguousarray(image, np.uint8)
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"image must be an (H, W, 3) RGB array, got shape {image.shape}")
    pg = pygame_module()
    pg.image.save(pg.image.frombuffer(image.tobytes(), (image.shape[1], image.shape[0]), "RGB"), os.fspath(path))


def draw(surface, view: TableView) -> None:
    """Draw `view` onto a FRAME_WIDTH x FRAME_HEIGHT pygame surface."""
    if not isinstance(view, TableView):
        raise TypeError(f"view must be a quando_env.tableview.TableView, got {type(view).__name__}")
    surface.fill(FELT)
    _text(surface, view.title, (MARGIN, 12), 26, WHITE, FRAME_WIDTH - 2 * MARGIN)
    n = len(view.seats)
    h = min(MAX_ZONE, (BOTTOM - TOP - GAP * (n - 1)) // max(n, 1))
    for i, zone in enumerate(view.seats):
        _zone(surface, zone, (MARGIN, TOP + i * (h + GAP), SEATS_WIDTH - MARGIN, h))
    x, w = SEATS_WIDTH + MARGIN, FRAME_WIDTH - SEATS_WIDTH - 2 * MARGIN
    k = len(view.table)
    h = min(MAX_ZONE, (BOTTOM - TOP - 60 * bool(view.lines) - GAP * (k - 1)) // max(k, 1))
    for i, zone in enumerate(view.table):
        _zone(surface, zone, (x, TOP + i * (h + GAP), w, h))
    y = TOP + k * (h + GAP)
    for line in view.lines:
        for part in _wrap(line, 20, w):
            _text(surface, part, (x + 8, y + 2), 20, WHITE, w - 8)
            y += 20
    _text(surface, view.status, (MARGIN, BOTTOM + 8), 24, GOLD, FRAME_WIDTH - 2 * MARGIN)
    _text(surface, view.legend, (MARGIN, BOTTOM + 34), 18, SOFT, FRAME_WIDTH - 2 * MARGIN)


def _text(surface, text: str, pos, size: int, color, width: int) -> int:
    """Draw one line (cut with '...' to `width` pixels); returns its width."""
    font = _font(size)
    if font.size(text)[0] > width:
        while text and font.size(text + "...")[0] > width:
            text = text[:-1]
        text += "..."
    surface.blit(font.render(text, True, color), pos)
    return font.size(text)[0]


def _wrap(text: str, size: int, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        if line and _font(size).size(f"{line} {word}")[0] > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return lines + [line] if line else lines


def _zone(surface, zone, rect) -> None:
    """A panel with the zone's label and note, and its cards below them."""
    pg = pygame_module()
    x, y, w, h = rect
    pg.draw.rect(surface, PANEL_TO_MOVE if zone.to_move else PANEL, rect, border_radius=8)
    if zone.to_move:
        pg.draw.rect(surface, GOLD, rect, width=3, border_radius=8)
    label = zone.label + (f" · {zone.count} card{'' if zone.count == 1 else 's'}" if zone.count is not None else "")
    used = _text(surface, label, (x + 8, y + 7), 22, GOLD if zone.to_move else WHITE, w - 16)
    if zone.note:
        _text(surface, zone.note, (x + 8 + used + 12, y + 9), 18, SOFT, w - 28 - used)
    _cards(surface, zone.cards, (x + 8, y + 28, w - 16, h - 34))


def _cards(surface, cards, rect) -> None:
    """Cards left to right, overlapping when they do not fit side by side; each keeps a visible strip."""
    x, y, w, h = rect
    ch = min(MAX_CARD, h)
    cw = round(ch * 0.68)
    if not cards:
        _card(surface, None, (x, y, cw, ch), cw)
        return
    k = len(cards)
    step = cw + GAP if k * (cw + GAP) - GAP <= w else (w - cw) / max(k - 1, 1)
    for i, card in enumerate(cards):
        _card(surface, card, (round(x + i * step), y, cw, ch), min(cw, round(step)))


def _card(surface, card, rect, visible: int) -> None:
    """One card: its faces stacked (an unseen face as a striped back), text in the strip left visible."""
    pg = pygame_module()
    x, y, w, h = rect
    if card is None:
        pg.draw.rect(surface, EMPTY, rect, width=2, border_radius=5)
        return
    k = len(card.faces)
    for i, face in enumerate(card.faces):
        part = pg.Rect(x, y + i * h // k, w, (i + 1) * h // k - i * h // k)
        radius = {"border_top_left_radius": 5 * (i == 0), "border_top_right_radius": 5 * (i == 0),
                  "border_bottom_left_radius": 5 * (i == k - 1), "border_bottom_right_radius": 5 * (i == k - 1)}
        pg.draw.rect(surface, CARD_FACE if face is not None else BACK, part, **radius)
        if face is None:
            surface.blit(_stripes(w - 6, part.h - 6), (x + 3, part.y + 3))
        else:
            _centered(surface, face, pg.Rect(x, part.y, visible, part.h), round(part.h * (0.5 if k == 1 else 0.72)),
                      INK_RGB[card.ink])
        if i:
            pg.draw.line(surface, CARD_EDGE, (x, part.y), (x + w - 1, part.y))
    if card.corner:
        _centered(surface, card.corner, pg.Rect(x, y + 2, visible, round(h * 0.22)), round(h * 0.2),
                  INK_RGB[card.ink])
    pg.draw.rect(surface, CARD_EDGE, rect, width=1, border_radius=5)


@lru_cache(maxsize=None)
def _stripes(w: int, h: int):
    """A card back's striped pattern, drawn once per size."""
    pg = pygame_module()
    tile = pg.Surface((w, h))
    tile.fill(BACK)
    for d in range(-h, w, 7):
        pg.draw.line(tile, BACK_STRIPE, (d, h), (d + h, 0), 2)
    return tile


def _centered(surface, text: str, rect, size: int, color) -> None:
    """`text` centred in rect, its font shrunk until it fits the width."""
    while size > 8 and _font(size).size(text)[0] > rect.w - 4:
        size -= 1
    image = _font(size).render(text, True, color)
    surface.blit(image, image.get_rect(center=rect.center))


def display_available() -> bool:
    """True when pygame is installed and SDL opens a real display (not its offscreen or dummy driver)."""
    try:
        pg = pygame_module()
    except DependencyNotInstalled:
        return False
    try:
        pg.display.init()
    except pg.error:
        return False
    if pg.display.get_driver() in ("offscreen", "dummy"):
        pg.display.quit()
        return False
    return True


class Window:
    """A pygame window that shows table views, at most `fps` a second (PettingZoo's classic envs do the same)."""

    def __init__(self, caption: str, fps: float):
        pg = pygame_module()
        pg.display.init()
        self.screen = pg.display.set_mode((FRAME_WIDTH, FRAME_HEIGHT))
        pg.display.set_caption(caption)
        self.clock = pg.time.Clock()
        self.fps = fps

    def show(self, view: TableView) -> None:
        pg = pygame_module()
        pg.event.pump()
        draw(self.screen, view)
        pg.display.flip()
        self.clock.tick(self.fps)

    def close(self) -> None:
        pygame_module().display.quit()


class Renderer:
    """What an env's render() does in its render_mode, written once for the PettingZoo and Gymnasium envs:
    "ansi" returns the text view, "rgb_array" the picture (pygame is checked at once, so a missing extra
    fails when the env is made), "human" shows the picture in a window where a display exists (opened on
    first use, at most `fps` frames a second) and else prints the text view, as before pictures."""

    def __init__(self, mode: str | None, caption: str, fps: float):
        self.mode, self.caption, self.fps = mode, caption, fps
        self.window = None
        self.has_display = None         # found out on the first "human" render
        if mode == "rgb_array":
            pygame_module()

    def render(self, game, g: int, seat: int):
        """Game g as `seat` sees it, in this renderer's mode."""
        if self.mode == "rgb_array":
            return game_frame(game, g, seat)
        if self.mode == "human":
            if self.has_display is None:
                self.has_display = display_available()
                self.window = Window(self.caption, self.fps) if self.has_display else None
            if self.window is None:
                print(game.render_text(g, seat))
            else:
                self.window.show(game.table_view(g, seat))
            return None
        return game.render_text(g, seat)

    def close(self) -> None:
        """Close the window, if one is open (a later render opens a new one)."""
        if self.window is not None:
            self.window.close()
            self.window = None
            self.has_display = None
