"""A notebook's own timing, drawn with its spread: every round a dot, the range a line, the
median a tick (from :func:`bpe_course.bench.spread.time_in_turn`)."""

from __future__ import annotations

from collections.abc import Mapping


def plot_spread(
    times,
    title: str,
    xlabel: str = "seconds",
    colors: Mapping[str, str] | None = None,
    log: bool = False,
):
    """One row per option, in the order first run: each round's seconds as a dot, the range of
    the rounds as a line, the median as a tick and a label. Ranges that overlap rank nothing."""
    import matplotlib.pyplot as plt

    from bpe_course.bench.spread import spread

    table = spread(times)
    fig, ax = plt.subplots(figsize=(6.4, 0.9 + 0.45 * len(table)))
    for row, (option, stats) in enumerate(table.iterrows()):
        color = (colors or {}).get(option, "tab:blue")
        rounds = times.loc[times["option"] == option, "seconds"]
        ax.hlines(row, stats["min"], stats["max"], color=color, lw=2.5, alpha=0.5)
        ax.plot(rounds, [row] * len(rounds), "o", color=color, ms=4)
        ax.plot([stats["median"]], [row], "|", color="black", ms=14, mew=2)
        ax.annotate(
            f" {stats['median']:.3g} s",
            (stats["max"], row),
            va="center",
            fontsize=8,
        )
    ax.set_yticks(range(len(table)), list(table.index))
    ax.invert_yaxis()
    if log:
        ax.set_xscale("log")
    else:
        ax.set_xlim(left=0, right=table["max"].max() * 1.25)
    runs = int(table["repeats"].min())
    ax.set_xlabel(f"{xlabel}: each dot one run, the line their range, | the median ({runs} runs)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig
