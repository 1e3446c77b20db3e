"""The shipped agents' measured strength, from one file (agents/models/strength.json): README's strength table is made
from it (`python -m quando_env.evaluation.strength` prints the table), and the tests hold README and each game's
strength page (docs/strength/GAME.md) to the same numbers."""
import json
from pathlib import Path

from ..registry import game_spec

RESULTS = Path(__file__).resolve().parent.parent / "agents" / "models" / "strength.json"
COLUMNS = {"heuristic": "heuristic (parity)", "rollout": "rollout search", "learned": "learned (shipped model)",
           "search:learned": "search with the learned model"}


def results() -> dict:
    """{game: {agent: {"win_rate", "ci95", "games", optional "note"}}} as measured."""
    return {k: v for k, v in json.loads(RESULTS.read_text()).items() if k != "about"}


def cell(r: dict) -> str:
    """'0.259 [0.250, 0.269]': a win rate and its 95% interval, as the tables write them."""
    return f"{r['win_rate']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"


def table() -> str:
    """README's strength table: per game the win rate of each agent against three heuristic players."""
    rows = ["| game | " + " | ".join(COLUMNS.values()) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for game, agents in results().items():
        cells = []
        for agent in COLUMNS:
            r = agents[agent]
            extra = [f"{r['games']:,} games"] if r["games"] < 2000 or r.get("note") else []
            extra += [r["note"]] if r.get("note") else []
            cells.append(cell(r) + (f" ({', '.join(extra)})" if agent != "heuristic" and extra else ""))
        rows.append(f"| {game_spec(game).title} | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(table(), end="")
