"""The answer taken out of source text, wherever the course shows or hands out code: each region
from ``### BEGIN SOLUTION`` to ``### END SOLUTION`` replaced (the stubs, the handout, a
solution shown without its marks), and whole definitions cut to one placeholder line (a trainer
shown before the exercise that asks for one of its functions).

The marks are nbgrader's (see :mod:`bpe_course.course.exercises.stubs`).
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterable, Mapping

from bpe_course.errors import BPEInputError

BEGIN, END = "BEGIN SOLUTION", "END SOLUTION"


def replace_regions(source: str, stub: str) -> str:
    """``source`` with each ``BEGIN SOLUTION`` ... ``END SOLUTION`` region replaced by ``stub``,
    indented as the line that opened it."""
    out, inside = [], False
    for line in source.split("\n"):
        if BEGIN in line:
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(indent + stub_line for stub_line in stub.split("\n"))
            inside = True
        elif END in line:
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise BPEInputError(f"a {BEGIN} region has no {END}")
    return "\n".join(out)


HIDDEN = "the exercise below asks you to write this"


def hidden_source(source: str, hide: Iterable[str] | Mapping[str, str]) -> str:
    """``source`` with each definition named in ``hide`` (at any depth) cut to one line:
    ``def name(...): ...  # the exercise below asks you to write this``, or, when ``hide`` maps
    names to notes, the name's note after the ``#``. A name the source does not define hides
    nothing."""
    notes = dict(hide) if isinstance(hide, Mapping) else dict.fromkeys(hide, HIDDEN)
    if not notes:
        return source
    lines = source.splitlines(keepends=True)
    tree = ast.parse(textwrap.dedent(source))
    found = [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.name in notes
    ]
    # From the last to the first, so earlier line numbers stay valid (a definition nested in a
    # hidden one is cut first, then goes with its parent).
    for node in sorted(found, key=lambda n: n.lineno, reverse=True):
        first = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
        line = lines[node.lineno - 1]
        indent = line[: len(line) - len(line.lstrip())]
        head = f"class {node.name}" if isinstance(node, ast.ClassDef) else f"def {node.name}(...)"
        lines[first : node.end_lineno] = [f"{indent}{head}: ...  # {notes[node.name]}\n"]
    return "".join(lines)
