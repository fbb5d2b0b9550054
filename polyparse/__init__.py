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

Bad input raises polyparse.InputError (one line naming file, line and problem); bad settings
raise ValueError.
"""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from classifiers.backends import BACKENDS, Classifier, convert_classifier
from classifiers.binary_classifier import BinaryClassifier
from classifiers.evaluators.modes import EVAL_MODES
from features.binary_matrix import BinaryMatrix
from features.errors import InputError
from features.svmlight import read_svmlight, write_svmlight
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

try:
    __version__ = version("polyparse")
except PackageNotFoundError:
    __version__ = "0+unknown"

__all__ = [
    "BACKENDS",
    "EVAL_MODES",
    "BinaryClassifier",
    "BinaryMatrix",
    "Classifier",
    "ConllFormatError",
    "InputError",
    "JapaneseParser",
    "Parser",
    "__version__",
    "bundled_example",
    "bundled_japanese_example",
    "bundled_japanese_model",
    "bundled_model",
    "convert_classifier",
    "evaluate",
    "evaluate_japanese",
    "knp_documents",
    "load_classifier",
    "load_japanese_parser",
    "load_parser",
    "read_svmlight",
    "train_classifier",
    "train_japanese_parser",
    "train_parser",
    "write_svmlight",
]
