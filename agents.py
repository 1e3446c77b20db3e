"""The repository's old short name for quando_env.agents, kept only to say where the modules are now.

One module has one name: `import agents.X` once made the modules of `quando_env.agents.X` answer to a second
name, which changed their `__spec__` (reload, importlib.resources and spawned workers then saw the alias).
Write `quando_env.agents.X`, and `python -m quando_env.agents.X` for `python -m agents.X`."""
raise ImportError("the module `agents` is now `quando_env.agents`: write `import quando_env.agents.X` (or `from "
                  "quando_env.agents.X import ...`) and `python -m quando_env.agents.X` for `python -m agents.X`")
