"""The course written out for readers who do not run it: the student handout and answer key
(``bpe-course handout``), the static website (``make site``) and the reveal.js decks
(``make slides``), with the slide table and the widgets frozen for a static page; and the figures
and tables of the teacher's guide, ``TEACHING.md``, from the stored results (``make guide``).
"""
