"""The docs' local Sphinx extension.

- `obs-layout GAME`: the observation layout table of a game, generated from the code at build time (the game's
  public layout, `VectorGame.observation_layout_of(n).rows()`), so the page cannot drift from what the engine
  writes; `action-feature-layout GAME` the same for one legal move's features (`action_feature_layout_of(n)`).
- Docstrings are written with Markdown habits (a list right under its paragraph, `| a | b |` tables); before
  autodoc hands them to reStructuredText they get the blank line a list needs and their tables become list-tables.
"""
import re

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

from quando_env.registry import game_class

SHOWN_PLAYERS = 4      # the index column is for this many players, the default of every game


# directive kind -> (the engine's classmethod, what the vector's length is called)
KINDS = {"observation": ("observation_layout_of", "obs_dim"), "action features": ("action_feature_layout_of", "F")}


def layouts(game: str, kind: str = "observation") -> dict:
    """Player count -> the Layout of `kind`, for every player count the game accepts (its Config refuses the
    others with a ValueError)."""
    method = getattr(game_class(game), KINDS[kind][0])
    out = {}
    for n in range(1, 11):
        try:
            out[n] = method(n)
        except ValueError:
            continue
    return out


def size_formula(sizes: dict[int, int]) -> str:
    """A part's size as a function of n, the player count: "5", "n", "132 (n-1)"; the sizes themselves when
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


def table(game: str, kind: str = "observation") -> list[str]:
    """The observation (or action features) table of a game as Markdown lines: an introduction, then indices for
    SHOWN_PLAYERS, name, size in n, meaning."""
    by_n = layouts(game, kind)
    counts = list(by_n)
    shown = by_n[SHOWN_PLAYERS]
    method, dim = KINDS[kind]
    sizes = {layout.size for layout in by_n.values()}
    dims = f"{dim} is {sizes.pop()}" if len(sizes) == 1 else \
        f"{dim} is {', '.join(str(layout.size) for layout in by_n.values())} for {counts[0]}..{counts[-1]} players"
    lines = [f"Generated from `quando_env.{game}_v0.VectorGame.{method}(n)` when these pages were "
             f"built. Indices are for {SHOWN_PLAYERS} players; n is the number of players ({counts[0]}..{counts[-1]}), "
             f"and {dims}.", "",
             f"| indices ({SHOWN_PLAYERS} players) | name | size | meaning |", "|---|---|---|---|"]
    for name, start, stop, meaning in shown.rows():
        sizes = {n: layout[name][1] - layout[name][0] for n, layout in by_n.items()}
        lines.append(f"| {start}..{stop - 1} | `{name}` | {size_formula(sizes)} | {meaning.replace('|', '&#124;')} |")
    return lines


def list_table(header: list[str], rows: list[list[str]], widths: str = "auto") -> list[str]:
    """reStructuredText list-table lines."""
    out = [".. list-table::", "   :header-rows: 1", f"   :widths: {widths}", ""]
    for row in [header, *rows]:
        out += [f"   {'*' if j == 0 else ' '} - {cell}" for j, cell in enumerate(row)]
    return out


class ObsLayout(Directive):
    """The table as Markdown, parsed by MyST (the pages are MyST)."""
    required_arguments = 1
    kind = "observation"

    def run(self):
        node = nodes.container()
        self.state.nested_parse(StringList(table(self.arguments[0], self.kind)), self.content_offset, node)
        return node.children


class ActionFeatureLayout(ObsLayout):
    kind = "action features"


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
    app.add_directive("action-feature-layout", ActionFeatureLayout)
    app.connect("autodoc-process-docstring", markdown_habits)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
