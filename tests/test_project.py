"""The project's set-up files agree with each other."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")

ROOT = Path(__file__).resolve().parents[1]


def requirement_names(requirements: list[str]) -> dict[str, str]:
    out = {}
    for requirement in requirements:
        name = re.split(r"[<>=!~ \[]", requirement, maxsplit=1)[0].lower().replace("_", "-")
        out[name] = requirement.replace(" ", "")
    return out


def test_environment_yml_matches_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = requirement_names(project["dependencies"] + extras["test"] + extras["cluster"])
    # conda-forge has no extras: dask[distributed] is its two packages, dask and distributed
    wanted.pop("dask")
    wanted.update(requirement_names(["dask>=2024.1", "distributed>=2024.1"]))
    lines = (ROOT / "environment.yml").read_text().splitlines()
    section = lines[lines.index("dependencies:") + 1 :]
    # conda packages, and the pip section's (packages conda-forge may not have)
    conda = [line.strip()[2:] for line in section if re.match(r"^(  |      )- [a-z]", line)]
    conda = [c for c in conda if not c.startswith(("python", "pip"))]
    assert requirement_names(conda) == wanted
    assert "      - -e ." in lines  # installs the package itself


def test_make_installs_the_cluster_extra() -> None:
    # The Dask tests run in CI only if the environment make builds has the cluster extra.
    assert re.search(r"pip install .*-e '\.\[test,cluster\]'", (ROOT / "Makefile").read_text())


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in readme and "make course" in readme
    assert re.search(r"^make test$", ci, re.M)


def test_make_test_runs_every_test_in_one_of_its_two_passes() -> None:
    # The parallel pass leaves the serial tests out; the second pass runs them (and only them).
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile[makefile.index("\ntest:") : makefile.index("\n\n", makefile.index("\ntest:"))]
    passes = re.findall(r"-m pytest (.*?);", recipe)
    assert len(passes) == 2, recipe
    assert "-n " in passes[0] and '-m "not serial"' in passes[0]
    assert passes[1].strip() == "-m serial"


def test_the_shared_fixture_groups_name_tests_that_exist() -> None:
    # A group of make test's scheduler (conftest.py) whose tests were renamed would group nothing.
    from .conftest import SHARED_FIXTURES

    for start in SHARED_FIXTURES:
        path, _, name = start.partition("::")
        source = (ROOT / path).read_text(encoding="utf-8")
        name = name.rstrip("[")
        assert not name or re.search(rf"^def {name}\(", source, re.M), start


@pytest.mark.slow
def test_every_module_imports_without_unix_only_modules() -> None:
    # Windows has no resource, fcntl or termios: importing any module of the package (the
    # benchmark worker included) must not need them. A fresh interpreter, so nothing is cached.
    import subprocess
    import sys

    script = (
        "import sys\n"
        "for name in ('resource', 'fcntl', 'termios'):\n"
        "    sys.modules[name] = None\n"
        "import importlib, pkgutil, bpe_course\n"
        "for info in pkgutil.walk_packages(bpe_course.__path__, 'bpe_course.'):\n"
        "    importlib.import_module(info.name)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
