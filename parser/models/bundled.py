"""The models and example inputs that ship inside the package (this folder): English
(dependency parsing, CoNLL-U or text: one pipeline file holding the tokenizer, the tagger and
the parser) and Japanese (bunsetsu parsing, KNP, CaboCha, MeCab's output)."""
from __future__ import annotations

from pathlib import Path

# The bundled English pipeline (`polyparse pipeline train`, en_ewt.md): its parser, its tagger
# and its tokenizer are the defaults of dep parse, tag tag and tokenize tokenize, each read
# from its layer of this one file (classifiers/pipeline_file.py).
MODEL_NAME = "en_ewt.pipeline"
# The bundled English parser by name (dep parse --model NAME, load_parser(NAME)), as the
# Japanese ones are named below.
ENGLISH_MODELS = {"en_ewt": MODEL_NAME}
EXAMPLE_NAME = "example.conllu"
# Gold trees to score the bundled parser on: EWT test's first 100 sentences (CC BY-SA 4.0,
# en_ewt_test_sample.md).
GOLD_SAMPLE_NAME = "en_ewt_test_sample.conllu"
JAPANESE_MODEL_NAME = "ja_wac.model"
# The bundled Japanese models by name (ja parse --model NAME): JUMAN's parts of speech (KNP
# corpora), UniDic's (MeCab with UniDic, raw text) and IPAdic's (MeCab's and CaboCha's usual
# dictionary); and the one that reads each dictionary's tags (ja parse without --model).
JAPANESE_MODELS = {"ja_wac": JAPANESE_MODEL_NAME, "ja_unidic": "ja_unidic.model",
                   "ja_ipadic": "ja_ipadic.model"}
JAPANESE_MODEL_FOR_TAGSET = {"juman": "ja_wac", "unidic": "ja_unidic", "ipadic": "ja_ipadic"}
# Without --model: raw text is segmented by MeCab with UniDic (unidic-lite, the polyparse[mecab]
# extra); an input whose tags do not tell their dictionary is read as JUMAN's (KNP).
TEXT_TAGSET = "unidic"
DEFAULT_JAPANESE_MODEL = "ja_wac"
JAPANESE_EXAMPLE_NAME = "example.knp"


def _resource(name: str) -> Path | None:
    """The file of this folder called name, or None. (The package has compiled modules, so it
    is never imported from a zip file: its files are files; importlib.resources, which also
    reads zips, would cost a start-up several milliseconds of imports.)"""
    path = Path(__file__).with_name(name)
    return path if path.is_file() else None


def bundled_model() -> Path | None:
    """The bundled English pipeline (its parser, tagger and tokenizer), or None when this
    installation has none."""
    return _resource(MODEL_NAME)


def bundled_english_name(model: str | None) -> str | None:
    """The name of the bundled English model a --model value asks for: the value itself when
    it names one (ENGLISH_MODELS) and no such file exists, else None (a path, or no value)."""
    if model is None:
        return None
    return model if model in ENGLISH_MODELS and not Path(model).exists() else None


def bundled_tagger() -> Path | None:
    """The file of the bundled English tagger (UPOS, XPOS, features, lemmas): the bundled
    pipeline, whose tagger layer a tagger loader reads; None when this installation has
    none."""
    return _resource(MODEL_NAME)


def bundled_tokenizer() -> Path | None:
    """The file of the bundled English tokenizer: the bundled pipeline, whose tokenizer layer
    a tokenizer loader reads; None when this installation has none."""
    return _resource(MODEL_NAME)


def bundled_example() -> Path | None:
    """The bundled example input (CoNLL-U with UPOS and XPOS, written for polyparse)."""
    return _resource(EXAMPLE_NAME)


def bundled_gold_sample() -> Path | None:
    """The bundled gold sample: the first 100 sentences of UD English-EWT test with their
    trees (en_ewt_test_sample.md), or None when this installation has none."""
    return _resource(GOLD_SAMPLE_NAME)


def bundled_japanese_name(model: str | None, default: str = DEFAULT_JAPANESE_MODEL
                          ) -> str | None:
    """The name of the bundled Japanese model a --model value asks for: default for None, the
    value itself when it names one (JAPANESE_MODELS) and no such file exists, else None (a
    path)."""
    if model is None:
        return default
    return model if model in JAPANESE_MODELS and not Path(model).exists() else None


def bundled_japanese_model(name: str = DEFAULT_JAPANESE_MODEL) -> Path | None:
    """The bundled Japanese bunsetsu parser model of that name (JAPANESE_MODELS), or None when
    this installation has none."""
    return _resource(JAPANESE_MODELS[name])


def bundled_japanese_example() -> Path | None:
    """The bundled Japanese example input (KNP morphemes without bunsetsu lines, written for
    polyparse)."""
    return _resource(JAPANESE_EXAMPLE_NAME)
