"""`import quando_env` pulls in none of the optional libraries: the integrations and the picture renderer
import theirs only when they are used (issue 13)."""
import subprocess
import sys

OPTIONAL = ("ray", "pyspiel", "open_spiel", "tianshou", "torchrl", "tensordict", "torch", "pygame", "moviepy",
            "stable_baselines3", "sb3_contrib", "jax", "jaxlib", "pgx", "optax")


def test_import_quando_env_imports_no_optional_library():
    code = ("import sys, quando_env, quando_env.integrations\n"
            "from quando_env import cabo_v0, help_v0\n"
            "for name in quando_env.game_names(): quando_env.make(name).reset(seed=0)\n"
            f"print(' '.join(m for m in {OPTIONAL!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == ""
