"""A worker SIGKILLed mid-run costs a retry, not data: on a local process pool and on a real Dask
cluster (a `dask scheduler` and two `dask worker` processes on 127.0.0.1, started once for the
module, ready when the scheduler says two workers have joined), the parts concatenate to the
one-process output, the manifest lists every part and `_SUCCESS` is written; `--resume` with
another number of workers rebuilds exactly a deleted part; the model's bytes lost with the
last worker holding them are scattered again. A kill mid-run comes when the first shard's
result is back (the run is under way, shards in flight on both workers): no sleeping."""
from __future__ import annotations

import io
import json
import multiprocessing
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from polyparse.parser.dependency.dependency_parser import DependencyParser
from polyparse.parser.formats.record_boundaries import cut_rule_of
from polyparse.parser.models.bundled import bundled_example, bundled_model
from polyparse.parser.pipeline.dependency_service import ParserFiles, open_parser
from polyparse.parser.scale_out.parts_directory import MANIFEST, SUCCESS, PartsDirectory
from polyparse.parser.scale_out.runners import DaskRunner, ProcessPoolRunner
from polyparse.parser.scale_out.shard_tasks import DependencyShardTask
from polyparse.parser.scale_out.sharded_run import run_to_parts, run_to_stream
from polyparse.parser.scale_out.shards import Shard, cut_shards
from tests.child_processes import HANG_GUARD_SECONDS
from tests.parser.cli.user_runs import POLYPARSE

SHARD_BYTES = 8 << 10
DASK = str(Path(sys.executable).parent / "dask")


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """The bundled example 150 times over (about 30 shards of 8K), and its one-process parse."""
    path = tmp_path_factory.mktemp("input") / "example.conllu"
    path.write_bytes(bundled_example().read_bytes() * 150)
    parsed = subprocess.run([POLYPARSE, "dep", "parse", str(path)], capture_output=True,
                            check=True).stdout
    return path, parsed


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    """A Dask scheduler and two single-threaded workers on 127.0.0.1 (a free port), and a
    client of it once both workers have joined."""
    distributed = pytest.importorskip("distributed")
    folder = tmp_path_factory.mktemp("dask")
    # The scheduler takes a free port and writes its address into this file; Dask's client and
    # workers wait for the file, then connect.
    scheduler_file = str(folder / "scheduler.json")
    log = open(folder / "cluster.log", "wb")
    processes = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                   "--no-dashboard", "--scheduler-file", scheduler_file],
                                  stdout=log, stderr=log)]
    processes.append(subprocess.Popen([DASK, "worker", "--scheduler-file", scheduler_file,
                                       "--nworkers", "2", "--nthreads", "1", "--no-dashboard",
                                       "--host", "127.0.0.1", "--memory-limit", "0"],
                                      stdout=log, stderr=log))
    client = None
    try:
        client = distributed.Client(scheduler_file=scheduler_file,
                                    timeout=f"{HANG_GUARD_SECONDS}s", set_as_default=False)
        client.wait_for_workers(2, timeout=HANG_GUARD_SECONDS)
        address = client.scheduler.address
        yield address, client
    finally:
        if client is not None:
            client.close()
        for process in reversed(processes):  # the workers first: they would wait for
            process.terminate()                # the scheduler to come back
            process.wait(timeout=HANG_GUARD_SECONDS)
        log.close()


def run_killing_a_worker(path: Path, folder: Path, runner: Any,
                         kill: Callable[[], None]) -> None:
    """The input parsed into folder by runner; kill() once the first result is back."""
    identity = {"command": "dep parse", "input": {"path": str(path)}, "model": {},
                "settings": {}, "shard_bytes": SHARD_BYTES}
    parts = PartsDirectory(folder, identity)
    killed = []

    def after(result: object) -> None:
        if not killed:
            killed.append(True)
            kill()

    with open(path, "rb") as stream:
        shards = cut_shards(stream, cut_rule_of("conllu"), SHARD_BYTES, str(path))
        run_to_parts(shards, runner, parts, after)
    assert killed


def check_parts(folder: Path, parsed: bytes) -> list[dict]:
    entries = [json.loads(line) for line in (folder / MANIFEST).read_text().splitlines()[1:]]
    parts = sorted(folder.glob("part-*"))
    assert [entry["part"] for entry in entries] == [part.name for part in parts]
    assert b"".join(part.read_bytes() for part in parts) == parsed
    assert (folder / SUCCESS).exists() and len(parts) > 10
    return entries


def test_a_pool_worker_killed_mid_run_costs_a_retry(example, tmp_path: Path) -> None:
    path, parsed = example
    model = open_parser(ParserFiles(str(bundled_model())))
    runner = ProcessPoolRunner(DependencyShardTask(), model, 2)

    def kill() -> None:
        os.kill(multiprocessing.active_children()[0].pid, signal.SIGKILL)

    run_killing_a_worker(path, tmp_path / "parts", runner, kill)
    check_parts(tmp_path / "parts", parsed)
    assert runner.pool_number == 2


def test_scheduler_parses_as_one_process(example, cluster, monkeypatch) -> None:
    path, parsed = example
    address, _ = cluster
    result = subprocess.run([POLYPARSE, "dep", "parse", str(path), "--scheduler", address,
                             "--shard-size", "8K"], capture_output=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout == parsed
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", address)
    result = subprocess.run([POLYPARSE, "dep", "parse", str(path), "--scheduler"],
                            capture_output=True)
    assert result.stdout == parsed, result.stderr


def test_a_dask_worker_killed_mid_run_costs_a_retry_and_resume_redoes_a_part(
        example, cluster, tmp_path: Path) -> None:
    path, parsed = example
    address, client = cluster
    model = open_parser(ParserFiles(str(bundled_model())))
    runner = DaskRunner(DependencyShardTask(), model, address, str(bundled_model()))
    pids = sorted(client.run(os.getpid).values())

    def kill() -> None:
        os.kill(pids[0], signal.SIGKILL)

    folder = tmp_path / "parts"
    run_killing_a_worker(path, folder, runner, kill)
    check_parts(folder, parsed)
    client.wait_for_workers(2, timeout=HANG_GUARD_SECONDS)
    assert pids[0] not in client.run(os.getpid).values()

    cli = tmp_path / "cli"
    run = [POLYPARSE, "dep", "parse", str(path), "--shard-size", "8K", "--output-dir", str(cli)]
    assert subprocess.run([*run, "--scheduler", address], capture_output=True).returncode == 0
    entries = check_parts(cli, parsed)
    lost = cli / entries[5]["part"]
    lost.unlink()
    kept = {part.name: part.stat().st_mtime_ns for part in cli.glob("part-*")}
    result = subprocess.run([*run, "--resume", "--workers", "2"], capture_output=True)
    assert result.returncode == 0, result.stderr
    assert check_parts(cli, parsed) == entries
    assert {part.name: part.stat().st_mtime_ns for part in cli.glob("part-*")
            if part.name != lost.name} == kept


def output_of(runner: Any, path: Path, source: Path | None = None) -> bytes:
    """What runner writes for the input at path, its shards named after source (default:
    path); the runner closed after."""
    out = io.BytesIO()
    with open(path, "rb") as stream:
        run_to_stream(cut_shards(stream, cut_rule_of("conllu"), SHARD_BYTES,
                                 str(source or path)), runner, out, lambda result: None)
    runner.close()
    return out.getvalue()


def test_references_the_workers_cannot_read_give_way_to_bytes(
        example, cluster, tmp_path: Path) -> None:
    """The model and the shards go by reference (path and sha256); when the workers find
    another file at the model's path and other bytes at the input's, they say so, and the run
    goes on with the model scattered and the shards' bytes in their tasks: the same output."""
    path, parsed = example
    address, _ = cluster
    # A model file no worker has built yet: the bundled model stored the other way (compressed
    # or not), so that its bytes and sha256 are those of no other test's model.
    moved = tmp_path / "model"
    bundled = DependencyParser.load(str(bundled_model()))
    bundled.save(moved, compress=not bundled.compressed)
    assert moved.read_bytes() != bundled_model().read_bytes()
    model = open_parser(ParserFiles(str(moved)))
    runner = DaskRunner(DependencyShardTask(), model, address, str(moved))
    assert runner.payload.path == str(moved) and runner.payload.data == b""
    moved.write_bytes(b"another file")
    elsewhere = tmp_path / "elsewhere.conllu"
    elsewhere.write_bytes(path.read_bytes().replace(b"\tNOUN\t", b"\tVERB\t"))
    assert output_of(runner, path, source=elsewhere) == parsed
    assert runner.payload.path is None and not runner.shards_by_reference


def test_shards_of_a_regular_file_go_by_reference(example, cluster) -> None:
    path, parsed = example
    address, _ = cluster
    model = open_parser(ParserFiles(str(bundled_model())))
    runner = DaskRunner(DependencyShardTask(), model, address, str(bundled_model()))
    sent = []
    send = runner._reference

    def spy(shard: Shard) -> Shard:
        sent.append(send(shard))
        return sent[-1]

    runner._reference = spy  # type: ignore[method-assign]
    assert output_of(runner, path) == parsed
    assert len(sent) > 10 and all(shard.data == b"" and shard.path == str(path.resolve())
                                  for shard in sent)
    assert runner.model is runner.payload and runner.shards_by_reference and runner.direct


def test_the_model_lost_with_its_last_worker_is_scattered_again(
        example, cluster, tmp_path: Path) -> None:
    """Dask's memory manager keeps one copy of scattered data that no waiting task needs; the
    worker holding it is killed before the run: the shards cancelled with it are sent again
    with the model scattered again."""
    path, parsed = example
    address, client = cluster
    small = tmp_path / "small.conllu"
    small.write_bytes(bundled_example().read_bytes() * 25)
    model = open_parser(ParserFiles(str(bundled_model())))
    runner = DaskRunner(DependencyShardTask(), model, address, str(bundled_model()),
                        by_reference=False)
    first = runner.model
    client.amm.run_once()
    holders = client.run_on_scheduler(
        lambda dask_scheduler, key: [ws.address for ws in dask_scheduler.tasks[key].who_has],
        key=first.key)
    assert len(holders) == 1
    os.kill(client.run(os.getpid)[holders[0]], signal.SIGKILL)
    assert output_of(runner, small) == parsed[:len(parsed) // 150] * 25
    assert runner.model is not first
    client.wait_for_workers(2, timeout=HANG_GUARD_SECONDS)


def test_dep_train_on_the_cluster_gives_the_one_process_model(cluster, tmp_path: Path) -> None:
    from tests.parser.dependency.synthetic import write_treebank

    address, _ = cluster
    train = write_treebank(tmp_path / "train.conllu", 300, seed=7)
    models = []
    for options in ([], ["--scheduler", address]):
        model = tmp_path / f"m{len(models)}.model"
        result = subprocess.run([POLYPARSE, "dep", "train", "--train", str(train), "--model",
                                 str(model), "--split-threshold", "100", "--classifier",
                                 "linear", *options], capture_output=True)
        assert result.returncode == 0, result.stderr
        models.append(DependencyParser.load(str(model)).to_bytes(extra_header={}))
    assert models[0] == models[1]
