"""Where a move's cards lie and which cards a step marks (Game.move_cards, moved_cards, card_place), for the
browser page: every place names a card the views show, the cards of distinct moves differ, a move's cards
depend only on what the mover has seen and a step's marks only on what every seat saw: unchanged over worlds
sampled from a seat's observation (the game's sample_states), while a planted leak fails that same check."""
import numpy as np
import pytest

from quando_env.quando.cards import CARD_VALUES, is_set, set_count, set_value
from quando_env.quando.render import hand
from quando_env.registry import game_class
from quando_env.tableview import place

CASES = [("quando", 3, {}), ("quando", 4, {"edition": "oya"}), ("cabo", 3, {}), ("help", 4, {})]


def steps(name, n, rules, games=12, count=120):
    """(game, states before, actions) along random play of a batch of games; the caller takes each step."""
    g = game_class(name)(games, seed=n, num_players=n, episode="round", **rules)
    for _ in range(count):
        yield g, g.states.copy(), g.sample_actions()


def shown(view) -> set:
    """The places of the cards (and of their faces) a TableView shows."""
    out = set()
    for area, zones in (("s", view.seats), ("t", view.table)):
        for z, zone in enumerate(zones):
            for i, card in enumerate(zone.cards):
                if card is not None:
                    out |= {place(area, z, i)} | {place(area, z, i, f) for f in range(len(card.faces))}
    return out


def alike(game, i, places, world, w, found, seat=0) -> bool:
    """Whether `found`, places in world w, are `places` of game i: the same places where seat's views of the two
    are the same, else (a sample keeps what the seat's observation holds, not Quando's hand order) the same
    cards as the seat sees them, zone by zone."""
    view, other = game.table_view(i, seat), world.table_view(w, seat)
    if view == other:
        return list(places) == list(found)

    def seen(v, at):
        zone, index, *face = at[1:].split(".")
        card = (v.seats if at[0] == "s" else v.table)[int(zone)].cards[int(index)]
        return repr((at[0] + zone, card.faces[int(face[0])] if face else card))
    return sorted(seen(view, at) for at in places) == sorted(seen(other, at) for at in found)


def marked(game, i, before, a) -> list:
    return sorted(p for p in (game.card_place(i, h) for h in game.moved_cards(i, before, a)) if p is not None)


@pytest.mark.parametrize("name,n,rules", CASES)
def test_every_place_is_a_card_of_the_views_and_distinct_moves_have_distinct_cards(name, n, rules):
    clicked = marks = 0
    for g, before, actions in steps(name, n, rules, games=8, count=40):
        for i in range(g.num_games):
            p = int(g.current_player[i])
            cards = [g.move_cards(i, a) for a in np.flatnonzero(g.legal_action_mask[i])]
            assert set().union(*cards) <= shown(g.table_view(i, p))
            with_cards = [frozenset(c) for c in cards if c]
            assert len(set(with_cards)) == len(with_cards) and all(len(c) == len(set(c)) for c in cards)
            clicked += len(with_cards)
        g.step(actions)
        for i in np.flatnonzero(~g.round_over):
            places = marked(g, i, before[i], actions[i])
            assert all(set(places) <= shown(g.table_view(i, q)) for q in range(n))
            marks += len(places)
    assert clicked > 100 and marks > 50


def same_for_the_mover(name, n, rules, cards_of, worlds=4, most=40) -> tuple[int, int]:
    """(positions checked, positions where some legal move's cards differ in a world sampled from the mover's
    observation); only positions where seat 0 moves (a sample's seats are the observer's, seat 0 first)."""
    cls = game_class(name)
    probe = cls(worlds, seed=0, autoreset=False, num_players=n, **rules)
    checked = differ = 0
    for g, _, actions in steps(name, n, rules):
        obs = g.observe()
        for i in np.flatnonzero(g.current_player == 0):
            if checked == most:
                return checked, differ
            probe.load_states(cls.sample_states(obs[i], worlds, g.config, seed=checked))
            legal = np.flatnonzero(g.legal_action_mask[i])
            checked += 1
            differ += any(not alike(g, i, cards_of(g, i, a), probe, w, cards_of(probe, w, a))
                          for a in legal for w in range(worlds))
        g.step(actions)
    return checked, differ


def quando_leak(game, i, a):
    """A planted leak: a set's cards chosen by their backs as they are, seen or not."""
    if not is_set(a):
        return game.move_cards(i, a)
    s = game.states[i]
    p = int(s["cur"])
    mine = hand(s, p)
    cards = sorted((c for c in mine if CARD_VALUES[c, s["face"][c]] == set_value(a)),
                   key=lambda c: -CARD_VALUES[c, 1 - s["face"][c]])[:set_count(a)]
    return tuple(place("s", p, mine.index(c)) for c in cards)


@pytest.mark.parametrize("name,n,rules", CASES)
def test_a_moves_cards_are_the_same_in_every_world_the_mover_cannot_tell_apart(name, n, rules):
    checked, differ = same_for_the_mover(name, n, rules, lambda g, i, a: g.move_cards(i, a))
    assert checked == 40 and differ == 0


def test_a_planted_leak_in_a_moves_cards_fails_the_same_check():
    checked, differ = same_for_the_mover("quando", 3, {}, quando_leak, most=120)
    assert checked == 120 and differ > 0


def same_for_an_onlooker(name, n, rules, marks_of, worlds=8, most=40) -> tuple[int, int]:
    """(steps checked, steps whose marks differ in a world seat 0 cannot tell from the real one, before the
    step and after it: sampled from its observation before, kept where its observation after is the same);
    only steps of other seats."""
    cls = game_class(name)
    probe = cls(worlds, seed=0, autoreset=False, num_players=n, episode="round", **rules)
    checked = differ = 0
    for g, before, actions in steps(name, n, rules):
        onlooker = np.flatnonzero(g.current_player > 0)[:most - checked]
        obs = g.observe(players=np.zeros(g.num_games, np.int64))
        worlds_of = {}
        for i in onlooker:
            probe.load_states(cls.sample_states(obs[i], worlds, g.config, seed=int(i) + 100 * checked))
            start = probe.states.copy()
            legal = probe.legal_action_mask[:, actions[i]]
            probe.step(np.where(legal, actions[i], probe.sample_actions()))
            worlds_of[i] = (probe.states.copy(), legal & ~probe.round_over,
                            probe.observe(players=np.zeros(worlds, np.int64)),
                            [marks_of(probe, w, start[w], actions[i]) for w in range(worlds)])
        g.step(actions)
        after = g.observe(players=np.zeros(g.num_games, np.int64))
        for i, (ends, usable, seen, found) in worlds_of.items():
            same = [w for w in range(worlds) if usable[w] and (seen[w] == after[i]).all()]
            if same and not g.round_over[i]:
                checked += 1
                probe.load_states(ends)
                places = marks_of(g, i, before[i], actions[i])
                differ += any(not alike(g, i, places, probe, w, found[w]) for w in same)
        if checked >= most:
            break
    return checked, differ


def cabo_leak(game, i, before, a):
    """A planted leak: a step also marks the mover's highest-ranked card (Cabo's card ids grow with the rank)."""
    p = int(before["cur"])
    return marked(game, i, before, a) + [place("s", p, int(np.argmax(game.states[i]["slot"][p])))]


@pytest.mark.parametrize("name,n,rules", CASES)
def test_a_steps_marks_are_the_same_in_every_world_an_onlooker_cannot_tell_apart(name, n, rules):
    checked, differ = same_for_an_onlooker(name, n, rules, marked)
    # few of Quando's steps are checked: a discard is seldom legal in a world where the onlooker does not see the
    # mover's fronts, and a draw shows the draw pile's next top, which the worlds do not share
    assert checked >= (5 if name == "quando" else 40) and differ == 0


def test_a_planted_leak_in_the_marks_fails_the_same_check():
    checked, differ = same_for_an_onlooker("cabo", 3, {}, cabo_leak)
    assert checked == 40 and differ > 0
