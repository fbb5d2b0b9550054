"""Dependency model files of either kind, told apart by the format name in their header: the
arc-eager parser with per-POS split classifiers (DependencyParser) and the beam-search parser
with a structured perceptron (BeamParser); both are DependencyModels to their callers."""
from __future__ import annotations

import mmap
import os

from polyparse.classifiers.model_bytes import Buffer
from polyparse.classifiers.model_file import model_file_data, model_format_of_bytes
from polyparse.classifiers.pipeline_file import layer_data
from polyparse.features.input_files import input_name
from polyparse.parser.dependency.beam_parser import BeamParser
from polyparse.parser.dependency.dependency_model import DependencyModel
from polyparse.parser.dependency.dependency_parser import DependencyParser

# The class of each model format; anything else goes to DependencyParser, whose loading names
# what is wrong with the file.
KINDS: dict[str, type[DependencyModel]] = {
    DependencyParser.MODEL_FORMAT: DependencyParser,
    BeamParser.MODEL_FORMAT: BeamParser,
}


def model_class(found: str | None) -> type[DependencyModel]:
    """The class that reads a model file of this format name."""
    return KINDS.get(found or "", DependencyParser)


def load_dependency_model(path: str | os.PathLike) -> DependencyModel:
    """The parser of a dependency model file of either kind, or of a pipeline file's parser
    layer (read once: it may be a pipe)."""
    return dependency_model_of_data(model_file_data(path), input_name(path))


def dependency_model_of_data(data: Buffer | mmap.mmap, source: str) -> DependencyModel:
    """The parser of a dependency model file's bytes as read (model_file_data), or of a
    pipeline file's parser layer, named source."""
    data = layer_data(data, source, "parser")
    return model_class(model_format_of_bytes(data)).load_data(data, source)


def dependency_model_from_bytes(data: Buffer, source: str = "model bytes") -> DependencyModel:
    """The parser of a dependency model file's bytes, of either kind."""
    return model_class(model_format_of_bytes(data)).from_bytes(data, source)
