"""Named parts of the flat float32 vectors a game gives: its observations and its perfect-information states.

A game declares each vector once, as `parts(num_players) -> [(name, size, meaning), ...]` in vector order
(`quando_env.<game>.observation.layout`, `quando_env.<game>.state.state_layout`), wrapped in `Parts`; the
kernels read the parts' starts from the config vector, and users get a `Layout` for one player count from
the game (`VectorGame.observation_layout`, `VectorGame.observation_layout_of(n)`) or from an env. A `Layout`
maps each name to its index range (start, stop), gives its meaning, and decodes a vector (or a batch) into
named arrays and encodes them back.
"""
from collections.abc import Mapping

import numpy as np


class Layout(Mapping):
    """The parts of one vector (`kind`: "observation" or "state") of a `num_players`-player `game`: an
    ordered mapping name -> (start, stop), with `meanings[name]`, `size` (the vector's length), `rows()` for
    tables, `decode(x)` and `encode(parts)`."""

    def __init__(self, game: str, num_players: int, kind: str, parts):
        self.game, self.num_players, self.kind = game, num_players, kind
        ranges, meanings, i = {}, {}, 0
        for name, size, meaning in parts:
            if name in ranges or size < 1:
                raise ValueError(f"the {self.title} layout declares part {name!r} twice or with size {size}")
            ranges[name] = (i, i + size)
            meanings[name] = meaning
            i += size
        self._ranges = ranges
        self.meanings = meanings
        self.size = i

    @property
    def title(self) -> str:
        """What the vector is, as messages name it: "4-player quando observation"."""
        return f"{self.num_players}-player {self.game} {self.kind}"

    def __getitem__(self, name: str) -> tuple[int, int]:
        if name not in self._ranges:
            raise KeyError(f"a {self.title} has no part {name!r}; its parts are {list(self._ranges)}")
        return self._ranges[name]

    def __iter__(self):
        return iter(self._ranges)

    def __len__(self) -> int:
        return len(self._ranges)

    def __repr__(self) -> str:
        return f"<Layout of a {self.title}: {self.size} numbers in {len(self)} parts>"

    def rows(self) -> list[tuple[str, int, int, str]]:
        """(name, start, stop, meaning) per part in vector order: a documentation table's rows."""
        return [(name, a, b, self.meanings[name]) for name, (a, b) in self._ranges.items()]

    def starts(self) -> np.ndarray:
        """The parts' start indices in order (int64; the kernels read them from the config vector)."""
        return np.array([a for a, _ in self._ranges.values()], np.int64)

    def decode(self, x) -> dict[str, np.ndarray]:
        """One vector (size,) or a batch (..., size) of numbers as {name: its part (..., part size)}, views
        into x in vector order. ValueError naming the game, the player count and both lengths if x is no
        such vector."""
        x = np.asarray(x)
        if x.ndim == 0 or x.shape[-1] != self.size or x.dtype.kind not in "fiu":
            raise ValueError(f"x has shape {x.shape} and dtype {x.dtype}: a {self.title} is a vector of {self.size} "
                             f"numbers, or a batch of them of shape (..., {self.size})")
        return {name: x[..., a:b] for name, (a, b) in self._ranges.items()}

    def encode(self, parts) -> np.ndarray:
        """The float32 vector (or batch) whose decode gives `parts` ({name: array (..., part size)}, every
        name of the layout once, all with the same leading shape). ValueError naming what does not fit."""
        if not isinstance(parts, Mapping):
            raise ValueError(f"parts is a {type(parts).__name__}: give a dict name -> array, for the parts "
                             f"{list(self)} of a {self.title}")
        missing, extra = [k for k in self if k not in parts], [k for k in parts if k not in self._ranges]
        if missing or extra:
            raise ValueError(f"parts has missing names {missing} and unknown names {extra}: a {self.title} has "
                             f"exactly the parts {list(self)}")
        arrays = {name: np.asarray(parts[name]) for name in self}
        lead = None
        for name, a in arrays.items():
            size = self[name][1] - self[name][0]
            if a.ndim == 0 or a.shape[-1] != size or a.dtype.kind not in "fiub":
                raise ValueError(f"part {name!r} has shape {a.shape} and dtype {a.dtype}: in a {self.title} it is "
                                 f"{size} numbers, shape (..., {size})")
            if lead is None:
                lead, first = a.shape[:-1], name
            elif a.shape[:-1] != lead:
                raise ValueError(f"part {name!r} has batch shape {a.shape[:-1]} but part {first!r} has {lead}: all "
                                 f"parts must share one batch shape")
        out = np.empty((*lead, self.size), np.float32)
        for name, (a, b) in self._ranges.items():
            out[..., a:b] = arrays[name]
        return out


class Parts:
    """A game's declaration of one vector: `declare(num_players) -> [(name, size, meaning), ...]` in vector
    order. `layout(n)` is its Layout for n players (built once per n); offsets, size and starts are its
    ranges, length and start indices (the names the game modules export)."""

    def __init__(self, game: str, kind: str, declare):
        self.game, self.kind, self.declare = game, kind, declare
        self._layouts = {}

    def layout(self, num_players: int) -> Layout:
        if num_players not in self._layouts:
            self._layouts[num_players] = Layout(self.game, num_players, self.kind, self.declare(num_players))
        return self._layouts[num_players]

    def offsets(self, num_players: int) -> dict[str, tuple[int, int]]:
        """Part name -> (start, stop) index range."""
        return dict(self.layout(num_players))

    def size(self, num_players: int) -> int:
        """Length of the vector for this many players."""
        return self.layout(num_players).size

    def starts(self, num_players: int) -> np.ndarray:
        """Part start indices in layout order (the kernels read them from the config vector)."""
        return self.layout(num_players).starts()

    def indices(self, *names: str) -> tuple[int, ...]:
        """The positions of the named parts in layout order (the same for every player count): where their
        starts sit in `starts`, for the kernels' index constants."""
        order = [part[0] for part in self.declare(2)]
        unknown = [name for name in names if name not in order]
        if unknown:
            raise KeyError(f"{self.game} {self.kind} has no part(s) {unknown}; its parts are {order}")
        return tuple(order.index(name) for name in names)
