"""League: several agents round robin, rated with OpenSkill (Plackett-Luce) from each game's final order (the
game's own: evaluation.matches.places)."""
from functools import partial
from itertools import combinations

from .matches import COLUMNS, AgentFailed, Interrupted, SeatStats, build_agents, format_table, has_knock, play_match

LINEUP_SEED_STEP = 100_003    # lineup l of a league plays the games seeded seed + 100_003 l + j


def lineups(names: list, num_players: int) -> list[tuple]:
    """Every set of num_players distinct entrants (round robin); with fewer entrants than seats, one lineup of
    them all, whose extra seats rotate among them game by game (evaluation.matches)."""
    if len(names) < 2:
        raise ValueError("a league needs at least two agents")
    if len(set(names)) != len(names):
        raise ValueError(f"league entrants must be distinct, got {names}")
    if len(names) >= num_players:
        return list(combinations(names, num_players))
    return [tuple(names)]


def play_league(factories: dict, games_per_lineup: int, seed: int = 0, num_players: int = 4,
                progress: bool = True, batch_size: int = 256, runner=None, *, game: str, **config) -> dict:
    """Round robin of the agents built by factories {name: () -> agent}; returns ratings and pooled stats.
    With a runner (see play_match), its tasks build each lineup's agents from the factories (which Ray ships
    with cloudpickle).

    Ctrl-C raises evaluation.Interrupted with the result of the games played so far.

    Each game updates the ratings once: every entrant in the lineup is a team (its seats), ranked by its
    best seat's place in that game (evaluation.matches.places: the game's winners first, then the final totals
    in the game's direction; ties share a rank). The stats hold knock counts only for a game with a knock."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in factories}
    stats = {name: SeatStats() for name in factories}
    agents = {name: make() for name, make in factories.items()} if runner is None else None
    table = lineups(list(factories), num_players)
    played = 0
    for li, lineup in enumerate(table):
        entrants = [agents[x] for x in lineup] if runner is None else \
            partial(build_agents, [factories[x] for x in lineup])
        try:
            res = play_match(entrants, games_per_lineup, seed=seed + LINEUP_SEED_STEP * li, names=list(lineup),
                             progress=progress, desc=" vs ".join(lineup), batch_size=batch_size, runner=runner,
                             num_players=num_players, game=game, **config)
        except Interrupted as stop:
            rate(model, ratings, stats, stop.result)
            raise Interrupted(league_result(ratings, stats, table, games_per_lineup,
                                            played + len(stop.result.places), game)) from None
        except AgentFailed as stop:
            rate(model, ratings, stats, stop.result)
            raise AgentFailed(league_result(ratings, stats, table, games_per_lineup,
                                            played + len(stop.result.places), game), stop.error) from stop.error
        rate(model, ratings, stats, res)
        played += len(res.places)
    return league_result(ratings, stats, table, games_per_lineup, played, game)


def rate(model, ratings: dict, stats: dict, res) -> None:
    """Add one lineup's match (res, a MatchResult: one place per entrant and game, its best seat's) to the
    league's stats and ratings, game by game."""
    for name, st in zip(res.names, res.stats):
        stats[name].add(st)
    for place in res.places:
        new = model.rate([[ratings[t]] for t in res.names], ranks=[float(x) for x in place])
        for t, team in zip(res.names, new):
            ratings[t] = team[0]


def league_result(ratings: dict, stats: dict, table: list, games_per_lineup: int, played: int, game: str) -> dict:
    """What play_league returns: the entrants by rating (best first) with their pooled stats."""
    out = {}
    for name in ratings:
        r = ratings[name]
        out[name] = {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal(), **stats[name].summary(has_knock(game))}
    order = sorted(out, key=lambda k: -out[k]["ordinal"])
    return {"lineups": [list(x) for x in table], "games_per_lineup": games_per_lineup, "games_played": played,
            "ratings": {k: out[k] for k in order}}


RATING_COLUMNS = [("ordinal", "ordinal", 9, ".2f"), ("mu", "mu", 9, ".2f"), ("sigma", "sigma", 8, ".2f")] + \
    [c for c in COLUMNS if c[0] in ("games", "win_rate", "mean_round_points")]


def format_ratings(result: dict, higher_total_wins: bool = False) -> str:
    """The league's table, best first (evaluation.format_table's, with the ratings)."""
    return format_table(result["ratings"], higher_total_wins=higher_total_wins, columns=RATING_COLUMNS)
