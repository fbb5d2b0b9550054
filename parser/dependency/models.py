"""Dependency model files of either kind, told apart by the format name in their header: the
arc-eager parser with per-POS split classifiers (DependencyParser) and the beam-search parser
with a structured perceptron (BeamParser)."""
from __future__ import annotations

import os

from classifiers.model_bytes import Buffer
from classifiers.model_file import model_file_data, model_format_of_bytes
from features.input_files import input_name
from parser.dependency.beam_parser import BeamParser
from parser.dependency.dependency_parser import DependencyParser

DependencyModel = DependencyParser | BeamParser


def _parser_class(found: str | None) -> type[DependencyParser] | type[BeamParser]:
    # Anything but a beam model goes to DependencyParser, whose loading names what is wrong.
    return BeamParser if found == BeamParser.MODEL_FORMAT else DependencyParser


def load_dependency_model(path: str | os.PathLike) -> DependencyModel:
    """The parser of a dependency model file of either kind (read once: it may be a pipe)."""
    data = model_file_data(path)
    return _parser_class(model_format_of_bytes(data)).load_data(data, input_name(path))


def dependency_model_from_bytes(data: Buffer, source: str = "model bytes") -> DependencyModel:
    """The parser of a dependency model file's bytes, of either kind."""
    return _parser_class(model_format_of_bytes(data)).from_bytes(data, source)
