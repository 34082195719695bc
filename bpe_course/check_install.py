"""``python -m bpe_course.check_install``: is the course ready to run here? (the student edition's
README ends its install lines with it).

It trains a small tokenizer on a few generated lines and imports what the notebooks use (JupyterLab,
the widgets, the plots), then prints one line each and ends with ``the course is ready``; a part
that is missing is named, with the exit status 1. It reads and writes nothing but a temporary file.
"""

from __future__ import annotations

import importlib
import sys
import tempfile
from pathlib import Path

# What the notebooks import beside the package's own code, and what runs them.
NEEDED = ("jupyterlab", "ipykernel", "ipywidgets", "ipympl", "anywidget", "matplotlib", "pandas")


def main() -> int:
    import bpe_course

    print(f"bpe_course {bpe_course.__version__} from {Path(bpe_course.__file__).parent}")
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.txt"
        corpus.write_text("low lower lowest newer newest wider widest\n" * 50, encoding="utf-8")
        vocab, merges = bpe_course.train_bpe(corpus, 270, ["<|endoftext|>"], progress=False)
    print(f"trained a small tokenizer: {len(merges)} merges, {len(vocab)} tokens")
    missing = []
    for name in NEEDED:
        try:
            module = importlib.import_module(name)
        except ImportError as err:
            missing.append(name)
            print(f"{name}: MISSING ({err})")
        else:
            print(f"{name} {getattr(module, '__version__', '')}".rstrip())
    if missing:
        print(f"not ready: install {', '.join(missing)} (pip install them in this environment)")
        return 1
    print("the course is ready: `jupyter lab`, then open 01_start_here.ipynb")
    return 0


if __name__ == "__main__":
    sys.exit(main())
