"""Scale-out: `dep parse` of EWT test x20 with the bundled model in one process,
with `--workers 2` (a process pool) and on a real Dask cluster (a `dask scheduler` and two
`dask worker` processes on 127.0.0.1), byte for byte the same; a worker SIGKILLed in the middle
of a run with --output-dir; --resume after a part is deleted; `dep train --workers 2` on EWT
train against one process; and the figures docs/scale.md plans from: the cost of a shard, of
sending the model to the workers, of a task on the scheduler, and a simulated run on ten
workers whose work is a sleep of a shard's measured cost. Prints one JSON object per
measurement and, with --results, writes its section of docs/results.md.

    python benchmarks/scale_out.py [--corpora DIR] [--copies 20] [--runs 3]
                                   [--parts acceptance,costs,train] [--results docs/results.md]

Whole processes are timed one after the other in pairs (one process, then the other way), each
pair's ratio taken, and the medians quoted: on a shared machine a pair sees the same load. The
machine's load is stated beside the figures (machine.publish).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from child_process import child_run, polyparse_command
from machine import Records, publish, work_folder
from tables import markdown_table, significant

DASK = str(Path(sys.executable).parent / "dask")
SIMULATED_WORKERS = 10
PARTS = ("acceptance", "costs", "train")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def parts_sha256(folder: Path) -> str:
    digest = hashlib.sha256()
    for part in sorted(folder.glob("part-*")):
        digest.update(part.read_bytes())
    return digest.hexdigest()


# Dask's worker samples its task threads' stacks every 10 ms for its profile page: with it on,
# a shard takes its worker 7 to 20 % more CPU here (docs/scale.md).
PROFILER_OFF = {"DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}


@contextmanager
def dask_cluster(workers: int, log: Path, settings: dict[str, str] | None = None
                 ) -> Iterator[tuple[str, Any]]:
    """A `dask scheduler` and `workers` single-threaded `dask worker` processes on 127.0.0.1
    (their Dask settings in the environment), and a client of it once they have all joined."""
    from distributed import Client

    scheduler_file = str(log.with_name(f"scheduler-{workers}.json"))
    Path(scheduler_file).unlink(missing_ok=True)
    out = open(log, "ab")
    environment = {**os.environ, **(settings or {})}
    processes = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                   "--no-dashboard", "--scheduler-file", scheduler_file],
                                  stdout=out, stderr=out, env=environment)]
    processes.append(subprocess.Popen([DASK, "worker", "--scheduler-file", scheduler_file,
                                       "--nworkers", str(workers), "--nthreads", "1",
                                       "--no-dashboard", "--host", "127.0.0.1",
                                       "--memory-limit", "0"], stdout=out, stderr=out,
                                      env=environment))
    client = None
    try:
        client = Client(scheduler_file=scheduler_file, timeout="120s", set_as_default=False)
        client.wait_for_workers(workers, timeout=300)
        address = client.scheduler.address
        yield address, client
    finally:
        if client is not None:
            client.close()
        for process in reversed(processes):  # the workers first: they would wait for
            process.terminate()                # the scheduler to come back
            process.wait()
        out.close()


def paired(first: list[str], second: list[str], runs: int) -> tuple[float, float, float]:
    """Median wall seconds of first and of second, and the median of first/second over runs
    pairs (after one warm-up of each)."""
    child_run(first, quiet_stderr=True)
    child_run(second, quiet_stderr=True)
    a, b = [], []
    for _ in range(runs):
        a.append(child_run(first, quiet_stderr=True)[0])
        b.append(child_run(second, quiet_stderr=True)[0])
    return (statistics.median(a), statistics.median(b),
            statistics.median(x / y for x, y in zip(a, b)))


def kill_a_worker_mid_run(polyparse: list[str], data: Path, folder: Path, address: str,
                          client: Any) -> float:
    """`dep parse --output-dir folder --scheduler address` with one worker SIGKILLed once the
    third part is written; its wall seconds."""
    started = time.perf_counter()
    run = subprocess.Popen([*polyparse, "dep", "parse", str(data), "--output-dir", str(folder),
                            "--scheduler", address], stderr=subprocess.DEVNULL)
    victim = sorted(client.run(os.getpid).values())[0]
    while len(list(folder.glob("part-*"))) < 3 and run.poll() is None:
        time.sleep(0.01)
    os.kill(victim, signal.SIGKILL)
    if run.wait() != 0:
        raise SystemExit(f"the run with a killed worker failed ({run.returncode})")
    return time.perf_counter() - started


class SleepingShardTask:
    """A shard's work simulated: a sleep of the measured seconds per shard, then the shard's
    own bytes as its output (as long as a parse's), so that reading, sending, scheduling,
    receiving and writing are real."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __call__(self, model: Any, shard: Any) -> Any:
        from polyparse.parser.scale_out.shards import ShardResult

        time.sleep(self.seconds)
        return ShardResult(shard.index, shard.data, shard.data.count(b"\n\n"), seconds=0.0)


def shard_costs(data: Path) -> tuple[float, float, int]:
    """Median seconds of `dep parse` of a shard of 1 MiB in this process (the parser built),
    and its CPU seconds; the number of shards."""
    from polyparse.parser.formats.record_boundaries import cut_rule_of
    from polyparse.parser.models.bundled import bundled_model
    from polyparse.parser.pipeline.dependency_service import ParserFiles, open_parser
    from polyparse.parser.scale_out.shards import cut_shards

    model = open_parser(ParserFiles(str(bundled_model())))
    task = model.shard_task()
    with open(data, "rb") as stream:
        shards = list(cut_shards(stream, cut_rule_of("conllu"), 1 << 20, str(data)))
    task(model, shards[0])
    walls, cpus = [], []
    for shard in shards[1:9]:
        wall, cpu = time.perf_counter(), time.process_time()
        task(model, shard)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), len(shards)


def scheduler_costs(client: Any, tasks: int = 2000) -> float:
    """Seconds per task of `tasks` tasks that do nothing, submitted and gathered at once."""
    started = time.perf_counter()
    futures = client.map(int, range(tasks), pure=False)
    client.gather(futures)
    return (time.perf_counter() - started) / tasks


def forget_models() -> None:
    """Run on a worker: the models it built from payloads forgotten."""
    from polyparse.parser.scale_out import model_transfer

    model_transfer._built.clear()


def model_transfer(client: Any, by_reference: bool) -> tuple[float, int]:
    """Seconds to have every worker build the bundled parser from its payload, sent by
    reference (each worker reads the file) or scattered to all, and the bytes sent."""
    from polyparse.parser.dependency.dependency_parser import DependencyParser
    from polyparse.parser.models.bundled import bundled_model
    from polyparse.parser.scale_out.model_transfer import ModelPayload

    model = DependencyParser.load(str(bundled_model()))
    client.run(forget_models)
    started = time.perf_counter()
    payload = ModelPayload.of(model, str(bundled_model()))
    if by_reference:
        payload = payload.reference(str(bundled_model()))
        sent: Any = payload
    else:
        sent = client.scatter(payload, broadcast=True, hash=False)
    built = [client.submit(lambda p: p.model().decoder() is not None, sent, pure=False,
                           workers=[address]) for address in client.nthreads()]
    client.gather(built)
    return time.perf_counter() - started, len(payload.data)


def simulated_run(data: Path, address: str, seconds: float, workers: int) -> tuple[float, int]:
    """Wall seconds and shards of the input run by SleepingShardTask on the cluster through
    the real driver (cutting, ordering, writing to /dev/null), once every worker holds the
    model (the transfer is measured apart)."""
    from polyparse.parser.dependency.dependency_parser import DependencyParser
    from polyparse.parser.formats.record_boundaries import cut_rule_of
    from polyparse.parser.models.bundled import bundled_model
    from polyparse.parser.scale_out.runners import DaskRunner, run_shard_task
    from polyparse.parser.scale_out.sharded_run import run_to_stream
    from polyparse.parser.scale_out.shards import cut_shards

    model = DependencyParser.load(str(bundled_model()))
    runner = DaskRunner(SleepingShardTask(seconds), model, address, str(bundled_model()))
    with open(data, "rb") as stream:
        first = next(cut_shards(stream, cut_rule_of("conllu"), 1 << 20, str(data)))
    runner.client.gather([runner.client.submit(run_shard_task, SleepingShardTask(0.0),
                                               runner.model, first, pure=False,
                                               workers=[worker])
                          for worker in runner.client.nthreads()])
    count: list[object] = []
    started = time.perf_counter()
    with open(data, "rb") as stream, open(os.devnull, "wb") as out:
        run_to_stream(cut_shards(stream, cut_rule_of("conllu"), 1 << 20, str(data)), runner,
                      out, count.append)
    return time.perf_counter() - started, len(count)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default=os.environ.get("POLYPARSE_CORPORA", "../shared/corpora"))
    ap.add_argument("--copies", type=int, default=20, help="copies of EWT test parsed")
    ap.add_argument("--runs", type=int, default=3, help="timed pairs of each comparison")
    ap.add_argument("--parts", default=",".join(PARTS),
                    help=f"comma-separated, from {', '.join(PARTS)} (default: all)")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    parts = [part for part in args.parts.split(",") if part]
    if not parts or any(part not in PARTS for part in parts):
        ap.error(f"--parts takes {', '.join(PARTS)}")
    corpora = Path(args.corpora)
    test = corpora / "en_ewt" / "en_ewt-ud-test.conllu"
    if not test.is_file():
        ap.error(f"{test} not found (give --corpora)")
    records = Records(f"EWT test x{args.copies}")
    rows: list[tuple[str, str]] = []
    with work_folder("polyparse-scale-") as workdir:
        data = workdir / "ewt.conllu"
        data.write_bytes(test.read_bytes() * args.copies)
        sentences = test.read_bytes().count(b"\n\n") * args.copies
        if "acceptance" in parts:
            acceptance(data, sentences, workdir, args.runs, records, rows)
        if "costs" in parts:
            costs(data, sentences, workdir, records, rows)
        if "train" in parts:
            training(corpora, test, workdir, records, rows)

    if args.results:
        lines = markdown_table(("what", "measured"), rows)
        lines += ["", f"EWT test x{args.copies} ({sentences:,} sentences, "
                  f"{data_megabytes(test, args.copies):.0f} MiB) parsed with the bundled model; "
                  f"whole processes timed in pairs, medians of {args.runs} pairs after a "
                  "warm-up. docs/scale.md plans from the costs."]
        publish(args.results, "scale_out", "Scale-out: process pool and Dask", lines)
    return 0


def data_megabytes(test: Path, copies: int) -> float:
    return test.stat().st_size * copies / 2**20


def acceptance(data: Path, sentences: int, workdir: Path, runs: int, records: Records,
               rows: list[tuple[str, str]]) -> None:
    """--workers 2 and 2 Dask workers against one process; a worker killed mid-run; --resume."""
    polyparse = polyparse_command()
    one, pooled, on_dask = (workdir / name for name in ("one.conllu", "workers.conllu",
                                                        "dask.conllu"))
    alone = [*polyparse, "dep", "parse", str(data), "-o", str(one)]
    workers = [*polyparse, "dep", "parse", str(data), "-o", str(pooled), "--workers", "2"]
    a, b, ratio = paired(workers, alone, runs)
    ratio = 1 / ratio
    same = sha256(one) == sha256(pooled)
    records.emit("dep parse --workers 2 against one process, whole process", round(ratio, 2),
                 "x faster", one_process_seconds=round(b, 2), workers_seconds=round(a, 2),
                 sentences=sentences, identical=same, output_sha256=sha256(one))
    rows.append(("`--workers 2` (process pool), whole process",
                 f"{a:.2f} s against {b:.2f} s: **{ratio:.2f}x** (bar >= 1.8x); "
                 f"{'byte-identical' if same else 'DIFFERENT'} (sha256 {sha256(one)[:12]})"))

    for settings, described in ((PROFILER_OFF, "their profiler off"), ({}, "Dask's defaults")):
        with dask_cluster(2, workdir / "dask.log", settings) as (address, _):
            scheduled = [*polyparse, "dep", "parse", str(data), "-o", str(on_dask),
                         "--scheduler", address]
            a, b, ratio = paired(scheduled, alone, runs)
            ratio = 1 / ratio
            same = sha256(one) == sha256(on_dask)
            records.emit(f"dep parse --scheduler (2 Dask workers, {described}) against one "
                         "process", round(ratio, 2), "x faster", one_process_seconds=round(b, 2),
                         dask_seconds=round(a, 2), identical=same, worker_settings=settings)
            rows.append((f"2 Dask workers (`dask scheduler`, 2 x `dask worker --nthreads 1`, "
                         f"{described}), whole process",
                         f"{a:.2f} s against {b:.2f} s: **{ratio:.2f}x** (bar >= 1.7x); "
                         f"{'byte-identical' if same else 'DIFFERENT'}"))
    with dask_cluster(2, workdir / "dask.log") as (address, client):
        folder = workdir / "parts"
        seconds = kill_a_worker_mid_run(polyparse, data, folder, address, client)
        parts = sorted(folder.glob("part-*"))
        manifest = (folder / "_manifest.jsonl").read_text().splitlines()[1:]
        whole = parts_sha256(folder) == sha256(one)
        complete = len(manifest) == len(parts) and (folder / "_SUCCESS").exists()
        records.emit("a Dask worker SIGKILLed mid-run with --output-dir", round(seconds, 2),
                     "s", parts=len(parts), manifest_lines=len(manifest),
                     success=(folder / "_SUCCESS").exists(), identical=whole)
    lost = parts[len(parts) // 2]
    kept = {p.name: p.stat().st_mtime_ns for p in parts if p != lost}
    lost.unlink()
    started = time.perf_counter()
    subprocess.run([*polyparse, "dep", "parse", str(data), "--output-dir", str(folder),
                    "--resume", "--workers", "1"], check=True)
    resumed = time.perf_counter() - started
    redone = [p.name for p in sorted(folder.glob("part-*"))
              if kept.get(p.name) != p.stat().st_mtime_ns]
    exact = redone == [lost.name] and parts_sha256(folder) == sha256(one)
    records.emit("--resume --workers 1 after deleting a part", round(resumed, 2), "s",
                 redone=redone, identical=parts_sha256(folder) == sha256(one))
    rows.append(("one Dask worker SIGKILLed once the third part is written, --output-dir",
                 f"succeeded in {seconds:.1f} s; {len(parts)} parts, {len(manifest)} manifest "
                 f"lines, _SUCCESS {'written' if complete else 'MISSING'}; the parts "
                 f"concatenate {'to the same bytes' if whole else 'to OTHER BYTES'}"))
    rows.append(("`--resume --workers 1` after deleting one part",
                 f"{resumed:.2f} s; redid {', '.join(redone)} "
                 f"{'only, same bytes' if exact else '(NOT EXACT)'}"))


def costs(data: Path, sentences: int, workdir: Path, records: Records,
          rows: list[tuple[str, str]]) -> None:
    """What docs/scale.md plans from: a shard, the model's transfer, a scheduler task, and
    simulated runs on ten workers (sleeping a shard's cost, and doing nothing)."""
    per_shard, per_shard_cpu, n_shards = shard_costs(data)
    records.emit("dep parse of one 1 MiB shard, parser built", round(per_shard, 3), "s",
                 cpu_seconds=round(per_shard_cpu, 3), shards=n_shards,
                 sentences_per_shard=round(sentences / n_shards))
    rows.append((f"one 1 MiB shard (about {sentences / n_shards:,.0f} sentences), parser built",
                 f"{significant(per_shard)} s wall, {significant(per_shard_cpu)} s CPU"))
    with dask_cluster(2, workdir / "dask.log") as (_, client):
        read, _ = model_transfer(client, by_reference=True)
        transfer, payload = model_transfer(client, by_reference=False)
        per_task = scheduler_costs(client)
    records.emit("model to 2 Dask workers: by reference, each reads the file and builds",
                 round(read, 3), "s")
    records.emit("model to 2 Dask workers: scatter and build", round(transfer, 3), "s",
                 payload_bytes=payload)
    rows.append(("the model to 2 workers by reference: each reads the file, checks its "
                 "sha256 and builds the parser", f"{significant(read)} s"))
    records.emit("Dask scheduler: a task that does nothing", round(per_task * 1e3, 3),
                 "ms per task")
    rows.append(("the model to 2 workers: scattered bytes, each builds the parser",
                 f"{significant(transfer)} s for {payload / 2**20:.1f} MiB"))
    rows.append(("a Dask task that does nothing (2,000 at once, 2 workers)",
                 f"{significant(per_task * 1e3)} ms"))
    triple = workdir / "simulated.conllu"
    triple.write_bytes(data.read_bytes() * 3)
    megabytes = triple.stat().st_size / 2**20
    with dask_cluster(SIMULATED_WORKERS, workdir / "dask.log") as (address, _):
        seconds, shards = simulated_run(triple, address, per_shard_cpu, SIMULATED_WORKERS)
        ceiling, _ = simulated_run(triple, address, 0.0, SIMULATED_WORKERS)
    predicted = shards * per_shard_cpu / SIMULATED_WORKERS
    records.emit(f"simulated run, {SIMULATED_WORKERS} workers sleeping a shard's cost",
                 round(seconds, 2), "s", shards=shards, predicted_seconds=round(predicted, 2),
                 sentences_per_second=round(3 * sentences / seconds))
    records.emit(f"simulated run, {SIMULATED_WORKERS} workers doing nothing: the driver and "
                 "scheduler's ceiling", round(megabytes / ceiling, 1), "MiB/s",
                 seconds=round(ceiling, 2), shards=shards,
                 shards_per_second=round(shards / ceiling, 1))
    rows.append((f"simulated: {SIMULATED_WORKERS} Dask workers, each shard a sleep of its CPU "
                 "cost, the real driver and transfers",
                 f"{seconds:.2f} s for {shards} shards ({3 * sentences / seconds:,.0f} "
                 f"sentences/s); ideal {predicted:.2f} s"))
    rows.append((f"simulated: {SIMULATED_WORKERS} Dask workers that do nothing (the driver "
                 "reads and cuts the input, each worker reads its shards, the driver receives "
                 "and writes every output byte)",
                 f"{ceiling:.2f} s for {shards} shards: {shards / ceiling:.0f} shards/s, "
                 f"{megabytes / ceiling:.0f} MiB/s of input"))


def training(corpora: Path, test: Path, workdir: Path, records: Records,
             rows: list[tuple[str, str]]) -> None:
    """dep train --workers 2 on EWT train against one process: the parses of EWT test."""
    polyparse = polyparse_command()
    train = corpora / "en_ewt" / "en_ewt-ud-train.conllu"
    results = []
    for options in ([], ["--workers", "2"]):
        model = workdir / f"train{len(results)}.model"
        started = time.perf_counter()
        subprocess.run([*polyparse, "dep", "train", "--train", str(train), "--model",
                        str(model), "--quiet", *options], check=True)
        seconds = time.perf_counter() - started
        parsed = workdir / f"train{len(results)}.conllu"
        subprocess.run([*polyparse, "dep", "parse", "--model", str(model), str(test), "-o",
                        str(parsed)], check=True)
        results.append((seconds, sha256(parsed)))
    same = results[0][1] == results[1][1]
    records.emit("dep train --workers 2 on EWT train (poly2-linear)", round(results[1][0], 1),
                 "s", one_process_seconds=round(results[0][0], 1), parses_identical=same,
                 test_parse_sha256=results[0][1])
    rows.append(("`dep train --workers 2` on EWT train (the default poly2-linear), its parse "
                 "of EWT test", f"{results[1][0]:.1f} s against {results[0][0]:.1f} s "
                 f"(--threads 2); {'byte-identical' if same else 'DIFFERENT'} parse (sha256 "
                 f"{results[0][1][:12]})"))


if __name__ == "__main__":
    sys.exit(main())
