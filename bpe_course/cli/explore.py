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
    explore.add_argument(
        "--clean",
        action="store_true",
        help="start clean: move the cells measured on the page before (build/bench/explorer.csv) "
        "to build/bench/set-aside/, where the explorer does not read them",
    )
    explore.set_defaults(run=run_explore)


def run_explore(args: argparse.Namespace) -> int:
    import importlib.util
    import os
    import shutil
    import sys
    from pathlib import Path

    from bpe_course.errors import BPEInputError
    from bpe_course.paths import build_dir

    if importlib.util.find_spec("voila") is None:
        raise BPEInputError(
            "the explorer page needs Voila: pip install -e '.[explore]' (or run notebook 11 "
            "in JupyterLab, where the explorer works without it)"
        )
    if args.clean:
        from bpe_course.course.widgets.explorer import set_aside_measured

        moved = set_aside_measured()
        print(
            f"your earlier runs were set aside in {moved}"
            if moved
            else "no runs of yours to set aside"
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
        "bpe_course.cli.explore",  # Voila, ending with this process however it ends
        str(os.getpid()),
        str(page),
        f"--port={port}",
        "--Voila.port_retries=0",  # the port printed is the port served: Voila may not move it
        "--Voila.ip=127.0.0.1",
        "--show_tracebacks=False",
        "--template=bpe-course",  # Voila's lab page, with nothing asked of a CDN
    ]
    if args.no_browser:
        command.append("--no-browser")
    print(f"the explorer: http://127.0.0.1:{port}/ (Ctrl-C stops it)", flush=True)
    # where Voila finds the page's template (bpe-course: course/pages/jupyter/voila/templates)
    pages = Path(__file__).parents[1] / "course" / "pages" / "jupyter"
    known = os.environ.get("JUPYTER_PATH", "")
    env = {**os.environ, "JUPYTER_PATH": os.pathsep.join(filter(None, [str(pages), known]))}
    return serve(command, env)


class _Stopped(Exception):
    """A signal asked this command to stop."""


def serve(command: list[str], env: dict[str, str] | None = None) -> int:
    """Run Voila until it ends or this process is told to stop (Ctrl-C, SIGTERM, SIGHUP): then
    stop Voila and every kernel it started, so nothing is left holding the port.

    Voila runs in its own session, so a terminal's Ctrl-C reaches this process only, which
    forwards it; a SIGTERM (a service manager, ``kill``) is forwarded the same way instead of
    killing this process alone and orphaning Voila and its kernels."""
    import signal
    import subprocess

    def stop(signum, frame) -> None:
        raise _Stopped(signum)

    process = subprocess.Popen(command, start_new_session=True, env=env)
    wanted = [signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)]
    previous = {sig: signal.signal(sig, stop) for sig in wanted if sig is not None}
    try:
        return process.wait()
    except (_Stopped, KeyboardInterrupt):
        return 0
    finally:
        stop_tree(process)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def stop_tree(process, grace_s: float = 10.0) -> None:
    """Stop ``process`` (started in its own session) and all it started: SIGTERM first, so
    Voila shuts its kernels down, then SIGKILL for whatever is left after ``grace_s``. The
    kernels run in sessions of their own, so they are found as descendants, before any signal."""
    import os
    import signal
    import subprocess

    try:
        import psutil  # ipykernel's dependency, so always here with Voila

        family = psutil.Process(process.pid).children(recursive=True)
    except Exception:  # no psutil, or the process has already gone
        psutil, family = None, []
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if process.poll() is not None:
            break
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError, AttributeError):
            process.send_signal(sig)
        try:
            process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            continue
    if psutil is not None and family:
        _, alive = psutil.wait_procs(family, timeout=grace_s)
        for child in alive:  # a kernel Voila did not stop
            try:
                child.kill()
            except psutil.NoSuchProcess:
                pass
        psutil.wait_procs(alive, timeout=grace_s)


def voila_with_parent(argv: list[str]) -> None:
    """Run Voila (``argv``: the command's pid, then Voila's arguments) so that it never outlives
    the command that started it: a SIGKILL of the command cannot be caught, so nothing there
    could stop Voila. Here a watcher (:func:`bpe_course.pool.exit_with_parent`, as pool workers
    use) sees the command gone, stops every kernel Voila started (each in a session of its own,
    so not in Voila's group) and ends Voila with its group."""
    import sys

    from bpe_course.pool import exit_with_parent

    parent, *arguments = argv
    exit_with_parent(int(parent), before_exit=_stop_descendants)
    sys.argv = ["voila", *arguments]
    from voila.app import main

    main()


def _stop_descendants(grace_s: float = 3.0) -> None:
    """Stop every process this one started, however deep: SIGTERM, then SIGKILL after ``grace_s``."""
    import psutil  # ipykernel's dependency, so always here with Voila

    family = psutil.Process().children(recursive=True)
    for child in family:
        try:
            child.terminate()
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(family, timeout=grace_s)
    for child in alive:
        try:
            child.kill()
        except psutil.NoSuchProcess:
            pass


def free_port(wanted: int, tries: int = 50) -> int:
    """``wanted`` if nothing listens on it on 127.0.0.1, else the next free port after it."""
    import socket

    from bpe_course.errors import BPEInputError

    if not 0 < wanted < 65536:
        raise BPEInputError(f"--port must be from 1 to 65535, not {wanted}")
    for port in range(wanted, min(wanted + tries, 65536)):
        with socket.socket() as probe:
            # as Voila binds: a port whose server just stopped (closed connections waiting in
            # the kernel) is free for a new server, and one listened on is not
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise BPEInputError(
        f"ports {wanted} to {wanted + tries - 1} are all taken; pick one with --port"
    )


if __name__ == "__main__":  # how run_explore starts Voila
    import sys

    voila_with_parent(sys.argv[1:])
