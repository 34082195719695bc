"""The course runner's kernel channels: messages are read, and a quiet socket times out."""

from __future__ import annotations

import asyncio
import time
from queue import Empty

import pytest
import zmq
import zmq.asyncio
from jupyter_client.session import Session

from bpe_course.course.runner.kernel_client import RecheckingChannel, RecheckingKernelClient


def test_the_runner_uses_the_rechecking_client() -> None:
    import nbformat
    from nbclient import NotebookClient

    from bpe_course.course.runner.execute import _client_config

    client = NotebookClient(nbformat.v4.new_notebook(), kernel_name="python3")
    client.config = _client_config()
    manager = client.create_kernel_manager()
    assert isinstance(manager.client(), RecheckingKernelClient)
    assert RecheckingKernelClient.shell_channel_class.default_value is RecheckingChannel


def test_channel_reads_a_message_and_times_out_when_quiet() -> None:
    async def scenario() -> tuple[dict, float]:
        context = zmq.asyncio.Context()
        receiver, sender = context.socket(zmq.PAIR), context.socket(zmq.PAIR)
        port = receiver.bind_to_random_port("tcp://127.0.0.1")
        sender.connect(f"tcp://127.0.0.1:{port}")
        session = Session(key=b"k")
        channel = RecheckingChannel(receiver, session)
        session.send(sender, "execute_reply", {"status": "ok"})
        message = await channel.get_msg(timeout=5)
        start = time.monotonic()
        with pytest.raises(Empty):
            await channel.get_msg(timeout=1.5)
        waited = time.monotonic() - start
        for socket in (receiver, sender):
            socket.close(linger=0)
        context.term()
        return message, waited

    message, waited = asyncio.run(scenario())
    assert message["msg_type"] == "execute_reply" and message["content"] == {"status": "ok"}
    assert 1.4 < waited < 10  # the whole timeout, in slices, then Empty


NBCONVERT_CLIENT = """
from nbconvert.nbconvertapp import NbConvertApp
from nbconvert.preprocessors import ExecutePreprocessor
import nbformat

app = NbConvertApp()
app.load_config_file()
client = ExecutePreprocessor(config=app.config)
client.nb = nbformat.v4.new_notebook()
print(type(client.create_kernel_manager().client()).__name__)
"""


def test_jupyter_nbconvert_in_this_environment_uses_the_rechecking_client(tmp_path) -> None:
    # A teacher who pre-runs the notebooks with `jupyter nbconvert --execute` gets the runner's
    # guard too: the config file the package installs in the environment's etc/jupyter (here read
    # from the checkout, which an editable install may not have copied yet).
    import os
    import subprocess
    import sys
    from pathlib import Path

    config = Path(__file__).resolve().parents[1] / "jupyter-config"
    env = {**os.environ, "JUPYTER_CONFIG_PATH": str(config)}
    run = subprocess.run(
        [sys.executable, "-c", NBCONVERT_CLIENT],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.stdout.strip() == "RecheckingKernelClient", run.stdout + run.stderr
    # ... and a notebook still runs under it, end to end.
    notebook = tmp_path / "tiny.ipynb"
    nbformat_module = pytest.importorskip("nbformat")
    cells = [nbformat_module.v4.new_code_cell("print(6 * 7)")]
    nbformat_module.write(nbformat_module.v4.new_notebook(cells=cells), notebook)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "jupyter",
            "nbconvert",
            "--execute",
            "--to",
            "notebook",
            "--stdout",
            str(notebook),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert run.returncode == 0 and '"42\\n"' in run.stdout, run.stderr[-2000:]
