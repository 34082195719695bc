"""The exercises of notebooks 05 to 10 and their grader: each exercise's home (``cases/``), the
catalogue, the stubs made from the solutions, what a notebook shows around an exercise, and
``check``, which grades a student's function in a sandboxed child process.

What notebooks and students import of it is :mod:`bpe_course.exercises`. Nothing here imports the
course's widgets, publishing or runner: those may use the exercises (the handout reads the
catalogue and the stubs, ``show_source`` hides a definition with :mod:`.hiding`), never the reverse.
"""
