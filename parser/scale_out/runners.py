"""Where shards run: here, in a local process pool, or on a Dask cluster.

Each runner takes a shard task (parser/scale_out/shard_tasks.py) and the model, sends the model
to each worker once, and then runs shards: submit(shard) gives a handle, result(handle) waits for
its ShardResult. None of them schedules anything itself: the pool is the standard library's
ProcessPoolExecutor, the cluster is Dask's.

- InProcessRunner runs a shard when its result is asked for (`--workers 1`, or `--output-dir`
  alone).
- ProcessPoolRunner (`--workers N`): N processes forked from this one after the model is loaded,
  so each has the model without copying it (on systems without fork, the pool's initializer
  receives it pickled, once per process: its model bytes, checked by sha256,
  classifiers/model_bytes.py). A worker that dies (SIGKILL, out of memory) breaks the pool: a new
  pool is made and the shards that had not come back are sent again, each at most MAX_ATTEMPTS
  times.
- DaskRunner (`--scheduler ADDRESS`): a client of the scheduler. When the model came from a
  file and the input is a regular file, tasks carry references, not bytes: the model file's
  path and sha256 (parser/scale_out/model_transfer.py), read and built once by each worker and
  kept for later runs, and each shard's path, range and sha256 (parser/scale_out/shards.py),
  read by its worker. The scheduler then moves a few hundred bytes a task, and each result
  comes back from its worker directly (when the client may reach the workers: Dask's
  `distributed.client.direct-to-workers`, on by default for a scheduler on this machine). A
  worker that cannot read a reference (another machine without the files) says so, and the
  run goes on with bytes: the model file's bytes scattered to every worker once (checked by
  sha256, built by a worker's first task), each shard's bytes inside its task, through the
  scheduler (scattered instead, they would die with their worker, and Dask keeps no way to
  make scattered data again). When a worker dies, Dask runs its tasks again on another (the
  scheduler's allowed-failures) and copies the model's bytes to the worker that replaces it;
  when it held their last copy (Dask's memory manager drops the copies no waiting task
  needs), the shards that needed them are cancelled, and the driver scatters the bytes again
  and sends those shards again.
"""
from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from typing import Any, Protocol

from polyparse.features.errors import InputError
from polyparse.features.worker_threads import quit_signals_blocked
from polyparse.parser.scale_out.model_transfer import ModelPayload
from polyparse.parser.scale_out.pool_processes import (
    forked_context,
    start_worker_process,
    stop_pool,
)
from polyparse.parser.scale_out.shards import (
    NotOnWorker,
    Shard,
    ShardResult,
    by_reference,
    read_reference,
)

# How many times a shard is sent to a process pool before its loss is an error (Dask's
# scheduler counts the same way: distributed.scheduler.allowed-failures, 3 by default).
MAX_ATTEMPTS = 4
# Shards in flight per worker: enough that a worker never waits for the next one.
SHARDS_PER_WORKER = 4


class ShardRunner(Protocol):
    """What the driver (parser/scale_out/sharded_run.py) needs of a runner."""

    workers: int

    def submit(self, shard: Shard) -> Any: ...

    def result(self, handle: Any) -> ShardResult: ...

    def close(self, abort: bool = False) -> None: ...


class InProcessRunner:
    """Shards run in this process, each when its result is asked for."""

    workers = 1

    def __init__(self, task: Any, model: Any) -> None:
        self.task = task
        self.model = model

    def submit(self, shard: Shard) -> Shard:
        return shard

    def result(self, handle: Shard) -> ShardResult:
        return self.task(self.model, handle)

    def close(self, abort: bool = False) -> None:
        pass


# The model of a pool's worker process, set once by the pool's initializer.
_worker_model: Any = None


def _start_pool_worker(model: Any, driver: int) -> None:
    """A pool worker's start (pool_processes.start_worker_process), the model kept for its
    tasks."""
    global _worker_model
    _worker_model = model
    start_worker_process(driver)


def _run_in_pool_worker(task: Any, shard: Shard) -> ShardResult:
    return task(_worker_model, shard)


@dataclass
class _PoolHandle:
    shard: Shard
    future: Any
    pool_number: int
    attempts: int = 1


class ProcessPoolRunner:
    """Shards run in a pool of `workers` processes (see the module notes)."""

    def __init__(self, task: Any, model: Any, workers: int) -> None:
        self.task = task
        self.model = model
        self.workers = workers
        self.context = forked_context()
        self.pool: Any = None
        self.pool_number = 0
        self._new_pool()

    def _new_pool(self) -> None:
        from concurrent.futures import ProcessPoolExecutor

        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = ProcessPoolExecutor(self.workers, mp_context=self.context,
                                        initializer=_start_pool_worker,
                                        initargs=(self.model, os.getpid()))
        self.pool_number += 1

    def submit(self, shard: Shard) -> _PoolHandle:
        future = self._send(shard)
        return _PoolHandle(shard, future, self.pool_number)

    def _send(self, shard: Shard) -> Any:
        """The shard submitted to the pool; a pool found broken (a worker died since the last
        result) is replaced first."""
        from concurrent.futures.process import BrokenProcessPool

        with quit_signals_blocked():
            try:
                return self.pool.submit(_run_in_pool_worker, self.task, shard)
            except BrokenProcessPool:
                self._new_pool()
                return self.pool.submit(_run_in_pool_worker, self.task, shard)

    def result(self, handle: _PoolHandle) -> ShardResult:
        from concurrent.futures.process import BrokenProcessPool

        while True:
            try:
                return handle.future.result()
            except BrokenProcessPool:
                if handle.pool_number == self.pool_number:
                    self._new_pool()
                if handle.attempts >= MAX_ATTEMPTS:
                    raise InputError(_lost_message(handle.shard, handle.attempts)) from None
                handle.attempts += 1
                handle.future = self._send(handle.shard)
                handle.pool_number = self.pool_number

    def close(self, abort: bool = False) -> None:
        """Shut the pool down: at once when aborting (its workers ended, the shards not
        started dropped), else once its workers have left."""
        if self.pool is None:
            return
        pool, self.pool = self.pool, None
        if abort:
            stop_pool(pool)
        else:
            pool.shutdown(wait=True)


def _lost_message(shard: Shard, attempts: int) -> str:
    return (f"{shard.source}: the worker parsing the shard at line {shard.first_line} (bytes "
            f"{shard.start}-{shard.end}) died {attempts} times; giving up")


def run_shard_task(task: Any, payload: ModelPayload, shard: Shard) -> ShardResult | NotOnWorker:
    """A Dask task: the shard task on the model of the payload (scattered, or by reference),
    the shard's bytes read first when it came by reference; what this worker could not read is
    returned, not raised (the driver then sends bytes, and the worker logs no failed task)."""
    try:
        return task(payload.model(), read_reference(shard))
    except NotOnWorker as missing:
        return missing


@dataclass
class _DaskHandle:
    shard: Shard
    future: Any = None
    # The scattered model the future's task was given (DaskRunner.model when submitted).
    model: Any = None
    attempts: int = 0
    # Times sent, for the task's key (a send that found a reference unreadable is no attempt).
    sends: int = 0


class DaskRunner:
    """Shards run on the Dask cluster whose scheduler is at `address`, or of a client of the
    caller's (which stays open), see the module notes; model_path: the file the model was
    loaded from; by_reference: send the model and regular files' shards by reference while the
    workers can read them (else always bytes).

    Scattered data has no way to be made again, and Dask's active memory manager drops the
    copies no waiting task needs: when the last worker holding the model's bytes dies, the
    shards that needed them are cancelled. A shard found cancelled is sent again (at most
    MAX_ATTEMPTS times) with the model scattered again, once per loss."""

    def __init__(self, task: Any, model: Any, address: str | None = None,
                 model_path: str | None = None, client: Any = None,
                 by_reference: bool = True) -> None:
        self.task = task
        self.own_client = client is None
        self.client = client if client is not None else connect(address or "")
        threads = sum(self.client.nthreads().values())
        if not threads:
            self.client.wait_for_workers(1)
            threads = sum(self.client.nthreads().values())
        self.workers = threads
        # The model file's bytes, kept to be scattered if a worker cannot read the file.
        self.payload_bytes = ModelPayload.of(model, model_path)
        self.payload = self.payload_bytes
        if by_reference and model_path is not None:
            self.payload = self.payload_bytes.reference(model_path)
        self.model = self.payload if self.payload.path is not None else self._scatter_model()
        self.shards_by_reference = by_reference
        self.regular_files: dict[str, str | None] = {}
        self.direct = _direct_to_workers(self.client)
        self.handles: dict[int, _DaskHandle] = {}
        self.run_id = uuid.uuid4().hex

    def _scatter_model(self) -> Any:
        try:
            return self.client.scatter(self.payload, broadcast=True, hash=False)
        except TimeoutError:
            raise InputError("the Dask cluster has no worker to send the model to") from None

    def _reference(self, shard: Shard) -> Shard:
        """The shard as sent: by reference when its input is a regular file, else as it is."""
        if not self.shards_by_reference:
            return shard
        if shard.source not in self.regular_files:
            self.regular_files[shard.source] = (os.path.realpath(shard.source)
                                                if os.path.isfile(shard.source) else None)
        path = self.regular_files[shard.source]
        return shard if path is None else by_reference(shard, path)

    def _send(self, handle: _DaskHandle) -> None:
        if handle.attempts >= MAX_ATTEMPTS:
            raise InputError(_lost_message(handle.shard, handle.attempts))
        handle.attempts += 1
        handle.sends += 1
        handle.model = self.model
        handle.future = self.client.submit(
            run_shard_task, self.task, self.model, self._reference(handle.shard), pure=False,
            key=f"polyparse-shard-{self.run_id}-{handle.shard.index}-{handle.sends}")

    def submit(self, shard: Shard) -> _DaskHandle:
        handle = _DaskHandle(shard)
        self._send(handle)
        self.handles[shard.index] = handle
        return handle

    def result(self, handle: _DaskHandle) -> ShardResult:
        from concurrent.futures import CancelledError

        from distributed import KilledWorker

        while True:
            try:
                result = self.client.gather(handle.future, direct=self.direct)
            except CancelledError:
                self._send_again(handle)
                continue
            except KilledWorker:
                raise InputError(_lost_message(handle.shard, handle.attempts)) from None
            if isinstance(result, NotOnWorker):
                self._send_bytes(handle, result)
                continue
            self.handles.pop(handle.shard.index, None)
            return result

    def _send_bytes(self, handle: _DaskHandle, missing: NotOnWorker) -> None:
        """A worker could not read a reference: from now on the model (scattered) or the
        shards go as bytes, and the shard is sent again."""
        if missing.what == "model" and self.payload.path is not None:
            self.payload = self.payload_bytes
            self.model = self._scatter_model()
        elif missing.what == "input":
            self.shards_by_reference = False
        handle.attempts -= 1
        self._send(handle)

    def _send_again(self, handle: _DaskHandle) -> None:
        """A cancelled shard sent again, with every other shard found cancelled; the model
        scattered again first when it was scattered and that was not done since the shard was
        sent."""
        if handle.model is self.model and self.payload.path is None:
            self.model = self._scatter_model()
        self._send(handle)
        for other in self.handles.values():
            if other is not handle and other.future.cancelled():
                self._send(other)

    def close(self, abort: bool = False) -> None:
        if self.client is None:
            return
        client, self.client = self.client, None
        if abort and self.handles:
            client.cancel([handle.future for handle in self.handles.values()], force=True)
        self.handles.clear()
        if self.own_client:
            client.close()


def _direct_to_workers(client: Any) -> bool:
    """Whether results come from the workers directly: Dask's
    `distributed.client.direct-to-workers` when set, else when the scheduler is on this
    machine (its workers, started beside it, are then reachable from here)."""
    import dask
    from distributed.comm import get_address_host

    configured = dask.config.get("distributed.client.direct-to-workers", None)
    if configured is not None:
        return bool(configured)
    return get_address_host(client.scheduler.address) in ("127.0.0.1", "localhost", "::1")


def runner_for(task: Any, model: Any, workers: int | None = None, scheduler: str | None = None,
               client: Any = None, model_path: str | None = None) -> ShardRunner:
    """The runner a run asks for: a Dask cluster (its scheduler's address, or a client of the
    caller's; model_path: a regular file the workers may read the model from), `workers`
    local processes (more than one), or this process."""
    if scheduler is not None or client is not None:
        return DaskRunner(task, model, scheduler, model_path, client=client)
    if workers is not None and workers > 1:
        return ProcessPoolRunner(task, model, workers)
    return InProcessRunner(task, model)


def connect(address: str) -> Any:
    """A Dask client of the scheduler at address; InputError when it does not answer."""
    try:
        with quit_signals_blocked():
            from distributed import Client

            return Client(address, set_as_default=False, timeout="20s")
    except OSError as error:
        raise InputError(f"--scheduler {address}: cannot reach the Dask scheduler "
                         f"({error})") from None


def shards_in_flight(runner: ShardRunner) -> int:
    """How many shards the driver keeps submitted ahead of the one it waits for."""
    return max(2, SHARDS_PER_WORKER * runner.workers)
