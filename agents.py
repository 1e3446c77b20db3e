"""The repository's name for quando_env.agents: `import agents.learner` here gives the very module objects of
`quando_env.agents.learner` (one set of classes and module state, whichever name imported them first), and
`python -m agents.learner` runs it. The wheel does not install this file: installed, the name is
quando_env.agents (docs/getting-started.md says why)."""
import importlib
import importlib.abc
import importlib.util
import sys

import quando_env.agents as _package

REAL = _package.__name__


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `agents.X` as the module `quando_env.agents.X` (imported by its own name, then shared)."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(__name__ + "."):
            return None
        real = REAL + fullname[len(__name__):]
        spec = importlib.util.find_spec(real)
        if spec is None:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=spec.submodule_search_locations
                                               is not None)

    def create_module(self, spec):
        return importlib.import_module(REAL + spec.name[len(__name__):])

    def exec_module(self, module):
        """Already run under its own name."""

    def get_code(self, fullname):
        """The module's code, for `python -m agents.X` (runpy)."""
        real = REAL + fullname[len(__name__):]
        spec = importlib.util.find_spec(real)
        if spec.submodule_search_locations is not None:
            spec = importlib.util.find_spec(real + ".__main__")
        return spec.loader.get_code(spec.name)


if not any(type(finder).__name__ == "_Alias" for finder in sys.meta_path):
    sys.meta_path.insert(0, _Alias())
sys.modules[__name__] = _package
