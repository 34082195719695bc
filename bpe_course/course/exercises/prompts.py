"""What a notebook shows around an exercise, read from the exercise's home
(:mod:`bpe_course.course.exercises.cases`): the trainer's source with the answer hidden before it
(:func:`show_source_before`), the exercise itself (:func:`show_exercise`), and the answer after
it (:func:`show_solution`, in a cell tagged ``solution`` that the student handout leaves out)."""

from __future__ import annotations

import importlib
import inspect

from IPython.display import Code, Markdown

from bpe_course.course.exercises.catalog import EXERCISES, get_exercise
from bpe_course.course.exercises.hiding import BEGIN, END, HIDDEN, hidden_source, replace_regions
from bpe_course.course.exercises.stubs import function_stub

HOW = """\
Write it in `exercises/{name}.py` (open it from JupyterLab's file browser, beside this notebook):
replace the `raise NotImplementedError` with your code, save, and run the check below.

```python
{stub}
```

The check runs your function and the course's on many generated inputs and on fixed edge cases,
and names the smallest input where they differ. Until you write it, it says "not done yet". In a
terminal: `bpe-course check {name}`.

<details><summary>Hint</summary>

{hint}
</details>
"""


def exercise_text(name: str) -> str:
    """Exercise ``name`` as the notebook shows it (Markdown): the prompt, the stub's function
    (signature and docstring), how to check it, and the hint folded."""
    exercise = get_exercise(name)
    stub = function_stub(exercise).rstrip("\n")
    return f"{exercise.prompt.strip()}\n\n" + HOW.format(name=name, stub=stub, hint=exercise.hint)


def show_exercise(name: str) -> object:
    """The notebook's cell that asks for exercise ``name``: its text, rendered as Markdown."""
    return Markdown(exercise_text(name))


def show_source_before(obj, exercise: str) -> object:
    """``obj``'s source as a notebook shows it before ``exercise``: the function the exercise
    asks for (its solution), where that source defines it, printed as one placeholder line; so is
    any code of ``obj`` that writes out the answer of this exercise or of a later one (the
    capstone's loop, in V5 and fast max), each line saying which exercise asks for it."""
    # the solution's own definition, any marked region of the code shown (a loop that writes the
    # answer out, as V2's does), and the code that writes out this exercise's or a later one's
    asked = get_exercise(exercise)
    hide = {asked.solution_function.__name__: HIDDEN}
    names = list(EXERCISES)
    for later in reversed(names[names.index(asked.name) :]):  # this exercise's notes win
        note = (
            HIDDEN
            if later == asked.name
            else f"notebook {EXERCISES[later].notebook[:2]}'s exercise, {later}, asks you to write this"
        )
        for function in EXERCISES[later].written_out_by:
            if _defines(obj, function):
                hide[function.__name__] = note
    # a marked region left in code shown (V2's loop) writes out what the exercise asks for
    written_out = f"...  # {asked.name}, the exercise below, written out here"
    hidden = hidden_source(replace_regions(inspect.getsource(obj), written_out), hide)
    return Code(hidden, language="python")  # the regions went with their marks


def _defines(obj, function) -> bool:
    """Whether ``obj`` (a module or a function) is, or holds, ``function``'s definition."""
    if inspect.ismodule(obj):
        return function.__module__ == obj.__name__
    return obj is function


# The answer folded, as the summaries fold their solutions for teachers: a teacher who shows the
# notebook to a class opens it when the class has tried.
FOLDED_SOLUTION = """\
<details><summary>The course's solution (for teachers; the student edition leaves it out)</summary>

{code}
</details>
"""


def solution_text(exercise: str, *also: str) -> str:
    """The course's own answer to ``exercise`` as :func:`show_solution` shows it (Markdown):
    folded, the code of the answer's function, then of ``also``, the solution marks left out."""
    shown = [get_exercise(exercise).answer_function]
    for name in also:
        module, _, attribute = name.rpartition(".")
        shown.append(getattr(importlib.import_module(module), attribute))
    sources = [_without_marks(inspect.getsource(obj)).rstrip() for obj in shown]
    return FOLDED_SOLUTION.format(code="\n\n".join(f"```python\n{s}\n```" for s in sources))


def show_solution(exercise: str, *also: str) -> object:
    """The course's own answer to ``exercise``, folded: for the cell after the exercise, tagged
    ``solution`` (the student handout leaves it out). ``also``: dotted names of more code that
    holds the answer (a loop that writes it out), shown after it."""
    return Markdown(solution_text(exercise, *also))


def _without_marks(source: str) -> str:
    marks = (f"### {BEGIN}", f"### {END}")
    return "\n".join(line for line in source.split("\n") if line.strip() not in marks)
