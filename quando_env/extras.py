"""The optional extras of pyproject.toml by the modules they install, so that a missing one is named with the
command that installs it instead of a bare ModuleNotFoundError."""
from contextlib import contextmanager

MODULES = {
    "train": ("torch", "stable_baselines3", "sb3_contrib", "tqdm", "tensorboard", "matplotlib", "openskill"),
    "render": ("pygame", "moviepy"),
    "web": ("starlette", "uvicorn"),
}


class MissingExtra(ModuleNotFoundError):
    """A module of an optional extra is not installed; the message names `pip install "quando_env[EXTRA]"`."""


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
        raise MissingExtra(f"{what} needs {top}, which the {extra} extra installs: "
                           f'pip install "quando_env[{extra}]"', name=e.name) from None
