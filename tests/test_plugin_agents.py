"""Your own agent wherever an agent name goes (FILE.py:NAME, package.module:NAME: agents.plugins), agents of
another game refused, opponents by name in the training envs, fair seat sharing, and output that speaks of what
the game has (issue 22)."""
import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import quando_env
from quando_env.agents import make_agent
from quando_env.evaluation.cli import main
from quando_env.evaluation.matches import play_match
from quando_env.evaluation.plots import ratings_figures, summary_figures
from quando_env.agents.quando import HeuristicAgent as QuandoHeuristic
from quando_env.registry import game_class, game_names, gym_id

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = "examples/my_agent.py"        # relative to ROOT, as docs/agents.md shows it

MODULE = '''
import numpy as np

class First:
    """Any game: the first legal action."""
    def act(self, obs, mask):
        return int(np.flatnonzero(mask)[0])
'''


@pytest.fixture
def in_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.fixture
def plugin_module(tmp_path, monkeypatch):
    """A package `plugpkg` on this process's sys.path only (not on PYTHONPATH) with the agent plugpkg.mine:First."""
    (tmp_path / "plugpkg").mkdir()
    (tmp_path / "plugpkg" / "__init__.py").write_text("")
    (tmp_path / "plugpkg" / "mine.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "plugpkg.mine:First"


def evaluate(tmp_path, capsys, *args) -> tuple[dict, str]:
    """evaluate.py's main on args: (its JSON, its printed table without the title, which has the time)."""
    out = tmp_path / "results.json"
    assert main([*args, "--no-progress", "--json", str(out)]) == 0
    return json.loads(out.read_text()), "\n".join(capsys.readouterr().out.splitlines()[1:])


def refused(capsys, *args) -> str:
    """evaluate.py refuses args with exit 2 before playing: its error line."""
    with pytest.raises(SystemExit) as e:
        main([*args, "--games", "2", "--no-progress"])
    assert e.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


# ---------------------------------------------------------------- plug-ins in matches and leagues
@pytest.mark.parametrize("game", game_names())
def test_an_agent_from_a_file_plays_matches_and_leagues(in_root, tmp_path, capsys, game):
    spec = f"{EXAMPLE}:LowestLegal"
    data, table = evaluate(tmp_path, capsys, "--game", game, "--agents", spec, "heuristic", "random", "--games", "6")
    assert data["agents"][spec]["games"] == 6 and spec in table
    data, _ = evaluate(tmp_path, capsys, "--game", game, "--league", spec, "random", "greedy", "--players", "3",
                       "--games", "4")
    assert set(data["ratings"]) == {spec, "random", "greedy"}


def test_an_agent_from_a_module_plays_and_is_built_with_what_it_names(plugin_module, tmp_path, capsys):
    data, _ = evaluate(tmp_path, capsys, "--game", "cabo", "--agents", plugin_module, "random", "--games", "4")
    assert data["agents"][plugin_module]["games"] == 4
    agent = make_agent(f"{ROOT / EXAMPLE}:LowestLegal", seed=3, game="help", options={"edition": "oya"})
    assert agent.inner.rng.integers(1 << 30) == np.random.default_rng(3).integers(1 << 30)   # seeded, no edition
    knocker = make_agent(f"{ROOT / EXAMPLE}:KnockEarly", game="quando", num_players=3)
    assert knocker.inner.num_players == 3 and knocker.game == "quando"


@pytest.mark.xdist_group("ray")
def test_plugins_play_on_ray_as_in_this_process(ray_local, in_root, plugin_module, tmp_path, capsys):
    """The Ray tasks build the agents from their specs: the file by its absolute path, the module from the folder
    this process imported it from (Ray's workers do not share this process's sys.path). Both agents decide by
    the observation alone, so the split into batches changes nothing."""
    args = ["--game", "quando", "--agents", f"{EXAMPLE}:KnockEarly", plugin_module, "greedy", "--players", "4",
            "--games", "6", "--seed", "4"]
    alone = evaluate(tmp_path, capsys, *args)
    assert evaluate(tmp_path, capsys, *args, "--ray", "local") == alone
    league = ["--game", "help", "--league", plugin_module, "random", "--players", "3", "--games", "4"]
    assert evaluate(tmp_path, capsys, *league, "--ray", "local") == evaluate(tmp_path, capsys, *league)


@pytest.mark.parametrize("body,spec,words", [
    (None, "missing.py:Agent", ["no file", "missing.py"]),
    (MODULE, "PLUGIN:Frist", ["has no attribute 'Frist'", "its classes: First"]),
    ("class NotAnAgent:\n    pass\n", "PLUGIN:NotAnAgent", ["class NotAnAgent is not an agent", "act(obs, mask)"]),
    ("LIMIT = 3\n", "PLUGIN:LIMIT", ["LIMIT is not a class or factory"]),
    ("import numpy\n\nvalue = 1 / 0\n", "PLUGIN:First", ["importing", "plug.py failed (line 3)", "ZeroDivisionError"]),
    ("def First(:\n", "PLUGIN:First", ["plug.py failed (line 1)", "SyntaxError"]),
    ("import no_such_module_here\n", "PLUGIN:First", ["plug.py failed (line 1)", "no_such_module_here"]),
    (None, "no_such_package.mod:Agent", ["no module named 'no_such_package'"]),
    (None, "plug.py:not-a-name", ["FILE.py:NAME or package.module:NAME"]),
])
def test_a_bad_plugin_is_refused_naming_the_file_and_what_is_wrong(tmp_path, capsys, body, spec, words):
    if body is not None:
        (tmp_path / "plug.py").write_text(body)
    spec = spec.replace("PLUGIN", str(tmp_path / "plug.py"))
    line = refused(capsys, "--agents", spec, "random")
    assert line.startswith("evaluate.py: error: argument --agents: agent ") and "Traceback" not in line, line
    assert all(w in line for w in words), line


def test_a_factory_that_gives_no_agent_is_refused_before_any_game(tmp_path, capsys):
    (tmp_path / "plug.py").write_text("def make(game):\n    return game\n")
    assert main(["--agents", f"{tmp_path / 'plug.py'}:make", "random", "--games", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "make(...) gave a str, which has neither act(obs, mask) nor act_batch(obs, masks)" in err, err


@pytest.mark.parametrize("body, words", [
    ("    def act(self, obs, mask):\n        return 0\n",
     ["agent Bad: act(obs, mask) gave action 0, which is not legal there; legal: [1, "]),
    ("    def act(self, obs, mask):\n        return float(mask.argmax())\n",
     ["agent Bad: act(obs, mask) must give an integer action, got float64"]),
    ("    def act_batch(self, obs, masks):\n        return masks.argmax(axis=1)[:1]\n",
     ["agent Bad: act_batch(obs, masks) on 2 decisions must give 2 integer actions, got shape (1,)"]),
    ("    def act_batch(self, obs, masks):\n        return masks.argmax(axis=1) + 1000\n",
     ["gave action 1", "in row 0, which is not legal there"]),
])
def test_a_plugin_that_answers_wrong_is_named_with_what_it_gave(tmp_path, capsys, body, words):
    """An illegal, non-integer or miscounted answer is the plug-in's error, not an illegal move of some game."""
    (tmp_path / "plug.py").write_text("class Bad:\n" + body)
    assert main(["--agents", f"{tmp_path / 'plug.py'}:Bad", "random", "--games", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert all(w in err for w in words) and "Traceback" not in err, err


# ---------------------------------------------------------------- the wrong game
def test_an_agent_of_another_game_is_refused_naming_both_games(in_root, capsys):
    line = refused(capsys, "--game", "help", "--agents", f"{EXAMPLE}:KnockEarly", "random", "random")
    assert "plays quando, not help" in line
    line = refused(capsys, "--game", "cabo", "--league", "quando_env.agents.quando.heuristic:HeuristicAgent", "random")
    assert "plays quando, not cabo" in line
    with pytest.raises(ValueError, match="agent 'mine' plays quando, not cabo"):
        play_match([QuandoHeuristic(), make_agent("random", game="cabo")], 2, names=["mine", "random"], game="cabo",
                   progress=False)
    with pytest.raises(ValueError, match="plays quando, not help"):
        quando_env.make_vec_env(1, opponents=QuandoHeuristic(), game="help")
    with pytest.raises(ValueError, match=r"length 1286 \(quando with 4 players\); it cannot play cabo with 4"):
        make_agent("ppo:agents/models/ppo_quando_4p.zip", game="cabo")


# ---------------------------------------------------------------- opponents by name in the training envs
@pytest.mark.parametrize("game", game_names())
def test_the_training_envs_take_the_command_lines_opponent_names(in_root, game):
    own = make_agent("heuristic", game=game)
    venv = quando_env.make_vec_env(3, opponents="heuristic", game=game, seed=0)
    (opp,) = venv.core.opponents
    assert type(opp) is type(own) and opp.game == game
    venv.reset()
    venv.step(np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()]))
    env = gym.make(gym_id(game), opponents=["greedy", "random", f"{EXAMPLE}:LowestLegal"])
    obs, info = env.reset(seed=1)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert [type(x).__name__ for x in env.unwrapped.core.opponents] == ["GreedyAgent", "str", "WrappedAgent"]
    with pytest.raises(ValueError, match="opponents: unknown agent 'chess'"):
        quando_env.make_vec_env(1, opponents=["random", "chess"], game=game)
    with pytest.raises(ValueError, match=r"use an agent name \(random, the game's own") as refused:
        quando_env.make_vec_env(1, opponents=3.5, game=game)
    assert str(refused.value).count("random") == 1      # the names listed once each


def test_a_name_means_what_make_agent_makes_in_every_front_end():
    """quando_env.agents is the one place a name becomes an agent: terminal play and the browser build random
    through make_agent as every other name (once they had their own), and a name in capitals is the same name in
    every command line, evaluate's too (once only terminal play and the browser read it so)."""
    from quando_env.agents import RandomAgent, agent_name, check_agent
    from quando_env.opponents import PlayError, check_opponents, make_opponent, opponent_names

    game = game_class("help")(1, seed=0, num_players=4)
    obs, mask = game.observe()[0], game.legal_action_mask[0]
    opponent, same = make_opponent("random", 1, 5, game), make_agent("random", seed=5, game="help")
    assert type(opponent) is RandomAgent
    assert [opponent.act(obs, mask) for _ in range(20)] == [same.act(obs, mask) for _ in range(20)]
    assert opponent_names("RANDOM,Greedy,PPO:x.zip", 4) == ["random", "Greedy", "ppo:x.zip"]
    assert [agent_name(x) for x in ("HEURISTIC", "MyModule:Agent", "my_agents.py:MyAgent")] == \
        ["heuristic", "MyModule:Agent", "my_agents.py:MyAgent"]
    check_agent("HEURISTIC", game="help")
    assert type(make_agent("GREEDY", game="help")).__name__ == "GreedyAgent"
    with pytest.raises(PlayError, match="unknown agent 'chess'"):
        check_opponents("random,CHESS,random", 4, "help")


def test_terminal_play_takes_a_plugin_opponent_and_refuses_one_of_another_game(tmp_path):
    record = tmp_path / "g.json"
    spec = f"{ROOT / EXAMPLE}:LowestLegal"
    p = subprocess.run([sys.executable, "-m", "quando_env", "play", "--game", "cabo", "--players", "2", "--seed", "1",
                        "--opponents", spec, "--record", str(record)], input="quit\n", capture_output=True, text=True,
                       timeout=120, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert json.loads(record.read_text())["players"] == ["human", spec]
    p = subprocess.run([sys.executable, "-m", "quando_env", "play", "--game", "help", "--opponents",
                        f"{ROOT / EXAMPLE}:KnockEarly"], input="", capture_output=True, text=True, timeout=120,
                       cwd=tmp_path)
    assert p.returncode == 2 and "plays quando, not help" in p.stderr and "Traceback" not in p.stderr
    assert not list(tmp_path.glob("help-*.json"))


# ---------------------------------------------------------------- fewer agents than seats
def test_fewer_agents_than_seats_share_them_fairly_whatever_their_order(tmp_path, capsys):
    """3 agents for 4 seats: over any 3 games each plays 4 seat-games (the last named used to play 2 seats of
    every game), and the list's order changes nothing but the names' order."""
    for order in (["greedy", "random", "heuristic"], ["heuristic", "greedy", "random"]):
        data, _ = evaluate(tmp_path, capsys, "--agents", *order, "--players", "4", "--games", "9")
        assert {k: v["games"] for k, v in data["agents"].items()} == {k: 12 for k in order}
        assert data["players"] == 4
    agents = [make_agent("greedy", game="quando"), make_agent("random", seed=1, game="quando"),
              make_agent("heuristic", game="quando")]
    for games in (3, 6, 7):
        res = play_match(agents, games, seed=2, num_players=4, progress=False, game="quando")
        counts = [s.games for s in res.stats]
        assert sum(counts) == 4 * games and max(counts) - min(counts) <= (games % 3 != 0)


# ---------------------------------------------------------------- output that speaks of what the game has
FOREIGN = {"quando": ["cabo", "help"], "cabo": ["quando", "help"], "help": ["quando", "cabo", "knock"]}


def words_of(data) -> str:
    """The JSON's keys and string values, all levels."""
    if isinstance(data, dict):
        return " ".join(f"{k} {words_of(v)}" for k, v in data.items())
    if isinstance(data, list):
        return " ".join(words_of(v) for v in data)
    return data if isinstance(data, str) else ""


def labels_of(figures: dict) -> str:
    """Every title, axis label and tick label of the figures."""
    out = []
    for fig in figures.values():
        fig.canvas.draw()
        for ax in fig.axes:
            out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
            out += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
    return " ".join(out)


@pytest.mark.parametrize("game", game_names())
def test_tables_json_and_charts_speak_only_of_what_the_game_has(tmp_path, capsys, game):
    higher = game_class(game).higher_total_wins
    direction = "higher is better" if higher else "lower is better"
    match, match_table = evaluate(tmp_path, capsys, "--game", game, "--agents", "heuristic", "random", "random",
                                  "--games", "4")
    league, league_table = evaluate(tmp_path, capsys, "--game", game, "--league", "heuristic", "random", "greedy",
                                    "--players", "3", "--games", "2")
    figures = {**summary_figures(match["agents"], f"{game}, 3 players", higher),
               **ratings_figures(league, f"{game}, 3 players")}
    labels = labels_of(figures)
    texts = {"match table": match_table, "league table": league_table, "match JSON": words_of(match),
             "league JSON": words_of(league), "charts": labels}
    for what, text in texts.items():
        for word in FOREIGN[game]:
            assert word not in text.lower(), f"{word!r} in the {what} of {game}: {text}"
    has_knock = game != "help"
    assert ("knock_rate" in match["agents"]["heuristic"]) == has_knock
    assert ("knock rate" in match_table) == has_knock
    assert direction in match_table and direction in league_table
    assert match["higher_total_wins"] is higher and league["higher_total_wins"] is higher    # the JSON says it too
    assert f"mean points per round ({direction})" in labels
    for fig in figures.values():
        assert game in fig.axes[0].get_title()
    capsys.readouterr()
    assert main(["--game", game, "--agents", "random", "random", "random", "--games", "2", "--no-progress"]) == 0
    assert capsys.readouterr().out.startswith(f"{game}: 2 games, 3 players")
