"""PNG charts of evaluation results (matplotlib, headless)."""
from pathlib import Path


def pyplot():
    """matplotlib.pyplot on the headless Agg backend (charts are files, never windows)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def summary_figures(summary: dict, title: str = "", higher_total_wins: bool = False) -> dict:
    """{file name: figure}: win_rate.png (with 95% intervals) and round_points.png (higher_total_wins: the game's,
    Game.higher_total_wins, says which way is better); title names the game (e.g. "help, 4 players")."""
    plt = pyplot()
    names = list(summary)
    wr = [summary[k]["win_rate"] for k in names]
    lo = [max(0.0, summary[k]["win_rate"] - summary[k]["win_rate_ci95"][0]) for k in names]
    hi = [max(0.0, summary[k]["win_rate_ci95"][1] - summary[k]["win_rate"]) for k in names]
    figs = {}
    fig, ax = plt.subplots(figsize=(1.6 * len(names) + 2, 3.5))
    ax.bar(names, wr, yerr=[lo, hi], capsize=6, color="tab:blue")
    ax.set_ylabel("win rate (95% CI)")
    ax.set_ylim(0, 1)
    ax.set_title(f"win rate ({title})" if title else "win rate")
    figs["win_rate.png"] = fig
    fig, ax = plt.subplots(figsize=(1.6 * len(names) + 2, 3.5))
    ax.bar(names, [summary[k]["mean_round_points"] for k in names], color="tab:orange")
    ax.set_ylabel(f"mean points per round ({'higher' if higher_total_wins else 'lower'} is better)")
    ax.set_title(f"round points ({title})" if title else "round points")
    figs["round_points.png"] = fig
    return figs


def ratings_figures(result: dict, title: str = "") -> dict:
    """{"ratings.png": figure}: OpenSkill mu with +-sigma per league entrant; title names the game."""
    plt = pyplot()
    r = result["ratings"]
    names = list(r)
    fig, ax = plt.subplots(figsize=(1.6 * len(names) + 2, 3.5))
    ax.bar(names, [r[k]["mu"] for k in names], yerr=[r[k]["sigma"] for k in names], capsize=6, color="tab:green")
    ax.set_ylabel("OpenSkill mu (+- sigma)")
    ax.set_title(f"league ratings ({title})" if title else "league ratings")
    return {"ratings.png": fig}


def slant(ax, longest: int = 12) -> None:
    """Slant the x-axis names when one is longer than `longest` characters, so that long agent names do not
    overlap."""
    labels = ax.get_xticklabels()
    if max((len(t.get_text()) for t in labels), default=0) > longest:
        for t in labels:
            t.set_rotation(25)
            t.set_horizontalalignment("right")


def save(figures: dict, out_dir) -> list[Path]:
    """Write each figure as PNG into out_dir (created) under its name, close it; returns the paths."""
    plt = pyplot()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, fig in figures.items():
        for ax in fig.axes:
            slant(ax)
        fig.tight_layout()
        paths.append(out / name)
        fig.savefig(paths[-1], dpi=100)
        plt.close(fig)
    return paths


def plot_summary(summary: dict, out_dir, title: str = "", higher_total_wins: bool = False) -> list[Path]:
    """win_rate.png and round_points.png (summary_figures) written into out_dir; returns the paths."""
    return save(summary_figures(summary, title, higher_total_wins), out_dir)


def plot_ratings(result: dict, out_dir, title: str = "") -> list[Path]:
    """ratings.png (ratings_figures) written into out_dir; returns its path."""
    return save(ratings_figures(result, title), out_dir)
