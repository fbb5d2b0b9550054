"""polyparse: fast, exact polynomial-kernel classifiers inside NLP parsers.

The Python entry point. Dependency parsing::

    import polyparse
    parser = polyparse.load_parser()            # the bundled English model
    print(parser.parse("1\\tHello\\t_\\tINTJ\\tUH\\t_\\t_\\t_\\t_\\t_\\n\\n"))

Japanese bunsetsu dependency parsing (KNP or CaboCha text)::

    ja, dev_scores, skipped = polyparse.train_japanese_parser("train.knp", dev="dev.knp")
    print(ja.parse(open("test.knp", encoding="utf-8").read()))

Every layer of any UD language from one treebank, in one model file, then raw text::

    parser = polyparse.train_pipeline("hu-train.conllu", "hu.model", dev="hu-dev.conllu")
    trees = parser("Ez egy mondat.")            # tokenized, tagged and parsed

Sentences and tokens of plain text (UD English conventions; conllu TokenLists)::

    sentences = polyparse.tokenize("The dog barked. It wasn't late.")

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

Trees as pictures (text, SVG, an HTML page); parsed TokenLists also show as pictures in
Jupyter::

    svg = polyparse.render(parser.parse([[("Dogs", "NOUN"), ("bark", "VERB")]])[0])

Many files in shards, on local processes or the workers of a Dask client (docs/scale.md)::

    polyparse.parse_files(["a.conllu", "b.conllu"], "parsed", workers=2)

Bad input raises polyparse.InputError (one line naming file, line and problem); bad settings
raise ValueError.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Each public name -> the module that defines it. `import polyparse` loads none of them (nor
# NumPy, nltk or scipy); a name's module is imported when the name is first used.
_EXPORTS = {
    "BACKENDS": "polyparse.classifiers.backends",
    "Classifier": "polyparse.classifiers.backends",
    "convert_classifier": "polyparse.classifiers.backends",
    "BinaryClassifier": "polyparse.classifiers.binary_classifier",
    "EVAL_MODES": "polyparse.classifiers.evaluators.choices",
    "TreeKernelModel": "polyparse.classifiers.tree_kernels.tree_model",
    "TreeKernelSpec": "polyparse.classifiers.tree_kernels.settings",
    "BinaryMatrix": "polyparse.features.binary_matrix",
    "RealMatrix": "polyparse.features.real_matrix",
    "InputError": "polyparse.features.errors",
    "InputWarning": "polyparse.features.errors",
    "read_svmlight": "polyparse.features.svmlight",
    "write_svmlight": "polyparse.features.svmlight",
    "TreeInstances": "polyparse.features.svmlight_tk",
    "read_svmlight_tk": "polyparse.features.svmlight_tk",
    "ConllFormatError": "polyparse.parser.formats.conll",
    "bundled_example": "polyparse.parser.models.bundled",
    "bundled_japanese_example": "polyparse.parser.models.bundled",
    "bundled_japanese_model": "polyparse.parser.models.bundled",
    "bundled_model": "polyparse.parser.models.bundled",
    "load_classifier": "polyparse.binary_classifiers",
    "render": "polyparse.pictures",
    "train_classifier": "polyparse.binary_classifiers",
    "Parser": "polyparse.dependency",
    "evaluate": "polyparse.dependency",
    "load_parser": "polyparse.dependency",
    "train_parser": "polyparse.dependency",
    "train_pipeline": "polyparse.dependency",
    "load_tokenizer": "polyparse.tokenization",
    "tokenize": "polyparse.tokenization",
    "parse_files": "polyparse.scale_out",
    "JapaneseParser": "polyparse.japanese",
    "evaluate_japanese": "polyparse.japanese",
    "knp_documents": "polyparse.japanese",
    "load_japanese_parser": "polyparse.japanese",
    "train_japanese_parser": "polyparse.japanese",
    "BoundaryModel": "polyparse.trees",
    "evaluate_boundaries": "polyparse.trees",
    "load_boundary_detector": "polyparse.trees",
    "load_tree_classifier": "polyparse.trees",
    "read_gold_conll": "polyparse.trees",
    "train_boundary_detector": "polyparse.trees",
    "train_tree_classifier": "polyparse.trees",
}

__all__ = [
    "__version__",
    "BACKENDS",
    "BinaryClassifier",
    "BinaryMatrix",
    "BoundaryModel",
    "Classifier",
    "ConllFormatError",
    "EVAL_MODES",
    "InputError",
    "InputWarning",
    "JapaneseParser",
    "Parser",
    "RealMatrix",
    "TreeInstances",
    "TreeKernelModel",
    "TreeKernelSpec",
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
    "load_tokenizer",
    "load_tree_classifier",
    "parse_files",
    "read_gold_conll",
    "read_svmlight",
    "read_svmlight_tk",
    "render",
    "tokenize",
    "train_boundary_detector",
    "train_classifier",
    "train_japanese_parser",
    "train_parser",
    "train_pipeline",
    "train_tree_classifier",
    "write_svmlight",
]

if TYPE_CHECKING:
    from polyparse.binary_classifiers import load_classifier, train_classifier
    from polyparse.classifiers.backends import BACKENDS, Classifier, convert_classifier
    from polyparse.classifiers.binary_classifier import BinaryClassifier
    from polyparse.classifiers.evaluators.choices import EVAL_MODES
    from polyparse.classifiers.tree_kernels.settings import TreeKernelSpec
    from polyparse.classifiers.tree_kernels.tree_model import TreeKernelModel
    from polyparse.dependency import Parser, evaluate, load_parser, train_parser, train_pipeline
    from polyparse.features.binary_matrix import BinaryMatrix
    from polyparse.features.errors import InputError, InputWarning
    from polyparse.features.real_matrix import RealMatrix
    from polyparse.features.svmlight import read_svmlight, write_svmlight
    from polyparse.features.svmlight_tk import TreeInstances, read_svmlight_tk
    from polyparse.japanese import (
        JapaneseParser,
        evaluate_japanese,
        knp_documents,
        load_japanese_parser,
        train_japanese_parser,
    )
    from polyparse.parser.formats.conll import ConllFormatError
    from polyparse.parser.models.bundled import (
        bundled_example,
        bundled_japanese_example,
        bundled_japanese_model,
        bundled_model,
    )
    from polyparse.pictures import render
    from polyparse.scale_out import parse_files
    from polyparse.tokenization import load_tokenizer, tokenize
    from polyparse.trees import (
        BoundaryModel,
        evaluate_boundaries,
        load_boundary_detector,
        load_tree_classifier,
        read_gold_conll,
        train_boundary_detector,
        train_tree_classifier,
    )


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use (PEP 562)."""
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value: Any = version("polyparse")
        except PackageNotFoundError:
            value = "0+unknown"
    elif name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    elif name == "sklearn":
        # The scikit-learn estimators (polyparse/sklearn.py), which import scikit-learn.
        value = importlib.import_module("polyparse.sklearn")
    else:
        raise AttributeError(f"module 'polyparse' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
