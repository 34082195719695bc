"""A function or module of the package shown in a notebook, highlighted: its source is read from
the package (never pasted twice), with any definition named in ``hide`` cut to one line.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable

from IPython.display import Code

from bpe_course.course.exercises.hiding import hidden_source


def show_source(obj, hide: Iterable[str] = ()) -> object:
    """The source of a function or module of the package, highlighted (never pasted twice).

    ``hide``: names of functions or classes that source defines, each printed as one placeholder
    line instead, so a notebook can show a trainer before the exercise that asks for one of its
    functions (:func:`bpe_course.course.exercises.prompts.show_source_before`).
    """
    return Code(hidden_source(inspect.getsource(obj), hide), language="python")
