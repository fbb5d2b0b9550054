"""Loading a tokenizer model: a segmenter learned from a treebank (parser/segmentation/model.py,
`polyparse tokenize train`), from its own model file or from a pipeline file's tokenizer layer
(default: the bundled English pipeline's)."""
from __future__ import annotations

import os
from typing import Any

from polyparse.parser.tokenize.segmenter import TextTokenizer

__all__ = ["load_tokenizer", "tokenizer_of_data"]

# The format of the English rule tokenizer's model files, which polyparse no longer reads: named
# only to say so, in one line, when such a file is given.
_RULES_FORMAT = "polyparse-tokenizer"


def load_tokenizer(path: str | os.PathLike | None = None) -> TextTokenizer:
    """A tokenizer model file (default: the bundled English pipeline's; a pipeline file gives
    its tokenizer layer), read once; ModelFileError (one line) when the file is not one."""
    from polyparse.classifiers.model_file import ModelFileError, model_file_data
    from polyparse.features.input_files import input_name
    from polyparse.parser.models.bundled import bundled_tokenizer

    if path is None:
        path = bundled_tokenizer()
        if path is None:
            raise ModelFileError("this installation has no bundled tokenizer model")
    return tokenizer_of_data(model_file_data(path), input_name(path))


def tokenizer_of_data(data: Any, source: str) -> TextTokenizer:
    """load_tokenizer of a model file's bytes as read (model_file_data), named source: a
    tokenizer model file, or a pipeline file's tokenizer layer."""
    from polyparse.classifiers.model_file import ModelFileError, model_format_of_bytes
    from polyparse.classifiers.pipeline_file import layer_data
    from polyparse.parser.segmentation.model import SegmenterModel

    data = layer_data(data, source, "tokenizer")
    if model_format_of_bytes(data) == _RULES_FORMAT:
        raise ModelFileError(
            f"{source}: an English rule tokenizer's model ({_RULES_FORMAT}), a format this "
            "polyparse no longer reads: learn a tokenizer with `polyparse tokenize train "
            "--train TREEBANK --model OUT` (or a whole pipeline with `polyparse pipeline "
            "train`)")
    return SegmenterModel.from_bytes(data, source)
