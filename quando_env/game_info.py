"""A game's facts, declared once as data (as OpenSpiel's GameType and GameInfo): what it is called, its actions, what
its records are, what `reset` may force, which action knocks and who wins. An engine (a quando_env.core.Game subclass)
declares one `GameInfo` as its `game_info`; `Game` checks it when the class is defined and offers each fact as a
class attribute too (`VectorGame.num_actions`). It lives apart from quando_env.spec, whose `GameSpec` names where a
game's parts are (import paths, read without importing the engine): the facts are what the engine itself is.
"""
from dataclasses import dataclass

# the infos keys every game has; a game's seat_info_keys come between the first two and the last
SHARED_INFO_KEYS = ("score", "round_points", "rounds_done")


@dataclass(frozen=True)
class GameInfo:
    """`name` ("cabo": what `make`, records and messages use), `num_actions` (the size of the action space),
    `action_names` (one short distinct name per action), `record_format` (the format written into the game's
    records, "cabo-record/2"), `setup_keys` (the forced setup `reset` and records take, e.g. ("deck", "dealer")),
    `seat_info_keys` (the game's own per-seat infos, after score and round_points), `knock_action` (the action that
    knocks, which evaluations count; None for a game without one) and `higher_total_wins` (True when the highest
    final total wins; False: the lowest, as in Quando and Cabo). TypeError naming the fact that is not allowed."""

    name: str
    num_actions: int
    action_names: tuple[str, ...]
    record_format: str
    setup_keys: tuple[str, ...] = ()
    seat_info_keys: tuple[str, ...] = ()
    knock_action: int | None = None
    higher_total_wins: bool = False

    def __post_init__(self):
        for fact in ("action_names", "setup_keys", "seat_info_keys"):      # lists are taken, stored as tuples
            value = getattr(self, fact)
            if isinstance(value, (list, tuple)):
                object.__setattr__(self, fact, tuple(value))
        for fact in ("name", "record_format"):
            self.need(fact, isinstance(getattr(self, fact), str) and getattr(self, fact), "a non-empty string")
        self.need("num_actions", type(self.num_actions) is int and self.num_actions >= 1, "an int >= 1")
        names = self.action_names
        self.need("action_names", isinstance(names, tuple) and len(names) == self.num_actions
                  and all(isinstance(x, str) and x for x in names) and len(set(names)) == len(names),
                  f"num_actions ({self.num_actions}) distinct non-empty strings")
        for fact in ("setup_keys", "seat_info_keys"):
            keys = getattr(self, fact)
            self.need(fact, isinstance(keys, tuple) and all(isinstance(k, str) and k.isidentifier() for k in keys)
                      and len(set(keys)) == len(keys), "a tuple of distinct names")
        self.need("seat_info_keys", not set(self.seat_info_keys) & set(SHARED_INFO_KEYS),
                  f"names other than the shared {SHARED_INFO_KEYS}")
        self.need("knock_action", self.knock_action is None or (
            type(self.knock_action) is int and 0 <= self.knock_action < self.num_actions),
            f"None or an action 0..{self.num_actions - 1}")
        self.need("higher_total_wins", isinstance(self.higher_total_wins, bool), "True or False")

    def need(self, fact: str, ok, allowed: str) -> None:
        if not ok:
            raise TypeError(f"GameInfo of {self.name!r}: {fact}={getattr(self, fact)!r} is not allowed: {allowed}")

    @property
    def info_keys(self) -> tuple[str, ...]:
        """The infos keys per seat, in the order of the engine's info kernel: score, round_points, the game's own,
        rounds_done."""
        return ("score", "round_points", *self.seat_info_keys, "rounds_done")
