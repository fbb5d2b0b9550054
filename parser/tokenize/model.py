"""The tokenizer's model: its lexicon (parser/tokenize/training.py) and the weights of its
sentence classifier (parser/tokenize/sentence_split.py), in a versioned model file
(classifiers/model_file.py: a JSON header plus NumPy arrays, written atomically); training it
from a UD treebank; loading a tokenizer model file (default: the bundled English pipeline's
tokenizer layer)."""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from polyparse.parser.tokenize.chunk_rules import ChunkRules
from polyparse.parser.tokenize.segmenter import LEARNED_SEGMENTER_FORMAT, Segmenter, TextTokenizer
from polyparse.parser.tokenize.sentence_split import (
    SentenceSplitter,
    candidate_features,
    candidates,
)
from polyparse.parser.tokenize.words import MultiwordRules

if TYPE_CHECKING:
    from polyparse.parser.formats.conll import Sentence
    from polyparse.parser.tokenize.treebank_text import TreebankSentence

__all__ = ["FORMAT", "TokenizerModel", "load_tokenizer", "train_tokenizer"]

FORMAT = "polyparse-tokenizer"
FORMAT_VERSION = 1
_LEXICON_KEYS = ("whole", "exceptions", "hyphen_prefixes", "multiword_lengths",
                 "multiword_spelled")


class TokenizerModel:
    """A lexicon, sentence-classifier weights and bias, and the model's header."""

    def __init__(self, lexicon: dict[str, Any], weights: dict[str, float], bias: float,
                 header: dict[str, Any] | None = None) -> None:
        self.lexicon = lexicon
        self.weights = weights
        self.bias = bias
        self.header = dict(header or {})
        self._segmenter: Segmenter | None = None

    @property
    def known_characters(self) -> frozenset[str] | None:
        """None: the English rules cut any script's text alike (parser/tokenize/segmenter.py's
        TextTokenizer)."""
        return None

    def abbreviations(self) -> frozenset[str]:
        """Lower-cased whole tokens that end with a period (Mr., etc., U.S.)."""
        return frozenset(token.lower() for token in self.lexicon["whole"]
                         if token.endswith(".") and any(char.isalpha() for char in token))

    def splitter(self) -> SentenceSplitter:
        return SentenceSplitter(self.weights, self.bias, self.abbreviations())

    def text_segmenter(self) -> Segmenter:
        """The segmenter of this model (made once): its English rules."""
        if self._segmenter is None:
            lexicon = self.lexicon
            chunks = ChunkRules(lexicon["whole"], lexicon["exceptions"],
                                lexicon["hyphen_prefixes"])
            words = MultiwordRules(lexicon["multiword_lengths"], lexicon["multiword_spelled"])
            self._segmenter = Segmenter(chunks, words, self.splitter())
        return self._segmenter

    def save(self, path: str | os.PathLike, extra_header: dict[str, Any] | None = None) -> None:
        """Write the model file (a temporary file renamed into place)."""
        import numpy as np

        from polyparse.classifiers.model_file import string_arrays, write_model_file

        names = sorted(self.weights)
        header = {**self.header, **(extra_header or {}), "format": FORMAT,
                  "format_version": FORMAT_VERSION, "bias": self.bias,
                  **{key: self.lexicon[key] for key in _LEXICON_KEYS}}
        arrays = {"weights": np.array([self.weights[name] for name in names], dtype=np.float64),
                  **string_arrays("features", names)}
        write_model_file(path, header, arrays, compress=True)


def load_tokenizer(path: str | os.PathLike | None = None) -> TextTokenizer:
    """A tokenizer model file (default: the bundled English pipeline's; a pipeline file gives
    its tokenizer layer), read once: the English rules' (TokenizerModel) or a segmenter
    learned from any treebank (`tokenize train --learned`: parser/segmentation/model.py's
    SegmenterModel); ModelFileError (one line) when the file is neither."""
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
    from polyparse.classifiers.model_file import (
        arrays_strings,
        decode_model,
        inconsistent,
        model_format_of_bytes,
        require_arrays,
    )
    from polyparse.classifiers.pipeline_file import layer_data

    data = layer_data(data, source, "tokenizer")
    if model_format_of_bytes(data) == LEARNED_SEGMENTER_FORMAT:
        from polyparse.parser.segmentation.model import SegmenterModel

        return SegmenterModel.from_bytes(data, source)
    header, arrays = decode_model(data, source, expected_format=FORMAT)
    with inconsistent(source):
        if header.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"tokenizer format version {header.get('format_version')!r}, "
                             f"this polyparse reads {FORMAT_VERSION}")
        require_arrays(source, arrays, {"weights": ("<f8", (None,)),
                                        "features_text": ("|u1", (None,)),
                                        "features_offsets": ("<i8", (None,))})
        names = arrays_strings(arrays, "features")
        values = arrays["weights"].tolist()
        if len(names) != len(values):
            raise ValueError(f"{len(names)} feature names for {len(values)} weights")
        lexicon = {key: header[key] for key in _LEXICON_KEYS}
        _check_lexicon(lexicon)
        bias = float(header["bias"])
    return TokenizerModel(lexicon, dict(zip(names, values)), bias, header)


def _check_lexicon(lexicon: dict[str, Any]) -> None:
    """ValueError unless each part of the lexicon has the types training gives it."""
    def strings(value: object) -> bool:
        return isinstance(value, list) and all(isinstance(item, str) and item for item in value)

    if not strings(lexicon["whole"]) or not strings(lexicon["hyphen_prefixes"]):
        raise ValueError("whole and hyphen_prefixes must be lists of strings")
    for key, value in lexicon["exceptions"].items():
        if not strings(value) or "".join(value) != key:
            raise ValueError(f"the exception {key!r} is not cut into its own characters")
    for key, value in lexicon["multiword_lengths"].items():
        if not (isinstance(value, list) and all(isinstance(n, int) and n > 0 for n in value)
                and sum(value) == len(key)):
            raise ValueError(f"the word lengths of {key!r} do not add up to it")
    if not all(strings(value) for value in lexicon["multiword_spelled"].values()):
        raise ValueError("multiword_spelled must map tokens to lists of words")


def sentence_examples(sentences: list[TreebankSentence], abbreviations: frozenset[str]
                      ) -> tuple[list[list[str]], list[int]]:
    """Features and labels (1: a sentence ends there) of every candidate boundary of the
    treebank's paragraphs (gold tokens)."""
    rows: list[list[str]] = []
    labels: list[int] = []
    paragraph: list[TreebankSentence] = []

    def flush() -> None:
        tokens: list[str] = []
        spaces: list[bool] = []
        ends: set[int] = set()
        for sentence in paragraph:
            tokens += sentence.tokens
            spaces += sentence.space_after
            ends.add(len(tokens) - 1)
        for i in candidates(tokens):
            rows.append(candidate_features(tokens, spaces, i, abbreviations))
            labels.append(int(i in ends))

    for sentence in sentences:
        if sentence.new_paragraph and paragraph:
            flush()
            paragraph = []
        paragraph.append(sentence)
    if paragraph:
        flush()
    return rows, labels


def train_tokenizer(train: str | os.PathLike | Iterable[Sentence], C: float = 0.1,
                    min_feature_count: int = 1,
                    log: Callable[[str], None] | None = None) -> TokenizerModel:
    """Learn the lexicon and the sentence classifier (the `linear` backend) from a CoNLL-U
    treebank (a path, or its sentences already read) with `# text`, `# newpar` and
    SpaceAfter=No."""
    import numpy as np

    from polyparse.classifiers.linear.poly2_linear_svm import LinearSVM
    from polyparse.features.binary_matrix import BinaryMatrix
    from polyparse.parser.tokenize.training import learn_lexicon
    from polyparse.parser.tokenize.treebank_text import treebank_sentences

    sentences = list(treebank_sentences(train))
    lexicon = learn_lexicon(sentences)
    model = TokenizerModel(dict(lexicon), {}, 0.0)
    rows, labels = sentence_examples(sentences, model.abbreviations())
    counts: dict[str, int] = {}
    for row in rows:
        for feature in row:
            counts[feature] = counts.get(feature, 0) + 1
    names = sorted(name for name, count in counts.items() if count >= min_feature_count)
    ids = {name: i for i, name in enumerate(names)}
    matrix = BinaryMatrix.from_rows([sorted({ids[f] for f in row if f in ids}) for row in rows],
                                    n_features=len(names))
    classifier = LinearSVM(C=C).fit(matrix, np.array(labels))
    weights, bias = explicit_weights(classifier, len(names))
    model.weights = {name: weight for name, weight in zip(names, weights) if weight != 0.0}
    model.bias = bias
    if log is not None:
        log(f"tokenizer: {len(lexicon['whole'])} whole tokens, {len(lexicon['exceptions'])} "
            f"exceptions, {len(rows)} boundary candidates, {len(names)} features")
    return model


def explicit_weights(classifier: Any, n_features: int) -> tuple[list[float], float]:
    """w and b of a trained linear classifier, oriented so that w.x + b > 0 means label 1:
    b is the decision value of the empty row, w_i that of feature i alone less b."""
    import numpy as np

    from polyparse.features.binary_matrix import BinaryMatrix

    rows = [[]] + [[i] for i in range(n_features)]
    values = classifier.decision_function(BinaryMatrix.from_rows(rows, n_features))[:, 0]
    values = values.astype(np.float64)
    if classifier.classes_[0] != 1:
        values = -values
    bias = float(values[0])
    return (values[1:] - bias).tolist(), bias
