"""An argument-boundary detector: a tree-kernel classifier over the boundary instances of
gold_conll sentences, with the feature vocabulary it was trained with.

Training builds the instances of the training sentences (datasets/srl_boundary/README.md:
candidates, labels, PAF trees, the Gildea & Jurafsky features numbered first-seen on them) and
fits a tree learner (classifiers/tree_kernels/tree_learners.py). Applying it builds the
instances of other sentences with the frozen vocabulary (unseen features dropped) and the
model's label and production interners, scores them, and turns the positive nodes back into
argument spans (parser/srl/boundaries.py). The model file is a TreeKernelModel file whose
header holds the training summary under `srl` and whose extra arrays hold the vocabulary.
"""
from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from polyparse.classifiers.model_bytes import Buffer, ModelBytes
from polyparse.classifiers.model_file import ModelFileError, arrays_strings, string_arrays
from polyparse.classifiers.tree_kernels.settings import DEFAULT_ITERATIONS, TIMINGS, TreeKernelSpec
from polyparse.classifiers.tree_kernels.tree_learners import train_tree_model, training_steps
from polyparse.classifiers.tree_kernels.tree_model import TreeKernelModel
from polyparse.parser.formats.gold_conll import ConllSrlSentence
from polyparse.parser.srl.boundaries import predicted_lines
from polyparse.parser.srl.feature_vocab import FirstSeenVocab
from polyparse.parser.srl.instances import instance_count, sentence_instances, tree_instances
from polyparse.parser.srl.settings import DEFAULT_EPOCHS, DEFAULT_LEARNER

__all__ = ["BoundaryModel", "DEFAULT_EPOCHS"]



class BoundaryModel(ModelBytes):
    """A trained boundary classifier and its frozen feature vocabulary; pickles through its
    model file's bytes (training timings, which are not in the file, stay behind)."""

    def __init__(self, model: TreeKernelModel, vocab: FirstSeenVocab,
                 training: dict[str, Any] | None = None,
                 timings: dict[str, float] | None = None) -> None:
        self.model = model
        self.vocab = vocab
        self.training = training or {}
        self.timings = timings or {}

    @classmethod
    def train(cls, sentences: Sequence[ConllSrlSentence], learner: str = DEFAULT_LEARNER,
              spec: TreeKernelSpec | None = None, epochs: int = DEFAULT_EPOCHS,
              C: float | None = None, j: float | None = None, progress: Any = None,
              **cutting_plane: Any) -> BoundaryModel:
        """Fit `learner` (voted-perceptron, perceptron, kernel-svm or cpa) on the boundary
        instances of the sentences; ValueError when they hold no predicate. cutting_plane:
        cpa's keywords of train_tree_model (algorithm, sample, iterations, epsilon, sampling,
        seed, threads). `training` keeps the report but its timings (`timings`), so that a
        seed gives a byte-identical model file. progress: a tqdm-like bar (its total is set
        once the instances are known, then it is updated as training goes)."""
        groups = list(sentence_instances(sentences))
        if not instance_count(groups):
            raise ValueError("no predicate, so no instance to learn from")
        vocab = FirstSeenVocab()
        data = tree_instances(groups, vocab)
        y = data.labels.astype(np.float64)
        spec = spec if spec is not None else TreeKernelSpec(degree=2)
        update = None
        if progress is not None:
            progress.total = training_steps(learner, len(data), epochs,
                                            cutting_plane.get("iterations", DEFAULT_ITERATIONS))
            update = progress.update
        model, stats = train_tree_model(learner, spec, data.forest, y, data.vectors,
                                        epochs=epochs, C=C, j=j, progress=update,
                                        **cutting_plane)
        vocab.frozen = True
        training = {"learner": learner, "instances": len(data),
                    "positives": int(np.count_nonzero(y > 0)), "predicates": len(groups),
                    **{key: value for key, value in stats.items() if key not in TIMINGS}}
        timings = {key: stats[key] for key in TIMINGS if key in stats}
        return cls(model, vocab, training, timings)

    def decision_values(self, sentences: Sequence[ConllSrlSentence]) -> np.ndarray:
        """One decision value per instance of the sentences, in instance order."""
        groups = list(sentence_instances(sentences))
        if not instance_count(groups):
            return np.zeros(0, dtype=np.float64)
        data = tree_instances(groups, self.vocab, self.model.labels, self.model.productions)
        return self.model.decision_function(data.forest, data.vectors)

    def predict_lines(self, sentences: Sequence[ConllSrlSentence]) -> Iterator[str]:
        """The gold_conll lines of the sentences with predicted argument columns."""
        return predicted_lines(sentences, self.decision_values(sentences).tolist())

    def save(self, path: str | os.PathLike, metadata: dict[str, Any] | None = None) -> None:
        """Write the model file (metadata: JSON-ready extras stored with the summary)."""
        self.model.save(path, *self._file_extras(metadata))

    def to_bytes(self, metadata: dict[str, Any] | None = None) -> bytes:
        """The bytes of the model file save() writes."""
        return self.model.to_bytes(*self._file_extras(metadata))

    def _file_extras(self, metadata: dict[str, Any] | None
                     ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        return ({"srl": {**self.training, **(metadata or {})}},
                string_arrays("features", self.vocab.features()))

    @classmethod
    def load(cls, path: str | os.PathLike) -> BoundaryModel:
        """A model file written by `save`; ModelFileError (one line) for any other file."""
        return cls._from_parts(*TreeKernelModel.load_with_extras(path), str(path))

    @classmethod
    def from_bytes(cls, data: Buffer, source: str = "model bytes") -> BoundaryModel:
        """The detector of a model file's bytes (as load reads the file)."""
        return cls._from_parts(*TreeKernelModel.from_bytes_with_extras(data, source), source)

    @classmethod
    def _from_parts(cls, model: TreeKernelModel, metadata: dict[str, Any],
                    extras: dict[str, np.ndarray], source: str) -> BoundaryModel:
        if "srl" not in metadata or not {"features_text", "features_offsets"} <= set(extras):
            raise ModelFileError(f"{source}: a tree-kernel model without an SRL feature "
                                 "vocabulary (made by `clf train`, not `srl train`)")
        try:
            features = arrays_strings(extras, "features")
        except ValueError as error:
            raise ModelFileError(f"{source}: corrupt model file ({error})") from None
        return cls(model, FirstSeenVocab(features, frozen=True), metadata["srl"])
