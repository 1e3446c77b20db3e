"""The docs' local Sphinx extension.

- `obs-layout GAME`: the observation layout table of a game, generated from the code at build time (each game's
  `observation.layout(n)`: name, size, meaning), so the page cannot drift from what the engine writes.
- Docstrings are written with Markdown habits (a list right under its paragraph, `| a | b |` tables); before
  autodoc hands them to reStructuredText they get the blank line a list needs and their tables become list-tables.
"""
import importlib
import re

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

SHOWN_PLAYERS = 4      # the index column is for this many players, the default of every game


def player_counts(game: str) -> list[int]:
    """The player counts the game's Config accepts (it refuses the others in __post_init__)."""
    config = importlib.import_module(f"quando_env.{game}.config").Config
    counts = []
    for n in range(1, 11):
        try:
            config(num_players=n)
        except ValueError:
            continue
        counts.append(n)
    return counts


def size_formula(sizes: dict[int, int]) -> str:
    """A section's size as a function of n, the player count: "5", "n", "132 (n-1)"; the sizes themselves when
    they are not linear in n."""
    (n0, s0), (n1, s1) = list(sizes.items())[:2]
    slope, rem = divmod(s1 - s0, n1 - n0)
    base = s0 - slope * n0
    if rem or any(s != base + slope * n for n, s in sizes.items()):
        return ", ".join(f"{s} ({n} players)" for n, s in sizes.items())
    if slope == 0:
        return str(base)
    if base == 0:
        return "n" if slope == 1 else f"{slope} n"
    if base % slope == 0:
        shift = f"n{base // slope:+d}"
        return f"({shift})" if slope == 1 else f"{slope} ({shift})"
    return f"{slope} n {'+' if base > 0 else '-'} {abs(base)}"


def layout_rows(game: str) -> tuple[list[int], list[tuple[str, str, str, str]]]:
    """(player counts, [(indices for SHOWN_PLAYERS, name, size in n, meaning), ...]) of a game's observation."""
    layout = importlib.import_module(f"quando_env.{game}.observation").layout
    counts = player_counts(game)
    by_n = {n: layout(n) for n in counts}
    rows, start = [], 0
    for i, (name, size, meaning) in enumerate(by_n[SHOWN_PLAYERS]):
        sizes = {n: sections[i][1] for n, sections in by_n.items()}
        rows.append((f"{start}..{start + size - 1}", name, size_formula(sizes), meaning))
        start += size
    return counts, rows


def list_table(header: list[str], rows: list[list[str]], widths: str = "auto") -> list[str]:
    """reStructuredText list-table lines."""
    out = [".. list-table::", "   :header-rows: 1", f"   :widths: {widths}", ""]
    for row in [header, *rows]:
        out += [f"   {'*' if j == 0 else ' '} - {cell}" for j, cell in enumerate(row)]
    return out


class ObsLayout(Directive):
    """The table as Markdown, parsed by MyST (the pages are MyST)."""
    required_arguments = 1

    def run(self):
        game = self.arguments[0]
        counts, rows = layout_rows(game)
        sizes = importlib.import_module(f"quando_env.{game}.observation").layout
        dims = ", ".join(str(sum(s for _, s, _ in sizes(n))) for n in counts)
        intro = (f"Generated from `quando_env.{game}.observation.layout(n)` when these pages were built. Indices are "
                 f"for {SHOWN_PLAYERS} players; n is the number of players ({counts[0]}..{counts[-1]}), and obs_dim "
                 f"is {dims} for {counts[0]}..{counts[-1]} players.")
        lines = [intro, "", "| indices (4 players) | name | size | meaning |", "|---|---|---|---|"]
        lines += [f"| {a} | `{b}` | {c} | {d.replace('|', '&#124;')} |" for a, b, c, d in rows]
        node = nodes.container()
        self.state.nested_parse(StringList(lines), self.content_offset, node)
        return node.children


LIST_ITEM = re.compile(r"\s*([-*] |\d+\. )")


def markdown_habits(app, what, name, obj, options, lines):
    """Give a Markdown-style list the blank line above it that reStructuredText needs, and turn a Markdown pipe
    table into a list-table (in place: autodoc's hook)."""
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("|") and i + 1 < len(lines) and re.fullmatch(r"\|[-:| ]+\|", lines[i + 1].strip()):
            table = []
            while i < len(lines) and lines[i].startswith("|"):
                table.append([cell.strip() for cell in lines[i].strip().strip("|").split("|")])
                i += 1
            header, body = table[0], table[2:]
            out += ["", *list_table([c or " " for c in header], body), ""]
            continue
        if LIST_ITEM.match(line) and out and out[-1].strip() and not LIST_ITEM.match(out[-1]) \
                and not out[-1].startswith(" "):
            out.append("")
        out.append(line)
        i += 1
    lines[:] = out


def setup(app):
    app.add_directive("obs-layout", ObsLayout)
    app.connect("autodoc-process-docstring", markdown_habits)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
