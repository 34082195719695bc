"""The garbage collector paused while a loop that makes no reference cycles runs.

CPython frees objects by reference counting; the cycle collector runs besides, every few hundred
container allocations, and from time to time walks every tracked container alive. A loop that
allocates many small lists and tuples while it keeps many others alive (the heap's entries, the
merge sites' position lists, a generator's fragments) pays for walks that never find a cycle.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused(pause: bool = True) -> Iterator[None]:
    """Turn the cycle collector off inside the block (if ``pause``), and back on after it if it
    was on before. Only for code that makes no reference cycles: memory is then freed as usual."""
    collecting = gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if pause and collecting:
            gc.enable()
