"""Progress bars: a tqdm bar when one is asked for, else None (callers then skip their updates).

Every long piece of work of the package shows its progress through here: counting, merging,
generating and downloading corpora, the benchmark's runs. Bytes are shown in decimal units by
default (MB, as the course names its corpus sizes), a bar is cleared when its work ends unless it is the
whole of a command's output (those ask for ``leave=True``), and tqdm is imported only for a bar that is shown (``tqdm.auto``
loads Jupyter's widget machinery in a notebook: not worth it for a run without a bar).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tqdm import tqdm


def progress_bar(
    enabled: bool | None, total: float | None, desc: str, unit: str, **options: Any
) -> tqdm | None:
    """A bar of ``total`` ``unit`` (``"B"``: bytes, shown as kB, MB...) named ``desc``, or None
    when ``enabled`` is false. ``options`` go to tqdm (``initial``, ``leave``...)."""
    if not enabled:
        return None
    from tqdm.auto import tqdm  # only for a bar that is shown (see the module docstring)

    if unit == "B":
        options = {"unit_scale": True, "unit_divisor": 1000} | options
    return tqdm(total=total, desc=desc, unit=unit, **{"leave": False} | options)
