"""The shipped agents' strength has one source, quando_env/agents/models/strength.json: README's table is the one
made from it, and each game's strength page and the models' README state the same numbers."""
import re
from pathlib import Path

from quando_env.evaluation import strength

ROOT = Path(__file__).resolve().parents[1]


def test_readme_shows_the_table_made_from_the_results():
    assert strength.table() in (ROOT / "README.md").read_text()


def test_each_strength_page_states_the_same_numbers():
    models = (ROOT / "quando_env" / "agents" / "models" / "README.md").read_text()
    for game, agents in strength.results().items():
        page = (ROOT / "docs" / "strength" / f"{game}.md").read_text()
        for agent, r in agents.items():
            row = next(line for line in page.splitlines() if line.startswith(f"| {agent}"))
            assert strength.cell(r) in row, (game, agent, row)
        assert strength.cell(agents["learned"]) in models, game


def test_a_number_that_differs_is_caught():
    readme = (ROOT / "README.md").read_text()
    wrong = {**strength.results()["quando"]["learned"], "win_rate": 0.281}
    assert strength.cell(wrong) not in readme
    assert re.search(r"\| Quando \| [^\n]*0\.310 \[0\.290, 0\.331\] \|", readme)
