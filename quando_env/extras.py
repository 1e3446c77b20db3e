"""The optional extras of pyproject.toml by the modules they install, so that a missing one is named with the
command that installs it instead of a bare ModuleNotFoundError."""
from contextlib import contextmanager

MODULES = {
    "train": ("torch", "stable_baselines3", "sb3_contrib", "tqdm", "tensorboard", "matplotlib", "openskill"),
    "render": ("pygame", "moviepy"),
    "web": ("starlette", "uvicorn"),
    "rllib": ("ray", "torch"),
    "openspiel": ("pyspiel", "open_spiel"),
    "jax": ("jax", "pgx", "mctx", "optax"),
}


class MissingExtra(ModuleNotFoundError):
    """A module of an optional extra is not installed; the message says how to install the extra (missing)."""


def install_command(extra: str) -> str:
    """The command that installs `extra` where the package was installed, from its clone as README's set-up does
    (there is no package index to install it from), with the constraints that keep torch's CPU build."""
    return f'pip install -c constraints.txt -e ".[{extra}]"'


def missing(extra: str, what: str, module: str) -> str:
    """The one-line message for `what` needing `module`, of `extra`."""
    return (f"{what} needs {module}, which the {extra} extra installs: {install_command(extra)} "
            "(in the clone's root folder)")


@contextmanager
def needs(extra: str, what: str):
    """Inside, a ModuleNotFoundError for one of `extra`'s modules becomes a MissingExtra saying that `what` needs
    it and how to install it (any other error passes as it is)."""
    try:
        yield
    except MissingExtra:
        raise
    except ModuleNotFoundError as e:
        top = (e.name or "").partition(".")[0]
        if top not in MODULES[extra]:
            raise
        raise MissingExtra(missing(extra, what, top), name=e.name) from None
