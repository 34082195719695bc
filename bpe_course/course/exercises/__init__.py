"""The exercises of notebooks 05 to 10 and their grader: each exercise's home (``cases/``), the
catalogue, the stubs made from the solutions, what a notebook shows around an exercise, and
``check``, which grades a student's function in a sandboxed child process.

What notebooks and students import of it is :mod:`bpe_course.exercises`.
"""
