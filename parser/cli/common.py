"""What every command group of the `polyparse` command line shares: the `--debug` and
`--quiet` flags, the lines written to stderr, progress bars, the defaults of backend settings
as help text, and inputs read once with their digests."""
from __future__ import annotations

import argparse
import codecs
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any, BinaryIO, TypeVar

Read = TypeVar("Read")


def common_options() -> argparse.ArgumentParser:
    """A parent parser giving every subcommand the `--debug` and `--quiet` flags."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parent.add_argument("-q", "--quiet", action="store_true",
                        help="no progress bar and no progress lines on stderr (warnings and "
                             "errors are still written)")
    return parent


def subcommands(group: argparse.ArgumentParser, names: tuple[str, ...]
                ) -> tuple[argparse._SubParsersAction, argparse.ArgumentParser]:
    """The subcommands of a group (one of names is required) and the parent parser giving
    each of them the common options."""
    commands = group.add_subparsers(dest="command", metavar="{" + ",".join(names) + "}",
                                    required=True)
    return commands, common_options()


def add_train_command(commands: argparse._SubParsersAction, parent: argparse.ArgumentParser,
                      help: str, description: str | None = None,
                      train_help: str = "training treebank",
                      dev_help: str | None = "development treebank, scored after training"
                      ) -> argparse.ArgumentParser:
    """A group's `train` subcommand with the files every trainer takes: --train FILE,
    --dev FILE (unless dev_help is None) and --model OUT, the file written."""
    train = commands.add_parser("train", parents=[parent], help=help, description=description)
    train.add_argument("--train", required=True, metavar="FILE", help=train_help)
    if dev_help is not None:
        train.add_argument("--dev", metavar="FILE", help=dev_help)
    train.add_argument("--model", required=True, metavar="OUT", help="model file to write")
    return train


def add_model_writing_options(train: argparse.ArgumentParser, seed: int) -> None:
    """--compress and --seed (default seed) of a trainer whose model file stores arrays."""
    train.add_argument("--compress", action="store_true",
                       help="store the model's arrays zlib-compressed (smaller file, slower load)")
    train.add_argument("--seed", type=int, default=seed, help="default: %(default)s")


def add_config_options(command: argparse.ArgumentParser, config: type,
                       helps: Mapping[str, str],
                       choices: Mapping[str, tuple[str, ...]] | None = None) -> None:
    """An option for each setting that helps describes: --NAME (the configuration's field,
    "_" written "-"), with the field's default and its type (or choices), and a help line
    ending in the default."""
    for name, what in helps.items():
        default = getattr(config, name)
        options: dict[str, Any] = {"default": default, "help": f"{what} (default %(default)s)"}
        if choices and name in choices:
            options["choices"] = choices[name]
        else:
            options["type"] = type(default)
        command.add_argument("--" + name.replace("_", "-"), **options)


def log(message: str) -> None:
    """One progress line on stderr."""
    print(f"polyparse: {message}", file=sys.stderr, flush=True)


def _silent(message: str) -> None:
    pass


def progress_log(args: argparse.Namespace) -> Callable[[str], None]:
    """log, or nothing with --quiet."""
    return _silent if getattr(args, "quiet", False) else log


def settings_help(defaults: Mapping[str, Mapping[str, object]], setting: str) -> str:
    """The defaults of one backend setting, for a --help line: "default: pa-slicing 0.0002,
    poly2-linear 0.1" (the backends that take it, in their order)."""
    from polyparse.classifiers.backend_settings import BY_NAME

    return f"default: {BY_NAME[setting].default_text(defaults)}"


def add_backend_settings(command: argparse.ArgumentParser,
                         defaults: Mapping[str, Mapping[str, object]],
                         skip: Iterable[str] = ()) -> None:
    """An option for each backend setting (classifiers/backend_settings.py) that a backend of
    defaults takes, None unless given; its help line names the backends that take it and their
    defaults: "pa-slicing, linear: cost C (default: pa-slicing 0.0002, linear 0.1)"."""
    from polyparse.classifiers.backend_settings import settings_of

    for setting in settings_of(defaults):
        if setting.name in skip:
            continue
        options: dict[str, Any] = {
            "dest": setting.name, "default": None,
            "help": f"{', '.join(setting.takers(defaults))}: {setting.what} (default: "
                    f"{setting.default_text(defaults)})"}
        if setting.action == "boolean":
            options["action"] = argparse.BooleanOptionalAction
        elif setting.action is not None:
            options["action"] = setting.action
            if setting.metavar:
                options["metavar"] = setting.metavar
        else:
            options.update(type=setting.type, choices=setting.choices)
            if setting.metavar:
                options["metavar"] = setting.metavar
        command.add_argument(setting.flag, **options)


def backend_values(args: argparse.Namespace, backend: str,
                   defaults: Mapping[str, Mapping[str, object]]) -> dict[str, Any]:
    """The backend settings given on the command line, as backend's keywords (a repeated
    option read by its setting); SettingNotTaken (named by the setting, which option_error
    turns into its option) for one that backend does not take."""
    from polyparse.classifiers.backend_settings import settings_of
    from polyparse.classifiers.settings import SettingNotTaken, listed

    values: dict[str, Any] = {}
    for setting in settings_of(defaults):
        value = getattr(args, setting.name, None)
        if value is None:
            continue
        keyword = setting.keyword_of(backend, defaults)
        if keyword is None:
            raise SettingNotTaken(setting.name,
                                  f"applies to {listed(setting.takers(defaults))}, not {backend}")
        try:
            values[keyword] = setting.read(value) if setting.read is not None else value
        except ValueError as error:
            raise ValueError(f"{setting.flag} {error}") from None
    return values


def warn(message: str) -> None:
    """One warning line on stderr: the run goes on, but its result may not be what was meant."""
    log(f"warning: {message}")


def check_training_files(args: argparse.Namespace) -> None:
    """A trainer's --train and --dev checked as inputs and apart from --model (before any is
    read); a warning line when dev is the training file."""
    from polyparse.features.input_files import check_input_paths, same_file
    from polyparse.features.output_files import check_output_apart

    check_input_paths([args.train, args.dev])
    check_output_apart(args.model, [args.train, args.dev], "model")
    if same_file(args.train, args.dev):
        warn(f"--dev {args.dev} is the training file: its scores are not those of unseen text")


class _NoProgress:
    """What a progress bar offers, doing nothing (stderr is not a terminal)."""

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def shows_progress(args: argparse.Namespace) -> bool:
    """Whether a run shows progress bars: stderr is a terminal and --quiet is not given."""
    return sys.stderr.isatty() and not getattr(args, "quiet", False)


def progress_bar(args: argparse.Namespace, **options: Any) -> Any:
    """A tqdm progress bar on stderr when shows_progress(args), else a silent stand-in (tqdm
    is then not even imported, which keeps short runs short)."""
    if not shows_progress(args):
        return _NoProgress()
    from polyparse.features.progress import progress_bar as stderr_bar

    return stderr_bar(**options)


def text_encoding(name: str) -> str:
    """An --encoding value: a text encoding Python knows (argparse reports any other)."""
    try:
        info = codecs.lookup(name)
    except LookupError:
        raise argparse.ArgumentTypeError(f"unknown text encoding {name!r}") from None
    if not getattr(info, "_is_text_encoding", True):
        raise argparse.ArgumentTypeError(f"{name!r} is not a text encoding")
    return name


def read_hashed(path: str, read: Callable[[BinaryIO, str], Read]) -> tuple[Read, str]:
    """read(stream, name) of the input at path ("-": standard input), opened once, and the
    sha256 of its bytes, as a model header records its training data: a pipe or a FIFO
    cannot be opened a second time to hash it."""
    from polyparse.features.input_files import input_reader

    with input_reader(path) as reader:
        found = read(reader.stream, reader.name)
        return found, reader.sha256()


def given_settings(args: argparse.Namespace, names: Iterable[str]) -> dict[str, Any]:
    """The settings of names that the command has as options, by name (None: not given), for
    a library service that decides which of them apply."""
    return {name: getattr(args, name) for name in names if hasattr(args, name)}


def option_error(args: argparse.Namespace, error: ValueError) -> str:
    """A library's ValueError in the command's words: a setting that does not apply
    (SettingNotTaken) named by its option (`--features` for feature_set), as argparse knows
    it from the command's parser (args.options)."""
    setting = getattr(error, "setting", None)
    options = getattr(args, "options", None)
    if setting is None or options is None:
        return str(error)
    for action in options._actions:
        if action.dest == setting and action.option_strings:
            return f"{action.option_strings[0]} {error.reason}"
    return str(error)


def streamed(pipeline: Any) -> Callable[..., None]:
    """The parse of parse_streams for a pipeline (parser/pipeline/pipeline.py): its stages run
    on the input stream, batch by batch, each told to the progress bar."""

    def run(stream: BinaryIO, more_ready: Callable[[], bool], out: Any, name: str,
            progress: Callable[[int], object]) -> None:
        pipeline.stream(stream, more_ready, out, name, progress=progress)

    return run


def parse_streams(args: argparse.Namespace, coverage: Any,
                  parse: Callable[..., None], binary: bool = False,
                  desc: str = "parsing", stream: BinaryIO | None = None) -> int:
    """What `dep parse` and `ja parse` do once the model is loaded: open the input (args.input,
    "-" for stdin; or take stream, the input already opened, its start read to tell what it
    holds) and the output (args.output, bytes when binary), run
    parse(stream, more_ready, out, name, progress_update) under a progress bar, and warn in one
    line when the input's tags do not give the model what it was trained on (coverage, None
    for no such check); desc names the work on the progress bar."""
    from polyparse.features.input_files import opened_or_given
    from polyparse.features.output_files import output_stream

    name = "<stdin>" if args.input == "-" else args.input
    with opened_or_given(args.input, stream) as (stream, more_ready), \
            output_stream(args.output, binary=binary, encoding=args.encoding) as out:
        progress = progress_bar(args, unit=" sent", desc=desc)
        parse(stream, more_ready, out, name, progress.update)
        progress.close()
    warning = coverage.warning(name) if coverage is not None else None
    if warning:
        warn(warning)
    return 0
