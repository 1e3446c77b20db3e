"""Sphinx configuration: Furo theme, pages in MyST Markdown, the API reference from the docstrings (autodoc) and the
observation tables generated from each game's layout (_ext/obs_layout.py). Build: see docs/contributing.md."""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))    # the quando_env and agents of this checkout
sys.path.insert(0, str(HERE / "_ext"))

project = "quando_env"
author = "quando_env contributors"
extensions = ["myst_parser", "sphinx.ext.autodoc", "obs_layout"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "strength/*.md", "README.md"]
html_theme = "furo"
html_title = "quando_env"
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
default_role = "code"                  # docstrings write `name` for code, as Markdown does
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True}
