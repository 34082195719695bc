"""A student's shortcuts to a pass, now that each exercise's solution is a package function the stub
can reach: every route to the course's own function is reported as the course's answer, not the
student's; the grader cannot be patched from the stub; and ``make stubs`` never loses a student's
work."""

from __future__ import annotations

import ast

import pytest

from bpe_course.course.exercises.check import check
from bpe_course.course.exercises.stubs import is_unwritten, stale_stubs, stub_source, write_stubs
from bpe_course.trainers.common import merge_word
from tests.test_exercises import student_file

REACHING_THE_SOLUTION = {
    "import": (
        "rewrite_words",
        """
        from bpe_course.trainers.v4_inverted_index import rewrite_words as _r

        def rewrite_words(best, new_id, words, counts, pair_to_words):
            return _r(best, new_id, words, counts, pair_to_words)
        """,
        "bpe_course.trainers.v4_inverted_index.rewrite_words",
    ),
    "importlib": (
        "rewrite_words",
        """
        import importlib

        def rewrite_words(best, new_id, words, counts, pair_to_words):
            module = importlib.import_module("bpe_course.trainers." + "v4_inverted_index")
            return getattr(module, "rewrite" + "_words")(best, new_id, words, counts, pair_to_words)
        """,
        "bpe_course.trainers.v4_inverted_index.rewrite_words",
    ),
    "sys.modules": (
        "merge_word",
        """
        import sys

        def merge_word(word, pair, new_id):
            return sys.modules["bpe_course.trainers.common"].merge_word(word, pair, new_id)
        """,
        "bpe_course.trainers.common.merge_word",
    ),
    "its code object": (
        "pop_best",
        """
        import types
        from bpe_course.trainers import v5_heap

        pop_best = types.FunctionType(v5_heap.pop_best.__code__, vars(v5_heap), "pop_best")
        """,
        "bpe_course.trainers.v5_heap.pop_best",
    ),
    "bpe_course.TRAINERS": (
        "train_bpe",
        """
        import bpe_course

        def train_bpe(input_path, vocab_size, special_tokens):
            version = bpe_course.TRAINERS["v1"].name
            return bpe_course.train_bpe(input_path, vocab_size, special_tokens, version=version)
        """,
        "bpe_course.api.train_bpe",
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
        "bpe_course.trainers.v2_incremental.merge_loop",
    ),
}


@pytest.mark.parametrize("route", REACHING_THE_SOLUTION)
def test_calling_the_courses_own_function_is_not_a_pass(route, tmp_path) -> None:
    name, source, called = REACHING_THE_SOLUTION[route]
    report = check(name, student_file(tmp_path, name, source))
    assert not report.passed and report.status == "not done", report.text
    assert f"calls the course's own {called}" in report.text and "\n" not in report.text


def test_the_packages_own_function_object_is_not_a_pass() -> None:
    report = check("merge_word", merge_word)  # a notebook that imported it, and checked that
    assert report.status == "not done"
    assert "calls the course's own bpe_course.trainers.common.merge_word" in report.text
    assert check("merge_word", solution=True).passed  # the course's own, graded as the course's


def test_its_source_copied_by_getsource_is_not_a_pass(tmp_path) -> None:
    source = """
        import inspect
        from bpe_course.trainers import common

        namespace = dict(vars(common))
        exec(inspect.getsource(common.merge_word), namespace)
        merge_word = namespace["merge_word"]
        """
    report = check("merge_word", student_file(tmp_path, "merge_word", source))
    assert not report.passed and "could not be loaded" in report.text


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


def test_a_table_of_the_answers_to_last_runs_inputs_is_not_a_pass(tmp_path) -> None:
    seen = tmp_path / "seen.txt"
    recorder = f"""
        def merge_word(word, pair, new_id):
            with open({str(seen)!r}, "a") as log:
                log.write(repr((word, pair, new_id)) + "\\n")
            if len(word) < 2:
                return tuple(word)
            if tuple(word[:2]) == pair:
                return (new_id, *merge_word(word[2:], pair, new_id))
            return (word[0], *merge_word(word[1:], pair, new_id))
        """
    assert check("merge_word", student_file(tmp_path, "merge_word", recorder)).passed
    cases = {ast.literal_eval(line) for line in seen.read_text().splitlines()}
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
