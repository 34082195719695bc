"""The notebook runner: execute every notebook headlessly in a fresh kernel (``bpe-course course``,
the tests, the publishing commands' executed copies), with a kernel client that cannot miss a
reply, and the timing of each notebook for the teacher's guide.
"""
