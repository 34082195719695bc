"""``bpe-course explore``: the benchmark explorer alone, as a web page (Voila), for a classroom."""

from __future__ import annotations

import argparse


def add_explore_command(commands) -> None:
    explore = commands.add_parser(
        "explore",
        help="open the benchmark explorer as a web page on 127.0.0.1 (needs Voila)",
        description="Serve the benchmark explorer of notebook 11 alone, without the notebook "
        "around it: every stored grid and every run in build/bench, cells measured on request. "
        "Served by Voila on 127.0.0.1 only; Ctrl-C stops it.",
    )
    explore.add_argument("--port", type=int, default=8866, help="default: 8866")
    explore.add_argument(
        "--no-browser", action="store_true", help="print the address instead of opening it"
    )
    explore.set_defaults(run=run_explore)


def run_explore(args: argparse.Namespace) -> int:
    import importlib.util
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from bpe_course.errors import BPEInputError
    from bpe_course.paths import build_dir

    if importlib.util.find_spec("voila") is None:
        raise BPEInputError(
            "the explorer page needs Voila: pip install -e '.[explore]' (or run notebook 11 "
            "in JupyterLab, where the explorer works without it)"
        )
    folder = build_dir() / "explore"
    folder.mkdir(parents=True, exist_ok=True)
    page = folder / "explore.ipynb"
    shutil.copyfile(Path(__file__).parents[1] / "course" / "pages" / "explore.ipynb", page)
    port = free_port(args.port)
    if port != args.port:
        print(f"port {args.port} is taken; using {port}", flush=True)
    command = [
        sys.executable,
        "-m",
        "voila",
        str(page),
        f"--port={port}",
        "--Voila.port_retries=0",  # the port printed is the port served: Voila may not move it
        "--Voila.ip=127.0.0.1",
        "--show_tracebacks=False",
    ]
    if args.no_browser:
        command.append("--no-browser")
    print(f"the explorer: http://127.0.0.1:{port}/ (Ctrl-C stops it)", flush=True)
    try:
        return subprocess.call(command)
    except KeyboardInterrupt:
        return 0


def free_port(wanted: int, tries: int = 50) -> int:
    """``wanted`` if nothing listens on it on 127.0.0.1, else the next free port after it."""
    import socket

    from bpe_course.errors import BPEInputError

    if not 0 < wanted < 65536:
        raise BPEInputError(f"--port must be from 1 to 65535, not {wanted}")
    for port in range(wanted, min(wanted + tries, 65536)):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise BPEInputError(
        f"ports {wanted} to {wanted + tries - 1} are all taken; pick one with --port"
    )
