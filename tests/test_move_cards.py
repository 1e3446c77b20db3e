"""Where a move's cards lie and which cards a step marks (Game.move_cards, moved_cards, card_place), for the
browser page: every place names a card the views show, the cards of distinct moves differ, and a move's cards
depend only on what the mover has seen: unchanged over worlds sampled from a seat's observation (the game's
sample_states), while a planted leak fails that same check. That the marks, as the page is sent them, depend
only on what the viewer saw is tested byte for byte over HTTP in test_web_twins.py."""
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
