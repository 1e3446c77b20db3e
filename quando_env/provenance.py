"""What made a result: the package's version and, run from a git checkout of it, the commit (summary.json keeps
both beside the seed and settings, so a result names the code that produced it)."""
import subprocess
from pathlib import Path

from . import __version__

ROOT = Path(__file__).resolve().parents[1]      # the checkout's folder when the package runs from one


def made_by() -> dict:
    """{"version": the package's, "commit": the checkout's HEAD, None when the package is not run from a git
    checkout of its own or git is missing or fails}."""
    try:
        r = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--show-toplevel", "HEAD"], capture_output=True,
                           text=True, timeout=10, stdin=subprocess.DEVNULL)
        top, commit = r.stdout.split() if r.returncode == 0 else (None, None)
    except (OSError, subprocess.SubprocessError, ValueError):
        top = commit = None
    mine = top is not None and Path(top).resolve() == ROOT      # (not a repository the package is installed in)
    return {"version": __version__, "commit": commit if mine else None}
