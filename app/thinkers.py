"""How the server's thinking processes start: the strong bots' worker (``app.bots.apart``) and the
hints' and reviews' (``app.learn.workers``), each a process spawned by the server for searches that
would otherwise hold its interpreter lock.

Two things every such process does first (``start_worker``, a pool's initializer):

- **Its priority.** It lowers its niceness and stays in the server's session. Linux shares a busy
  machine between scheduling groups first (``autogroup``: one a session) and by niceness only within
  a group, so in the server's group a niced worker gets what the server itself leaves of the group's
  share, and yields to the server whenever the server wants the CPU. In a session of its own it is a
  group of its own: niced as a group, so light that busy neighbours left it a playout or two a hint;
  not niced, as heavy as the server's group, taking its share from the server under load.
- **It ends with the server.** A worker whose server died without shutting its pools down (killed, or
  stopped while a task ran) was seen waiting for its next task for ever, its parent gone; a watch
  thread ends it once its parent is gone.
"""

from __future__ import annotations

import os
import threading
import time

PARENT_CHECK_SECONDS = 1.0


def start_worker(niceness: int) -> None:
    """A worker process's first step (its pool's ``initializer``): ``niceness`` added to its own, and
    a watch that ends it when the process that started it (the server) is gone."""
    os.nice(niceness)
    server = os.getppid()
    threading.Thread(target=_end_with, args=(server,), name="end-with-server", daemon=True).start()


def _end_with(server: int) -> None:
    while os.getppid() == server:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(0)  # the server is gone: nothing here is anyone's any more
