"""polyparse: fast, exact polynomial-kernel classifiers inside NLP parsers.

The Python entry point. Dependency parsing::

    import polyparse
    parser = polyparse.load_parser()            # the bundled English model
    print(parser.parse("1\\tHello\\t_\\tINTJ\\tUH\\t_\\t_\\t_\\t_\\t_\\n\\n"))

Japanese bunsetsu dependency parsing (KNP or CaboCha text)::

    ja, dev_scores, skipped = polyparse.train_japanese_parser("train.knp", dev="dev.knp")
    print(ja.parse(open("test.knp", encoding="utf-8").read()))

Classifiers on binary features::

    X, y = polyparse.read_svmlight("train.svm")
    clf = polyparse.train_classifier(X, y, "kernel-svm", degree=2)
    fast = polyparse.convert_classifier(clf, "split")

Tree-kernel classifiers (SVM-light-TK files) and SRL argument boundaries (gold_conll)::

    data = polyparse.read_svmlight_tk("train.tk")
    model = polyparse.train_tree_classifier(data, "voted-perceptron", epochs=3)
    test = polyparse.read_svmlight_tk("test.tk", model.labels, model.productions)
    values = model.decision_function(test.forest, test.vectors)
    detector = polyparse.train_boundary_detector("train.gold_conll")
    lines = detector.predict_lines(list(polyparse.read_gold_conll("test.gold_conll")))

Bad input raises polyparse.InputError (one line naming file, line and problem); bad settings
raise ValueError.
"""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from classifiers.backends import BACKENDS, Classifier, convert_classifier
from classifiers.binary_classifier import BinaryClassifier
from classifiers.evaluators.modes import EVAL_MODES
from classifiers.tree_kernels.tree_model import TreeKernelModel, TreeKernelSpec
from features.binary_matrix import BinaryMatrix
from features.errors import InputError
from features.svmlight import read_svmlight, write_svmlight
from features.svmlight_tk import TreeInstances, read_svmlight_tk
from parser.formats.conll import ConllFormatError
from parser.models.bundled import (
    bundled_example,
    bundled_japanese_example,
    bundled_japanese_model,
    bundled_model,
)
from polyparse.classifiers import load_classifier, train_classifier
from polyparse.dependency import Parser, evaluate, load_parser, train_parser
from polyparse.japanese import (
    JapaneseParser,
    evaluate_japanese,
    knp_documents,
    load_japanese_parser,
    train_japanese_parser,
)
from polyparse.trees import (
    BoundaryModel,
    evaluate_boundaries,
    load_boundary_detector,
    load_tree_classifier,
    read_gold_conll,
    train_boundary_detector,
    train_tree_classifier,
)

try:
    __version__ = version("polyparse")
except PackageNotFoundError:
    __version__ = "0+unknown"

__all__ = [
    "BACKENDS",
    "BinaryClassifier",
    "BinaryMatrix",
    "BoundaryModel",
    "Classifier",
    "ConllFormatError",
    "EVAL_MODES",
    "InputError",
    "JapaneseParser",
    "Parser",
    "TreeInstances",
    "TreeKernelModel",
    "TreeKernelSpec",
    "__version__",
    "bundled_example",
    "bundled_japanese_example",
    "bundled_japanese_model",
    "bundled_model",
    "convert_classifier",
    "evaluate",
    "evaluate_boundaries",
    "evaluate_japanese",
    "knp_documents",
    "load_boundary_detector",
    "load_classifier",
    "load_japanese_parser",
    "load_parser",
    "load_tree_classifier",
    "read_gold_conll",
    "read_svmlight",
    "read_svmlight_tk",
    "train_boundary_detector",
    "train_classifier",
    "train_japanese_parser",
    "train_parser",
    "train_tree_classifier",
    "write_svmlight",
]
