"""LearnedAgent: a policy trained by training.learner, read from a model file that holds no code.

A model file is a numpy .npz read with allow_pickle=False: a JSON header (array "header", one string) and the
weights of a ReLU MLP in torch's layout (out, in): trunk.0, trunk.2, ... then the heads "policy" (one output per
action: logits, or action values for a Deep Monte-Carlo model) and "value". A model of format 2 may also score
each legal move from its features (the header's "move": {"features": F, "hidden": [h1, h2]}): the move's score
relu(move_hidden(relu(move_state(z) + move_feat(f)))) through move_out, with z the trunk's output and f the
move's row of the game's `action_features`, is added to the policy head's output for that move. Loading checks
the format, the names, shapes and dtypes of every array and that the weights are finite, and refuses a model of
another game or observation length, naming both. A model of format 3 may also be anchored on the game's heuristic
(the header's "anchor": {"agent": "heuristic", "weight": w}): w is added to the output of the move the heuristic
would play, so the network's outputs say where and how strongly it departs from hand-written play; such a model
needs the game's heuristic (numba, as the engines) at play time. Playing needs numpy only (no torch): the agent
plays the legal action with the highest output.
"""
import json
import zipfile
from pathlib import Path

import numpy as np

from quando_env.checks import shown
from quando_env.files import replace_file

from .base import Agent

FORMAT = "quando_env-learned/3"
FORMATS = ("quando_env-learned/1", "quando_env-learned/2", FORMAT)   # what this version reads (1: no move
# scorer; 2: no anchor)
ANCHORS = ("heuristic",)                          # agents a model may be anchored on
MAX_ANCHOR_WEIGHT = 1000.0
MODELS = Path(__file__).resolve().parent / "models"
HEADER_KEYS = {"format": str, "game": str, "options": dict, "obs_dim": int, "num_actions": int, "hidden": list,
               "head": str, "info": dict}
HEADS = ("policy", "q")
MAX_MODEL_BYTES = 256 << 20     # weights a model file may hold (the shipped ones hold about 1 MiB)
MAX_HEADER_BYTES = 1 << 20


class HeaderError(ValueError):
    """A model archive whose header is read but does not fit its arrays (its message needs no other words)."""


def default_model(game: str, num_players: int = 4) -> Path:
    """Where the shipped model of a game lies: agents/models/learned_<game>_<n>p.npz."""
    return MODELS / f"learned_{game}_{num_players}p.npz"


def no_model(game: str, num_players: int) -> str:
    """Why `learned` has no model for this game and player count, and the fixes: the player counts shipped (the
    usual fix), or the command that trains one."""
    counts = sorted(int(p.stem.rsplit("_", 1)[1][:-1]) for p in MODELS.glob(f"learned_{game}_*p.npz"))
    shipped = " or ".join(map(str, counts))
    fix = f"play {shipped} players (--players {counts[0]}, num_players={counts[0]} in Python), or " if counts else ""
    what = f"; the shipped ones play {shipped} players" if counts else ""
    return (f"no learned {game} model for {num_players} players is shipped ({default_model(game, num_players).name}"
            f"{what}): {fix}train one with `python -m quando_env train --game {game} --set num_players={num_players}` "
            f"and give learned:runs/learned_{game}/best.npz")


def weight_shapes(header: dict) -> dict:
    """name -> shape of every array a model with this header holds (torch's Linear layout: (out, in))."""
    sizes = [header["obs_dim"], *header["hidden"]]
    shapes = {}
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        shapes[f"trunk.{2 * i}.weight"], shapes[f"trunk.{2 * i}.bias"] = (b, a), (b,)
    shapes["policy.weight"], shapes["policy.bias"] = (header["num_actions"], sizes[-1]), (header["num_actions"],)
    shapes["value.weight"], shapes["value.bias"] = (1, sizes[-1]), (1,)
    move = header.get("move")
    if move:
        (h1, h2), f = move["hidden"], move["features"]
        shapes.update({"move_state.weight": (h1, sizes[-1]), "move_feat.weight": (h1, f), "move_feat.bias": (h1,),
                       "move_hidden.weight": (h2, h1), "move_hidden.bias": (h2,), "move_out.weight": (1, h2),
                       "move_out.bias": (1,)})
    return shapes


def check_header(header, where: str) -> dict:
    """The header if it is one this version reads, else ValueError saying what is wrong."""
    if not isinstance(header, dict):
        raise ValueError(f"{where}: the header is not a JSON object")
    for key, kind in HEADER_KEYS.items():
        value = header.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(f"{where}: header field {key!r} must be of type {kind.__name__}, got {shown(value)}")
    if header["format"] not in FORMATS:
        raise ValueError(f"{where}: format {shown(header['format'])}, this version reads {FORMATS}")
    move = header.get("move")
    if move is not None:
        ok = header["format"] != FORMATS[0] and isinstance(move, dict) and set(move) == {"features", "hidden"} \
            and isinstance(move["hidden"], list) and len(move["hidden"]) == 2 and all(
                type(x) is int and 1 <= x <= 1 << 16 for x in [move["features"], *move["hidden"]])
        if not ok:
            raise ValueError(f"{where}: header field 'move' must be {{'features': F, 'hidden': [h1, h2]}} with "
                             f"integers 1..65536 (format 2), got {shown(move)}")
    anchor = header.get("anchor")
    if anchor is not None:
        ok = header["format"] == FORMAT and isinstance(anchor, dict) and set(anchor) == {"agent", "weight"} \
            and anchor["agent"] in ANCHORS and type(anchor["weight"]) in (int, float) \
            and 0 < anchor["weight"] <= MAX_ANCHOR_WEIGHT
        if not ok:
            raise ValueError(f"{where}: header field 'anchor' must be {{'agent': one of {list(ANCHORS)}, 'weight': "
                             f"a number in (0, {MAX_ANCHOR_WEIGHT:g}]}} (format 3), got {shown(anchor)}")
    if header["head"] not in HEADS:
        raise ValueError(f"{where}: head {shown(header['head'])}, expected one of {HEADS}")
    sizes = [header["obs_dim"], header["num_actions"], *header["hidden"]]
    if not all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 1 << 16 for x in sizes):
        raise ValueError(f"{where}: obs_dim, num_actions and hidden sizes must be integers 1..65536, got "
                         f"{shown(sizes)}")
    return header


def save_model(path, header: dict, weights: dict) -> Path:
    """Write a model file (the header is checked, the weights stored as float32 in the order of weight_shapes)."""
    path = Path(path)
    check_header(header, str(path))
    shapes = weight_shapes(header)
    arrays = {"header": np.array(json.dumps(header))}
    for name, shape in shapes.items():
        w = np.asarray(weights[name], np.float32)
        if w.shape != shape:
            raise ValueError(f"weight {name} has shape {w.shape}, the header says {shape}")
        arrays[name] = w
    save_arrays(path, arrays)
    return path


def save_arrays(path: Path, arrays: dict) -> None:
    """np.savez to `path` as named (savez given a name adds .npz), through a temporary file."""
    def write(tmp):
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)
    replace_file(path, write)


def read_member(z: zipfile.ZipFile, info: zipfile.ZipInfo, expect=None) -> np.ndarray:
    """One array of an .npz archive, its .npy header read (and checked against `expect`: (shape, dtype)) before
    any data: the data read is exactly what that header announces, and no more than its declared size."""
    with z.open(info) as f:
        version = np.lib.format.read_magic(f)
        if version not in ((1, 0), (2, 0)):
            raise ValueError(f"{info.filename}: .npy format {version}")
        read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = read(f, max_header_size=10_000)
        if dtype.hasobject:
            raise ValueError(f"{info.filename}: objects (a pickle)")
        if expect is not None and (shape, dtype) != expect:
            raise ValueError(f"{info.filename} holds {dtype} {shape}, expected {expect[1]} {expect[0]}")
        size = int(np.prod(shape, dtype=object)) * dtype.itemsize
        if size != info.file_size - f.tell():
            raise ValueError(f"{info.filename}: {info.file_size - f.tell()} bytes of data for {dtype} {shape}")
        data = f.read(size)
    if len(data) != size:
        raise ValueError(f"{info.filename}: cut short")
    a = np.frombuffer(data, dtype)
    return a.reshape(shape[::-1]).T if fortran else a.reshape(shape)


def load_model(path, game: str | None = None, obs_dim: int | None = None,
               num_players: int | None = None) -> tuple[dict, dict]:
    """(header, weights) of a model file, checked; game / obs_dim: refuse a model made for others (num_players:
    the player count those observations are of, named in the refusal).

    The archive's directory and each array's .npy header are checked (names, shapes, dtypes, sizes, at most
    MAX_MODEL_BYTES in all) before any array is read, so a small file cannot make this allocate much more
    than the model it claims to be."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no learned model at {path}")
    if path.stat().st_size > MAX_MODEL_BYTES:
        raise ValueError(f"{path}: not a learned model file (over {MAX_MODEL_BYTES >> 20} MiB)")
    with open(path, "rb") as f:
        magic = f.read(6)
    if magic == b"\x93NUMPY":
        raise ValueError(f"{path}: not a learned model file (a single .npy array)")
    try:
        with zipfile.ZipFile(path) as z:
            members = {}
            for info in z.infolist():
                name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
                if name in members:
                    raise ValueError(f"{info.filename} twice")
                members[name] = info
            if "header" not in members:
                raise ValueError("no JSON header")
            if members["header"].file_size > MAX_HEADER_BYTES:
                raise ValueError(f"a header of {members['header'].file_size} bytes")
            try:
                head = read_member(z, members.pop("header"))
            except ValueError:
                raise ValueError("no JSON header") from None
            if head.shape != () or head.dtype.kind != "U":
                raise ValueError("no JSON header")
            try:
                header = json.loads(str(head[()]))
            except json.JSONDecodeError as e:
                raise HeaderError(f"the header is not JSON ({e})") from None
            check_header(header, str(path))
            shapes = weight_shapes(header)
            total = sum(int(np.prod(shape, dtype=object)) * 4 for shape in shapes.values())
            if total > MAX_MODEL_BYTES:
                raise HeaderError(f"its header asks for {total >> 20} MiB of weights, at most {MAX_MODEL_BYTES >> 20}"
                                  " MiB are read")
            if set(members) != set(shapes):
                raise HeaderError(f"arrays {sorted(members)}, a model with this header has {sorted(shapes)}")
            arrays = {}
            for name, shape in shapes.items():
                try:
                    arrays[name] = read_member(z, members[name], (shape, np.dtype("<f4")))
                except ValueError:
                    raise HeaderError(f"{name} must be finite float32 of shape {shape}") from None
    except HeaderError as e:
        raise ValueError(f"{path}: {e}") from None
    except ValueError as e:             # check_header's own message names the path already
        if str(e).startswith(str(path)):
            raise
        raise ValueError(f"{path}: not a learned model file ({e})") from None
    except (OSError, zipfile.BadZipFile, EOFError, KeyError, NotImplementedError, RuntimeError) as e:
        raise ValueError(f"{path}: not a learned model file ({type(e).__name__}: {e})") from None
    for name, shape in shapes.items():
        w = arrays[name]
        if not np.isfinite(w).all():
            raise ValueError(f"{path}: {name} must be finite float32 of shape {shape}, got {w.dtype} {w.shape}")
    if game is not None and header["game"] != game or obs_dim is not None and header["obs_dim"] != obs_dim:
        wanted = f"game {shown(game or header['game'])}" + (f" for {num_players} players" if num_players else "") + \
            (f" with observations of length {obs_dim}" if obs_dim else "")
        players = header["options"].get("num_players")
        raise ValueError(f"{path} is a model of game {shown(header['game'])}" + (f" for {shown(players)} players"
                         if players else "") + f" with observations of length {header['obs_dim']}; it cannot play "
                         f"{wanted}")
    return header, arrays


def forward(weights: dict, obs: np.ndarray, masks=None, features=None) -> tuple[np.ndarray, np.ndarray]:
    """(policy head (B, num_actions), value (B,)) of the MLP for observations (B, obs_dim), in numpy; a model
    with a move scorer adds each legal move's score (masks (B, num_actions), features (B, num_actions, F))."""
    x = np.asarray(obs, np.float32)
    i = 0
    while f"trunk.{i}.weight" in weights:
        x = np.maximum(x @ weights[f"trunk.{i}.weight"].T + weights[f"trunk.{i}.bias"], 0.0)
        i += 2
    policy = x @ weights["policy.weight"].T + weights["policy.bias"]
    if "move_out.weight" in weights:
        rows, acts = np.nonzero(masks)
        policy[rows, acts] += move_scores(weights, x, rows, features[rows, acts])
    return policy, (x @ weights["value.weight"].T)[:, 0] + weights["value.bias"][0]


def move_scores(weights: dict, z: np.ndarray, rows: np.ndarray, feats: np.ndarray) -> np.ndarray:
    """The move scorer's score of each listed move: feats (L, F) of moves in rows (L,) of the trunk output z."""
    h = np.maximum((z @ weights["move_state.weight"].T)[rows] + feats @ weights["move_feat.weight"].T
                   + weights["move_feat.bias"], 0.0)
    h = np.maximum(h @ weights["move_hidden.weight"].T + weights["move_hidden.bias"], 0.0)
    return (h @ weights["move_out.weight"].T)[:, 0] + weights["move_out.bias"][0]


def check_rules(path, trained: dict, rules: dict, default: dict, given: set) -> None:
    """ValueError if a model trained with options `trained` would play a game of other rules: compared are the
    options given and those the model was trained with away from the default (not the episode's options)."""
    from quando_env.core import EPISODE_OPTIONS

    keys = (given | {k for k, v in trained.items() if k in default and v != default[k]}) - \
        {"num_players", *EPISODE_OPTIONS}
    other = {k: (trained.get(k, default.get(k)), rules[k]) for k in keys if k in rules}
    other = {k: ab for k, ab in other.items() if ab[0] != ab[1]}
    if other:
        raise ValueError(f"{path} was trained with other rules: " + ", ".join(
            f"{k}={shown(a)} (this game has {k}={b!r})" for k, (a, b) in sorted(other.items())))


class LearnedAgent(Agent):
    """Plays the legal action with the highest policy output of a learned model (a file, or header and weights
    held in memory, e.g. the learner's snapshots; no path: the shipped model of `game`). With game and
    num_players, a model whose observations are not that game's for that many players is refused as it loads,
    naming both lengths; with options too (the game's other options, e.g. edition), so is a model trained with
    other rules: an option given, or one the model was trained with away from its default, must match (episode,
    reward and max_steps are free)."""

    name = "learned"

    def __init__(self, path=None, game: str | None = None, header: dict | None = None, weights: dict | None = None,
                 num_players: int | None = None, options: dict | None = None):
        rules = default = None
        if header is None:
            obs_dim = None
            if game is not None and num_players is not None:
                from quando_env.core import make_config
                from quando_env.registry import game_class

                cls = game_class(game)
                rules = make_config(cls.config_class, **{**(options or {}), "num_players": num_players}).to_dict()
                num_players = rules["num_players"]                  # checked
                default = make_config(cls.config_class, num_players=num_players).to_dict()
                obs_dim = cls.obs_dim_of(num_players)
            if path is None:
                if game is None:
                    from quando_env.registry import game_names
                    raise ValueError(f"LearnedAgent: give path (a learned model), or game= (one of {game_names()}) "
                                     "for the game's shipped model")
                path = default_model(game, num_players or 4)
                if not path.is_file():
                    raise FileNotFoundError(no_model(game, num_players or 4))
            path = Path(path)
            header, weights = load_model(path, game=game, obs_dim=obs_dim, num_players=num_players)
            if options is not None and rules:
                check_rules(path, header["options"], rules, default, set(options))
        self.path, self.header, self.weights = path, header, weights
        self.game = header["game"]
        self.num_actions = header["num_actions"]
        self.uses_action_features = bool(header.get("move"))
        self.anchor = None          # the heuristic an anchored model adds its weight to (built at first use)

    def features_of(self, obs) -> np.ndarray:
        """The move features of observations (the caller had no game to ask): from worlds sampled from them."""
        from quando_env.core import make_config
        from quando_env.registry import game_class

        cls = game_class(self.game)
        config = make_config(cls.config_class, **self.header["options"])
        features = cls.action_features_of(obs, config)
        if features.shape[-1] != self.header["move"]["features"]:
            raise ValueError(f"this learned model takes {self.header['move']['features']} move features, "
                             f"{self.game} gives {features.shape[-1]}")
        return features

    def scores(self, obs, masks, features=None) -> np.ndarray:
        """(B, num_actions) policy outputs, -inf where illegal."""
        if obs.shape[1] != self.header["obs_dim"]:
            raise ValueError(f"this learned model of {shown(self.header['game'])} takes observations of length "
                             f"{self.header['obs_dim']}, got {obs.shape[1]} (another game or player count?)")
        if self.uses_action_features and features is None:
            features = self.features_of(obs)
        out = forward(self.weights, obs, masks, features)[0]
        anchor = self.header.get("anchor")
        if anchor:
            out[np.arange(len(out)), self.anchor_moves(obs, masks)] += anchor["weight"]
        return np.where(masks, out, -np.inf)

    def anchor_moves(self, obs, masks) -> np.ndarray:
        """The moves of the heuristic an anchored model is anchored on (a deterministic function of the
        observation, so the model plays the same whatever the batch)."""
        if self.anchor is None:
            from .games import game_agents

            self.anchor = game_agents(self.game)[self.header["anchor"]["agent"]](
                num_players=self.header["options"].get("num_players"))
        return self.anchor.act(obs, masks)

    def act_batch(self, obs, masks, features=None):
        return self.scores(obs, masks, features).argmax(axis=1)

    def __repr__(self):
        return f"LearnedAgent({str(self.path) if self.path else 'in memory'!r})"
