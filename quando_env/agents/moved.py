"""Where the modules that left quando_env.agents live now: training and evaluation have rooms of their own
(quando_env.training, quando_env.evaluation), and the players stay here.

One module has one name, so an old path is no alias and no file: a finder at the end of sys.meta_path answers for
it (quando_env.agents installs it), so that run as a program (`python -m quando_env.agents.learner`) it runs the new
module with the same arguments, and imported it raises ImportError naming the new module."""
import importlib.util
import runpy
import sys

MOVED = {"learner": "quando_env.training.learner", "training": "quando_env.training.sb3",
         "distill": "quando_env.training.distill", "credit": "quando_env.training.credit",
         "sparse": "quando_env.training.sparse", "budget": "quando_env.training.budget",
         "stops": "quando_env.stops", "evaluation": "quando_env.evaluation.matches",
         "evaluate_cli": "quando_env.evaluation.cli", "league": "quando_env.evaluation.league",
         "strength": "quando_env.evaluation.strength", "plots": "quando_env.evaluation.plots",
         "ray_tasks": "quando_env.evaluation.ray_tasks"}
OLD = {f"{__package__}.{name}": new for name, new in MOVED.items()}
STUB = "from quando_env.agents.moved import stub\nstub(__spec__.name, __name__)\n"


def stub(old: str, run_name: str) -> None:
    """The old module `old` (quando_env.agents.X) run under `run_name`: as __main__ it runs the new module as the
    program; otherwise ImportError."""
    new = OLD[old]
    if run_name == "__main__":
        runpy.run_module(new, run_name="__main__", alter_sys=True)
        return
    raise ImportError(f"{old} is now {new}: write `import {new}` (or `from {new} import ...`) and "
                      f"`python -m {new}` for `python -m {old}`", name=old)


class Stubs:
    """Finds the old modules (after every other finder: a module that exists wins) and loads each as STUB, the
    code that runpy runs for `python -m` and an import executes."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        return importlib.util.spec_from_loader(fullname, cls, origin="quando_env.agents.moved") \
            if fullname in OLD else None

    @staticmethod
    def create_module(spec):
        return None

    @staticmethod
    def get_code(fullname):
        return compile(STUB, f"<{fullname}: moved to {OLD[fullname]}>", "exec")

    @classmethod
    def exec_module(cls, module):
        exec(cls.get_code(module.__name__), module.__dict__)


def install() -> None:
    """Put Stubs at the end of sys.meta_path (once)."""
    if Stubs not in sys.meta_path:
        sys.meta_path.append(Stubs)
