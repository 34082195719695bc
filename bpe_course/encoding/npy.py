"""Writing a ``.npy`` file a piece at a time: ids appended as they come, the length set at the end.

NumPy's format (``numpy.lib.format``, version 1.0) is a magic string, a header (a Python dict
literal: the dtype, the order, the shape) padded with spaces to a multiple of 64 bytes, then the
raw values. The header is written first with room for any length (a shape of up to 20 digits, so
its size never changes), the values are appended in order, and :meth:`NpyWriter.close` writes the
header again with the real length. So a corpus's ids never have to be held at once; ``np.load``
(or ``np.load(..., mmap_mode="r")``, which reads nothing until asked) opens the file as usual.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType

import numpy as np

_MAGIC = b"\x93NUMPY\x01\x00"
_HEADER_BYTES = 128  # magic, length and the dict: 128 fits a 20-digit shape with room to spare
_ALIGN = 64


def npy_header(dtype: np.dtype, length: int) -> bytes:
    """The first :data:`_HEADER_BYTES` bytes of a 1-d ``.npy`` file of ``length`` values."""
    text = f"{{'descr': '{dtype.str}', 'fortran_order': False, 'shape': ({length},), }}"
    room = _HEADER_BYTES - len(_MAGIC) - 2
    if len(text) + 1 > room:
        raise ValueError(f"a length of {length} does not fit the header")
    header = text.ljust(room - 1) + "\n"
    assert (len(_MAGIC) + 2 + len(header)) % _ALIGN == 0
    return _MAGIC + len(header).to_bytes(2, "little") + header.encode("latin1")


class NpyWriter:
    """A 1-d ``.npy`` file of ``dtype`` values at ``path``, written by :meth:`append` calls and
    finished by :meth:`close` (use it in a ``with`` block: an error leaves the header's length
    at 0, so a file cut short never reads as a whole one)."""

    def __init__(self, path: str | os.PathLike[str], dtype: np.dtype | type) -> None:
        self.path = Path(path)
        self.dtype = np.dtype(dtype).newbyteorder("<")
        self.length = 0
        self._file = open(self.path, "wb")
        self._file.write(npy_header(self.dtype, 0))

    def append(self, values: np.ndarray) -> None:
        """Append ``values`` (cast to the file's dtype: the caller checks they fit)."""
        self._file.write(np.ascontiguousarray(values, dtype=self.dtype).data)
        self.length += len(values)

    def close(self) -> None:
        """Write the real length into the header, and close the file."""
        if self._file.closed:
            return
        self._file.seek(0)
        self._file.write(npy_header(self.dtype, self.length))
        self._file.close()

    def __enter__(self) -> NpyWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if kind is None:
            self.close()
        else:
            self._file.close()  # the length stays 0: not a whole file
