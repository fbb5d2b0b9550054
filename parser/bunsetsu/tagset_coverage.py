"""Whether a Japanese input is tagged with the dictionary the bunsetsu parser was trained on.

JUMAN (KNP corpora), IPAdic and UniDic name their parts of speech differently and cut words
differently, and a model reads its training data's names: a UniDic-tagged input given to a model
trained on JUMAN's parses at a fraction of its accuracy. The readers tell each sentence's
dictionary (``BunsetsuSentence.tagset``); TagsetCoverage counts the morphemes of each and, when
most are another dictionary's than the model's, gives one warning line that names both and the
bundled model that reads the input's; otherwise it warns as TagCoverage does.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from polyparse.parser.formats.tag_coverage import TagCoverage
from polyparse.parser.models.bundled import JAPANESE_MODEL_FOR_TAGSET

# How warnings name the dictionaries, and the bundled model that reads each (ja parse --model).
TAGSET_NAMES = {"juman": "JUMAN", "ipadic": "IPAdic", "unidic": "UniDic"}
BUNDLED_FOR = JAPANESE_MODEL_FOR_TAGSET


@dataclass
class TagsetCoverage(TagCoverage):
    """TagCoverage that also counts the morphemes of each dictionary (model_tagset: the
    model's, "" when unknown)."""

    model_tagset: str = ""
    tagsets: dict[str, int] = field(default_factory=dict)

    def add(self, sentences: Iterable[Any]) -> None:
        sentences = list(sentences)
        for sentence in sentences:
            if sentence.tagset:
                self.tagsets[sentence.tagset] = (self.tagsets.get(sentence.tagset, 0)
                                                 + len(sentence.surface))
        super().add(sentences)

    def add_tagsets(self, morphemes: Mapping[str, int]) -> None:
        """Count morphemes of each dictionary (by name) as a fast reader tells them (add() counts
        those of the sentences it is given)."""
        for tagset, n in morphemes.items():
            if tagset and n:
                self.tagsets[tagset] = self.tagsets.get(tagset, 0) + n

    def input_tagset(self) -> str:
        """The dictionary of most of the input's morphemes ("" when none was told)."""
        if not self.tagsets:
            return ""
        return max(sorted(self.tagsets), key=self.tagsets.__getitem__)

    def warning(self, source: str) -> str | None:
        found = self.input_tagset()
        if not self.model_tagset or not found or found == self.model_tagset:
            return super().warning(source)
        advice = (f"; the bundled model {BUNDLED_FOR[found]} reads it (--model "
                  f"{BUNDLED_FOR[found]})" if found in BUNDLED_FOR else "")
        return (f"{source}: the morphemes are tagged with {TAGSET_NAMES[found]}'s parts of "
                f"speech, but the model was trained on {TAGSET_NAMES[self.model_tagset]}'s; "
                f"expect much lower accuracy{advice}")
