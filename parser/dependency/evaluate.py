"""Attachment scores of a system file against a gold file, as the CoNLL 2018 shared task scores.

The conventions and metrics of ``conll18_ud_eval.py`` (Zeman et al. 2018, section 3):

- Words are aligned through the text. Both files' tokens (multiword tokens ``3-4`` as one
  token, other words as themselves; empty nodes left out) are concatenated without Unicode
  space characters (category Zs); the two texts must be equal. A word that is not part of a
  multiword token is aligned with the system word of exactly the same character span. Inside
  a *multiword span* (the smallest stretch of text holding whole multiword tokens of either
  file) the words are aligned by the longest common subsequence of their lower-cased forms.
- Every metric counts correct aligned words and reports P = correct / system words, R =
  correct / gold words and F1 = 2 correct / (gold + system words); with the same tokenization
  in both files F1 equals the accuracy. The scores below are F1, in percent.
- UAS: the head is right (the system head is aligned with the gold head, or both are the
  root). LAS: also the universal part of DEPREL (before ':'). CLAS: LAS over content words
  (words whose relation is one of CONTENT_DEPRELS). MLAS: CLAS that also asks for the right
  UPOS, universal features, and functional children (relations in FUNCTIONAL_DEPRELS) with
  their relation, UPOS and features. BLEX: CLAS that also asks for the right lemma (a gold
  lemma "_" matches any). UPOS, XPOS, UFeats (universal features), AllTags and Lemmas score
  the aligned words' tags; Words, Tokens and Sentences score the segmentation.
- As conll18_ud_eval.py --verbose, precision, recall and aligned accuracy (correct / aligned
  gold words) of each metric are reported beside F1 (Scores.precision, .recall,
  .aligned_accuracy, and Scores.table()): they differ from F1 when the tokenization does.
- Beyond conll18: LAS_exact compares the full DEPREL, LA the label alone; UEM and LEM count
  gold sentences whose scored words are all aligned with the right head (and label).

Punctuation policies (which words are left out of the attachment and tag scores; a system
word is judged by its own columns):

- ``none``: score every word (the 2018 default);
- ``upos``: UPOS is PUNCT;
- ``unicode``: every character of the form is Unicode punctuation (category P*), as in the
  CoNLL-X scorer ``eval.pl``;
- ``ptb``: XPOS is one of the Penn Treebank punctuation tags in ``PTB_PUNCT_TAGS``: two
  backquotes (opening quotes), two single quotes (closing quotes), period, comma, colon,
  -LRB- and -RRB-.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field

from polyparse.parser.formats.conll import ConllFormatError, Sentence

__all__ = ["CONTENT_DEPRELS", "FUNCTIONAL_DEPRELS", "METRICS", "PUNCT_POLICIES",
           "PTB_PUNCT_TAGS", "Scores", "UD_DEPRELS", "WordJudgement", "evaluate", "judge_words"]

PUNCT_POLICIES = ("none", "upos", "unicode", "ptb")
PTB_PUNCT_TAGS = frozenset({"``", "''", ".", ",", ":", "-LRB-", "-RRB-"})
CONTENT_DEPRELS = frozenset({
    "nsubj", "obj", "iobj", "csubj", "ccomp", "xcomp", "obl", "vocative", "expl", "dislocated",
    "advcl", "advmod", "discourse", "nmod", "appos", "nummod", "acl", "amod", "conj", "fixed",
    "flat", "compound", "list", "parataxis", "orphan", "goeswith", "reparandum", "root", "dep",
})
FUNCTIONAL_DEPRELS = frozenset({"aux", "cop", "mark", "det", "clf", "case", "cc"})
# UD's universal relations (the universal part of DEPREL): the content and functional ones
# above and those neither counts.
UD_DEPRELS = CONTENT_DEPRELS | FUNCTIONAL_DEPRELS | {"punct"}
# Relations named in a note about a treebank without UD relations.
NOTED_RELATIONS = 5
UNIVERSAL_FEATURES = frozenset({
    "PronType", "NumType", "Poss", "Reflex", "Foreign", "Abbr", "Gender", "Animacy", "Number",
    "Case", "Definite", "Degree", "VerbForm", "Mood", "Tense", "Aspect", "Voice", "Evident",
    "Polarity", "Person", "Polite",
})
# What each key of Scores.as_dict() means (shown by `polyparse dep evaluate --help`).
METRICS = {
    "UAS": "F1 of words with the right head",
    "LAS": "F1 of words with the right head and universal relation (DEPREL before ':')",
    "CLAS": "LAS over content words (conll18's content relations)",
    "MLAS": "CLAS that also needs UPOS, universal features and functional children right",
    "BLEX": "CLAS that also needs the lemma right",
    "LAS_exact": "LAS comparing the full DEPREL, subtypes included",
    "LA": "F1 of words with the right universal relation, whatever the head",
    "UEM": "percent of gold sentences whose scored words all have the right head",
    "LEM": "percent of gold sentences whose scored words all have the right head and relation",
    "UPOS": "F1 of words with the right UPOS", "XPOS": "F1 of words with the right XPOS",
    "UFeats": "F1 of words with the right universal features",
    "AllTags": "F1 of words with UPOS, XPOS and universal features right",
    "Lemmas": "F1 of words with the right lemma",
    "Words": "F1 of word segmentation (aligned words)",
    "Tokens": "F1 of tokenization", "Sentences": "F1 of sentence segmentation",
    "words": "gold words scored", "system_words": "system words scored",
    "aligned_words": "scored gold words aligned with a system word",
    "sentences": "gold sentences", "punct": "the punctuation policy",
    "excluded": "gold words left out by the punctuation policy",
    "precision": "each metric's precision: correct / system words (tokens, sentences)",
    "recall": "each metric's recall: correct / gold words (tokens, sentences)",
    "aligned_accuracy": "each word metric's correct / aligned words (conll18's AligndAcc)",
    "notes": "sentences about scores that do not mean what they say on this data (CLAS, MLAS "
             "and BLEX of a treebank whose relations are not UD's)",
}
# The metrics of conll18_ud_eval.py's table, in its order.
TABLE_METRICS = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas",
                 "UAS", "LAS", "CLAS", "MLAS", "BLEX")


@dataclass
class Scores:
    """F1 percentages (conll18) and the counts they come from; see METRICS."""

    UAS: float
    LAS: float
    CLAS: float
    MLAS: float
    BLEX: float
    LAS_exact: float
    LA: float
    UEM: float
    LEM: float
    UPOS: float
    XPOS: float
    UFeats: float
    AllTags: float
    Lemmas: float
    Words: float
    Tokens: float
    Sentences: float
    words: int
    system_words: int
    aligned_words: int
    sentences: int
    punct: str
    excluded: int
    precision: dict[str, float] = field(default_factory=dict)
    recall: dict[str, float] = field(default_factory=dict)
    aligned_accuracy: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, float | int | str]:
        """Every score and count by its METRICS name."""
        return asdict(self)

    def summary(self) -> str:
        """One line for people, naming the punctuation policy; when the tokenization differs
        from the gold one, conll18's table of precision, recall, F1 and aligned accuracy
        first."""
        line = (
            f"UAS {self.UAS:.2f}  LAS {self.LAS:.2f}  CLAS {self.CLAS:.2f}  "
            f"MLAS {self.MLAS:.2f}  BLEX {self.BLEX:.2f}  LAS_exact {self.LAS_exact:.2f}  "
            f"({self.words} words, {self.sentences} sentences, "
            f"punct={self.punct}, {self.excluded} words excluded)"
        )
        line = "\n".join([line, *(f"note: {note}" for note in self.notes)])
        if self.Words == 100.0 and self.Sentences == 100.0:
            return line
        return self.table() + "\n" + line

    def table(self) -> str:
        """conll18_ud_eval.py's verbose table: precision, recall, F1 and aligned accuracy."""
        rows = ["Metric     | Precision |    Recall |  F1 Score | AligndAcc",
                "-----------+-----------+-----------+-----------+-----------"]
        for name in TABLE_METRICS:
            aligned = (f"{self.aligned_accuracy[name]:9.2f}"
                       if name not in ("Tokens", "Sentences", "Words") else "")
            rows.append(f"{name:<11}|{self.precision[name]:10.2f} |{self.recall[name]:10.2f} |"
                        f"{getattr(self, name):10.2f} |{aligned:>10}".rstrip())
        return "\n".join(rows)


@dataclass(eq=False)
class _Word:
    start: int
    end: int
    multiword: bool
    form: str
    lemma: str
    upos: str
    xpos: str
    feats: str
    deprel: str
    head: int
    sentence: int
    line: int
    excluded: bool = False
    parent: _Word | None = None
    functional_children: list[_Word] = field(default_factory=list)

    @property
    def relation(self) -> str:
        return self.deprel.partition(":")[0]


@dataclass
class _Text:
    """A file's words, tokens and sentences as spans of its text without spaces."""

    name: str
    characters: list[str] = field(default_factory=list)
    words: list[_Word] = field(default_factory=list)
    tokens: list[tuple[int, int]] = field(default_factory=list)
    sentences: list[tuple[int, int]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # file line of each character


def evaluate(
    gold: Iterable[Sentence],
    system: Iterable[Sentence],
    punct: str = "none",
    gold_name: str = "gold",
    system_name: str = "system",
) -> Scores:
    """Score ``system`` against ``gold`` (see the module comment for the conventions).

    Raises ConllFormatError (``system_name:LINE: ...``) when the two texts differ, and
    ValueError for an unknown punctuation policy.
    """
    gold_text, system_text, aligned = _aligned_texts(gold, system, punct, gold_name,
                                                     system_name)
    return _scores(gold_text, system_text, aligned, punct)


def _aligned_texts(gold: Iterable[Sentence], system: Iterable[Sentence], punct: str,
                   gold_name: str, system_name: str) -> tuple[_Text, _Text, dict[int, _Word]]:
    """The gold and system texts (words left out by the punctuation policy marked), checked to
    be the same text, and the alignment of their words (_align)."""
    excluded = _punctuation_test(punct)
    gold_text = _read(gold, gold_name, excluded)
    system_text = _read(system, system_name, excluded)
    _check_same_text(gold_text, system_text)
    return gold_text, system_text, _align(gold_text.words, system_text.words)


def _punctuation_test(punct: str) -> Callable[[str, str, str], bool]:
    """Predicate (form, upos, xpos) -> is the word left out."""
    if punct == "none":
        return lambda form, upos, xpos: False
    if punct == "upos":
        return lambda form, upos, xpos: upos == "PUNCT"
    if punct == "ptb":
        return lambda form, upos, xpos: xpos in PTB_PUNCT_TAGS
    if punct == "unicode":
        return lambda form, upos, xpos: _is_unicode_punctuation(form)
    expected = ", ".join(PUNCT_POLICIES)
    raise ValueError(f"unknown punctuation policy {punct!r}, expected one of {expected}")


_PUNCTUATION_CACHE: dict[str, bool] = {}


def _is_unicode_punctuation(form: str) -> bool:
    """eval.pl's test: every character of the form is in a Unicode P* category."""
    known = _PUNCTUATION_CACHE.get(form)
    if known is None:
        known = bool(form) and all(unicodedata.category(char).startswith("P") for char in form)
        if len(_PUNCTUATION_CACHE) < 100_000:
            _PUNCTUATION_CACHE[form] = known
    return known


def _without_spaces(form: str) -> str:
    return "".join(char for char in form if unicodedata.category(char) != "Zs")


def _universal_features(feats: str) -> str:
    return "|".join(sorted(feature for feature in feats.split("|")
                           if feature.partition("=")[0] in UNIVERSAL_FEATURES))


def _read(sentences: Iterable[Sentence], name: str,
          excluded: Callable[[str, str, str], bool]) -> _Text:
    """The words of a file with their token spans, parents and functional children."""
    text = _Text(name)
    for number, sentence in enumerate(sentences):
        sentence_start = len(text.characters)
        first_word = len(text.words)
        multiword_end = 0
        multiword_span = (0, 0)
        word_index = 0
        for offset, line in enumerate(sentence.lines):
            if not line or line[0] == "#":
                continue
            columns = line.split("\t")
            word_id = columns[0]
            if "." in word_id:
                continue
            line_number = sentence.start_line + offset
            if "-" in word_id:
                first, last = word_id.split("-")
                multiword_end = int(last)
                multiword_span = _add_token(text, columns[1], line_number)
                continue
            index = word_index
            word_index += 1
            multiword = int(word_id) <= multiword_end
            span = multiword_span if multiword else _add_token(text, columns[1], line_number)
            form = _without_spaces(columns[1])
            text.words.append(_Word(
                span[0], span[1], multiword, form, sentence.lemma[index], sentence.upos[index],
                sentence.xpos[index], _universal_features(columns[5]), sentence.deprel[index],
                sentence.head[index], number, line_number,
                excluded(sentence.form[index], sentence.upos[index], sentence.xpos[index]),
            ))
        words = text.words[first_word:]
        for word in words:
            if word.head > 0:
                word.parent = words[word.head - 1]
                if word.relation in FUNCTIONAL_DEPRELS:
                    word.parent.functional_children.append(word)
        text.sentences.append((sentence_start, len(text.characters)))
    return text


def _add_token(text: _Text, form: str, line: int) -> tuple[int, int]:
    characters = _without_spaces(form)
    start = len(text.characters)
    text.characters.extend(characters)
    text.lines.extend([line] * len(characters))
    text.tokens.append((start, len(text.characters)))
    return start, len(text.characters)


def _check_same_text(gold: _Text, system: _Text) -> None:
    if gold.characters == system.characters:
        return
    index = 0
    limit = min(len(gold.characters), len(system.characters))
    while index < limit and gold.characters[index] == system.characters[index]:
        index += 1
    system_line = system.lines[index] if index < len(system.lines) else (
        system.lines[-1] if system.lines else 1)
    gold_line = gold.lines[index] if index < len(gold.lines) else (
        gold.lines[-1] if gold.lines else 1)
    shown_system = "".join(system.characters[index:index + 20]) or "the end of the file"
    shown_gold = "".join(gold.characters[index:index + 20]) or "the end of the file"
    raise ConllFormatError(
        f"{system.name}:{system_line}: the text differs from {gold.name}:{gold_line} after "
        f"{index} characters: {shown_system!r} against {shown_gold!r}")


def _align(gold: Sequence[_Word], system: Sequence[_Word]) -> dict[int, _Word]:
    """id(system word) -> its gold word, for the aligned pairs (see the module comment)."""
    aligned: dict[int, _Word] = {}
    g = s = 0
    while g < len(gold) and s < len(system):
        if gold[g].multiword or system[s].multiword:
            g_start, s_start, g, s = _multiword_span(gold, system, g, s)
            _align_by_forms(gold[g_start:g], system[s_start:s], aligned)
        elif (gold[g].start, gold[g].end) == (system[s].start, system[s].end):
            aligned[id(system[s])] = gold[g]
            g += 1
            s += 1
        elif gold[g].start <= system[s].start:
            g += 1
        else:
            s += 1
    return aligned


def _multiword_span(gold: Sequence[_Word], system: Sequence[_Word], g: int,
                    s: int) -> tuple[int, int, int, int]:
    """(first gold word, first system word, end gold word, end system word) of the smallest
    multiword span holding the multiword token at gold[g] or system[s]."""
    if gold[g].multiword:
        end = gold[g].end
        if not system[s].multiword and system[s].start < gold[g].start:
            s += 1
    else:
        end = system[s].end
        if not gold[g].multiword and gold[g].start < system[s].start:
            g += 1
    g_start, s_start = g, s
    while not _beyond(gold, g, end) or not _beyond(system, s, end):
        if g < len(gold) and (s >= len(system) or gold[g].start <= system[s].start):
            end = max(end, gold[g].end) if gold[g].multiword else end
            g += 1
        else:
            end = max(end, system[s].end) if system[s].multiword else end
            s += 1
    return g_start, s_start, g, s


def _beyond(words: Sequence[_Word], i: int, end: int) -> bool:
    if i >= len(words):
        return True
    return words[i].start >= end if words[i].multiword else words[i].end > end


def _align_by_forms(gold: Sequence[_Word], system: Sequence[_Word],
                    aligned: dict[int, _Word]) -> None:
    """Align the words of one multiword span by the LCS of their lower-cased forms."""
    if not gold or not system:
        return
    gold_forms = [word.form.lower() for word in gold]
    system_forms = [word.form.lower() for word in system]
    # lcs[i][j]: length of the LCS of gold_forms[i:] and system_forms[j:].
    lcs = [[0] * (len(system) + 1) for _ in range(len(gold) + 1)]
    for i in range(len(gold) - 1, -1, -1):
        for j in range(len(system) - 1, -1, -1):
            if gold_forms[i] == system_forms[j]:
                lcs[i][j] = 1 + lcs[i + 1][j + 1]
            else:
                lcs[i][j] = max(lcs[i + 1][j], lcs[i][j + 1])
    i = j = 0
    while i < len(gold) and j < len(system):
        if gold_forms[i] == system_forms[j]:
            aligned[id(system[j])] = gold[i]
            i += 1
            j += 1
        elif lcs[i][j] == lcs[i + 1][j]:
            i += 1
        else:
            j += 1


def _scores(gold: _Text, system: _Text, aligned: dict[int, _Word], punct: str) -> Scores:
    pairs = [(aligned[id(word)], word) for word in system.words if id(word) in aligned]
    scored_gold = [word for word in gold.words if not word.excluded]
    scored_system = [word for word in system.words if not word.excluded]
    scored_pairs = [(g, s) for g, s in pairs if not g.excluded]
    counts: dict[str, _Count] = {}

    def parent_in_gold(word: _Word | None) -> _Word | str | None:
        if word is None:
            return None
        return aligned.get(id(word), "not aligned")

    def head_right(g: _Word, s: _Word) -> bool:
        return g.parent is parent_in_gold(s.parent)

    def lemma_right(g: _Word, s: _Word) -> bool:
        return g.lemma == "_" or g.lemma == s.lemma

    def children(word: _Word, gold_side: bool) -> list[tuple]:
        return [(child if gold_side else aligned.get(id(child), "not aligned"), child.relation,
                 child.upos, child.feats) for child in word.functional_children]

    def f1(name: str, test: Callable[[_Word, _Word], bool], content_only: bool = False) -> float:
        def counted(word: _Word) -> bool:
            return not content_only or word.relation in CONTENT_DEPRELS

        count = _Count(
            correct=sum(1 for g, s in scored_pairs if counted(g) and test(g, s)),
            gold=sum(1 for word in scored_gold if counted(word)),
            system=sum(1 for word in scored_system if counted(word)),
            aligned=sum(1 for g, s in scored_pairs if counted(g)))
        counts[name] = count
        return count.f1

    def las(g: _Word, s: _Word) -> bool:
        return head_right(g, s) and g.relation == s.relation

    unlabelled = [True] * len(gold.sentences)
    labelled = [True] * len(gold.sentences)
    system_of = {id(g): s for g, s in pairs}
    for word in scored_gold:
        match = system_of.get(id(word))
        if match is None or not head_right(word, match):
            unlabelled[word.sentence] = labelled[word.sentence] = False
        elif word.relation != match.relation:
            labelled[word.sentence] = False
    n_sentences = len(gold.sentences)
    counts["Tokens"] = _spans_count(gold.tokens, system.tokens)
    counts["Sentences"] = _spans_count(gold.sentences, system.sentences)
    counts["Words"] = _Count(len(pairs), len(gold.words), len(system.words), len(pairs))
    scores = Scores(
        UAS=f1("UAS", head_right),
        LAS=f1("LAS", las),
        CLAS=f1("CLAS", las, content_only=True),
        MLAS=f1("MLAS", lambda g, s: las(g, s) and g.upos == s.upos and g.feats == s.feats
                and children(g, True) == children(s, False), content_only=True),
        BLEX=f1("BLEX", lambda g, s: las(g, s) and lemma_right(g, s), content_only=True),
        LAS_exact=f1("LAS_exact", lambda g, s: head_right(g, s) and g.deprel == s.deprel),
        LA=f1("LA", lambda g, s: g.relation == s.relation),
        UEM=100.0 * sum(unlabelled) / n_sentences if n_sentences else 0.0,
        LEM=100.0 * sum(labelled) / n_sentences if n_sentences else 0.0,
        UPOS=f1("UPOS", lambda g, s: g.upos == s.upos),
        XPOS=f1("XPOS", lambda g, s: g.xpos == s.xpos),
        UFeats=f1("UFeats", lambda g, s: g.feats == s.feats),
        AllTags=f1("AllTags", lambda g, s: (g.upos, g.xpos, g.feats) == (s.upos, s.xpos, s.feats)),
        Lemmas=f1("Lemmas", lemma_right),
        Words=counts["Words"].f1,
        Tokens=counts["Tokens"].f1,
        Sentences=counts["Sentences"].f1,
        words=len(scored_gold),
        system_words=len(scored_system),
        aligned_words=len(scored_pairs),
        sentences=n_sentences,
        punct=punct,
        excluded=len(gold.words) - len(scored_gold),
    )
    for name in TABLE_METRICS:
        count = counts[name]
        scores.precision[name] = count.precision
        scores.recall[name] = count.recall
        scores.aligned_accuracy[name] = count.aligned_accuracy
    note = _relations_note(scored_gold)
    if note:
        scores.notes.append(note)
    return scores


def _relations_note(gold: Sequence[_Word]) -> str | None:
    """A note when gold words have relations that are not UD's: CLAS counts only words with
    UD's content relations, and MLAS and BLEX build on it (and on UD's functional ones)."""
    foreign: dict[str, int] = {}
    for word in gold:
        if word.relation not in UD_DEPRELS:
            foreign[word.relation] = foreign.get(word.relation, 0) + 1
    if not foreign:
        return None
    n = sum(foreign.values())
    common = sorted(foreign, key=lambda relation: (-foreign[relation], relation))
    named = ", ".join(common[:NOTED_RELATIONS]) + (", ..." if len(common) > NOTED_RELATIONS
                                                   else "")
    share = f"all {n}" if n == len(gold) else f"{n} of {len(gold)}"
    return (f"CLAS, MLAS and BLEX need UD relations: {share} gold words have relations that "
            f"are not UD's ({named}), and these scores count only words with UD's content "
            "relations")


@dataclass(frozen=True)
class _Count:
    """conll18's Score: correct items, gold items, system items, aligned gold items."""

    correct: int
    gold: int
    system: int
    aligned: int

    @property
    def precision(self) -> float:
        return 100.0 * self.correct / self.system if self.system else 0.0

    @property
    def recall(self) -> float:
        return 100.0 * self.correct / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        total = self.gold + self.system
        return 200.0 * self.correct / total if total else 0.0

    @property
    def aligned_accuracy(self) -> float:
        return 100.0 * self.correct / self.aligned if self.aligned else 0.0


def _spans_count(gold: Sequence[tuple[int, int]], system: Sequence[tuple[int, int]]) -> _Count:
    """conll18's spans_score: spans that start and end at the same characters in both files."""
    correct = g = s = 0
    while g < len(gold) and s < len(system):
        if system[s][0] < gold[g][0]:
            s += 1
        elif gold[g][0] < system[s][0]:
            g += 1
        else:
            correct += gold[g][1] == system[s][1]
            g += 1
            s += 1
    return _Count(correct, len(gold), len(system), correct)


@dataclass(frozen=True, slots=True)
class WordJudgement:
    """What the scores say of one gold word (the word ``word`` of gold sentence ``sentence``,
    both from 0), and the system's tree over the gold words: ``system_head`` is the gold word
    (from 1, 0 for the root) that the system's head of this word is aligned with, None when the
    word or its system head is not aligned with a word of the same gold sentence;
    ``system_deprel`` is None when the word is not aligned. ``head_right`` and
    ``head_and_label_right`` are UAS's and LAS's tests (LAS compares the universal relation);
    ``excluded``: left out by the punctuation policy."""

    sentence: int
    word: int
    system_head: int | None
    system_deprel: str | None
    head_right: bool
    head_and_label_right: bool
    excluded: bool


def judge_words(
    gold: Iterable[Sentence],
    system: Iterable[Sentence],
    punct: str = "none",
    gold_name: str = "gold",
    system_name: str = "system",
) -> list[list[WordJudgement]]:
    """One WordJudgement per word of each gold sentence, aligned as ``evaluate`` aligns them,
    so that the words that are not excluded and have head_right (head_and_label_right) are the
    correct words of UAS (LAS). Raises what ``evaluate`` raises."""
    gold_text, system_text, aligned = _aligned_texts(gold, system, punct, gold_name,
                                                     system_name)
    system_of = {id(gold_word): word for word in system_text.words
                 if (gold_word := aligned.get(id(word))) is not None}
    position: dict[int, int] = {}
    counts = [0] * len(gold_text.sentences)
    for word in gold_text.words:
        counts[word.sentence] += 1
        position[id(word)] = counts[word.sentence]
    judged: list[list[WordJudgement]] = [[] for _ in gold_text.sentences]
    for word in gold_text.words:
        match = system_of.get(id(word))
        system_head: int | None = None
        head_right = False
        if match is not None:
            parent = None if match.parent is None else aligned.get(id(match.parent))
            if match.parent is None:
                system_head = 0
            elif parent is not None and parent.sentence == word.sentence:
                system_head = position[id(parent)]
            head_right = word.parent is (None if match.parent is None else parent
                                         if parent is not None else "not aligned")
        judged[word.sentence].append(WordJudgement(
            word.sentence, position[id(word)] - 1, system_head,
            None if match is None else match.deprel, head_right,
            head_right and match.relation == word.relation, word.excluded))
    return judged
