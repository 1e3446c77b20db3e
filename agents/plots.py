"""PNG charts of evaluation results (matplotlib, headless)."""
from pathlib import Path


def pyplot():
    """matplotlib.pyplot on the headless Agg backend (charts are files, never windows)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_summary(summary: dict, out_dir, title: str = "", higher_total_wins: bool = False) -> list[Path]:
    """win_rate.png (with 95% intervals) and round_points.png (higher_total_wins: the game's, Game.higher_total_wins,
    says which way is better); returns the paths."""
    plt = pyplot()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    names = list(summary)
    wr = [summary[k]["win_rate"] for k in names]
    lo = [max(0.0, summary[k]["win_rate"] - summary[k]["win_rate_ci95"][0]) for k in names]
    hi = [max(0.0, summary[k]["win_rate_ci95"][1] - summary[k]["win_rate"]) for k in names]
    paths = []
    fig, ax = plt.subplots(figsize=(1.6 * len(names) + 2, 3.5))
    ax.bar(names, wr, yerr=[lo, hi], capsize=6, color="tab:blue")
    ax.set_ylabel("win rate (95% CI)")
    ax.set_ylim(0, 1)
    ax.set_title(title or "win rate")
    fig.tight_layout()
    paths.append(out / "win_rate.png")
    fig.savefig(paths[-1], dpi=100)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(1.6 * len(names) + 2, 3.5))
    ax.bar(names, [summary[k]["mean_round_points"] for k in names], color="tab:orange")
    ax.set_ylabel(f"mean points per round ({'higher' if higher_total_wins else 'lower'} is better)")
    ax.set_title(title or "round points")
    fig.tight_layout()
    paths.append(out / "round_points.png")
    fig.savefig(paths[-1], dpi=100)
    plt.close(fig)
    return paths


def plot_ratings(result: dict, out_dir) -> list[Path]:
    """ratings.png: OpenSkill mu with +-sigma per league entrant."""
    plt = pyplot()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    r = result["ratings"]
    names = list(r)
    fig, ax = plt.subplots(figsize=(1.6 * len(names) + 2, 3.5))
    ax.bar(names, [r[k]["mu"] for k in names], yerr=[r[k]["sigma"] for k in names], capsize=6, color="tab:green")
    ax.set_ylabel("OpenSkill mu (+- sigma)")
    ax.set_title("league ratings")
    fig.tight_layout()
    path = out / "ratings.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return [path]
