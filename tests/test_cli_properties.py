"""Property: any command line given to evaluate.py, train.py or `python -m quando_env demo|play` either parses
into a run configuration that holds (numbers in range, players the game allows, agents that exist, outputs that
can be written) or exits with status 2 and one error line naming an option; never another exception. Only
the parsers and their checks run: no game is played."""
import contextlib
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quando_env.agents import check_agent
from quando_env.evaluation import cli as evaluate_cli
from quando_env.training import sb3
from quando_env import cli
from quando_env.checks import SEED_MAX
from quando_env.options import make_config
from quando_env.registry import game_class, game_names

SETTINGS = settings(max_examples=300, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

NUMBERS = st.one_of(
    st.integers(1, 4).map(str), st.integers(2, 5).map(str), st.integers(-3, 10).map(str),
    st.integers(-10**25, 10**25).map(str),
    st.sampled_from([str(SEED_MAX), str(2**63), str(2**32), "1e20", "1.5", "0.5", "nan", "inf", "-inf", "", " 3",
                     "0x10", "9" * 5000, "-0", "1_000", "2.0", "-1e3", "abc"]),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
)
NAMES = st.sampled_from(["random", "heuristic", "greedy", "rollout", "random", "heuristic", "ppo",
                         "ppo:/nonexistent/m.zip", "rllib:/nonexistent", "chess", "", "heuristic:x", "RANDOM",
                         "random:", "ppo:", "ppo:" + "n" * 5000, "rllib:x\0y"])


def paths(root: Path):
    (root / "a_file").write_text("x")
    return st.sampled_from([str(root / "out.json"), str(root / "charts"), str(root / "missing" / "x.json"),
                            str(root / "a_file" / "x"), str(root), str(root / "a_file"), "", str(root / "new" / "dir"),
                            str(root) + "/", "x\0y", str(root / ("n" * 300))])


EXTRA = st.sampled_from([[]] * 8 + [["--bogus"], ["stray"], ["--help-me", "1"]])   # mostly nothing


def argv_of(options: dict, extra=EXTRA):
    """argv with a random subset of `options` (name -> strategy of its value tokens), in random order, and
    sometimes a token no command knows."""
    @st.composite
    def build(draw):
        names = draw(st.lists(st.sampled_from(sorted(options)), unique=True, max_size=4))
        parts = [[name, *draw(options[name])] for name in names]
        parts = draw(st.permutations(parts)) if parts else parts
        return [tok for part in parts for tok in part] + draw(extra)
    return build()


def one(s):
    return s.map(lambda x: [x])


def outcome(parse, argv):
    """(args, None) when argv parses, (None, the last stderr line) when it exits with status 2."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            return parse(argv), None
        except SystemExit as e:
            assert e.code == 2, (argv, e.code, err.getvalue())
    lines = err.getvalue().strip().splitlines()
    assert lines and "error: " in lines[-1] and "Traceback" not in err.getvalue(), (argv, err.getvalue())
    return None, lines[-1]


def names_an_option(line: str, argv: list, also=()) -> bool:
    message = line.split("error: ", 1)[1]
    return any(tok in message for tok in [t for t in argv if t.startswith("--")] + list(also)) or \
        "unrecognized arguments" in message


def writable_file(text) -> bool:
    p = Path(text)
    return bool(text) and p.parent.is_dir() and not p.is_dir()


def game_allows(game, players, **options) -> bool:
    make_config(game_class(game).config_class, num_players=players, **options)
    return True


@pytest.fixture
def out_paths(tmp_path):
    return paths(tmp_path)


def test_evaluate_command_lines_parse_into_valid_runs_or_exit_2_naming_the_option(out_paths):
    options = {"--game": one(st.sampled_from(game_names() + ["chess", ""])), "--games": one(NUMBERS),
               "--seed": one(NUMBERS), "--players": one(NUMBERS), "--edition": one(st.sampled_from(["kendi", "oya",
               "x"])), "--batch-size": one(NUMBERS), "--rollout-samples": one(NUMBERS), "--json": one(out_paths),
               "--plot": one(out_paths), "--no-progress": st.just([]), "--agents": st.lists(NAMES, max_size=7),
               "--league": st.lists(NAMES, max_size=4), "--ray": one(st.sampled_from(["local", "auto", "h:1", "x",
               "ray://h:2", ""]))}

    @SETTINGS
    @given(argv_of(options))
    def prop(argv):
        args, line = outcome(evaluate_cli.parse_args, argv)
        if args is None:
            assert names_an_option(line, argv, ("--agents", "--league")), (argv, line)
            return
        names = args.league or args.agents
        assert 1 <= args.games <= evaluate_cli.MAX_GAMES and 1 <= args.batch_size
        assert 0 <= args.seed and args.seed + args.games - 1 <= SEED_MAX
        assert args.rollout_samples is None or args.rollout_samples >= 2
        assert game_allows(args.game, args.players, **({"edition": args.edition} if args.edition else {}))
        assert len(names) <= args.players or args.league
        for name in names:
            check_agent(name, args.game)
        assert args.json is None or writable_file(args.json)
        assert args.plot is None or not Path(args.plot).is_file()
    prop()


def test_train_command_lines_parse_into_valid_runs_or_exit_2_naming_the_option(out_paths, tmp_path):
    (tmp_path / "m.zip").write_bytes(b"")
    options = {name: one(NUMBERS) for name in ["--timesteps", "--envs", "--players", "--seed", "--bc-games",
                                               "--eval-every", "--eval-games", "--checkpoint-every", "--pool-size",
                                               "--heuristic-share", "--lr", "--ent-coef", "--clip", "--time-limit",
                                               "--threads"]}
    options.update({"--game": one(st.sampled_from(game_names() + ["chess"])), "--out": one(out_paths),
                    "--save-to": one(out_paths | st.just(str(tmp_path / "m.zip"))),
                    "--resume": one(out_paths | st.just(str(tmp_path / "m.zip"))),
                    "--ship": one(st.sampled_from(["final", "best", "worst"])), "--no-hint": st.just([])})

    @SETTINGS
    @given(argv_of(options))
    def prop(argv):
        args, line = outcome(sb3.parse_args, argv)
        if args is None:
            assert names_an_option(line, argv), (argv, line)
            return
        for name in ["timesteps", "envs", "eval_games", "checkpoint_every", "pool_size", "threads"]:
            assert getattr(args, name) >= 1, name
        assert args.eval_every is None or args.eval_every >= 1       # None: on a time schedule with --seconds
        assert args.bc_games >= 0 and 0 <= args.seed < 2**32 and 0 <= args.heuristic_share <= 1
        assert args.lr > 0 and args.clip > 0 and args.ent_coef >= 0 and 0 <= args.time_limit < float("inf")
        assert game_allows(args.game, args.players)
        assert args.resume is None or Path(args.resume).is_file()
        assert args.save_to is None or (writable_file(args.save_to) and args.save_to.endswith(".zip"))
        assert not Path(args.out).is_file()
    prop()


def test_demo_and_play_command_lines_parse_into_valid_runs_or_exit_2_naming_the_option(out_paths):
    common = {"--game": one(st.sampled_from(game_names() + ["chess"])), "--players": one(NUMBERS),
              "--seed": one(NUMBERS), "--edition": one(st.sampled_from(["kendi", "oya", "x"])),
              "--record": one(out_paths)}
    opponents = st.lists(NAMES, min_size=1, max_size=6).map(lambda xs: [",".join(xs)])

    @SETTINGS
    @given(st.sampled_from(["demo", "play"]).flatmap(
        lambda cmd: argv_of({**common, **({"--opponents": opponents} if cmd == "play" else {})}).map(
            lambda argv: [cmd, *argv])))
    def prop(argv):
        args, line = outcome(cli.parse_args, argv)
        if args is None:
            assert names_an_option(line, argv), (argv, line)
            return
        assert game_allows(args.game, args.players, **({"edition": args.edition} if args.edition else {}))
        assert args.seed is None or 0 <= args.seed <= SEED_MAX
        assert args.record is None or writable_file(args.record)
        if args.command == "play":
            from quando_env.opponents import check_opponents
            assert len(check_opponents(args.opponents, args.players, args.game)) == args.players - 1
    prop()


def test_learner_command_lines_parse_into_valid_runs_or_exit_2_naming_the_option(out_paths, tmp_path, monkeypatch):
    from quando_env.training import learner

    monkeypatch.chdir(tmp_path)      # the default --out (runs/learned_GAME) holds no saved run here

    settings_ = st.sampled_from(["epochs=2", "epochs=x", "epochs=0", "hidden=", "hidden=16,16", "hidden=0",
                                 "method=dmc", "method=foo", "num_players=3", "num_players=9", "lr=-1", "lr=nan",
                                 "lr=0.001", "seed=-1", "options={}", "options=[1", 'options={"x": 1}', "speed=3",
                                 "game=cabo", "epochs", "gamma=2", "threads=0"])
    options = {name: one(NUMBERS) for name in ["--seconds", "--timesteps", "--seed", "--threads", "--eval-every",
                                               "--eval-games", "--checkpoint-every"]}
    options.update({"--game": one(st.sampled_from(game_names() + ["chess"])), "--out": one(out_paths),
                    "--set": one(settings_), "--resume": st.just([]), "--no-progress": st.just([])})

    @settings(SETTINGS, max_examples=150)
    @given(argv_of(options))
    def prop(argv):
        args, line = outcome(learner.parse_args, argv)
        if args is None:
            assert names_an_option(line, argv), (argv, line)
            return
        for name in ["timesteps", "eval_every", "checkpoint_every"]:
            assert getattr(args, name) is None or getattr(args, name) >= 1, name
        assert args.seconds is None or 0 < args.seconds < float("inf")
        hp = args.hyper
        assert isinstance(hp, learner.Hyper) and not args.resume        # no run is saved in these folders
        assert 0 <= hp.seed < 2**32 and hp.threads >= 1 and hp.eval_games >= 1 and hp.lr > 0
        assert game_allows(hp.game, hp.num_players, **hp.options)
        assert not Path(args.out).is_file()
    prop()
