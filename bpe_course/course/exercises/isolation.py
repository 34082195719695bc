"""The walls around the grader's child: where it runs, what it sees, who it runs as, and the end of
it and of everything it started. The parent's handle on the child is :class:`Sandbox`.

Each grading gets one scratch folder in the system's temporary directory (for the fallback as
``nobody`` below, when that directory is closed to other users: ``/var/tmp`` or ``/dev/shm``),
removed when the grading ends, however it ends (a killed call too; a folder left by a grader that
was itself killed is removed by the next grading). In it: the package as the exercise lets the
child see it (:mod:`bpe_course.course.exercises.view`), and the child's own folder, where a copy of
the student's file (with the Python files beside it) is graded, and where its ``HOME``, its
temporary files (``TMPDIR``) and its current folder are.

Behind bubblewrap (Debian's ``bubblewrap``, ``apt-get install bubblewrap``) on Linux, the child
sees only: the system's programs and libraries, Python and the folders it imports from, all
read-only; the package's view, read-only, mounted where the package is (so the course's answers
are nowhere it can read, and neither is the rest of the repository); a fresh ``/dev``, ``/proc``
and an empty read-only ``/tmp``; and its own folder, the one place it can write, as ``/grading``.
It has no network (its own network namespace), cannot see or signal any process but its own (its
own PID namespace), and when the grader runs as root it runs as the unprivileged ``nobody``
(bubblewrap mounts as root, then ``setpriv`` drops every privilege before Python starts).

Where bubblewrap is missing or cannot start a sandbox (no Linux, user namespaces disabled), the
child runs without those walls, from the same scratch folder and with the same view first on its
path, as ``nobody`` when the grader is root; one line on stderr says so, once per process. Then
the student's code can read and write what that user can, and reach the network.

Either way the child takes its own limits before any student code (memory, CPU time, file size,
its own session, death with its parent: :func:`bpe_course.course.exercises.sandbox.confine`), and
at the end the parent stops and kills the child's whole tree, found through ``/proc``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import cloudpickle

from bpe_course.course.exercises import cases
from bpe_course.course.exercises.exercise import Exercise, short
from bpe_course.course.exercises.loading import StudentFile
from bpe_course.course.exercises.sandbox import (
    MAX_MESSAGE_BYTES,
    Limits,
    Stopped,
    confine,
    read_data,
)
from bpe_course.course.exercises.view import PACKAGE, write_view

SANDBOX_ENV = "BPE_COURSE_SANDBOX"  # "off": no bubblewrap (to try the fallback)
SCRATCH_PREFIX = "bpe-course-grading-"
INSIDE = "/grading"  # the child's own folder, as it sees it behind bubblewrap
CHILD_CODE = (
    "import sys; from bpe_course.course.exercises.sandbox import main; main(int(sys.argv[1]))"
)
# What of the student's folder is copied beside their file: Python files and packages, no more.
COPY_FILES, COPY_BYTES, FILE_BYTES_MAX = 200, 20 * 2**20, 2 * 2**20
SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Where scratch folders go when the child runs as nobody without bubblewrap and cannot pass
# through the system's temporary folder (a /tmp of mode 1700): the first of these it can.
OTHER_TEMPS = ("/var/tmp", "/dev/shm")


# --- Which walls this machine gives ----------------------------------------------------------------


@dataclass(frozen=True)
class Walls:
    """How the child runs here: behind ``bwrap`` (its path) or not; as ``user`` (uid, gid) when
    the grader is root; ``note`` is the one line said when there is no bubblewrap."""

    bwrap: str | None
    setpriv: str | None
    user: tuple[int, int] | None
    note: str | None


def nobody() -> tuple[int, int]:
    try:
        import pwd

        entry = pwd.getpwnam("nobody")
        return entry.pw_uid, entry.pw_gid
    except (ImportError, KeyError):
        return 65534, 65534


@functools.cache
def walls() -> Walls:
    """The walls this machine gives, found once per process by starting a trivial child."""
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    user = nobody() if root else None
    bwrap, setpriv = shutil.which("bwrap"), shutil.which("setpriv")
    if os.environ.get(SANDBOX_ENV, "").strip().lower() in ("off", "0", "no", "none"):
        reason = f"the sandbox is turned off ({SANDBOX_ENV}={os.environ[SANDBOX_ENV]})"
    elif not sys.platform.startswith("linux"):
        reason = "bubblewrap needs Linux"
    elif bwrap is None:
        reason = "bubblewrap is not installed (apt-get install bubblewrap)"
    elif root and setpriv is None:
        reason = "setpriv (util-linux) is missing, so the child could not drop root"
    else:
        problem = try_walls(Walls(bwrap, setpriv, user, None))
        if problem is None:
            return Walls(bwrap, setpriv, user, None)
        reason = f"bubblewrap cannot start a sandbox here ({problem})"
    if user is not None and try_walls(Walls(None, setpriv, user, None)) is not None:
        user = None  # Python cannot run as nobody here: the child stays root
    who = "nobody" if user is not None else ("root" if root else "your user")
    note = (
        f"bpe-course: {reason}: the grader runs the code it grades without a sandbox, as {who} "
        f"(it can read and write what {who} can, and reach the network)."
    )
    return Walls(None, setpriv, user, note)


def try_walls(trial: Walls) -> str | None:
    """None if a child starts behind ``trial``, else the first line of what went wrong."""
    scratch = make_scratch(trial)
    # What the real child does first: import the grader's side, read a file in its box.
    probe = (Path(INSIDE) if trial.bwrap else scratch / "box") / "work" / "probe"
    (scratch / "box" / "work" / "probe").write_text("")
    code = f"import cloudpickle, {confine.__module__}; open({str(probe)!r}).read()"
    try:
        argv, env = command(trial, scratch, None, ["-c", code])
        result = subprocess.run(
            argv, env=env, capture_output=True, timeout=60, **popen_user(trial, scratch)
        )
    except (OSError, subprocess.SubprocessError) as err:
        return short(err, 200)
    finally:
        remove_scratch(scratch)
    if result.returncode == 0:
        return None
    lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[-1][:200] if lines else f"exit status {result.returncode}"


_announced: list[str] = []


def announce(note: str | None) -> None:
    """The fallback's one line on stderr, once per process."""
    if note is not None and not _announced:
        _announced.append(note)
        print(note, file=sys.stderr, flush=True)


# --- The scratch folder ----------------------------------------------------------------------------


def make_scratch(trial: Walls) -> Path:
    """A new scratch folder (``box/`` inside is the child's: home, tmp, work, submission), after
    removing those left by graders that no longer run."""
    base = scratch_base(trial)
    sweep(base)
    scratch = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir=base))
    scratch.chmod(0o711)  # the child may pass through to its box, not list what is beside it
    for part in ("home", "tmp", "work", "submission"):
        (scratch / "box" / part).mkdir(parents=True)
    return scratch


def passable(folder: Path) -> bool:
    """Whether any user (``nobody``) can pass through ``folder`` and every folder above it."""
    try:
        return all(os.stat(p).st_mode & stat.S_IXOTH for p in [folder, *folder.parents])
    except OSError:
        return False


def scratch_base(trial: Walls) -> Path:
    """The system's temporary folder; for a child that runs as ``nobody`` outside bubblewrap
    (which mounts the box wherever it lies), the first folder it can pass through."""
    system = Path(tempfile.gettempdir())
    if trial.bwrap or trial.user is None or passable(system):
        return system
    return next((Path(p) for p in OTHER_TEMPS if Path(p).is_dir() and passable(Path(p))), system)


def give_box(scratch: Path, trial: Walls) -> None:
    """The box to the user the child runs as (when the grader is root)."""
    if trial.user is None:
        return
    uid, gid = trial.user
    box = scratch / "box"
    for path in [box, *box.rglob("*")]:
        with contextlib.suppress(OSError):
            os.lchown(path, uid, gid)


def sweep(base: Path) -> None:
    """Remove the scratch folders in ``base`` of graders (this user's) that no longer run."""
    with contextlib.suppress(OSError):
        for entry in base.iterdir():
            if not entry.name.startswith(SCRATCH_PREFIX):
                continue
            pid = entry.name[len(SCRATCH_PREFIX) :].partition("-")[0]
            try:
                if not pid.isdigit() or entry.lstat().st_uid != os.geteuid():
                    continue
                os.kill(int(pid), 0)
            except ProcessLookupError:
                remove_scratch(entry)
            except (OSError, AttributeError):
                continue


def remove_scratch(scratch: Path) -> None:
    """Remove the scratch folder, whatever the child left in it (a folder it made unreadable)."""

    def unlock(function: Callable[[str], object], path: str, _info: object) -> None:
        if Path(path) == scratch:  # never open up (or lock) the folder the scratch lies in
            return
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(path), stat.S_IRWXU)
            os.chmod(path, stat.S_IRWXU)
            function(path)

    if scratch.exists():
        shutil.rmtree(scratch, onerror=unlock)


def copy_sources(
    source: Path, target: Path, depth: int = 0, budget: list[int] | None = None
) -> None:
    """The Python files of ``source`` (and of its packages, a few levels down) into ``target``:
    what a student's file may import from beside it. Never a link, nothing large."""
    budget = budget if budget is not None else [COPY_FILES, COPY_BYTES]
    try:
        entries = sorted(source.iterdir())
    except OSError:
        return
    for entry in entries:
        if budget[0] <= 0 or budget[1] <= 0:
            return
        try:
            info = entry.lstat()
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and entry.suffix == ".py" and info.st_size <= FILE_BYTES_MAX:
            with contextlib.suppress(OSError):
                shutil.copyfile(entry, target / entry.name, follow_symlinks=False)
                budget[0] -= 1
                budget[1] -= info.st_size
        elif stat.S_ISDIR(info.st_mode) and depth < 3 and (entry / "__init__.py").is_file():
            (target / entry.name).mkdir(exist_ok=True)
            copy_sources(entry, target / entry.name, depth + 1, budget)


# --- The command that starts the child -------------------------------------------------------------


def checkout() -> Path | None:
    """The repository the package runs from, if it does (none of it but the view is shown)."""
    parent = PACKAGE.parent
    return parent if (parent / "pyproject.toml").is_file() or (parent / ".git").exists() else None


def python_paths() -> list[Path]:
    """What Python needs to start and import the student's libraries: its prefixes, its
    executable's folder and the folders of ``sys.path`` inside them; never the checkout or a
    folder above it, and never a folder on ``sys.path`` outside the environment (the folder of
    the script that runs the grader, a test's temporary folder: other files than the student's)."""
    found = [
        Path(sys.prefix),
        Path(sys.base_prefix),
        Path(sys.exec_prefix),
        Path(sys.base_exec_prefix),
        Path(os.path.realpath(sys.executable)).parent,
        Path(sys.executable).parent,
    ]
    prefixes = list(found)
    for entry in sys.path:
        path = Path(entry)
        if entry and path.is_absolute() and any(p == path or p in path.parents for p in prefixes):
            found.append(path)
    repository = checkout()
    kept: list[Path] = []
    for path in found:
        if not path.exists():
            continue
        if repository is not None and (path == repository or path in repository.parents):
            continue
        kept.append(path)
    return kept


def command(trial: Walls, scratch: Path, view: Path | None, python: list[str]) -> tuple[list, dict]:
    """The child's command line and environment: Python running ``python`` (its arguments), behind
    bubblewrap when ``trial`` has it. ``view``: the package as the child sees it (None: all of it,
    for the course's own solution)."""
    box = scratch / "box"
    env = child_env(trial, box, view)
    argv = [sys.executable, "-s", "-B", *python]
    if not trial.bwrap:
        return drop_root(trial) + argv, env
    walls_argv = bwrap_argv(trial, box, view, env)
    return walls_argv + drop_root(trial) + argv, {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def child_env(trial: Walls, box: Path, view: Path | None) -> dict[str, str]:
    """The child's whole environment: nothing of the grader's but where it imports from."""
    inside = Path(INSIDE) if trial.bwrap else box
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(inside / "home"),
        "TMPDIR": str(inside / "tmp"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONNOUSERSITE": "1",
    }
    # The folder the grader imported the package from (found from its current folder, perhaps:
    # the child's is its own), then the grader's own path.
    paths = [str(PACKAGE.parent)]
    paths += [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if view is not None and not trial.bwrap:
        paths.insert(0, str(view.parent))  # the view first; the package itself is still there
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def drop_root(trial: Walls) -> list[str]:
    """When the grader is root: ``setpriv`` as the command's start, to drop root before Python."""
    if trial.user is None or not trial.setpriv:
        return []
    uid, gid = trial.user
    drop = [trial.setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]
    return drop + ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]


def bwrap_argv(trial: Walls, box: Path, view: Path | None, env: dict[str, str]) -> list[str]:
    """Bubblewrap's command line up to ``--``: the namespaces, then what the child sees."""
    assert trial.bwrap is not None
    walls_argv = [trial.bwrap, "--die-with-parent", "--new-session", "--clearenv"]
    walls_argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    walls_argv += ["--unshare-cgroup-try"]
    if trial.user is None:
        walls_argv += ["--unshare-user"]  # not root: bubblewrap's mounts in a user namespace
    else:
        walls_argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]  # for setpriv
    bound: list[Path] = []
    made: set[Path] = set()

    def bind(source: Path, target: Path | None = None, flag: str = "--ro-bind") -> None:
        target = target or source

        def covered(path: Path) -> bool:
            return any(path == b or b in path.parents for b in bound)

        if target == source and covered(target):
            return  # visible already, through a folder above it
        for parent in reversed(target.parents):
            if parent != Path("/") and parent not in made and not covered(parent):
                walls_argv.extend(["--perms", "0755", "--dir", str(parent)])
                made.add(parent)
        walls_argv.extend([flag, str(source), str(target)])
        bound.append(target)

    for name in SYSTEM_DIRS:
        path = Path(name)
        if path.is_symlink():
            walls_argv.extend(["--symlink", os.readlink(path), name])
        elif path.is_dir():
            bind(path)
    walls_argv += ["--tmpfs", "/tmp"]  # first: what is bound below may lie under /tmp
    for path in sorted(set(python_paths()), key=lambda p: len(p.parts)):
        bind(path)
    bind(view or PACKAGE, PACKAGE)
    walls_argv += ["--dev", "/dev", "--perms", "1777", "--tmpfs", "/dev/shm", "--proc", "/proc"]
    bind(box, Path(INSIDE), "--bind")
    walls_argv += ["--remount-ro", "/tmp"]  # empty, or the folders bound into it, read-only
    walls_argv += ["--chdir", str(Path(INSIDE) / "work")]
    for key, value in env.items():
        walls_argv += ["--setenv", key, value]
    return walls_argv + ["--remount-ro", "/", "--"]


def popen_user(trial: Walls, scratch: Path) -> dict[str, Any]:
    """How ``subprocess`` starts the child: in the box, as ``nobody`` when the grader is root and
    neither bubblewrap nor setpriv is there to drop privileges."""
    give_box(scratch, trial)
    options: dict[str, Any] = {"cwd": str(scratch / "box" / "work"), "stdin": subprocess.DEVNULL}
    if trial.user is not None and not trial.bwrap and not trial.setpriv:
        uid, gid = trial.user
        options.update(user=uid, group=gid, extra_groups=[])
    return options


# --- The parent's handle on the child --------------------------------------------------------------


@contextlib.contextmanager
def by_value():
    """The exercises' own functions and classes (an outcome, a ``Corpus``) pickled by value: the
    child cannot import their modules, which hold the answers."""
    cloudpickle.register_pickle_by_value(cases)
    try:
        yield
    finally:
        cloudpickle.unregister_pickle_by_value(cases)


class Sandbox:
    """Start the child behind the walls, send it inputs one at a time, and end it and everything
    it started, then remove its scratch folder."""

    def __init__(self, exercise: Exercise, load: Any, limits: Limits) -> None:
        self.limits = limits
        self.walls = walls()
        announce(self.walls.note)
        self.scratch = make_scratch(self.walls)
        self.process: subprocess.Popen | None = None
        self.conn: Connection | None = None
        self.serial = 0
        try:
            self.start(exercise, load)
        except BaseException:
            self.close()
            raise

    def start(self, exercise: Exercise, load: Any) -> None:
        box = self.scratch / "box"
        inside = Path(INSIDE) if self.walls.bwrap else box
        view = None if load.is_solution else write_view(exercise, self.scratch / "view")
        if isinstance(load, StudentFile):  # graded from a copy in the box, beside its neighbours
            original = Path(load.path)
            copy_sources(original.parent, box / "submission")
            shutil.copyfile(original, box / "submission" / original.name)
            load = replace(load, path=str(inside / "submission" / original.name))
        # The student's part by reference to the package (never by value: a function of the
        # exercises' own modules, the answer key, would travel whole); a notebook's, by value.
        (box / "function.pickle").write_bytes(cloudpickle.dumps(load))
        mine, theirs = socket.socketpair()
        try:
            argv, env = command(self.walls, self.scratch, view, ["-c", CHILD_CODE])
            argv.append(str(theirs.fileno()))
            options = popen_user(self.walls, self.scratch)
            with open(self.scratch / "stderr", "wb") as errors:
                self.process = subprocess.Popen(
                    argv,
                    env=env,
                    pass_fds=(theirs.fileno(),),
                    stdout=subprocess.DEVNULL,
                    stderr=errors,
                    start_new_session=True,
                    **options,
                )
        finally:
            theirs.close()  # the child holds the only other end: its death is an EOF here
        self.conn = Connection(mine.detach())
        parent = None if self.walls.bwrap else os.getpid()
        with by_value():
            grader = cloudpickle.dumps((self.limits, exercise.outcome, parent))
        self.conn.send_bytes(grader)
        self.conn.send_bytes(cloudpickle.dumps(str(inside / "function.pickle")))

    def loaded(self, seconds: float) -> str | None:
        """None once the student's function is loaded, else why not (one line)."""
        message = self.receive(seconds)
        if message[0] == "loaded":
            return None
        if message[0] == "unloadable" and len(message) == 2 and isinstance(message[1], str):
            return message[1]
        raise Stopped(garbled(message))

    def call(self, case: Any, seconds: float) -> tuple:
        """``("returned", value, printed)`` or ``("raised", type name, text, printed)``."""
        assert self.conn is not None
        self.serial += 1
        try:
            with by_value():
                self.conn.send_bytes(cloudpickle.dumps((self.serial, case)))
        except (OSError, ValueError):
            raise Stopped(self.ended()) from None
        message = self.receive(seconds)
        shapes = {"returned": 4, "raised": 5}
        if message[0] not in shapes or len(message) != shapes[message[0]]:
            raise Stopped(garbled(message))
        if message[1] != self.serial:
            raise Stopped(garbled(message))
        if not all(isinstance(text, str) for text in message[2 if message[0] == "raised" else 3 :]):
            raise Stopped(garbled(message))
        return (message[0], *message[2:])

    def receive(self, seconds: float) -> tuple:
        """One message within ``seconds`` (a fixed deadline: whatever arrives, it never moves)."""
        assert self.conn is not None
        deadline = time.monotonic() + seconds
        wait = deadline - time.monotonic()
        if wait <= 0 or not self.conn.poll(wait):
            raise Stopped(self.ended() if not self.alive() else f"time:{seconds:g}")
        try:
            blob = self.conn.recv_bytes(MAX_MESSAGE_BYTES)
        except (EOFError, OSError):
            raise Stopped(self.ended()) from None
        try:
            message = read_data(blob)
        except Exception as err:  # noqa: BLE001 (anything unreadable is the child's doing)
            raise Stopped(f"garbled:{type(err).__name__}") from None
        if not isinstance(message, tuple) or not message:
            raise Stopped(garbled(message))
        return message

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def ended(self) -> str:
        """Why the child is gone: ``cpu``, ``killed:N``, ``exit:N`` (bubblewrap passes a death by
        signal N on as the status 128 + N)."""
        if self.process is None:
            return "exit:None"
        try:
            code = self.process.wait(5)
        except subprocess.TimeoutExpired:
            return "exit:None"
        if self.walls.bwrap and code > 128:
            code = 128 - code
        if hasattr(signal, "SIGXCPU") and code == -signal.SIGXCPU:
            return f"cpu:{self.limits.cpu_seconds:g}"
        return f"killed:{-code}" if code < 0 else f"exit:{code}"

    def startup_problem(self) -> str | None:
        """Why the child could not start (bubblewrap's message, or Python's last line): said
        before any of the student's code runs, so the grader's own problem."""
        try:
            text = (self.scratch / "stderr").read_bytes()[-4000:].decode("utf-8", "replace")
        except OSError:
            return None
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return short(lines[-1], 200) if lines else None

    def close(self) -> None:
        """Kill the child and every process it started, reap it, remove the scratch folder."""
        if self.process is not None:
            end_tree(self.process.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(10)
        if self.conn is not None:
            with contextlib.suppress(OSError):
                self.conn.close()
        remove_scratch(self.scratch)


def garbled(message: Any) -> str:
    return f"garbled:{short(message, 80)}"


# --- Ending a process tree -------------------------------------------------------------------------


def processes() -> dict[int, tuple[int, int, int]]:
    """``pid -> (parent pid, process group, session)`` of every process, from ``/proc``."""
    found = {}
    for entry in Path("/proc").iterdir() if Path("/proc/self/stat").exists() else ():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2 :].split()  # after "pid (name) ": state ppid pgrp sid
        if fields[0] in ("Z", "X"):
            continue  # a zombie is already dead: only its parent can reap it
        found[int(entry.name)] = (int(fields[1]), int(fields[2]), int(fields[3]))
    return found


def tree(root: int) -> set[int]:
    """``root``'s descendants and every process of its session or group (``root`` leads both)."""
    table = processes()
    found = {pid for pid, (_, group, session) in table.items() if root in (group, session)}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, _, _) in table.items():
            if ppid == parent and pid not in found:
                found.add(pid)
                frontier.append(pid)
    found.discard(root)
    found.discard(os.getpid())
    return found


def end_tree(root: int) -> None:
    """Freeze ``root`` and its tree (so nothing forks meanwhile), then kill them all."""
    signal_all({root}, getattr(signal, "SIGSTOP", signal.SIGTERM))
    frozen: set[int] = set()
    for _ in range(100):  # each round freezes what the last one missed; a frozen tree cannot grow
        new = tree(root) - frozen
        if not new:
            break
        signal_all(new, getattr(signal, "SIGSTOP", signal.SIGTERM))
        frozen |= new
    if not Path("/proc/self/stat").exists() and hasattr(os, "killpg"):
        with contextlib.suppress(OSError):
            os.killpg(root, signal.SIGKILL)  # no /proc: the child's own group at least
    signal_all(frozen | {root}, getattr(signal, "SIGKILL", signal.SIGTERM))


def signal_all(pids: set[int], number: int) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, number)
