"""The game told in words to one viewer, from what that viewer may know: `Narrator`, the base of each game's
narrator (terminal play and the browser's story), and the words it builds with (who, verb, sentence).
"""


def sentence(text: str) -> str:
    """`text` starting a sentence: "you" gets its capital, a seat label keeps its one spelling (player_1)."""
    return "Y" + text[1:] if text.startswith("you") else text


def who(p: int, seat: int | None) -> str:
    """Seat p named to the person at `seat` (None: a spectator, who is no seat)."""
    return "you" if p == seat else f"player_{p}"


def verb(p: int, seat: int | None, word: str) -> str:
    """`word` for seat p told to the person at `seat`: 'take' for you, 'takes' for the others."""
    return word if p == seat else word + ("es" if word.endswith(("s", "sh", "ch")) else "s")


class Narrator:
    """The base of each game's narrator (see `Game.narrator`): it tells the game to the person at `seat`
    (None: a spectator) from what that viewer may know, and holds the line of the turn being told (`pending`,
    completed by later decisions of the same turn) until `flush`. `terminal`: with the terminal's help hints
    and round tables (the browser shows its own)."""

    def __init__(self, game, labels, seat: int | None = 0, terminal: bool = True):
        self.game = game
        self.result = "highest total" if game.higher_total_wins else "lowest total"   # for the game-over line
        self.labels = labels
        self.seat, self.terminal = seat, terminal
        self.pending = None     # (seat, text)

    def who(self, p: int) -> str:
        return who(p, self.seat)

    def verb(self, p: int, word: str) -> str:
        return verb(p, self.seat, word)

    def knows(self, s, c: int, bit: int = 1) -> bool:
        """Whether the viewer has seen `bit` of card c's seen bits in state record s (a spectator: every seat
        has)."""
        seen = s["seen"][: self.game.num_players, c] if self.seat is None else s["seen"][self.seat, c:c + 1]
        return bool(((seen & bit) != 0).all())

    def flush(self) -> list[str]:
        """The line of the turn being told, if any ("you ..." starts with a capital)."""
        if not self.pending:
            return []
        text = self.pending[1]
        self.pending = None
        return [sentence(text) + "."]
