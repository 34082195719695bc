"""What the notebooks show interactively or print small enough to follow by hand: the steppers and
the by-hand printouts of the trainers' structures, the byte table, the tokenizer playground, the
benchmark explorer (with its background measuring, live figure and window size), and the
highlighted source of the package's functions.

Each module wires controls to logic that lives in the package's floors below (the trainers,
``reference``, ``bench``, ``plots``).
"""
