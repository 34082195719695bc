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
