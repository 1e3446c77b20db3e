"""The pages in a real browser: Debian's chromium, headless, driven by Selenium through chromedriver.

Whole games of every game are played by clicking the person's moves (`[data-action]`) until `[data-game-over]`,
a replay page written by `replay --html` is stepped through to its end and back, a record is replayed in the
served page; no page logs an error and no request leaves 127.0.0.1 (a replay file makes none at all).
The browser is required: without chromium (`apt-get install chromium chromium-driver`, as .ci/run does) these
tests fail. SCREENSHOTS_DIR=docs/images writes the docs' screenshot of a game in play.
"""
import base64
import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from quando_env.cli import main
from web_helpers import served

DATA = Path(__file__).parent / "data"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
ON_TOP = ("return [...document.querySelectorAll('#table .qe-can')].filter((c) => { "      # offered cards not whole
          "const r = c.getBoundingClientRect(); return ![[r.left + 2, r.top + 2], [r.right - 2, r.top + 2], "
          "[r.right - 2, r.bottom - 2]].every(([x, y]) => c.contains(document.elementFromPoint(x, y))); })"
          ".map((c) => c.getAttribute('data-at'))")
PASS_OFFERED = "return [...document.querySelectorAll('[data-action]')].some((b) => b.textContent === 'pass')"


@pytest.fixture(scope="module")
def browser():
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not shutil.which(p)]
    if missing:
        pytest.fail(f"the browser tests need {' and '.join(missing)}: apt-get install chromium chromium-driver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail('the browser tests need selenium: pip install -e ".[dev]"')
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1000,1100", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-default-apps",
                "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                "--disable-backgrounding-occluded-windows"):      # a page in a background tab keeps polling
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def requests_made(driver, answers: list | None = None) -> list[str]:
    """The URLs the page asked for since the last call (Chrome's performance log); `answers` gets the body of
    every answer to the game's API, as the page received it."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
        if answers is not None and message["method"] == "Network.responseReceived" and \
                "/api/" in message["params"]["response"]["url"]:
            answers.append(driver.execute_cdp_cmd("Network.getResponseBody",
                                                  {"requestId": message["params"]["requestId"]})["body"])
    return urls


def errors(driver) -> list:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def wait_for(driver, css: str, timeout: float = 30):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(lambda d: d.find_elements("css selector", css))


def screenshot(driver, name: str, tmp_path) -> Path:
    """A PNG of the page: checked here, and written to SCREENSHOTS_DIR when it is set (the docs' pictures)."""
    data = base64.b64decode(driver.get_screenshot_as_base64())
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    path = tmp_path / name
    path.write_bytes(data)
    if os.environ.get("SCREENSHOTS_DIR"):
        shutil.copy(path, Path(os.environ["SCREENSHOTS_DIR"]) / name)
    return path


@pytest.mark.parametrize("game", ["quando", "cabo", "help"])
def test_a_whole_game_is_played_by_clicks(browser, game, tmp_path):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.expected_conditions import staleness_of
    from selenium.webdriver.support.ui import WebDriverWait

    rng = np.random.default_rng(0)
    seed = 7_406_113_011
    with served(game, seed=seed) as server:
        requests_made(browser), errors(browser)
        browser.get(server.url())
        if game == "cabo":       # Cabo's snap windows pass by themselves: no pass is ever offered
            wait_for(browser, "#auto-pass-label:not([hidden])")[0].click()
            WebDriverWait(browser, 30).until(lambda d: not d.execute_script(PASS_OFFERED))
        clicks = 0
        while True:
            found = wait_for(browser, "[data-action], [data-game-over]")
            if found[0].get_attribute("data-game-over") is not None:
                break
            assert game != "cabo" or not browser.execute_script(PASS_OFFERED)
            button = found[int(rng.integers(len(found)))]
            try:
                button.click()
            except StaleElementReferenceException:     # the page was still drawing: look again
                continue
            clicks += 1
            WebDriverWait(browser, 30).until(staleness_of(button))   # the answer redraws the moves
        over = browser.find_element("css selector", "[data-game-over]")
        mine = [a for p, a in zip(played_by(server.session), server.session.record()["actions"]) if p == 0]
        passed = [a for a in mine if game == "cabo" and server.session.game.action_name(a) == "pass"]
        assert "Game over" in over.text and server.session.over() and clicks + len(passed) == len(mine)
        assert passed or game != "cabo"
        assert "view of player_0" in browser.find_element("css selector", "#table svg title").get_attribute(
            "textContent")
        browser.find_element("css selector", "[data-new-game]").click()
        wait_for(browser, "[data-action]")
        assert not browser.find_elements("css selector", "[data-game-over]") and server.session.games_played == 2
        port = server.server_address[1]
        answers = []
        urls = requests_made(browser, answers)
        told = [json.loads(a) for a in answers]
        assert told and all(str(seed) not in a for a, state in zip(answers, told) if not state["over"])
        assert any(f"seed was {seed}" in (state["result"] or "") for state in told)
        assert f"http://127.0.0.1:{port}/api/move" in urls and f"http://127.0.0.1:{port}/play.js" in urls
        assert all(u.startswith((f"http://127.0.0.1:{port}/", "data:")) for u in urls)
    assert errors(browser) == []


def click_card(driver, card) -> None:
    """A real click on a card of the table near its left edge: a pile's or a long hand's cards overlap to the
    right, each keeping its left strip in view."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).move_to_element_with_offset(card, -card.rect["width"] / 2 + 6, 0).click().perform()


@pytest.mark.parametrize("game", ["quando", "cabo", "help"])
def test_a_game_is_played_by_clicking_cards_and_the_agents_last_moves_are_marked(browser, game, tmp_path):
    """Every decision that a card fits is made by clicking a card the page offers (its tooltip naming moves of
    the list; a card several moves use is chosen, then another card tells which), the rest by buttons; the
    cards the agents moved are outlined with their names."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    rng = np.random.default_rng(2)
    where = ("return [document.getElementById('moves').dataset.turn, document.querySelectorAll('.qe-picked').length, "
             "document.querySelector('[data-game-over]') !== null]")
    seen = ("return [[...document.querySelectorAll('[data-mark]')].map((m) => m.dataset.mark), "
            "[...document.querySelectorAll('#table .qe-can')].map((c) => [c.getAttribute('data-at'), "
            "c.querySelector('title').textContent]), [...document.querySelectorAll('[data-action]')].map((b) => "
            "b.textContent)]")
    with served(game, seed=31, opponents="heuristic") as server:
        requests_made(browser), errors(browser)
        browser.get(server.url())
        if game == "cabo":
            wait_for(browser, "#auto-pass-label:not([hidden])")[0].click()
        by_card = by_button = chosen = 0
        marked = set()
        while True:
            wait_for(browser, "[data-action], [data-game-over]")
            before = browser.execute_script(where)
            if before[2]:
                break
            marks, cards, names = browser.execute_script(seen)
            marked |= set(marks)
            assert browser.execute_script(ON_TOP) == [], "an offered card's outline is hidden by another card"
            try:
                if game == "quando" and by_card == 6:
                    screenshot(browser, "browser-play.png", tmp_path)
                if cards:
                    at, told = cards[int(rng.integers(len(cards)))]
                    assert all(any(n.startswith(move) for n in names) for move in told.split(" or ")), told
                    click_card(browser, browser.find_element("css selector", f'#table [data-at="{at}"]'))
                    by_card += 1
                else:
                    buttons = browser.find_elements("css selector", "[data-action]")
                    buttons[int(rng.integers(len(buttons)))].click()
                    by_button += 1
            except StaleElementReferenceException:      # the page was still drawing: look again
                continue
            WebDriverWait(browser, 30, poll_frequency=0.05).until(lambda d: d.execute_script(where) != before)
            chosen += browser.execute_script(where)[1] > 0
        others = {f"player_{p}" for p in range(1, server.session.game.num_players)}
        assert server.session.over() and by_card > 2 * by_button and marked and marked <= others
        assert chosen or game != "quando"
        assert all(u.startswith((f"http://127.0.0.1:{server.port}/", "data:")) for u in requests_made(browser))
    assert errors(browser) == []


def played_by_clicks(driver, server, pages: dict, rng) -> dict:
    """Play the served game to its end by clicking a random move button in the page (`pages`: seat -> window)
    of whoever decides; {seat: clicks}."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.expected_conditions import staleness_of
    from selenium.webdriver.support.ui import WebDriverWait

    clicks = dict.fromkeys(pages, 0)
    while not server.session.over():
        seat = int(server.session.game.current_player[0])
        driver.switch_to.window(pages[seat])
        found = wait_for(driver, "[data-action]")
        button = found[int(rng.integers(len(found)))]
        try:
            button.click()
        except StaleElementReferenceException:
            continue
        clicks[seat] += 1
        WebDriverWait(driver, 30).until(staleness_of(button))
    return clicks


def test_two_people_play_one_game_together_each_in_their_own_page(browser):
    """serve --game cabo --players 2 --humans 2: a tab per seat, each clicking its own moves when its turn comes
    (the other page learns of them by asking the server), to the game's end in both."""
    rng = np.random.default_rng(1)
    with served("cabo", humans=2, seed=11) as server:
        requests_made(browser), errors(browser)
        pages = {0: browser.current_window_handle}
        browser.get(server.url(0))
        browser.switch_to.new_window("tab")
        browser.get(server.url(1))
        pages[1] = browser.current_window_handle
        clicks = played_by_clicks(browser, server, pages, rng)
        for seat, page in pages.items():
            browser.switch_to.window(page)
            over = wait_for(browser, "[data-game-over]")[0]
            assert "Game over" in over.text and f"seed was {server.session.seed}" in over.text
            title = browser.find_element("css selector", "#table svg title").get_attribute("textContent")
            assert title.endswith(f"view of player_{seat}")
        assert clicks[0] and clicks[1] and sum(clicks.values()) == len(server.session.record()["actions"])
        urls = requests_made(browser)
        assert all(u.startswith((f"http://127.0.0.1:{server.port}/", "data:")) for u in urls)
        browser.close()
        browser.switch_to.window(pages[0])
    assert errors(browser) == []


def test_two_people_and_a_spectator_are_told_every_move_and_shown_the_last_round(browser, tmp_path):
    """serve --game quando --players 3 --humans 2 read as people read it: the second person's narration names
    the moves the table shows (never "player_N decided."); every page, the spectator's too, is shown the last
    round's cards as it ends with its points as a table and the result in words; the page holds no terminal
    hint; the person's page offers the game's record once it is over, and downloads it."""
    from selenium.webdriver.support.ui import WebDriverWait

    rng = np.random.default_rng(3)
    with served("quando", humans=2, seed=12) as server:
        requests_made(browser), errors(browser)
        pages = {}
        for viewer in (None, 1, 0):
            if pages:
                browser.switch_to.new_window("tab")
            browser.get(server.url(viewer))
            pages[viewer] = browser.current_window_handle
        wait_for(browser, "[data-action]")
        assert not browser.find_elements("css selector", "[data-download]:not([hidden])") or \
            not browser.find_element("css selector", "#over").is_displayed()
        played_by_clicks(browser, server, pages, rng)
        told = {}
        for viewer, page in pages.items():
            browser.switch_to.window(page)
            over = wait_for(browser, "[data-game-over]")[0]
            told[viewer] = browser.find_element("css selector", "#log").text
            assert re.search(r"Game over: (you win|player_\d wins|.* tie for the win)", over.text), over.text
            assert "Round 1 is over: the cards are shown." in told[viewer] and "decided" not in told[viewer]
            table = browser.find_element("css selector", "#log table.points")
            assert table.find_element("css selector", "caption").text == "Round 1"
            assert len(table.find_elements("css selector", "tr")) == 4        # a head and a row per seat
            picture = browser.find_element("css selector", "#table svg").get_attribute("outerHTML")
            assert "round 1," in picture and "round 2," not in picture and "points [" not in picture
            assert "Type 'help'" not in browser.find_element("css selector", "body").text
        for other in ("player_0", "player_2"):
            assert re.search(rf"^{other} (discards|draws|takes)", told[1], re.M), told[1]
            assert re.search(rf"^{other} (discards|draws|takes)", told[None], re.M), told[None]
        assert re.search(r"^You (discard|draw|knock)", told[1], re.M)
        assert "You watch" in told[None] and not re.search(r"^You ", told[None], re.M)
        browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
        browser.switch_to.window(pages[1])
        browser.find_element("css selector", "[data-download]").click()
        WebDriverWait(browser, 30).until(lambda d: [p for p in tmp_path.glob("*.json")])
        path, = tmp_path.glob("*.json")
        WebDriverWait(browser, 30).until(lambda d: path.stat().st_size > 0)
        from quando_env import record as rec

        assert rec.verify(rec.load(path)) is True and rec.load(path) == server.session.record()
        urls = requests_made(browser)
        assert all(u.startswith((f"http://127.0.0.1:{server.port}/", "data:", "blob:")) for u in urls)
        for viewer in (1, None):
            browser.switch_to.window(pages[viewer])
            browser.close()
        browser.switch_to.window(pages[0])
    assert errors(browser) == []


def played_by(session) -> list[int]:
    """The seat that took each action of the session's game (replaying its record)."""
    from quando_env import record as rec

    return [seat for _, seat, _, _ in rec.replay(session.record())]


def test_a_replay_page_steps_through_and_back_from_any_seat(browser, tmp_path):
    from selenium.webdriver.support.ui import Select

    page = tmp_path / "replay.html"
    assert main(["replay", str(DATA / "cabo_record_v2.json"), "--html", str(page)]) == 0
    requests_made(browser), errors(browser)
    browser.get(page.as_uri())
    wait_for(browser, "[data-replay-next]")
    size = browser.get_window_size()
    browser.set_window_size(1280, 720 + browser.execute_script("return window.outerHeight - window.innerHeight"))
    table, side, view = browser.execute_script(
        "const box = (css) => document.querySelector(css).getBoundingClientRect(); return [box('#replay .table'), "
        "box('#replay .replay-side'), [window.innerWidth, window.innerHeight]]")
    assert view[1] <= 720 and table["bottom"] <= view[1] and side["bottom"] <= view[1], (table, side, view)
    assert side["left"] >= table["right"], "the move text beside the table"
    at = browser.find_element("css selector", "[data-replay-at]")
    assert "proven" in browser.find_element("css selector", "[data-replay-proof]").text
    forward = browser.find_element("css selector", "[data-replay-next]")
    back = browser.find_element("css selector", "[data-replay-prev]")
    last = 45                            # the record's actions: positions 0..45
    pictures = set()
    for k in range(last):
        assert at.text.startswith(f"position {k} of {last}")
        pictures.add(browser.find_element("css selector", "#replay svg").get_attribute("outerHTML"))
        forward.click()
    assert at.text == f"position {last} of {last} (after the last action)" and not forward.is_enabled()
    for k in range(last, 0, -1):
        back.click()
    assert at.text.startswith("position 0 of") and not back.is_enabled() and len(pictures) > last // 2
    Select(browser.find_element("css selector", "[data-replay-seat]")).select_by_visible_text("player_1")
    jump = browser.find_element("css selector", "[data-replay-position]")
    jump.clear()
    jump.send_keys("30\n")
    assert at.text.startswith("position 30 of")
    title = browser.find_element("css selector", "#replay svg title").get_attribute("textContent")
    assert title.endswith("view of player_1")
    screenshot(browser, "browser-replay.png", tmp_path)
    browser.set_window_size(size["width"], size["height"])
    urls = requests_made(browser)
    assert page.as_uri() in urls and all(u.startswith(("file:", "data:")) for u in urls)
    assert errors(browser) == []


def test_a_record_chosen_in_the_served_page_is_replayed(browser):
    with served("cabo") as server:
        requests_made(browser), errors(browser)
        browser.get(server.url())
        wait_for(browser, "[data-action]")
        browser.find_element("css selector", "#record").send_keys(str(DATA / "help_record_v2.json"))
        forward = wait_for(browser, "[data-replay-next]")[0]
        forward.click()
        assert browser.find_element("css selector", "[data-replay-at]").text.startswith("position 1 of 118")
        assert "proven" in browser.find_element("css selector", "[data-replay-proof]").text
        port = server.server_address[1]
        urls = requests_made(browser)
        assert f"http://127.0.0.1:{port}/api/replay" in urls
        assert all(u.startswith((f"http://127.0.0.1:{port}/", "data:")) for u in urls)
    assert errors(browser) == []
