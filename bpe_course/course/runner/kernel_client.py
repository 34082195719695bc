"""A Jupyter kernel client for the course runner that cannot miss a message it has received.

Seen here under load: the kernel sent a cell's reply, but the client's asyncio poll on the shell
socket never woke up (ZeroMQ signals readiness on an edge-triggered descriptor, and the edge was
missed); the message was only read when the poll's timeout ran out, a whole cell timeout later.
These channels poll in slices of a second: each slice ends with a direct check of the socket, so a
missed wake-up costs at most a second.
"""

from __future__ import annotations

import time
from queue import Empty

from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from traitlets import Type

SLICE_S = 1.0


class RecheckingChannel(AsyncZMQSocketChannel):
    async def get_msg(self, timeout: float | None = None) -> dict:  # type: ignore[override]
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            wait_s = SLICE_S if left is None else min(SLICE_S, left)
            if await self.socket.poll(int(wait_s * 1000)):
                return await self._recv()
            if left is not None and left <= SLICE_S:
                raise Empty


class RecheckingKernelClient(AsyncKernelClient):
    shell_channel_class = Type(RecheckingChannel)  # type: ignore[assignment]
    iopub_channel_class = Type(RecheckingChannel)  # type: ignore[assignment]
    control_channel_class = Type(RecheckingChannel)  # type: ignore[assignment]
