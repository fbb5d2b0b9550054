"""What a picture of a dependency tree shows, taken from the formats' sentences: the words
(CoNLL-U words, or Japanese bunsetsu), the tags written under each word, every word's head and
the label of its arc, and the sentence's id and text. The text trees, the SVG pictures and the
evaluation reports all draw a SentenceTree."""
from __future__ import annotations

from dataclasses import dataclass

from polyparse.parser.formats.bunsetsu_sentence import BunsetsuSentence
from polyparse.parser.formats.conll import Sentence

__all__ = ["SentenceTree", "bunsetsu_tree", "conll_tree"]


@dataclass(frozen=True)
class SentenceTree:
    """words[i] is word i + 1; heads[i] is its head (from 1; 0: the root, -1: none given),
    labels[i] the label of its arc and tags[i] the tags written under it (UPOS and XPOS of a
    CoNLL word, the parts of speech of a bunsetsu's morphemes)."""

    words: tuple[str, ...]
    tags: tuple[tuple[str, ...], ...]
    heads: tuple[int, ...]
    labels: tuple[str, ...]
    sent_id: str = ""
    text: str = ""

    def __post_init__(self) -> None:
        n = len(self.words)
        if not len(self.tags) == len(self.heads) == len(self.labels) == n:
            raise ValueError(f"{n} words but {len(self.tags)} tags, {len(self.heads)} heads "
                             f"and {len(self.labels)} labels")
        for word, head in enumerate(self.heads, 1):
            if not -1 <= head <= n or head == word:
                raise ValueError(f"word {word} has head {head} (the sentence has {n} words)")

    def __len__(self) -> int:
        return len(self.words)

    def tag(self, word: int) -> str:
        """The first tag of word (from 1) that is given ("_" is not), or ""."""
        return next((tag for tag in self.tags[word - 1] if tag and tag != "_"), "")

    def with_tree(self, heads: tuple[int, ...], labels: tuple[str, ...]) -> SentenceTree:
        """The same words with other heads and labels."""
        return SentenceTree(self.words, self.tags, heads, labels, self.sent_id, self.text)


def conll_tree(sentence: Sentence) -> SentenceTree:
    """The words of a CoNLL-U / CoNLL-X sentence (multiword-token lines and empty nodes left
    out) under their UPOS and XPOS, with its `# sent_id` and `# text` comments."""
    sent_id = text = ""
    for line in sentence.lines:
        if not line.startswith("#"):
            continue
        key, equals, value = line[1:].partition("=")
        key = key.strip()
        if equals and key == "sent_id" and not sent_id:
            sent_id = value.strip()
        elif equals and key == "text" and not text:
            text = value.strip()
    if not text:
        text = " ".join(sentence.form)
    return SentenceTree(tuple(sentence.form), tuple(zip(sentence.upos, sentence.xpos)),
                        tuple(sentence.head), tuple(sentence.deprel), sent_id, text)


def bunsetsu_tree(sentence: BunsetsuSentence) -> SentenceTree:
    """The bunsetsu of a KNP / CaboCha sentence as words (their morphemes' surfaces joined),
    under the parts of speech of their morphemes joined by "+", each depending on its head
    bunsetsu (the root: KNP's -1) with its dependency type (D, P, A, I) as label; the root's
    arc has none."""
    starts = sentence.chunk_starts
    ends = list(starts[1:]) + [len(sentence.surface)]
    words = tuple("".join(sentence.surface[start:end]) for start, end in zip(starts, ends))
    tags = tuple(("+".join(sentence.pos1[start:end]),) for start, end in zip(starts, ends))
    heads = tuple(head + 1 if head >= 0 else 0 for head in sentence.heads)
    labels = tuple("" if head == 0 else dep_type
                   for head, dep_type in zip(heads, sentence.dep_types))
    return SentenceTree(words, tags, heads, labels, sentence.sid, "".join(sentence.surface))
