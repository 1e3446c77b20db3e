"""`python -m quando_env play`, driven as a person would: the real program in a subprocess, with
scripted input (all at once, or answered prompt by prompt). Opponents are `random`, so nothing here
depends on the agents package."""
import json
import os
import re
import selectors
import signal
import subprocess
import sys

import pytest

from quando_env.quando.cards import ACTION_NAMES, PASS

PROMPT_END = b", a name, or help): "
TIMEOUT = 60  # seconds without any output before a test gives up on the program


def run_play(args, stdin_text, cwd=None):
    """Run the play command to the end with the given input; (exit code, stdout + stderr)."""
    p = subprocess.run([sys.executable, "-m", "quando_env", "play", "--opponents", "random", *args],
                       input=stdin_text, capture_output=True, text=True, timeout=TIMEOUT, cwd=cwd)
    return p.returncode, p.stdout + p.stderr


def replay(path):
    p = subprocess.run([sys.executable, "-m", "quando_env", "replay", str(path)], capture_output=True, text=True,
                       timeout=TIMEOUT)
    return p.returncode, p.stdout + p.stderr


class Driver:
    """The program in a subprocess, answered prompt by prompt."""

    def __init__(self, args, cwd=None):
        self.p = subprocess.Popen([sys.executable, "-m", "quando_env", "play", "--opponents", "random", *args],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=cwd,
                                  # a shell may start background jobs with SIGINT ignored; the test sends one
                                  preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.p.stdout, selectors.EVENT_READ)
        self.transcript = b""

    def until_prompt(self) -> str | None:
        """The output up to the end of the next prompt (None if the program ended first)."""
        buf = b""
        while not buf.endswith(PROMPT_END):
            if not self.sel.select(TIMEOUT):
                raise AssertionError(f"no output for {TIMEOUT} s; so far:\n{(self.transcript + buf).decode()[-3000:]}")
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                self.transcript += buf
                return None
            buf += chunk
        self.transcript += buf
        return buf.decode()

    def send(self, line: str):
        self.p.stdin.write((line + "\n").encode())
        self.p.stdin.flush()

    def finish(self) -> tuple[int, str]:
        self.p.stdin.close()
        rest = self.p.stdout.read()
        self.transcript += rest
        self.p.wait(TIMEOUT)
        return self.p.returncode, self.transcript.decode()


def moves(screen: str) -> list[str]:
    """The numbered moves of the last list on the screen, names only."""
    block = screen.rsplit("Your moves:", 1)[1]
    return [m.group(2) for m in re.finditer(r"^\s+(\d+)\) (.+?)(?:  -- .*)?$", block, re.M)]


def shortest_beginning(name: str, names: list[str]) -> str:
    """The shortest beginning of `name` that no other listed move starts with (else the whole name)."""
    low = [n.lower() for n in names]
    for k in range(1, len(name)):
        if sum(n.startswith(name[:k].lower()) for n in low) == 1:
            return name[:k]
    return name


def final_totals(out: str) -> list[int]:
    line = re.search(r"Final totals: (.*)", out).group(1)
    return [int(x.rsplit(" ", 1)[1]) for x in line.split(", ")]


def check_record(path, players: int, finished: bool):
    with open(path) as f:
        record = json.load(f)
    assert record["players"] == ["human"] + ["random"] * (players - 1)
    assert ("result" in record) == finished
    rc, out = replay(path)
    assert rc == 0, out
    assert "Traceback" not in out
    assert len(re.findall(r"^\s+\d+ player_\d: ", out, re.M)) == len(record["actions"])
    return record


@pytest.mark.parametrize("players,edition", [(4, "kendi"), (3, "oya")])
def test_whole_game_answering_the_first_move(tmp_path, players, edition):
    path = tmp_path / "game.json"
    rc, out = run_play(["--players", str(players), "--edition", edition, "--seed", "7", "--record", str(path)],
                       "1\n" * 5000)
    assert rc == 0, out
    assert "Traceback" not in out
    assert "Round 1 over" in out and "hand (fronts)" in out and "Game over. Final totals" in out
    # the others' decisions, one line each; the table from player_0's seat
    assert re.search(r"^player_1 (discards|draws|flips|knocks|passes)", out, re.M)
    assert re.search(r"^  player_2 \(random.*\): \d+ cards?, backs ", out, re.M)
    assert re.search(r"^  YOUR HAND \(\d+ cards?, sum \d+\): ", out, re.M)
    assert re.search(r"^  draw pile: \d+ cards?, the top shows \d+", out, re.M)
    record = check_record(path, players, finished=True)
    assert record["result"]["totals"] == final_totals(out)
    # the last round summary's totals are the final totals
    last = out.rsplit("hand (fronts)", 1)[1].splitlines()[1:players + 1]
    assert [int(re.search(r"(\d+) +(\d+) +(\d+)( +[a-z].*)?$", line).group(3)) for line in last] == final_totals(out)
    assert f"python -m quando_env replay {path}" in out


def test_same_seed_same_game(tmp_path):
    outs = [run_play(["--players", "2", "--seed", "11", "--record", str(tmp_path / f"g{i}.json")], "2\n" * 3000)
            for i in range(2)]
    assert outs[0][0] == outs[1][0] == 0
    assert outs[0][1].replace("g0.json", "g1.json") == outs[1][1]


@pytest.mark.parametrize("edition", ["kendi", "oya"])
def test_moves_by_name_and_action_index(tmp_path, edition):
    """A whole game answered with names (case changed), unique beginnings and #action indices."""
    path = tmp_path / "named.json"
    d = Driver(["--players", "3", "--edition", edition, "--seed", "5", "--record", str(path)])
    index = {name: a for a, name in enumerate(ACTION_NAMES)}
    index["do not knock"] = PASS
    answers = 0
    while (screen := d.until_prompt()) is not None:
        names = moves(screen)
        assert names, screen
        name = names[answers % len(names)]
        style = answers % 3
        if style == 0:
            d.send(name.upper())
        elif style == 1:
            d.send(f"#{index[name]}")
        else:
            d.send(shortest_beginning(name, names))
        answers += 1
    rc, out = d.finish()
    assert rc == 0, out[-3000:]
    assert "Traceback" not in out and "is not a legal move" not in out and "could be" not in out
    assert "Game over" in out and answers > 3
    check_record(path, 3, finished=True)


def test_invalid_input_is_explained_and_asked_again(tmp_path):
    path = tmp_path / "bad.json"
    d = Driver(["--players", "4", "--seed", "5", "--record", str(path)])
    screen = d.until_prompt()
    n = len(moves(screen))
    replies = {}
    for bad in ["", "99", "0", "no such move", "one", "#500", "#x", "#134"]:
        d.send(bad)
        replies[bad] = d.until_prompt()
    assert "Type a move's number" in replies[""]
    assert f"There is no move 99: the moves are numbered 1-{n}" in replies["99"]
    assert "There is no move 0" in replies["0"]
    assert "'no such move' is not a legal move now" in replies["no such move"]
    assert "'one' could be: " in replies["one"]
    assert "is not an action index" in replies["#500"] and "is not an action index" in replies["#x"]
    assert "is not an action index" in replies["#134"]
    d.send("#119")  # knock is never legal on the first turn of kendi
    assert "#119 (knock) is not a legal move now" in d.until_prompt()
    d.send("help")
    assert "How to answer" in (screen := d.until_prompt()) and "Your moves:" in screen
    d.send("table")
    assert "YOUR HAND" in d.until_prompt()
    d.send("1")
    screen = d.until_prompt()
    assert "You discard" in screen and "take the hidden side" in moves(screen)
    d.send("hid")
    d.until_prompt()
    assert re.search(r"You draw and take the hidden side: it is a \d+ \(the \d+ is its back\)", d.transcript.decode())
    d.send("quit")
    rc, out = d.finish()
    assert rc == 0 and "Traceback" not in out
    assert "You leave the game." in out and f"Record of the game so far saved to {path}" in out
    record = check_record(path, 4, finished=False)
    assert len(record["actions"]) >= 2


def test_end_of_input_mid_game_saves_the_record_under_a_default_name(tmp_path):
    rc, out = run_play(["--players", "4", "--seed", "9"], "1\n" * 6, cwd=tmp_path)
    assert rc == 0 and "Traceback" not in out
    assert "End of input: leaving the game." in out
    saved = list(tmp_path.glob("quando-*.json"))
    assert len(saved) == 1 and f"saved to {saved[0].name}" in out
    assert f"python -m quando_env replay {saved[0].name}" in out
    record = check_record(saved[0], 4, finished=False)
    assert len(record["actions"]) >= 6


def test_ctrl_c_leaves_cleanly(tmp_path):
    path = tmp_path / "int.json"
    d = Driver(["--players", "2", "--seed", "1", "--record", str(path)])
    d.until_prompt()
    d.send("1")
    d.until_prompt()
    d.p.send_signal(signal.SIGINT)
    rc, out = d.finish()
    assert rc == 130, out[-2000:]
    assert "Traceback" not in out and "KeyboardInterrupt" not in out
    assert "Interrupted: leaving the game." in out
    check_record(path, 2, finished=False)


@pytest.mark.parametrize("args,message", [
    (["--opponents", "random,random"], "give one name for all 3 opponents or 3 names"),
    (["--players", "7"], "Quando is played by 2 to 6 players"),
])
def test_bad_options_are_reported(tmp_path, args, message):
    p = subprocess.run([sys.executable, "-m", "quando_env", "play", "--opponents", "random", *args],
                       input="", capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path)
    assert p.returncode == 2
    assert message in p.stderr and "Traceback" not in p.stderr + p.stdout
    assert "random, random" not in p.stderr         # the names an opponent may have, each once
    assert not list(tmp_path.iterdir())
