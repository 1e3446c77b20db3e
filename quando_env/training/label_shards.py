"""Label shards: the files distill label writes and distill train and stats read, whole or not at all, each entered
in its folder's manifest with its SHA-256 (a resumed run skips the listed ones; a damaged one is named in one line).

A shard is a numpy .npz read with allow_pickle=False: "header" (a JSON string: format, game, options, samples
(the decisions it holds), seed, shard, policy, opponents, search, every, games), "states" (the engine's state
records at each decision, num_players seats, the mover's turn), "obs" (the mover's observations), "masks" (legal
moves), "features" (the game's action_features of the legal moves, row by row: (legal moves in all, F); (0, 0) for
a game without move features), "values" (float32 (samples, num_actions): NaN for moves not searched), "visits"
(int32 (samples, num_actions): the worlds each move was played out in, 0 where not searched), "choice" (the
search's move), "played" (the behaviour policy's move), "seat" (the mover's seat) and "game" (the game slot of the
shard it came from, 0..games-1). manifest.json: {"format", "settings" (the run's LabelSettings), "shards": {index:
{"file", "sha256", "labels"}}}.
"""
import hashlib
import json
from dataclasses import asdict
from pathlib import Path

import numpy as np

from quando_env.checks import need
from quando_env.files import read_json, replace_file, write_text

FORMAT = "quando_env-labels/2"
MANIFEST = "manifest.json"
MANIFEST_FORMAT = "quando_env-labels-manifest/1"


def shard_path(out, index: int) -> Path:
    return Path(out) / f"shard_{index:05d}.npz"


def sha256(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_manifest(out) -> dict:
    """OUT/manifest.json (an empty one where there is none); ValueError naming it when it is not one."""
    path = Path(out) / MANIFEST
    if not path.exists():
        return {"format": MANIFEST_FORMAT, "settings": None, "shards": {}}
    m = read_json(path, "label manifest")
    if not (isinstance(m, dict) and m.get("format") == MANIFEST_FORMAT and isinstance(m.get("shards"), dict)):
        raise ValueError(f"{path} is not a label manifest (format {MANIFEST_FORMAT})")
    return m


def write_shard(out, result: dict, settings=None) -> Path:
    """Shard result["index"] into out, whole or not at all (a temporary file renamed over it), then entered in
    the manifest with its checksum (with settings: the run's, kept there)."""
    path = shard_path(out, result["index"])

    def write(tmp):
        with open(tmp, "wb") as f:
            np.savez(f, **result["arrays"])
    replace_file(path, write)
    manifest = read_manifest(out)
    if settings is not None:
        manifest["settings"] = asdict(settings)
    manifest["shards"][str(result["index"])] = {"file": path.name, "sha256": sha256(path),
                                                "labels": int(result["arrays"]["choice"].size)}
    manifest["shards"] = dict(sorted(manifest["shards"].items(), key=lambda kv: int(kv[0])))
    write_text(Path(out) / MANIFEST, json.dumps(manifest, indent=1))
    return path


def check_shard(out, index: int, manifest: dict) -> bool:
    """Whether shard `index` is complete: listed in the manifest; ValueError naming it when its file is missing or
    its bytes are not those the manifest's checksum was taken of (damaged)."""
    entry = manifest["shards"].get(str(index))
    if entry is None:
        return False
    path = shard_path(out, index)
    if not path.is_file():
        raise ValueError(f"{path} is listed in {MANIFEST} but missing: delete its entry or the folder's labels")
    if sha256(path) != entry.get("sha256"):
        raise ValueError(f"{path} is damaged (its SHA-256 is not the one {MANIFEST} lists): delete it to have it "
                         "made again")
    return True


ARRAYS = ("states", "obs", "masks", "features", "values", "visits", "choice", "played", "seat", "game")


def read_shard(path) -> tuple[dict, dict]:
    """(header, arrays) of a label shard (no pickle); ValueError naming the file if it is not one."""
    try:
        with np.load(path, allow_pickle=False) as f:
            arrays = {k: f[k] for k in f.files}
        header = json.loads(str(arrays.pop("header")[()]))
        need(isinstance(header, dict) and header.get("format") == FORMAT, "format", FORMAT)
        need(set(ARRAYS) <= set(arrays), "arrays", ", ".join(ARRAYS))
        k = header["samples"]
        need(all(len(arrays[a]) == k for a in ARRAYS if a != "features"), "array lengths",
             f"the header's samples ({k})")
        need(arrays["features"].size == 0 or len(arrays["features"]) == arrays["masks"].sum(), "features",
             "one row per legal move")
    except (OSError, ValueError, KeyError, TypeError, EOFError, RecursionError) as e:
        raise ValueError(f"{path}: not a label shard ({type(e).__name__}: {e})") from None
    return header, arrays
