"""What resuming reads of a saved run (out/state.json), each field checked before anything uses it.

`Learner.save_state` writes the file and `Learner.resume` reads it back through `read_state` and `check_state`, as
agents.learned checks a model's header: a damaged or foreign file is a ValueError naming the field.
"""
import math
from pathlib import Path

from quando_env.checks import as_bool, as_int, need, shown, to_int
from quando_env.files import read_json


def read_state(out: Path) -> dict:
    """out/state.json, a JSON object with the run's settings (`hyper`, an object): ValueError otherwise."""
    state = read_json(out / "state.json", "run state")
    need(isinstance(state, dict), f"state.json holding {shown(state)}", "a JSON object, the run's state")
    need(isinstance(state.get("hyper"), dict), f"state.json's hyper={shown(state.get('hyper'))}",
         "a JSON object, the run's settings")
    return state


def check_state(state: dict, counters: dict, pool_size: int) -> None:
    """What resuming reads of state.json besides the settings, each field's type and range checked as load_model
    checks a model's header (ValueError naming the field): the counters (those of `counters`), imitating, the
    snapshots' paths and the random generators' states."""
    keys = {"hyper", "counters", "imitating", "snapshots", "rng"}
    need(keys <= set(state) <= keys | {"update_rng"}, f"state.json's fields {shown(sorted(state))}",
         f"{sorted(keys)} and update_rng")
    c = state["counters"]
    need(isinstance(c, dict), f"counters={shown(c)}", "a JSON object")
    unknown = sorted(set(c) - set(counters))
    need(not unknown, f"counters {shown(unknown)}", f"the counters {list(counters)}")
    for k, v in c.items():
        if k == "loop_seconds":
            need(type(v) in (int, float) and math.isfinite(v) and v >= 0, f"counters.{k}={shown(v)}",
                 "a finite number >= 0")
        else:
            as_int(v, f"counters.{k}", 0, 2**53)
    as_bool(state["imitating"], "imitating")
    snaps = state["snapshots"]
    need(isinstance(snaps, list) and len(snaps) <= pool_size and snaps == [f"snapshots/pool_{i}.npz"
                                                                           for i in range(len(snaps))],
         f"snapshots={shown(snaps)}", f"the paths snapshots/pool_0.npz ... of at most {pool_size} snapshots")
    for key in ("rng", "update_rng"):       # (runs saved before update_rng existed have none)
        if key in state:
            need(is_pcg64_state(state[key]), f"{key}={shown(state[key])}", "a PCG64 generator's state")


def is_pcg64_state(g) -> bool:
    """g is a state numpy's PCG64 takes (its bit_generator.state): its fields, integers in their ranges."""
    if not (isinstance(g, dict) and set(g) == {"bit_generator", "state", "has_uint32", "uinteger"}
            and g["bit_generator"] == "PCG64" and isinstance(g["state"], dict) and set(g["state"]) == {"state", "inc"}):
        return False
    values = (g["state"]["state"], g["state"]["inc"], g["has_uint32"], g["uinteger"])
    return all(to_int(v) is not None and 0 <= v < hi for v, hi in zip(values, (2**128, 2**128, 2, 2**32)))
