"""What a folder of search labels holds (training.distill's shards), to judge labels before training on them.

Per decision phase (the engine's `phase` field of the state records, the phases' most chosen moves named) and in
all: the labels, how often the search's choice differs from the behaviour policy's move (`played`) and from the
search's prior (the game's heuristic, recomputed from the stored observations: the move the search keeps unless
another beats it), the mean gap between the best and second-best searched values (in points: how much the labels
say), the searched candidates, legal moves and play-out worlds per label. Shards are read one at a time, their
checksums checked, so a million labels need no more memory than one shard.
"""
import json
from collections import Counter
from pathlib import Path

import numpy as np

from quando_env.registry import game_class

from .label_shards import check_shard, read_manifest, read_shard, shard_path

SUMS = ("labels", "differs_played", "differs_heuristic", "gap", "gapped", "candidates", "legal", "worlds")


def shard_rows(header: dict, arrays: dict, prior=None) -> dict:
    """{phase: {sums of SUMS, "moves": Counter of the chosen moves' first words}} of one shard's labels."""
    cls = game_class(header["game"])
    states, masks, values, visits = arrays["states"], arrays["masks"], arrays["values"], arrays["visits"]
    choice = arrays["choice"]
    phase = states["phase"].astype(int) if "phase" in (states.dtype.names or ()) else np.zeros(len(choice), int)
    searched = (visits > 0) & masks
    v = np.sort(np.where(searched, values, -np.inf), axis=1)
    two = searched.sum(axis=1) >= 2
    gap = np.where(two, v[:, -1] - v[:, -2], 0.0)
    heuristic = prior.action_values(arrays["obs"], masks)[0] if prior is not None else None
    out = {}
    for p in np.unique(phase):
        j = phase == p
        row = {"labels": int(j.sum()), "differs_played": int((choice[j] != arrays["played"][j]).sum()),
               "differs_heuristic": int((choice[j] != heuristic[j]).sum()) if heuristic is not None else 0,
               "gap": float(gap[j].sum()), "gapped": int(two[j].sum()),
               "candidates": int(searched[j].sum()), "legal": int(masks[j].sum()), "worlds": int(visits[j].sum()),
               "moves": Counter(cls.action_names[a].split()[0].rstrip(":").lower() for a in choice[j])}
        out[int(p)] = row
    return out


def summary(row: dict, total: int, heuristic: bool) -> dict:
    """The means and shares of a row of sums."""
    n = max(row["labels"], 1)
    return {"labels": row["labels"], "share": row["labels"] / max(total, 1),
            "differs_played": row["differs_played"] / n,
            "differs_heuristic": row["differs_heuristic"] / n if heuristic else None,
            "gap": row["gap"] / max(row["gapped"], 1), "candidates": row["candidates"] / n, "legal": row["legal"] / n,
            "worlds": row["worlds"] / n, "moves": ", ".join(k for k, _ in row["moves"].most_common(3))}


def folder_stats(folder, heuristic: bool = True) -> dict:
    """The statistics of the shards folder's manifest lists (checksums checked; ValueError naming a damaged or
    missing one): {"folder", "game", "players", "policy", "opponents", "teacher", "shards", "labels", "phases":
    {phase: summary}, "all": summary}. heuristic: compare with the game's heuristic (its search kit's prior);
    skipped for a game without one."""
    manifest = read_manifest(folder)
    if not manifest["shards"]:
        raise ValueError(f"no label shards listed in {Path(folder) / 'manifest.json'}")
    prior, first, rows = None, None, {}
    for i in manifest["shards"]:
        check_shard(folder, int(i), manifest)
        header, arrays = read_shard(shard_path(folder, int(i)))
        if first is None:
            first = header
            prior = search_prior(header) if heuristic else None
        for p, row in shard_rows(header, arrays, prior).items():
            into = rows.setdefault(p, {**{k: 0 for k in SUMS}, "moves": Counter()})
            for k in SUMS:
                into[k] += row[k]
            into["moves"].update(row["moves"])
    total = {**{k: sum(r[k] for r in rows.values()) for k in SUMS},
             "moves": sum((r["moves"] for r in rows.values()), Counter())}
    on = prior is not None
    return {"folder": str(folder), "game": first["game"], "players": first["options"]["num_players"],
            "policy": first["policy"], "opponents": first["opponents"], "teacher": first["teacher"],
            "shards": len(manifest["shards"]), "labels": total["labels"],
            "phases": {p: summary(rows[p], total["labels"], on) for p in sorted(rows)},
            "all": summary(total, total["labels"], on)}


def search_prior(header: dict):
    """The game's search prior (its heuristic's ranking), None for a game without a search kit."""
    from quando_env.agents.games import game_package

    try:
        return game_package(header["game"]).search_kit().prior
    except (ValueError, AttributeError):
        return None


COLUMNS = (("phase", "{}"), ("labels", "{:,}"), ("share", "{:.1%}"), ("differs_played", "{:.1%}"),
           ("differs_heuristic", "{:.1%}"), ("gap", "{:.3f}"), ("candidates", "{:.2f}"), ("legal", "{:.1f}"),
           ("worlds", "{:.1f}"), ("moves", "{}"))
HEADINGS = ("phase", "labels", "share", "!= played", "!= heuristic", "gap 1-2", "candidates", "legal", "worlds",
            "chosen moves")


def format_stats(stats: dict) -> str:
    """One folder's statistics as a text table, a line of what made them first."""
    rows = [HEADINGS]
    for name, s in [*stats["phases"].items(), ("all", stats["all"])]:
        s = {**s, "phase": name}
        rows.append(tuple("-" if s[k] is None else f.format(s[k]) for k, f in COLUMNS))
    width = [max(len(r[c]) for r in rows) for c in range(len(HEADINGS))]
    lines = ["  ".join(r[c].ljust(width[c]) if c in (0, len(r) - 1) else r[c].rjust(width[c])
                       for c in range(len(r))).rstrip() for r in rows]
    title = (f"{stats['folder']}: {stats['labels']:,} labels in {stats['shards']} shards, {stats['game']} "
             f"{stats['players']} players, policy {stats['policy']} against {stats['opponents']}, teacher "
             f"{stats['teacher']}")
    return "\n".join([title, *lines])


def main(folders, as_json: bool = False, heuristic: bool = True) -> str:
    """The text `distill stats` prints: a table per folder, or JSON ({folder: stats})."""
    stats = [folder_stats(f, heuristic) for f in folders]
    if as_json:
        return json.dumps({s["folder"]: s for s in stats}, indent=1)
    return "\n\n".join(format_stats(s) for s in stats)
