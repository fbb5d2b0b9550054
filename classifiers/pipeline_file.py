"""A pipeline model file: the model files of a pipeline's layers (tokenizer, tagger, parser)
inside one model file, as `polyparse pipeline train` writes it.

The pipeline file is a model file (classifiers/model_file.py) of format PIPELINE_FORMAT whose
arrays are its layers' whole model files, byte for byte (uint8, stored as they are: a layer's
own arrays are compressed or not as it chose), so that each layer is read by its own loader
from a view of the pipeline's bytes, and a memory-mapped pipeline maps its layers too. Each
layer's loader takes a pipeline file for its own kind of model (layer_data): `tag tag --model
PIPELINE` tags with the pipeline's tagger, `tokenize tokenize --model PIPELINE` tokenizes with
its tokenizer, `dep parse --model PIPELINE` runs all three.
"""
from __future__ import annotations

import mmap
from typing import Any

import numpy as np

from polyparse.classifiers.model_file import (
    ModelFileError,
    decode_model,
    encode_model,
    model_format_of_bytes,
)

PIPELINE_FORMAT = "polyparse-pipeline"
# The layers a pipeline may hold, in the order a parse of raw text runs them.
LAYERS = ("tokenizer", "tagger", "parser")
Buffer = bytes | bytearray | memoryview


def pipeline_bytes(layers: dict[str, Buffer], header: dict[str, Any] | None = None
                   ) -> bytearray:
    """The bytes of a pipeline file holding each layer's model file bytes (header: JSON-ready
    entries beside them, such as the training command); ValueError for a layer not in
    LAYERS."""
    unknown = sorted(set(layers) - set(LAYERS))
    if unknown:
        raise ValueError(f"unknown pipeline layers {unknown}, expected some of {list(LAYERS)}")
    arrays = {name: np.frombuffer(data, dtype=np.uint8) for name, data in layers.items()}
    return encode_model({**(header or {}), "format": PIPELINE_FORMAT,
                         "layers": [name for name in LAYERS if name in layers]}, arrays)


def pipeline_layers(data: Buffer | mmap.mmap, source: str) -> dict[str, memoryview]:
    """Each layer's model file bytes (views of data) when data is a pipeline file, else {};
    ModelFileError naming source for a pipeline file that is corrupt or names a layer it lacks."""
    if model_format_of_bytes(data) != PIPELINE_FORMAT:
        return {}
    header, arrays = decode_model(data, source, PIPELINE_FORMAT)
    names = header.get("layers")
    if (not isinstance(names, list) or not names or any(name not in LAYERS for name in names)
            or sorted(names) != sorted(arrays)
            or any(arrays[name].dtype != np.uint8 or arrays[name].ndim != 1 for name in names)):
        raise ModelFileError(f"{source}: inconsistent pipeline file (its layers do not match "
                             "its arrays)")
    return {name: memoryview(arrays[name]) for name in names}


def layer_data(data: Buffer | mmap.mmap, source: str, layer: str) -> Buffer | mmap.mmap:
    """The model file bytes of one layer: data itself unless it is a pipeline file, the layer's
    view of it if it is; ModelFileError when the pipeline has no such layer."""
    layers = pipeline_layers(data, source)
    if not layers:
        return data
    if layer not in layers:
        raise ModelFileError(f"{source}: the pipeline has no {layer} (its layers: "
                             f"{', '.join(layers)})")
    return layers[layer]
