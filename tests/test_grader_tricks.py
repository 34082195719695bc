"""A student's shortcuts to a pass, now that each exercise's solution is a package function the stub
can reach: every route to the course's own function fails, because the grader's child holds the
package only as the exercise allows it, with the answers withheld
(bpe_course/course/exercises/view.py): a call of one is reported as the course's answer, not the
student's, and a module the exercise does not allow is named as unavailable. The grader cannot be
patched from the stub; ``make stubs`` never loses a student's work."""

from __future__ import annotations

import ast

import pytest

from bpe_course.course.exercises.check import check
from bpe_course.course.exercises.isolation import walls
from bpe_course.course.exercises.stubs import is_unwritten, stale_stubs, stub_source, write_stubs
from bpe_course.course.exercises.view import PACKAGE
from bpe_course.trainers.common import merge_word
from tests.test_exercises import MERGE_LOOP, student_file

sandboxed = pytest.mark.skipif(
    walls().bwrap is None, reason=walls().note or "the grader runs without bubblewrap here"
)
CALLS = "calls the course's own"  # a withheld answer, called
UNAVAILABLE = "which is not available while"  # a module or name the exercise withholds

REACHING_THE_SOLUTION = {
    "import": (
        "rewrite_words",
        """
        from bpe_course.trainers.v4_inverted_index import rewrite_words as _r

        def rewrite_words(best, new_id, words, counts, pair_to_words):
            return _r(best, new_id, words, counts, pair_to_words)
        """,
        f"{CALLS} bpe_course.trainers.v4_inverted_index.rewrite_words",
    ),
    "importlib": (
        "rewrite_words",
        """
        import importlib

        def rewrite_words(best, new_id, words, counts, pair_to_words):
            module = importlib.import_module("bpe_course.trainers." + "v4_inverted_index")
            return getattr(module, "rewrite" + "_words")(best, new_id, words, counts, pair_to_words)
        """,
        f"{CALLS} bpe_course.trainers.v4_inverted_index.rewrite_words",
    ),
    "sys.modules": (
        "merge_word",
        """
        import sys

        from bpe_course.trainers.common import Token  # as the stub imports it

        def merge_word(word, pair, new_id):
            return sys.modules["bpe_course.trainers.common"].merge_word(word, pair, new_id)
        """,
        f"{CALLS} bpe_course.trainers.common.merge_word",
    ),
    "its code object": (
        "pop_best",
        """
        import types
        from bpe_course.trainers import v5_heap

        pop_best = types.FunctionType(v5_heap.pop_best.__code__, vars(v5_heap), "pop_best")
        """,
        f"{CALLS} bpe_course.trainers.v5_heap.pop_best",
    ),
    "bpe_course.TRAINERS": (
        "train_bpe",
        """
        import bpe_course

        def train_bpe(input_path, vocab_size, special_tokens):
            version = bpe_course.TRAINERS["v1"].name
            return bpe_course.train_bpe(input_path, vocab_size, special_tokens, version=version)
        """,
        f"uses bpe_course.TRAINERS (line 5), {UNAVAILABLE} train_bpe is graded",
    ),
    "a trainer's merge loop": (
        "train_bpe",
        """
        from bpe_course.counting import count_words
        from bpe_course.trainers import TRAINERS

        def train_bpe(input_path, vocab_size, special_tokens):
            counts = count_words(input_path, special_tokens, 1)
            return TRAINERS["v2"].merge_loop(counts, vocab_size, special_tokens)
        """,
        f"uses bpe_course.trainers.TRAINERS (line 3), {UNAVAILABLE}",
    ),
    "a merge loop the capstone may import": (
        "train_bpe",
        """
        from bpe_course.counting import count_words
        from bpe_course.trainers import v5_heap

        def train_bpe(input_path, vocab_size, special_tokens):
            counts = count_words(input_path, special_tokens, 1)
            return v5_heap.merge_loop(counts, vocab_size, special_tokens)
        """,
        f"{CALLS} bpe_course.trainers.v5_heap.merge_loop",
    ),
    # Issue 34: one line passed the capstone, the course's own answer key imported.
    "the answer key's module": (
        "train_bpe",
        "from bpe_course.course.exercises.cases.train_bpe import train_bpe\n",
        f"uses bpe_course.course.exercises.cases (line 1), {UNAVAILABLE} train_bpe is graded",
    ),
    "the package's API": (
        "train_bpe",
        "from bpe_course.api import train_bpe\n",
        f"uses bpe_course.api (line 1), {UNAVAILABLE} train_bpe is graded",
    ),
    # ... and the answer found among the objects the grader's process holds.
    "gc.get_objects()": (
        "merge_word",
        """
        import gc

        from bpe_course.trainers.common import Token  # as the stub imports it

        def merge_word(word, pair, new_id):
            for thing in gc.get_objects():
                if callable(thing) and getattr(thing, "__name__", "") == "merge_word":
                    if getattr(thing, "__module__", "") != __name__:
                        return thing(word, pair, new_id)
            return ()
        """,
        f"{CALLS} bpe_course.trainers.common.merge_word",
    ),
    "gc.get_objects(), for the capstone": (
        "train_bpe",
        """
        import gc

        from bpe_course.counting import count_words
        from bpe_course.trainers import v2_incremental, v4_inverted_index, v5_heap

        def train_bpe(input_path, vocab_size, special_tokens):
            counts = count_words(input_path, special_tokens, 1)
            for thing in gc.get_objects():
                name = getattr(thing, "__name__", "")
                module = getattr(thing, "__module__", "") or ""
                if callable(thing) and name in ("merge_loop", "train_bpe") and module.startswith("bpe_course"):
                    return thing(counts, vocab_size, special_tokens)
            return {}, []
        """,
        CALLS,
    ),
    # ... and the grader's child patched from the student's module, as the watch was: whatever
    # the patch, the answer is not in the process to be called.
    "patching the grader's child": (
        "merge_word",
        """
        from bpe_course.course.exercises import sandbox
        from bpe_course.trainers import common

        sandbox.WITHHELD = "nothing"
        original = sandbox.answer

        def answer(serial, function, outcome, case, load):
            reply = original(serial, function, outcome, case, load)
            return ("returned", serial, None, "") if reply[0] == "raised" else reply

        sandbox.answer = answer

        def merge_word(word, pair, new_id):
            return common.merge_word(word, pair, new_id)
        """,
        "not right yet",  # its patch turned the withheld call into None: a wrong answer
    ),
    "the installed file's source, run": (
        "merge_word",
        """
        from bpe_course.trainers import common

        namespace = {"__name__": "copy"}
        exec(open(common.__file__).read(), namespace)
        merge_word = namespace["merge_word"]
        """,
        CALLS,
    ),
}


@pytest.mark.parametrize("route", REACHING_THE_SOLUTION)
def test_calling_the_courses_own_function_is_not_a_pass(route, tmp_path) -> None:
    name, source, said = REACHING_THE_SOLUTION[route]
    report = check(name, student_file(tmp_path, name, source))
    assert not report.passed, report.text
    assert report.status == ("failed" if said == "not right yet" else "not done"), report.text
    assert said in report.text and "\n" not in report.text, report.text


def test_the_packages_own_function_object_is_not_a_pass() -> None:
    report = check("merge_word", merge_word)  # a notebook that imported it, and checked that
    assert report.status == "not done"
    assert "calls the course's own bpe_course.trainers.common.merge_word" in report.text
    assert check("merge_word", solution=True).passed  # the course's own, graded as the course's


def test_the_answer_key_passed_as_a_function_object_is_not_a_pass() -> None:
    from bpe_course.course.exercises.cases import train_bpe

    report = check("train_bpe", train_bpe.train_bpe)  # the capstone's answer key, in a notebook
    assert report.status == "not done", report.text
    assert f"uses bpe_course.course.exercises.cases, {UNAVAILABLE}" in report.text


# Routes only the sandbox closes: outside it the rest of the package is on the disk the student's
# code can read (the fallback says so in its one line).
REAL = str(PACKAGE.parent)
OUTSIDE_THE_VIEW = {
    "the view's finder removed, the package re-imported from where it is": f"""
        import sys

        sys.meta_path[:] = [f for f in sys.meta_path if getattr(f, "__name__", "") != "_Finder"]
        for loaded in [m for m in sys.modules if m.startswith("bpe_course")]:
            del sys.modules[loaded]
        sys.path.insert(0, {REAL!r})
        from bpe_course.trainers.common import merge_word
        """,
    "the package's file read from where it is": f"""
        import os

        path = os.path.join({REAL!r}, "bpe_course", "trainers", "common.py")
        namespace = {{"__name__": "copy"}}
        exec(open(path).read(), namespace)
        merge_word = namespace["merge_word"]
        """,
}


@sandboxed
@pytest.mark.parametrize("route", OUTSIDE_THE_VIEW)
def test_the_package_where_it_lies_is_the_view_too(route, tmp_path) -> None:
    report = check("merge_word", student_file(tmp_path, "merge_word", OUTSIDE_THE_VIEW[route]))
    assert not report.passed and report.status == "not done", report.text
    assert CALLS in report.text


def test_its_source_copied_by_getsource_is_not_a_pass(tmp_path) -> None:
    source = """
        import inspect
        from bpe_course.trainers import common

        namespace = dict(vars(common))
        exec(inspect.getsource(common.merge_word), namespace)
        merge_word = namespace["merge_word"]
        """
    report = check("merge_word", student_file(tmp_path, "merge_word", source))
    assert not report.passed, report.text


def test_patching_the_grader_from_the_stub_changes_nothing(tmp_path) -> None:
    source = """
        import bpe_course.course.exercises.cases.merge_word as cases
        import bpe_course.course.exercises.exercise as exercise
        import bpe_course.course.exercises.judge as judge

        exercise.same_value = lambda *args: None
        judge.Grading.attempt = lambda self, case: None
        cases.compare = lambda *args: None

        def merge_word(word, pair, new_id):
            return word
        """
    report = check("merge_word", student_file(tmp_path, "merge_word", source))
    assert report.status == "not done" and UNAVAILABLE in report.text, report.text
    patch_only_what_it_sees = """
        import bpe_course.course.exercises.exercise as exercise

        exercise.same_value = lambda *args: None

        def merge_word(word, pair, new_id):
            return word
        """
    report = check("merge_word", student_file(tmp_path, "merge_word", patch_only_what_it_sees))
    assert report.status == "failed" and "not right yet" in report.text


def test_make_stubs_keeps_a_students_work(tmp_path) -> None:
    write_stubs(tmp_path)
    stub = tmp_path / "merge_word.py"
    mine = stub.read_text().replace('raise NotImplementedError("write merge_word")', "return word")
    stub.write_text(mine)
    assert stale_stubs(tmp_path) == [stub] and not is_unwritten(stub)
    with pytest.warns(UserWarning, match="was written in: kept as .*merge_word.py.yours"):
        assert write_stubs(tmp_path) == [stub]
    assert (tmp_path / "merge_word.py.yours").read_text() == mine
    assert stub.read_text() == stub_source("merge_word")  # the new stub, to copy the work into
    stub.write_text(mine + "\n")
    with pytest.warns(UserWarning, match="merge_word.py.yours2"):
        write_stubs(tmp_path)  # a second copy never overwrites the first
    assert (tmp_path / "merge_word.py.yours").read_text() == mine


def test_an_unwritten_stub_in_an_old_signature_is_rewritten_without_a_copy(tmp_path) -> None:
    old = tmp_path / "pop_best.py"
    old.write_text('def pop_best(heap):\n    """Old."""\n    raise NotImplementedError\n')
    assert is_unwritten(old)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert old in write_stubs(tmp_path)
    assert not list(tmp_path.glob("*.yours*")) and old.read_text() == stub_source("pop_best")


def test_a_table_of_the_answers_to_last_runs_inputs_is_not_a_pass(tmp_path, monkeypatch) -> None:
    from bpe_course.course.exercises.isolation import Sandbox

    seen = []  # the inputs, as the grader sends them (the child can write nothing outside)
    send = Sandbox.call

    def recording(self, case, seconds):
        seen.append(case)
        return send(self, case, seconds)

    monkeypatch.setattr(Sandbox, "call", recording)
    assert check("merge_word", student_file(tmp_path, "merge_word", MERGE_LOOP)).passed
    monkeypatch.undo()
    cases = {ast.literal_eval(repr(case)) for case in seen}
    table = {case: merge_word(*case) for case in cases}  # the answers, computed elsewhere
    lookup = f"TABLE = {table!r}\n\ndef merge_word(word, pair, new_id):\n"
    lookup += "    return TABLE[word, pair, new_id]\n"
    (tmp_path / "table").mkdir()
    report = check("merge_word", student_file(tmp_path / "table", "merge_word", lookup))
    assert report.status == "failed" and "KeyError" in report.text, report.text


def test_a_stub_in_an_old_signature_is_told_the_exercise_changed(tmp_path) -> None:
    old_order = """
        def rewrite_words(words, pair_to_words, best, new_id, counts):
            return {}, 0
        """
    report = check("rewrite_words", student_file(tmp_path, "rewrite_words", old_order))
    assert not report.passed and "\n" not in report.text
    assert "your rewrite_words takes (words, pair_to_words, best, new_id, counts)" in report.text
    assert "the exercise calls it with (best, new_id, words, counts, pair_to_words)" in report.text
    renamed = """
        def rewrite_words(b, i, w, c, index):
            return {}, 0
        """
    report = check("rewrite_words", student_file(tmp_path, "rewrite_words", renamed))
    assert not report.passed and "Note:" not in report.text  # names are the student's to choose
    too_few = "def rewrite_words(best, new_id, words, pair_to_words):\n    return {}, 0\n"
    report = check("rewrite_words", student_file(tmp_path, "rewrite_words", too_few))
    assert "Note: your rewrite_words takes (best, new_id, words, pair_to_words)" in report.text


def test_work_under_an_exercises_old_name_is_pointed_to(tmp_path) -> None:
    write_stubs(tmp_path)
    student_file(tmp_path, "update_index", "def update_index(words, index, pair, new_id): ...\n")
    report = check("rewrite_words", tmp_path / "rewrite_words.py")
    assert report.status == "not done"
    assert "update_index.py is the exercise update_index, from before it became" in report.text
    from bpe_course.errors import BPEInputError

    with pytest.raises(BPEInputError, match="update_index is now rewrite_words"):
        check("update_index")


def test_stubs_check_names_a_stub_written_in_and_make_stubs_keeps_it(
    tmp_path, monkeypatch, capsys
) -> None:
    from bpe_course.course.exercises.stubs import main

    monkeypatch.setenv("BPE_COURSE_NOTEBOOKS", str(tmp_path))
    exercises = tmp_path / "exercises"
    write_stubs(exercises)
    mine = student_file(exercises, "pop_best", "def pop_best(heap, pair_counts):\n    return 1\n")
    assert main(["--check"]) == 1
    assert "pop_best.py (written in: a rewrite keeps a copy)" in capsys.readouterr().out
    with pytest.warns(UserWarning, match="kept as"):
        assert main([]) == 0
    assert (
        exercises / "pop_best.py.yours"
    ).read_text() == "def pop_best(heap, pair_counts):\n    return 1\n"
    assert mine.read_text() == stub_source("pop_best")
