"""What a program reads back from a file is data from outside: what it prints of it is escaped (no terminal
control sequence reaches the terminal), every file read back is checked for type, range and depth with a
clear refusal, and a refusal shows a huge value shortened."""
import json

import numpy as np
import pytest

import quando_env
from quando_env.adapters import record
from quando_env.checks import printable, shown
from quando_env.cli import main as cli_main

ESCAPES = ["\x1b]0;window title\x07", "\x1b[2J\x1b[H", "line\rproven: every round's result", "\x9b31m",
           "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\", "\u202eevil"]


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def safe(text: str) -> bool:
    """No control character but line ends: nothing a terminal would act on."""
    return all(c.isprintable() or c == "\n" for c in text)


def test_printable_escapes_every_character_a_terminal_would_act_on():
    everything = "".join(map(chr, range(0x110000)))
    assert printable(everything).isprintable()
    assert printable("plain text, ünïcode and 漢字") == "plain text, ünïcode and 漢字"
    assert printable("\x1b]0;x\x07\r") == "\\x1b]0;x\\x07\\r"


def test_replay_prints_a_records_player_names_escaped(tmp_path, capsys):
    env = quando_env.quando_v0.env(num_players=4)
    env.reset(seed=1)
    rec = env.unwrapped.game_record()
    rec["players"] = ESCAPES[:4]
    path = tmp_path / "game.json"
    record.save(rec, path)
    assert cli_main(["replay", str(path), "--html", str(tmp_path / "game.html")]) == 0
    out = capsys.readouterr().out
    assert safe(out) and "\\x1b]0;window title\\x07" in out and "line\\rproven" in out


@pytest.fixture
def saved_run(tmp_path):
    from quando_env.training.learner import Hyper, Learner
    out = tmp_path / "run"
    out.mkdir()
    Learner(Hyper(game="help", num_games=4, rollout_steps=2, hidden=(8,), seed=3)).save_state(out)
    return out


def resume(out, capsys) -> tuple[int, str]:
    """Resume the run in `out` for one decision: (exit status, stderr)."""
    from quando_env.training.learner import main
    try:
        rc = main(["--out", str(out), "--resume", "--no-progress", "--timesteps", "1"])
    except SystemExit as e:
        rc = e.code
    return rc, capsys.readouterr().err


def edit(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


BIG = 10**400
DAMAGE = {      # what is done to a saved run, the words its refusal must hold
    "deep state": (lambda run: (run / "state.json").write_text(deep(100_000)), "nested too deeply"),
    "imitating yes": (lambda run: edit(run / "state.json", lambda s: s.update(imitating="yes")), "imitating='yes'"),
    "counter below 0": (lambda run: edit(run / "state.json", lambda s: s["counters"].update(updates=-1)),
                        "counters.updates=-1"),
    "huge counter": (lambda run: edit(run / "state.json", lambda s: s["counters"].update(decisions=BIG)),
                     "(401 digits)"),
    "unknown counter": (lambda run: edit(run / "state.json", lambda s: s["counters"].update(x=1)), "counters ['x']"),
    "snapshot elsewhere": (lambda run: edit(run / "state.json", lambda s: s.update(snapshots=["../../x.npz"])),
                           "snapshots=['../../x.npz']"),
    "huge random state": (lambda run: edit(run / "state.json", lambda s: s["rng"]["state"].update(state=BIG)),
                          "rng="),
    "settings not an object": (lambda run: edit(run / "state.json", lambda s: s.update(hyper=[1])), "hyper=[1]"),
    "huge anchor": (lambda run: edit(run / "state.json", lambda s: s["hyper"].update(anchor=BIG, method="dmc")),
                    "anchor=10000000000000000000...00000 (401 digits) with method='dmc'"),
    "escapes in a setting's name": (lambda run: edit(run / "state.json", lambda s: s["hyper"].update(
        {ESCAPES[0]: 1})), "\\x1b]0;window title\\x07"),
    "deep summary": (lambda run: (run / "summary.json").write_text(deep(100_000)), "nested too deeply"),
    "summary win rate NaN": (lambda run: (run / "summary.json").write_text(
        '{"evaluations": [{"decisions": 0, "win_rate": NaN, "ci": [0, 1], "mean_round_points": 0, '
        '"wall_seconds": 0}], "wall_seconds": 1, "cpu_seconds": 1}'), "not the summary of a run"),
    "deep recipe": (lambda run: (run / "recipe.json").write_text(deep(100_000)), "nested too deeply"),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_resume_refuses_a_deep_or_mistyped_saved_run_in_one_line(saved_run, capsys, damage):
    do, said = DAMAGE[damage]
    do(saved_run)
    rc, err = resume(saved_run, capsys)
    line = err.strip().splitlines()[-1]
    assert rc == 2 and "Traceback" not in err and safe(err) and said in line and len(line) < 500, err


def test_a_sound_saved_run_resumes(saved_run, capsys):
    assert resume(saved_run, capsys)[0] == 0


class Unseen:
    """A value whose repr must not be asked for (it lies beyond what a message shows)."""
    def __repr__(self):
        raise AssertionError("shown looked past its width")


def test_refusals_show_huge_and_deep_values_shortened_and_bounded():
    nested = []
    for _ in range(100_000):
        nested = [nested]
    for value in (BIG, -BIG, 10**5000, nested, [*range(100), Unseen()], "x" * 10**6,
                  {**{str(i): i for i in range(100)}, "last": Unseen()}):
        assert len(shown(value)) <= 80
    assert shown(BIG) == "10000000000000000000...00000 (401 digits)"
    assert shown([1, (2,), {"a": None}]) == repr([1, (2,), {"a": None}])


def test_a_model_header_with_a_huge_anchor_weight_is_refused_shortened():
    from quando_env.agents.learned import check_header
    header = {"format": "quando_env-learned/3", "game": "cabo", "options": {}, "obs_dim": 4, "num_actions": 2,
              "hidden": [4], "head": "policy", "info": {}, "anchor": {"agent": "heuristic", "weight": BIG}}
    with pytest.raises(ValueError, match=r"got \{'agent': 'heuristic', 'weight': 10000000000000000000\.\.\.") as e:
        check_header(header, "m.npz")
    assert len(str(e.value)) < 300


def test_other_json_files_read_back_are_refused_when_nested_too_deeply(tmp_path):
    from quando_env.training import credit, distill
    path = tmp_path / "deep.json"
    path.write_text(deep(100_000))
    with pytest.raises(ValueError, match="could not be read: .*nested too deeply"):
        credit.load(path)
    shard = tmp_path / "shard.npz"
    np.savez(shard, header=np.array(deep(100_000)))
    with pytest.raises(ValueError, match="not a label shard"):
        distill.read_shard(shard)


def test_an_agent_files_words_in_a_refusal_are_escaped(tmp_path, capsys):
    from quando_env.evaluation import cli as evaluate_cli
    plugin = tmp_path / "evil.py"
    plugin.write_text(f"raise ValueError({ESCAPES[0]!r})\n")
    with pytest.raises(SystemExit):
        evaluate_cli.parse_args(["--agents", f"{plugin}:X", "random"])
    err = capsys.readouterr().err
    assert safe(err) and "\\x1b]0;window title\\x07" in err
