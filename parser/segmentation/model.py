"""The segmenter's model: three linear classifiers as explicit weights (inner boundaries, gaps,
sentence ends; parser/segmentation/boundary_templates.pyx), the multiword splitter's table and
rules, and a header (format, settings, training data and scores), in a versioned model file
(classifiers/model_file.py: a JSON header plus NumPy arrays, written atomically, no pickle).
A model pickles as its file's bytes (classifiers/model_bytes.py)."""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from polyparse.classifiers.model_bytes import Buffer, ModelBytes
from polyparse.classifiers.model_file import (
    arrays_strings,
    decode_model,
    encode_model,
    inconsistent,
    model_file_data,
    require_arrays,
    string_arrays,
)
from polyparse.features.input_files import input_name
from polyparse.features.output_files import write_bytes
from polyparse.parser.segmentation.boundary_decoder import LinearWeights
from polyparse.parser.segmentation.multiword import MultiwordSplitter
from polyparse.parser.segmentation.multiword_context import ContextSplits
from polyparse.parser.segmentation.segmenter import Segmenter
from polyparse.parser.segmentation.sentences import SegmentedSentence
from polyparse.parser.tokenize.segmenter import LEARNED_SEGMENTER_FORMAT

__all__ = ["FORMAT", "FORMAT_VERSION", "SegmenterModel", "load_segmenter"]

FORMAT = LEARNED_SEGMENTER_FORMAT
FORMAT_VERSION = 1
CLASSIFIERS = ("inner", "gap", "sentence")
# Separates a multiword entry's token (or suffix) from its words in the model file (CoNLL-U
# forms hold no tab).
_SEPARATOR = "\t"


class SegmenterModel(ModelBytes):
    """A trained segmenter: segment(text) -> sentences (parser/segmentation/sentences.py)."""

    def __init__(self, inner: LinearWeights, gap: LinearWeights | None,
                 sentence: LinearWeights, splitter: MultiwordSplitter,
                 header: dict[str, Any] | None = None) -> None:
        self.segmenter = Segmenter(inner, gap, sentence, splitter)
        self.header = dict(header or {})

    @property
    def known_characters(self) -> frozenset[str] | None:
        """The characters of the training text, whitespace aside (None for a model file made
        before they were recorded)."""
        characters = self.header.get("text_characters")
        return frozenset(characters) if isinstance(characters, str) else None

    @property
    def spaces_in_tokens(self) -> bool:
        """Whether a token may hold whitespace (the treebank's did)."""
        return self.segmenter.gap is not None

    def segment(self, text: str, presegmented: bool = False) -> list[SegmentedSentence]:
        """The sentences of text, each token with its words; presegmented: each line of text
        is one sentence."""
        return self.segmenter.segment(text, presegmented)

    def text_segmenter(self) -> Segmenter:
        """What raw-text reading cuts text with (parser/tokenize/segmenter.py's TextSegmenter):
        this model's segmenter."""
        return self.segmenter

    def words(self, token: str) -> list[str]:
        """The words of one token."""
        return self.segmenter.splitter.words(token)

    # ----- model files ----------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        segmenter = self.segmenter
        header = {**self.header, "format": FORMAT, "format_version": FORMAT_VERSION,
                  "spaces_in_tokens": self.spaces_in_tokens}
        arrays: dict[str, np.ndarray] = {}
        for name, weights in (("inner", segmenter.inner), ("gap", segmenter.gap),
                              ("sentence", segmenter.sentence)):
            if weights is None:
                continue
            header[f"{name}_bias"] = weights.bias
            arrays[f"{name}_keys"] = weights.keys
            arrays[f"{name}_weights"] = weights.weights
        splitter = segmenter.splitter
        arrays.update(string_arrays("multiword_table", [
            _SEPARATOR.join((token, *words)) for token, words in sorted(splitter.table.items())]))
        arrays.update(string_arrays("multiword_rules", [
            _SEPARATOR.join((suffix, *words)) for suffix, words in sorted(splitter.rules.items())]))
        context = splitter.context
        if context is not None:
            header["context_bias"] = context.weights.bias
            arrays["context_keys"] = context.weights.keys
            arrays["context_weights"] = context.weights.weights
            arrays.update(string_arrays("multiword_context", [
                _SEPARATOR.join((token, *words))
                for token, words in sorted(context.analyses.items())]))
        return bytes(encode_model(header, arrays, compress=True))

    def save(self, path: str | os.PathLike) -> None:
        """Write the model file (a temporary file renamed into place)."""
        write_bytes(path, self.to_bytes())

    @classmethod
    def from_bytes(cls, data: Buffer, source: str = "model bytes") -> SegmenterModel:
        header, arrays = decode_model(bytearray(data), source, expected_format=FORMAT)
        return _model(header, arrays, source)


def load_segmenter(path: str | os.PathLike) -> SegmenterModel:
    """A segmenter model file; ModelFileError (one line naming the file) when it is not one."""
    source = input_name(path)
    header, arrays = decode_model(model_file_data(path), source, expected_format=FORMAT)
    return _model(header, arrays, source)


def _model(header: dict[str, Any], arrays: dict[str, np.ndarray], source: str) -> SegmenterModel:
    with inconsistent(source):
        if header.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"segmenter format version {header.get('format_version')!r}, "
                             f"this polyparse reads {FORMAT_VERSION}")
        spaced = bool(header["spaces_in_tokens"])
        names = CLASSIFIERS if spaced else ("inner", "sentence")
        expected = {"multiword_table_text": ("|u1", (None,)),
                    "multiword_table_offsets": ("<i8", (None,)),
                    "multiword_rules_text": ("|u1", (None,)),
                    "multiword_rules_offsets": ("<i8", (None,))}
        for name in names:
            expected[f"{name}_keys"] = ("<u8", (None,))
            expected[f"{name}_weights"] = ("<f4", (None,))
        require_arrays(source, arrays, expected)
        table = _entries(arrays_strings(arrays, "multiword_table"), "table", 2)
        rules = _entries(arrays_strings(arrays, "multiword_rules"), "rules", 1)
        context = None
        if "context_bias" in header:
            require_arrays(source, arrays, {"context_keys": ("<u8", (None,)),
                                            "context_weights": ("<f4", (None,)),
                                            "multiword_context_text": ("|u1", (None,)),
                                            "multiword_context_offsets": ("<i8", (None,))})
            analyses = _entries(arrays_strings(arrays, "multiword_context"), "context", 3)
            context = ContextSplits(analyses, _weights(header, arrays, "context"))
        weights = {name: _weights(header, arrays, name) for name in names}
    return SegmenterModel(weights["inner"], weights.get("gap"), weights["sentence"],
                          MultiwordSplitter(table, rules, context), header)


def _weights(header: dict[str, Any], arrays: dict[str, np.ndarray], name: str) -> LinearWeights:
    """One classifier's weights; ValueError when they are not a classifier's."""
    bias = header[f"{name}_bias"]
    if not isinstance(bias, (int, float)) or not np.isfinite(bias):
        raise ValueError(f"the {name} bias is not a number")
    if not np.all(np.isfinite(arrays[f"{name}_weights"])):
        raise ValueError(f"the {name} weights are not all finite")
    return LinearWeights(arrays[f"{name}_keys"], arrays[f"{name}_weights"], float(bias))


def _entries(lines: list[str], what: str, least: int) -> dict[str, tuple[str, ...]]:
    found = {}
    for line in lines:
        parts = line.split(_SEPARATOR)
        if len(parts) < least or not parts[0] or parts[0] in found:
            raise ValueError(f"a multiword {what} entry is empty or repeated")
        found[parts[0]] = tuple(parts[1:])
    return found
