"""The agents at a table's other seats, by name, for every front end (terminal play, the browser, warmup): the
names checked before a game starts, each agent built with its own seed, and the one error type a front end
reports in one line. Every name, random included, means what quando_env.agents says (through named_agents)."""
from . import named_agents


class PlayError(Exception):
    """A problem to report to the user in one line (bad option, opponent not available, agent failure)."""


def opponent_names(spec: str, n: int, humans: int = 1) -> list[str]:
    """The agents' names of `spec` for the n - humans agent seats of an n-player table, as the agents package
    spells them: one name for all, or one per agent seat separated by commas."""
    k = n - humans
    names = [x.strip() for x in str(spec).split(",")]
    if any(not x for x in names) or len(names) not in (1, k):
        raise PlayError(f"{spec!r}: give one name for all {k} opponents or {k} names "
                        f"separated by commas (names: {named_agents.names_help()})")
    try:
        names = [named_agents.spelled(x) for x in names]
    except named_agents.Unavailable as e:
        raise PlayError(str(e)) from None
    return names * k if len(names) == 1 else names


def check_opponents(spec: str, n: int, game: str, humans: int = 1) -> list[str]:
    """The opponents' names of --opponents for n players (`humans` of them people), each checked by the agents
    package's check_agent without building anything; PlayError for a bad one."""
    names = opponent_names(spec, n, humans)
    for name in sorted(set(names)):
        try:
            named_agents.check(name, game, n)
        except Exception as e:
            raise PlayError(str(e)) from None
    return names


def make_opponent(name: str, seat: int, seed: int, game, options: dict | None = None):
    """The opponent `name` for `seat` of `game` (played with the game's `options`, e.g. edition)."""
    try:
        return named_agents.make(name, game.name, game.num_players, seed=seed, options=options)
    except Exception as e:
        raise PlayError(f"could not create the {name!r} opponent: {type(e).__name__}: {e}") from None
