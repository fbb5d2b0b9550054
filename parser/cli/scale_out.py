"""The scale-out options every prediction command takes (`--workers N`, `--scheduler ADDRESS`,
`--output-dir DIR`, `--resume`, `--shard-size SIZE`; docs/scale.md), checked before any data
is read, and the run in shards they ask for (parser/scale_out/). Dask is imported only when
`--scheduler` is given."""
from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

from polyparse.features.errors import InputError
from polyparse.features.input_files import input_name, is_regular_file
from polyparse.parser.cli.common import progress_bar, warn

SCHEDULER_VARIABLE = "DASK_SCHEDULER_ADDRESS"
_SIZE = re.compile(r"([0-9]+)\s*([KMG]?)i?B?", re.I)
_SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def shard_size(text: str) -> int:
    """A --shard-size value: bytes, or a number with K, M or G (binary units)."""
    found = _SIZE.fullmatch(text.strip())
    if found is None or int(found.group(1)) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size in bytes (such as 4M)")
    return int(found.group(1)) * _SIZE_UNITS[found.group(2).upper()]


def worker_count(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if count < 1:
        raise argparse.ArgumentTypeError("at least 1")
    return count


def add_worker_options(group: Any, what: str) -> None:
    """--workers and --scheduler, for what the workers do."""
    group.add_argument("--workers", type=worker_count, metavar="N",
                       help=f"{what} in N local worker processes (the result is the same)")
    group.add_argument("--scheduler", nargs="?", const="", metavar="ADDRESS",
                       help=f"{what} on the Dask cluster of this scheduler (tcp://HOST:PORT; "
                            f"without ADDRESS: ${SCHEDULER_VARIABLE}); pip install "
                            "'polyparse[dask]'")


def add_training_options(command: argparse.ArgumentParser) -> None:
    """--workers and --scheduler of a training command (docs/scale.md)."""
    add_worker_options(command.add_argument_group("scale-out (docs/scale.md)"),
                       "greedy parsers: train the classifiers")


def add_scale_out_options(command: argparse.ArgumentParser) -> None:
    """The scale-out options of a prediction command, in their own group of its --help."""
    from polyparse.parser.scale_out.shards import SHARD_BYTES

    group = command.add_argument_group("scale-out (docs/scale.md)")
    add_worker_options(group, "parse")
    group.add_argument("--output-dir", metavar="DIR",
                       help="write one part file per shard, _manifest.jsonl and _SUCCESS into "
                            "DIR instead of one output")
    group.add_argument("--resume", action="store_true",
                       help="complete the run that wrote --output-dir DIR: redo only its "
                            "missing or damaged parts")
    group.add_argument("--shard-size", type=shard_size, default=SHARD_BYTES, metavar="SIZE",
                       help="input bytes per shard, cut at the next record (default 1M)")


def wants_scale_out(args: argparse.Namespace) -> bool:
    """Whether the run goes in shards: --workers, --scheduler or --output-dir given."""
    return args.workers is not None or args.scheduler is not None or args.output_dir is not None


def check_scale_out(args: argparse.Namespace, command: str, encoding: str = "utf-8") -> None:
    """One line for options that do not go together, before any data is read; sets
    args.scheduler to the address (the environment's when --scheduler has none)."""
    if args.resume and args.output_dir is None:
        raise InputError(f"{command}: --resume completes an --output-dir; give the folder")
    if not wants_scale_out(args):
        return
    from polyparse.parser.scale_out.parts_directory import check_parts_folder

    check_workers(args, command)
    if args.output_dir is not None and getattr(args, "output", None) is not None:
        raise InputError(f"{command}: -o writes one file and --output-dir a folder of parts; "
                         "give one of them")
    if any(c.encode(encoding) != c.encode("ascii") for c in "\n\t\r #E"):
        raise InputError(f"{command}: --encoding {encoding} does not write line ends and "
                         "ASCII as ASCII does, so the input cannot be cut into shards; run "
                         "without --workers, --scheduler and --output-dir")
    if args.output_dir is not None:
        check_parts_folder(args.output_dir, args.resume)
    if args.resume and not is_regular_file(args.input):
        raise InputError(f"{command}: --resume reads the input again, so it must be a regular "
                         f"file, not {input_name(args.input)} (standard input, a pipe or a "
                         "FIFO can be read once)")


def check_workers(args: argparse.Namespace, command: str) -> None:
    """--workers and --scheduler do not go together; sets args.scheduler to the address (the
    environment's when --scheduler has none) and checks that Dask is installed."""
    if args.workers is not None and args.scheduler is not None:
        raise InputError(f"{command}: --workers starts local workers and --scheduler uses a "
                         "cluster's; give one of them")
    if args.scheduler is not None:
        args.scheduler = args.scheduler or os.environ.get(SCHEDULER_VARIABLE, "")
        if not args.scheduler:
            raise InputError(f"{command}: --scheduler needs an address (tcp://HOST:PORT), "
                             f"given or in ${SCHEDULER_VARIABLE}")
        from importlib.util import find_spec

        if find_spec("distributed") is None:
            raise InputError(f"{command}: --scheduler needs Dask's distributed package: pip "
                             "install 'polyparse[dask]'")


@contextmanager
def training_executor(args: argparse.Namespace) -> Iterator[Any]:
    """The executor a training command's options ask for (None: its own threads), shut down
    on the way out, at once when an exception (a signal) ends the run."""
    from polyparse.parser.scale_out import training_executors

    if args.scheduler is not None:
        executor = training_executors.DaskJobs(args.scheduler)
    elif args.workers is not None and args.workers > 1:
        executor = training_executors.TrainingPool(args.workers)
    else:
        yield None
        return
    from concurrent.futures.process import BrokenProcessPool

    try:
        yield executor
    except BrokenProcessPool:
        executor.shutdown(wait=False, cancel_futures=True)
        raise InputError("a training worker process died (killed, or out of memory); the "
                         "model was not written") from None
    except BaseException:
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    executor.shutdown()


def shard_options(args: argparse.Namespace) -> Any:
    """The scale-out options of args, as the library takes them."""
    from polyparse.parser.scale_out.file_run import ShardOptions

    return ShardOptions(args.workers, args.scheduler, args.output_dir, args.resume,
                        args.shard_size)


def run_in_shards(args: argparse.Namespace, command: str, task: Any, model: Any,
                  model_path: str, input_format: str, settings: dict[str, Any],
                  on_result: Callable[[Any], None] = lambda result: None,
                  output: str | None = None, discard_output: bool = False,
                  stream: BinaryIO | None = None) -> dict[str, Any]:
    """The input of args parsed in shards by task on model, as the options ask
    (parser/scale_out/file_run.py), with a progress bar; the tallies of the shards, summed.
    Without --output-dir, the output goes to output (default: args.output; None or "-":
    standard output), or nowhere with discard_output."""
    from polyparse.parser.scale_out.file_run import run_file_in_shards

    options = shard_options(args)
    return run_file_in_shards(
        args.input, task, model, model_path, input_format, options, command, settings,
        on_result, output or getattr(args, "output", None), discard_output, stream,
        lambda total: progress_bar(args, total=total, unit=" shards", desc="parsing"))


def parse_in_shards(args: argparse.Namespace, command: str, task: Any, opened: Any,
                    model_path: str, input_format: str, settings: dict[str, Any],
                    coverage: Any, stream: BinaryIO | None = None) -> int:
    """A parse command's run in shards (`dep parse`, `ja parse`): run_in_shards, the tags the
    shards' parsers were given counted into coverage, then its one warning line when the input
    did not give the model what it was trained on."""
    run_in_shards(args, command, task, opened, model_path, input_format, settings,
                  lambda result: coverage.add_counted(result.coverage), stream=stream)
    warning = coverage.warning(input_name(args.input))
    if warning:
        warn(warning)
    return 0
