"""What the grader's child process grades: a student's file, a function object, or the course's own
solution. Each is a picklable callable run in the child: it returns the function, or one line
saying why there is none (the child sends that line back as data). The child imports this module
from the package's view (:mod:`bpe_course.course.exercises.view`): it imports nothing else of the
package but :mod:`~bpe_course.course.exercises.sandbox`."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

from bpe_course.course.exercises.sandbox import explain


@dataclass(frozen=True)
class StudentFile:
    """The function ``name`` defined in the file ``path`` (``shown`` is how reports name it)."""

    is_solution = False

    path: str
    name: str
    shown: str

    @property
    def student_file(self) -> str:
        return os.path.realpath(self.path)

    def __call__(self) -> Callable | str:
        # Importable by its own name from its own folder: its helper modules import, and a process
        # pool it starts (spawn pickles functions by module name) finds its worker functions.
        sys.path.insert(0, os.path.dirname(self.student_file))
        module_name = os.path.splitext(os.path.basename(self.student_file))[0]
        spec = importlib.util.spec_from_file_location(module_name, self.path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                spec.loader.exec_module(module)
        except BaseException as err:  # anything the file does when imported is the student's
            why = explain(err, self.student_file, self.shown)
            return f"{self.shown} could not be loaded: {why}."
        function = getattr(module, self.name, None)
        if not callable(function):
            return f"{self.shown} defines no function {self.name}."
        return function


@dataclass(frozen=True)
class GivenFunction:
    """A function object passed to ``check`` (in the child, a copy sent by value, with what it
    uses of the notebook: what it uses of the package is imported there, from the view)."""

    is_solution = False

    function: Callable
    shown: str

    @property
    def student_file(self) -> str | None:
        code = getattr(self.function, "__code__", None)
        return None if code is None else os.path.realpath(code.co_filename)

    def __call__(self) -> Callable | str:
        return self.function


@dataclass(frozen=True)
class CourseSolution:
    """The package's own code (``check(NAME, solution=True)``)."""

    # graded as the course's own answer: the child sees the whole package, and the report says
    # whose it is
    is_solution = True

    function: Callable  # a module-level function: pickled by name
    shown: str
    student_file = None

    def __call__(self) -> Callable | str:
        return self.function
