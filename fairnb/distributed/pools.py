"""Thread and process pools, and any other ``concurrent.futures.Executor``, as the shard driver's backend.

``ExecutorBackend`` says how the driver (``fairnb.distributed.driver``) uses one: its default number of shards
(``ShardedExecutor``'s ``n_shards``, else one per worker of the pool), how the model travels (as it is to
threads; packed by ``fairnb.distributed.shipping`` to others, loaded once per process), and how shards report
and read Stop: a ``DirectLink`` for threads of this process, a ``ManagerLink`` (a ``multiprocessing`` manager's
queue and event) for a ``ProcessPoolExecutor``, ``NoLink`` for an executor that reaches nothing of this process.

Example
-------
>>> from concurrent.futures import ThreadPoolExecutor
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=500, random_state=0)
>>> with ThreadPoolExecutor(2) as pool:
...     result = fairnb.run_search(data.info["true_model"], data.domain, method="random", n_samples=4000,
...                                random_state=0, executor=ShardedExecutor(pool, n_shards=4))
>>> result.tried, len(result.extras["shards"])
(4000, 4)
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np

from ..user_frame import warn
from .driver import drive
from .shard import run_shard


class ShardedExecutor(Executor):
    """``executor`` (any ``concurrent.futures.Executor``) running a search in ``n_shards`` shards (default: one
    per worker of ``executor`` where it says how many it has, else one per CPU); tasks other than shards
    go to ``executor`` as they are. Shutting it down shuts ``executor`` down.

    >>> from concurrent.futures import ThreadPoolExecutor
    >>> ShardedExecutor(ThreadPoolExecutor(2), n_shards=4).n_shards
    4
    """

    def __init__(self, executor: Executor, n_shards: int | None = None):
        if not isinstance(executor, Executor):
            raise TypeError(f"executor: expected a concurrent.futures.Executor, got {type(executor).__name__}")
        if n_shards is not None and (isinstance(n_shards, bool) or not isinstance(n_shards, (int, np.integer))
                                     or n_shards < 1):
            raise ValueError(f"n_shards must be a positive integer or None, got {n_shards!r}")
        self.executor, self.n_shards = executor, n_shards

    def submit(self, fn, /, *args, **kwargs):
        return self.executor.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.executor.shutdown(wait=wait, cancel_futures=cancel_futures)

    def __repr__(self) -> str:
        return f"ShardedExecutor({self.executor!r}, n_shards={self.n_shards})"


class DirectLink:
    """Shards on threads of this process: they call the driver's ``on_message`` and read a ``threading.Event``."""

    def __init__(self, on_message):
        self.on_message, self.stop_flag = on_message, threading.Event()

    def open(self):
        return self.on_message, self.stop_flag, threading.current_thread().name

    def poll(self) -> None:
        pass

    def stop(self) -> None:
        self.stop_flag.set()

    def close(self) -> None:
        pass


class ManagerLink:
    """Shards in processes of this machine: a ``multiprocessing`` manager's queue and event."""

    def __init__(self, on_message):
        import multiprocessing

        self.on_message = on_message
        self._manager = multiprocessing.get_context("spawn").Manager()   # a fork of a threaded process may hang
        self.queue, self.stop_flag = self._manager.Queue(), self._manager.Event()

    def __getstate__(self):
        return {"queue": self.queue, "stop_flag": self.stop_flag}

    def open(self):
        return self.queue.put, self.stop_flag, f"process {os.getpid()}"

    def poll(self) -> None:
        import queue

        while True:
            try:
                self.on_message(self.queue.get_nowait())
            except queue.Empty:
                return

    def stop(self) -> None:
        self.stop_flag.set()

    def close(self) -> None:
        self.poll()
        self._manager.shutdown()


class NoLink:
    """Shards on an executor that reaches nothing of this process: no messages, no Stop while they run."""

    def open(self):
        return None, None, None

    def poll(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


class Given:
    """``(model, domain)`` handed to the shard as they are (threads of this process)."""

    def __init__(self, model, domain):
        self.pair = (model, domain)

    def __call__(self):
        return self.pair


class Unpacked:
    """``(model, domain)`` packed by ``fairnb.distributed.shipping`` (Keras models as ``.keras`` files), unpacked
    once per process."""

    _loaded: dict = {}

    def __init__(self, model, domain):
        import uuid

        from .shipping import Shipped

        self.shipped, self.key = Shipped((model, domain)), uuid.uuid4().hex

    def __call__(self):
        loaded = Unpacked._loaded.get(self.key)
        if loaded is None:
            loaded = self.shipped.load()
            Unpacked._loaded.clear()            # one run's model at a time per process
            Unpacked._loaded[self.key] = loaded
        return loaded


def warn_if_forking(pool: ProcessPoolExecutor) -> None:
    """Warn when ``pool`` forks its processes from this one while other threads run here (TensorFlow's, a
    progress panel's, a Jupyter kernel's): a fork copies the locks those threads hold, and a process that
    needs one waits for ever, so the search would never return."""
    context = getattr(pool, "_mp_context", None)
    if context is not None and context.get_start_method() == "fork" and threading.active_count() > 1:
        warn(f"this process pool forks its processes while {threading.active_count()} threads run here: a "
             "forked process may wait for ever on a lock another thread held; create it with "
             "ProcessPoolExecutor(n, mp_context=multiprocessing.get_context('spawn'))", RuntimeWarning)


class ExecutorBackend:
    """How the driver uses a ``concurrent.futures.Executor``: its default number of shards, how the model
    travels, how shards report (``DirectLink`` on threads, ``ManagerLink`` on a process pool, else
    ``NoLink``), submitting and cancelling."""

    def __init__(self, executor: Executor):
        self.executor = executor.executor if isinstance(executor, ShardedExecutor) else executor
        self.n_shards = executor.n_shards if isinstance(executor, ShardedExecutor) else None
        self.link = None

    def default_shards(self) -> int:
        workers = getattr(self.executor, "_max_workers", None)   # ThreadPoolExecutor, ProcessPoolExecutor
        return self.n_shards or (workers if isinstance(workers, int) and workers > 0 else os.cpu_count() or 1)

    def start(self, run, model, domain, seeds):
        """``(source, data, link)`` for the shards: the model and domain, the seeds, the link open."""
        if isinstance(self.executor, ThreadPoolExecutor):
            self.link = DirectLink(run.on_message)
            return Given(model, domain), seeds, self.link
        if isinstance(self.executor, ProcessPoolExecutor):
            warn_if_forking(self.executor)
            self.link = ManagerLink(run.on_message)
        else:
            self.link = NoLink()
        try:
            source = Unpacked(model, domain)
        except ImportError:                       # no cloudpickle: the executor pickles them its own way
            source = Given(model, domain)
        return source, seeds, self.link

    def submit(self, task: tuple, index: int, run_id: str):
        return self.executor.submit(run_shard, *task)

    def cancel_waiting(self, run, futures: dict, pending: set) -> None:
        for f in pending:       # a concurrent.futures.Future that runs refuses to be cancelled
            f.cancel()

    def give_up(self, pending: set) -> set:
        """Cancel ``pending`` shards (they did not return after Stop); returns those to wait for still (here
        the cancelled ones, which end at once: a running one cannot be cancelled and is left running)."""
        return {f for f in pending if f.cancel()}

    def lost(self, error: BaseException) -> bool:
        """Whether ``error`` means the shard's worker went away (rather than the shard failing)."""
        return isinstance(error, BrokenExecutor)

    def wait_any(self, pending: set, timeout: float) -> None:
        from concurrent.futures import FIRST_COMPLETED, wait

        wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)

    def close(self, futures) -> None:
        self.give_up(futures)
        if self.link is not None:
            self.link.close()


def run_on_executor(search, model, domain, seeds=None, *, client, n_shards=None, listeners=(), oracle=None,
                    should_stop=lambda: False):
    """The entry point of ``search.run(..., executor=ex)`` for any ``concurrent.futures.Executor``
    (``fairnb.search.engine.executors``): ``n_shards`` given to the run, else ``ShardedExecutor``'s, else one per
    worker of the executor."""
    return drive(ExecutorBackend(client), search, model, domain, seeds, n_shards=n_shards, listeners=listeners,
                 oracle=oracle, should_stop=should_stop)
