"""A function or module of the package shown in a notebook, highlighted: its source is read from
the package (never pasted twice), with any definition named in ``hide`` cut to one line.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Iterable


def show_source(obj, hide: Iterable[str] = ()) -> object:
    """The source of a function or module of the package, highlighted (never pasted twice).

    ``hide``: names of functions or classes that source defines, each printed as one placeholder
    line instead, so a notebook can show a trainer before the exercise that asks for one of its
    functions (:func:`bpe_course.course.exercises.prompts.show_source_before`).
    """
    from IPython.display import Code

    return Code(hidden_source(inspect.getsource(obj), hide), language="python")


HIDDEN = "the exercise below asks you to write this"


def hidden_source(source: str, hide: Iterable[str]) -> str:
    """``source`` with each definition named in ``hide`` (at any depth) cut to one line:
    ``def name(...): ...  # the exercise below asks you to write this``. A name the source
    does not define hides nothing."""
    hide = set(hide)
    if not hide:
        return source
    lines = source.splitlines(keepends=True)
    tree = ast.parse(textwrap.dedent(source))
    found = [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.name in hide
    ]
    # From the last to the first, so earlier line numbers stay valid (a definition nested in a
    # hidden one is cut first, then goes with its parent).
    for node in sorted(found, key=lambda n: n.lineno, reverse=True):
        first = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
        line = lines[node.lineno - 1]
        indent = line[: len(line) - len(line.lstrip())]
        head = f"class {node.name}" if isinstance(node, ast.ClassDef) else f"def {node.name}(...)"
        lines[first : node.end_lineno] = [f"{indent}{head}: ...  # {HIDDEN}\n"]
    return "".join(lines)
