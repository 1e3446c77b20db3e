"""Messages a newcomer meets name the argument they typed and a fix they can act on: no bare rule id, the
training envs' own argument names."""
import ast
import re
from pathlib import Path

import gymnasium as gym
import pytest

import quando_env

PACKAGE = Path(quando_env.__file__).resolve().parent
RULE_ID = re.compile(r"\b[RDK]\d+\b")
MESSAGE_CALLS = {"ValueError", "FileNotFoundError", "RuntimeError", "need", "option", "as_int", "as_list",
                 "ArgumentTypeError", "error"}


def message_texts(tree):
    """(line, text) of every string literal in a raise statement or an argument of a call that builds a message
    (checks.rule's arguments aside: the ids it says where to look up)."""
    cited = {id(c) for node in ast.walk(tree) if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "rule"
             for c in node.args}
    for node in ast.walk(tree):
        called = getattr(node.func, "id", getattr(node.func, "attr", "")) if isinstance(node, ast.Call) else ""
        if isinstance(node, ast.Raise) or called in MESSAGE_CALLS:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and id(sub) not in cited:
                    yield sub.lineno, sub.value


def test_no_message_cites_a_rule_id_alone():
    """A rule id in a message comes through checks.rule, which says where to look it up (the game's RULES.md)."""
    bare = [f"{path.relative_to(PACKAGE)}:{line}: {text!r}" for path in sorted(PACKAGE.rglob("*.py"))
            for line, text in message_texts(ast.parse(path.read_text())) if RULE_ID.search(text)]
    assert bare == []


def test_a_rule_id_in_a_message_says_where_it_is_and_the_rule_in_words():
    with pytest.raises(ValueError, match=r"num_players=7 is not allowed: an integer 2..6: Quando is played by 2 to 6 "
                                         r"players \(rule R3 of quando_env/quando/RULES.md\)"):
        quando_env.env(num_players=7)
    assert (PACKAGE / "quando" / "RULES.md").read_text().count("**R3**") == 1


@pytest.mark.parametrize("make", [lambda n: gym.make_vec("Cabo-v0", num_envs=n),
                                  lambda n: quando_env.make_vec_env(n, game="cabo")])
def test_the_training_envs_name_num_envs(make):
    for bad in (0, 2**40, 1.5):
        with pytest.raises(ValueError, match=rf"^num_envs={bad!r} is not allowed: an integer 1\.\.\d+"):
            make(bad)
