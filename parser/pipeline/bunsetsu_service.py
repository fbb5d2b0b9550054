"""Japanese bunsetsu parsing as both faces ask for it: the command line (`ja parse`) and the
Python API (`polyparse.load_japanese_parser`) choose the model here (a file, a bundled model's
name, or the bundled model of the input's tag scheme) and parse through the pipeline built
here: MeCab for raw text, the bunsetsu parser, the KNP / CaboCha writer; or, for KNP and
CaboCha in UTF-8 written back in their own format, the same stages fused over the bytes
(parser/bunsetsu/stream_parsing.py's KnpStreamParser).
"""
from __future__ import annotations

import io
import os
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, BinaryIO

from polyparse.classifiers.model_bytes import Buffer, ModelBytes
from polyparse.features.errors import InputError
from polyparse.parser.formats.bunsetsu import BUNSETSU_FORMATS, OUTPUT_FORMAT
from polyparse.parser.pipeline.bunsetsu_stages import (
    BunsetsuReader,
    BunsetsuWriter,
    JapaneseTextReader,
    ParseBunsetsu,
)
from polyparse.parser.pipeline.pipeline import Pipeline
from polyparse.parser.pipeline.stage import BUNSETSU, MORPHEMES, Reader, Stage, Watch

if TYPE_CHECKING:
    from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser

Path = str | os.PathLike


def japanese_model_file(model: Path | None, fmt: str | None = None,
                        tagset: str | None = None) -> tuple[str, str | None]:
    """The model file a parse uses and, when it is a bundled model, its name: model a file;
    model a bundled model's name (ja_wac, ja_unidic, ja_ipadic) that is no file here; model
    None: the bundled model of the input's tag scheme (raw text: MeCab with UniDic; an input
    whose first lines do not tell: JUMAN's). InputError when this installation lacks it."""
    from polyparse.parser.models.bundled import (
        DEFAULT_JAPANESE_MODEL,
        JAPANESE_MODEL_FOR_TAGSET,
        TEXT_TAGSET,
        bundled_japanese_model,
        bundled_japanese_name,
    )

    name = bundled_japanese_name(None if model is None else os.fspath(model))
    if model is None:
        name = JAPANESE_MODEL_FOR_TAGSET.get(TEXT_TAGSET if fmt == "raw" else tagset or "",
                                             DEFAULT_JAPANESE_MODEL)
    if name is None:
        return os.fspath(model), None
    found = bundled_japanese_model(name)
    if found is None:
        raise InputError(f"this installation has no bundled Japanese model {name}; give a "
                         "model file")
    return str(found), name


class OpenedJapaneseParser(ModelBytes):
    """A bunsetsu parser ready to parse (its model, named in messages as model_name); it
    pickles as its model's bytes, so that a process pool or a Dask worker runs the same
    stages."""

    # The formats whose files a parse cuts into shards (the first: the default).
    INPUT_FORMATS = BUNSETSU_FORMATS

    def __init__(self, model: BunsetsuParser, model_name: str = "the model") -> None:
        self.model = model
        self.model_name = model_name

    def pickle_bytes(self) -> bytes:
        return self.model.pickle_bytes()

    def to_bytes(self) -> bytes:
        return self.model.to_bytes()

    @classmethod
    def from_bytes(cls, data: Buffer, source: str = "model bytes") -> OpenedJapaneseParser:
        from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser

        return cls(BunsetsuParser.from_bytes(data, source), source)

    def runtime_settings(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def apply_runtime_settings(self, settings: dict[str, Any]) -> None:
        self.model_name = settings.get("model_name", self.model_name)

    @property
    def text_tagset(self) -> str:
        """The tag scheme whose MeCab dictionary segments raw text for this parser: that of
        its training data, JUMAN's when the model does not say."""
        return self.model.tagset or "juman"

    def reader(self, fmt: str, encoding: str = "utf-8", errors: str = "strict") -> Reader:
        """The pipeline's start for an input format: MeCab for raw text, else the format's
        reader."""
        if fmt == "raw":
            return JapaneseTextReader(self.text_tagset, encoding, errors)
        return BunsetsuReader(fmt, encoding, errors)

    def pipeline(self, fmt: str, encoding: str = "utf-8", errors: str = "strict",
                 rechunk: bool = False, output_format: str | None = None,
                 coverage: Any = None) -> Pipeline | FusedBunsetsuPipeline:
        """The parse of an input in fmt written in output_format (default: OUTPUT_FORMAT);
        coverage counts the parts of speech of the input. KNP or CaboCha in UTF-8 written back
        in their own format, not rechunked, take the fused pipeline (bytes in and out)."""
        from polyparse.parser.bunsetsu.stream_parsing import knp_fast_path

        written = output_format or OUTPUT_FORMAT[fmt]
        coverage = coverage if coverage is not None else self.model.tag_coverage()
        if knp_fast_path(fmt, encoding, rechunk, written):
            return FusedBunsetsuPipeline(self, fmt, encoding, errors, coverage)
        stages: list[Stage] = [Watch(coverage.add),
                               ParseBunsetsu(self.model, self.model_name, rechunk)]
        return Pipeline(self.reader(fmt, encoding, errors), stages,
                        BunsetsuWriter(written, replace=errors == "replace"))

    def parsed_text(self, sentences: list[Any], fmt: str, rechunk: bool = False) -> str:
        """The blocks of sentences already read, parsed and written in fmt (the stages of
        pipeline() on a list, as the Python API gives them)."""
        pipeline = Pipeline(None, [ParseBunsetsu(self.model, self.model_name, rechunk)],
                            BunsetsuWriter(fmt), frozenset({MORPHEMES, BUNSETSU}))
        out = io.StringIO()
        pipeline.write(pipeline.run(sentences), out)
        return out.getvalue()

    def shard_task(self, fmt: str = "knp", encoding: str = "utf-8", rechunk: bool = False,
                   output_format: str | None = None, errors: str = "strict") -> Any:
        """What a scale-out worker does with a shard of a file in fmt (parser/scale_out)."""
        from polyparse.parser.scale_out.shard_tasks import JapaneseShardTask

        return JapaneseShardTask(fmt, encoding, rechunk, output_format, errors)


class FusedBunsetsuPipeline:
    """The reader, the bunsetsu parse and the writer of a KNP or CaboCha pipeline fused over
    the bytes (KnpStreamParser: the compiled scanner reads them, the decoder parses them and
    only the heads of the input's bytes are rewritten): the same layers as the Pipeline it
    stands for, and the same output."""

    binary = True

    def __init__(self, opened: OpenedJapaneseParser, fmt: str, encoding: str, errors: str,
                 coverage: Any) -> None:
        self.opened = opened
        self.fmt = fmt
        self.encoding = encoding
        self.errors = errors
        self.coverage = coverage
        # The threads a batch is parsed in (None: one per core, KnpStreamParser's own).
        self.threads: int | None = None
        # The pipeline these bytes go through, its layers checked as any other's.
        self.stands_for = Pipeline(BunsetsuReader(fmt, encoding, errors),
                                   [ParseBunsetsu(opened.model, opened.model_name)],
                                   BunsetsuWriter(fmt))

    def stream(self, stream: BinaryIO, more_ready: Callable[[], bool], out: IO, name: str,
               first_line: int = 1, progress: Callable[[int], object] | None = None) -> None:
        from polyparse.features.input_files import is_regular_stream
        from polyparse.parser.bunsetsu.stream_parsing import KnpStreamParser

        parser = KnpStreamParser(self.opened.model, name, self.opened.model_name,
                                 self.coverage, self.encoding, self.errors, self.fmt)
        if self.threads is not None:
            parser.threads = self.threads
        flush = not is_regular_stream(out)

        def write(data: bytes) -> None:
            out.write(data)
            if flush:
                out.flush()

        try:
            parser.run(stream, more_ready, write, progress or (lambda n: None), first_line)
        finally:
            parser.close()

    def done(self) -> list[str]:
        return []


def open_japanese_parser(path: Path, model_name: str | None = None) -> OpenedJapaneseParser:
    """The bunsetsu parser of a model file (named in messages as model_name, default its
    path); InputError when it cannot be used."""
    from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser

    return OpenedJapaneseParser(BunsetsuParser.load(os.fspath(path)),
                                model_name or os.fspath(path))
