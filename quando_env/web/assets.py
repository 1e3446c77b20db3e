"""The page files shipped in the package (quando_env/web/static/): what the server serves and replay pages
inline."""
from importlib.resources import files


def static_text(name: str) -> str:
    """A page file shipped in the package (quando_env/web/static)."""
    return files(__package__).joinpath("static", name).read_text(encoding="utf-8")
