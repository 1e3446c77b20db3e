"""VectorGame under long random play: invariants checked at every decision, determinism across seeds,
batch sizes and slots (including autoreset), and the errors for bad input. Rule ids refer to
quando_env/quando/RULES.md."""
import functools

import numpy as np
import pytest

from quando_env import NUM_ACTIONS, VectorGame
from quando_env.quando import engine as E

NUM_CARDS = 55
KNOCK, PASS = 119, 120
CONFIGS = [(n, edition) for n in range(2, 7) for edition in ("kendi", "oya")]
# 6 players with 9 cards each leave one card to draw: the piles run dry (R11, D2) all the time.
STRESS = [(6, "kendi", 9), (6, "oya", 9)]


# ---------------------------------------------------------------- policies
def pick(mask, rng, knock_weight=1.0):
    """A random legal action per game; knock_weight < 1 makes knocking rarer (0: never, if anything else
    is legal), so rounds run long and the piles get exhausted and refilled."""
    r = rng.random(mask.shape)
    r[:, KNOCK] *= knock_weight
    r[~mask] = -1.0
    return r.argmax(axis=1)


def first_legal(game):
    return game.legal_action_mask.argmax(axis=1).astype(np.int64)


# ---------------------------------------------------------------- invariants
def invariant_violations(game) -> dict:
    """Which invariants fail now, as {name: slots where it fails} (empty lists when all hold)."""
    s = game.states
    n = game.num_players
    b = game.num_games
    loc = s["loc"].astype(np.int64)
    pos = np.arange(NUM_CARDS)[None, :]
    base = np.arange(b)[:, None] * NUM_CARDS

    def pile_count(cards, size):
        listed = pos < size[:, None]
        return np.bincount((base + cards.astype(np.int64))[listed], minlength=b * NUM_CARDS).reshape(b, NUM_CARDS)

    in_draw = pile_count(s["draw"], s["ndraw"].astype(np.int64))
    in_disc = pile_count(s["disc"], s["ndisc"].astype(np.int64))
    in_hand = (loc < n).astype(np.int64)
    nhand = s["nhand"].astype(np.int64)
    held = np.stack([(loc == p).sum(axis=1) for p in range(n)], axis=1)
    live = s["phase"] != E.PH_OVER
    cur = s["cur"].astype(np.int64)
    bad = {
        # R1: each of the 55 cards is exactly once in a hand, the draw pile or the discard pile ...
        "card_once": ~((in_draw + in_disc + in_hand) == 1).all(axis=1),
        # ... and where the pile lists say it is.
        "loc_valid": ~((loc < n) | (loc == E.LOC_DRAW) | (loc == E.LOC_DISCARD)).all(axis=1),
        "pile_lists": ~((in_draw == (loc == E.LOC_DRAW)) & (in_disc == (loc == E.LOC_DISCARD))).all(axis=1),
        "hand_counts": ~((nhand[:, :n] == held).all(axis=1) & (nhand[:, n:] == 0).all(axis=1)),
        # R11: never an empty draw pile while the discard pile has cards.
        "R11": (s["ndraw"] == 0) & (s["ndisc"] > 0),
        # Spec "Actions": every decision point has at least one legal action, of a seat in the game.
        "legal_action": live & ~(game.legal_action_mask.any(axis=1) & (cur >= 0) & (cur < n)),
        # R8, R14: only the active player's hand empties, and only in the middle of a turn (after the
        # discard, before the draw); a turn or an oya knock decision never starts with an empty hand.
        "R8": live & (((nhand[:, :n] < 1) & (np.arange(n)[None, :] != s["active"][:, None])).any(axis=1)
                      | (np.isin(s["phase"], (E.PH_ACT, E.PH_KNOCK))
                         & (nhand[np.arange(b), s["active"].astype(np.int64)] < 1))),
    }
    return {k: np.flatnonzero(v).tolist() for k, v in bad.items()}


@functools.lru_cache(maxsize=None)
def long_run(n, edition, policy, hand_size=None):
    """Play a batch with autoreset, checking the invariants after reset and every step. Returns what was
    seen: first violations per invariant, episode lengths by how they ended, pile events."""
    if policy == "mixed":       # half uniform (sample_actions' streams), half knocking rarely
        b, steps, max_steps = 256, 1500, 500
    else:                       # "never_knock": only R14 can end a round, so D6 must end the episode
        b, steps, max_steps = 64, 400, 100
    rng = np.random.default_rng(1000 * n + len(edition))
    game = VectorGame(b, seed=n, num_players=n, edition=edition, max_steps=max_steps, hand_size=hand_size)
    half = np.arange(b // 2)
    out = {"violations": {}, "terminated": [], "truncated": [], "both_flags": 0, "over_limit": 0,
           "steps_mismatch": 0, "refills": 0, "both_piles_empty": 0, "rounds": 0, "max_steps": max_steps}
    ep_len = np.zeros(b, np.int64)

    def check(t):
        for name, slots in invariant_violations(game).items():
            if slots and name not in out["violations"]:
                out["violations"][name] = f"step {t}, games {slots[:5]}"

    check(0)
    for t in range(1, steps + 1):
        if policy == "mixed":
            a = pick(game.legal_action_mask, rng, knock_weight=0.02)
            a[half] = game.sample_actions(games=half)
        else:
            a = pick(game.legal_action_mask, rng, knock_weight=0.0)
        before = game.states["ndisc"].copy()
        game.step(a)
        ep_len += 1
        term, trunc = game.game_over, game.truncated
        ended = term | trunc
        out["both_flags"] += int((term & trunc).sum())
        out["over_limit"] += int((ep_len > max_steps).sum() + (trunc & (ep_len != max_steps)).sum())
        out["terminated"] += ep_len[term].tolist()
        out["truncated"] += ep_len[trunc].tolist()
        out["rounds"] += int(game.round_over.sum())
        ep_len[ended] = 0
        # The engine's own step counter follows the episode (autoreset restarts it at 0).
        out["steps_mismatch"] += int((game.states["steps"] != ep_len).sum())
        out["refills"] += int(((before > 0) & (game.states["ndisc"] == 0) & ~game.round_over).sum())
        out["both_piles_empty"] += int(((game.states["ndraw"] == 0) & (game.states["ndisc"] == 0)).sum())
        check(t)
    return out


ALL_RUNS = [(n, e, "mixed", None) for n, e in CONFIGS] + [(n, e, "never_knock", None) for n, e in CONFIGS] \
    + [(n, e, "mixed", h) for n, e, h in STRESS]
RUN_IDS = [f"{n}p-{e}-{p}" + (f"-hand{h}" if h else "") for n, e, p, h in ALL_RUNS]


@pytest.mark.parametrize("run", ALL_RUNS, ids=RUN_IDS)
def test_R1_every_card_exactly_once_across_hands_and_piles(run):
    v = long_run(*run)["violations"]
    for name in ("card_once", "loc_valid", "pile_lists", "hand_counts"):
        assert name not in v, f"{name} broken at {v[name]}"


@pytest.mark.parametrize("run", ALL_RUNS, ids=RUN_IDS)
def test_R11_draw_pile_never_empty_while_discard_has_cards(run):
    out = long_run(*run)
    assert "R11" not in out["violations"], out["violations"]["R11"]
    if run[2] == "mixed":
        assert out["refills"] > 0, "the run never refilled the draw pile, so R11 was not exercised"


@pytest.mark.parametrize("run", [r for r in ALL_RUNS if r[3] == 9], ids=lambda r: f"{r[0]}p-{r[1]}")
def test_D2_both_piles_empty_occurs_and_play_goes_on(run):
    out = long_run(*run)
    assert out["both_piles_empty"] > 0
    assert not out["violations"], out["violations"]


@pytest.mark.parametrize("run", ALL_RUNS, ids=RUN_IDS)
def test_player_to_move_always_has_a_legal_action(run):
    v = long_run(*run)["violations"]
    assert "legal_action" not in v, v["legal_action"]


@pytest.mark.parametrize("run", ALL_RUNS, ids=RUN_IDS)
def test_R8_hands_are_never_empty_between_turns(run):
    v = long_run(*run)["violations"]
    assert "R8" not in v, v["R8"]


@pytest.mark.parametrize("run", ALL_RUNS, ids=RUN_IDS)
def test_D6_every_episode_ends_by_termination_or_truncation(run):
    out = long_run(*run)
    assert out["both_flags"] == 0, "an episode was flagged both terminated and truncated"
    assert out["over_limit"] == 0, "an episode ran past max_steps or was truncated before it"
    assert out["steps_mismatch"] == 0, "states['steps'] does not count the episode's decisions"
    assert out["rounds"] > 0
    if run[2] == "mixed":
        assert out["terminated"], "no episode ended by the rules"
    else:
        # Never knocking, rounds end only by R14; the step limit must end the rest.
        assert out["truncated"], "no episode was truncated although nobody ever knocks"
        assert set(out["truncated"]) == {out["max_steps"]}


def test_D6_truncation_catches_a_policy_that_never_ends_the_round():
    """First legal action discards one low card at a time and never knocks; D6 must still end every game."""
    game = VectorGame(32, seed=5, num_players=3, max_steps=80, autoreset=False)
    truncated = np.zeros(32, bool)
    for _ in range(80):
        game.step(first_legal(game))
        truncated |= game.truncated
    assert truncated.sum() > 16, "most of these games only end by the step limit"
    assert (game.states["phase"] == E.PH_OVER).all()
    assert not game.legal_action_mask.any()
    assert (game.current_player == -1).all()
    # Over games ignore their action (no error, nothing changes).
    before = game.states.copy()
    rewards = game.step(np.zeros(32, np.int64))
    assert (rewards == 0).all() and (game.states == before).all()


# ---------------------------------------------------------------- determinism
def trajectory(game, steps, policy, games=None):
    """Per step: observations, masks, rewards and flags of the listed slots (all by default)."""
    rows = np.arange(game.num_games) if games is None else np.asarray(games)
    rec = {"obs": [game.observe()[rows]], "mask": [game.legal_action_mask[rows].copy()], "rew": [], "flags": []}
    for _ in range(steps):
        a = game.sample_actions() if policy == "sample" else first_legal(game)
        rec["rew"].append(game.step(a)[rows])
        rec["obs"].append(game.observe()[rows])
        rec["mask"].append(game.legal_action_mask[rows].copy())
        rec["flags"].append(np.stack([game.round_over, game.game_over, game.truncated], 1)[rows])
    return {k: np.array(v) for k, v in rec.items()}


def assert_same(t1, t2):
    for k in t1:
        np.testing.assert_array_equal(t1[k], t2[k], err_msg=k)


@pytest.mark.parametrize("edition", ["kendi", "oya"])
def test_same_seed_same_vector_trajectory(edition):
    cfg = dict(num_players=4, edition=edition, episode="round")
    t1 = trajectory(VectorGame(16, seed=11, **cfg), 300, "sample")
    t2 = trajectory(VectorGame(16, seed=11, **cfg), 300, "sample")
    assert_same(t1, t2)
    assert t1["flags"][:, :, 1].sum() > 0  # episodes ended and were reset inside the compared stretch
    t3 = trajectory(VectorGame(16, seed=12, **cfg), 1, "sample")
    assert not np.array_equal(t1["obs"][0], t3["obs"][0]), "another seed deals the same games"


def test_reset_with_the_same_seed_replays_the_same_games():
    game = VectorGame(8, seed=3, num_players=5, edition="oya")
    t1 = trajectory(game, 200, "sample")
    game.reset(seed=3)
    assert_same(t1, trajectory(game, 200, "sample"))


@pytest.mark.parametrize("edition", ["kendi", "oya"])
@pytest.mark.parametrize("policy", ["sample", "first_legal"])
def test_game_does_not_depend_on_batch_size_or_slot(edition, policy):
    """Slot i of a batch seeded s plays as a batch of one seeded s + i, through autoresets."""
    cfg = dict(num_players=3, edition=edition, episode="round", max_steps=60)
    seed, slots, steps = 40, [0, 3, 6], 250
    batch = trajectory(VectorGame(7, seed=seed, **cfg), steps, policy, games=slots)
    assert batch["flags"][:, :, 1:].sum() >= 3 * len(slots), "too few episodes ended to test autoreset"
    for j, i in enumerate(slots):
        single = trajectory(VectorGame(1, seed=seed + i, **cfg), steps, policy)
        assert_same({k: v[:, j] for k, v in batch.items()}, {k: v[:, 0] for k, v in single.items()})


def aec_trajectory(env, seed, policy_seed):
    """A whole AEC game: per step every agent's observation and mask, the rewards, infos and state."""
    env.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    out = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        views = [env.observe(a) for a in env.agents]
        out.append((agent, reward, term, trunc, info, env.unwrapped.state(),
                    [v["observation"] for v in views], [v["action_mask"] for v in views]))
        w = obs["action_mask"] * np.where(np.arange(NUM_ACTIONS) == KNOCK, 0.05, 1.0)  # knock rarely
        env.step(None if term or trunc else int(rng.choice(NUM_ACTIONS, p=w / w.sum())))
    return out


def assert_same_aec(t1, t2):
    assert len(t1) == len(t2)
    for s1, s2 in zip(t1, t2):
        assert s1[:5] == s2[:5]
        for x, y in zip(s1[5:], s2[5:]):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


@pytest.mark.parametrize("edition", ["kendi", "oya"])
def test_same_seed_same_aec_trajectory(edition):
    import quando_env
    make = lambda: quando_env.env(num_players=4, edition=edition, hand_size=11)  # noqa: E731 (few cards to draw)
    env = make()
    t1 = aec_trajectory(env, 21, 1)
    assert len(t1) > 100
    if edition == "oya":
        assert env.unwrapped.game_record()["reshuffles"], "the game should include oya's random reshuffles"
    assert_same_aec(t1, aec_trajectory(make(), 21, 1))   # another env
    assert_same_aec(t1, aec_trajectory(env, 21, 1))      # the same env, reset again
    t2 = aec_trajectory(make(), 22, 1)
    assert not np.array_equal(t1[0][6][0], t2[0][6][0]), "another seed deals the same game"


def test_invariant_checks_catch_broken_states():
    """The invariant checker itself fails on each kind of broken state (so the long runs can fail)."""
    game = VectorGame(1, seed=0, num_players=3, edition="oya")
    assert not any(invariant_violations(game).values())
    s = game.states
    top = int(s["draw"][0, s["ndraw"][0] - 1])
    broken = {
        "card_once": lambda: s["draw"][0].__setitem__(s["ndraw"][0] - 2, top),
        "pile_lists": lambda: s["loc"][0].__setitem__(top, E.LOC_DISCARD),
        "hand_counts": lambda: s["nhand"][0].__setitem__(1, 5),
        "R11": lambda: (s["ndisc"].__setitem__(0, 1), s["ndraw"].__setitem__(0, 0)),
        "legal_action": lambda: game.masks[0].__setitem__(slice(None), 0),
        "R8": lambda: s["nhand"][0].__setitem__(2, 0),
    }
    for name, breaks in broken.items():
        saved, masks = game.states.copy(), game.masks.copy()
        breaks()
        assert invariant_violations(game)[name] == [0], name
        game.states[:], game.masks[:] = saved, masks


def test_stepping_a_subset_of_slots_leaves_the_others_alone_and_matches_full_steps():
    cfg = dict(num_players=4, edition="oya")
    full = VectorGame(6, seed=9, **cfg)
    part = VectorGame(6, seed=9, **cfg)
    waiting = part.states[[1, 4]].copy()
    for _ in range(150):
        full.step(full.sample_actions())
        part.step(part.sample_actions(games=[0, 2, 3, 5]), games=[0, 2, 3, 5])
    assert (part.states[[1, 4]] == waiting).all()
    for g in (0, 2, 3, 5):
        assert part.states[g] == full.states[g]


# ---------------------------------------------------------------- bad input
@pytest.fixture
def game():
    return VectorGame(3, seed=1, num_players=4)


@pytest.mark.parametrize("actions", [np.zeros(2, np.int64), np.zeros(4, np.int64), np.zeros((3, 1), np.int64),
                                     np.zeros(3, np.float64), ["19", "19", "19"], 19],
                         ids=["short", "long", "2d", "float", "str", "scalar"])
def test_step_rejects_actions_of_wrong_shape_or_dtype(game, actions):
    before = game.states.copy()
    with pytest.raises(ValueError, match=r"actions must be 3 integers"):
        game.step(actions)
    assert (game.states == before).all()


@pytest.mark.parametrize("bad", [-1, NUM_ACTIONS, 10_000])
def test_step_rejects_out_of_range_actions(game, bad):
    a = first_legal(game)
    a[2] = bad
    before = game.states.copy()
    with pytest.raises(ValueError, match=rf"game 2, player 0 to move: action {bad} is out of range 0\.\.133"):
        game.step(a)
    assert (game.states == before).all()


def test_step_rejects_an_illegal_action_naming_game_action_and_legal_ones(game):
    a = first_legal(game)
    a[1] = 121  # a draw decision while the active player must discard
    before = game.states.copy()
    with pytest.raises(ValueError) as err:
        game.step(a)
    msg = str(err.value)
    assert "game 1" in msg and "action 121 (take the visible side) is illegal" in msg
    legal = np.flatnonzero(game.legal_action_mask[1])
    assert legal.size and all(f"{x} (" in msg.split("legal:")[1] for x in legal)
    assert (game.states == before).all(), "a rejected step must not change any game"


@pytest.mark.parametrize("num_games", [0, -2, 2.5, "4", None])
def test_bad_num_games(num_games):
    with pytest.raises(ValueError, match=r"num_games=.*an integer 1\.\."):
        VectorGame(num_games)


def test_bad_seeds_length(game):
    with pytest.raises(ValueError, match="got 2 seeds for 3 games"):
        game.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="got 3 seeds for 1 games"):
        game.reset(seed=[1, 2, 3], games=[0])


@pytest.mark.parametrize("dealer", [-1, 4, 1.0, "0"])
def test_R6_bad_dealer(game, dealer):
    with pytest.raises(ValueError, match=r"dealer=.*a seat 0\.\.3"):
        game.reset(seed=0, dealer=dealer)


@pytest.mark.parametrize("games", [[3], [-1]])
def test_bad_slots(game, games):
    with pytest.raises(ValueError, match=r"games=.* is not allowed: integers 0\.\.2"):
        game.reset(seed=0, games=games)
    with pytest.raises(ValueError, match=r"games=.* is not allowed: integers 0\.\.2"):
        game.step([19], games=games)


@pytest.mark.parametrize("players", [-1, 4])
def test_observe_rejects_bad_seats(game, players):
    with pytest.raises(ValueError, match=r"players=.* is not allowed: integers 0\.\.3"):
        game.observe(players)


def test_R6_dealer_and_first_player_after_reset(game):
    game.reset(seed=2, dealer=1)
    assert (game.states["dealer"] == 1).all() and (game.current_player == 2).all()
