"""The tagger's lexicon: each word form's attributes as int ids, the tag dictionary.

A form's attributes (parser/tagging/tag_templates.pxd, A_*) are the strings its templates read:
the form, its lowercase, its suffixes and prefixes (of the lowercase, up to 6 and 3
characters), its shape (Collins 2002: upper case X, lower case x, digits d, other characters
kept, runs collapsed) and its ambiguity classes: the tags its lowercase took in training (the
joint UPOS and XPOS tags), and the morphological features (FEATS) it took, for lowercases seen at
least `ambiguity_min_count` times (Giménez & Màrquez 2004). All of them are interned in one
StringInterner, so an id means the same string in every attribute.

Rare and unknown forms (Ratnaparkhi 1996; Toutanova et al. 2003): forms seen fewer than
`min_word_count` times have no form attribute, so that the training words that stand for the
unknown words of tagging time are the rare ones. In training, each of them has the ambiguity
class of the other forms of its lowercase only (its own tags left out, as a jackknifed tag
dictionary would), since an unknown form at tagging time has the class of its lowercase
(`Apple` that of `apple`) if any; tagging gives a rare form the whole classes of its lowercase.

Word splits (TaggerConfig.word_splits; the `+splits` templates of
parser/tagging/tag_templates.pyx): an unknown word is often known words joined (compounds, a
stem and its endings: Korean `주관하고` is the noun `주관` and the verb form `하고`, tagged
NNG+XSV+EC), so a form's splits into known words stand for what its affixes cannot say: the
ambiguity class of the longest known word it ends with (a proper suffix of its lowercase), alone,
with the length of the rest and with the class of the rest (or none); the class of the longest
known word it starts with and the length of the rest; and the form's length. Known words are
the lowercases with an ambiguity class; as in the compound splitting of Koehn & Knight (2003),
the parts are looked up among the words of the training data, in any language; the classes
and the rest's length say which of the tags the treebank gives such joined words (UD
Korean-GSD dev, unknown words: XPOS 49.9 -> 58.5 %, lemmas 60.1 -> 65.6 %).

The tag dictionary (Ratnaparkhi 1996; Manning 2011): a form seen at least `dictionary_min_count`
times in training is only given the joint tags that made at least `dictionary_min_share` of its
occurrences there (rarer ones are taken for annotation noise, as in Honnibal's averaged
perceptron tagger); a form left with one tag gets it without the classifier.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from polyparse.features.interning import UNKNOWN, StringInterner

N_ATTRIBUTES = 19
# The attributes before the word splits (the whole table of models trained before them).
N_BASE_ATTRIBUTES = 14
# Columns of the table (tag_templates.pxd, A_*).
A_FORM, A_LOWER, A_AMBIGUITY, A_MORPH_AMBIGUITY = 0, 1, 10, 13
# The word splits' columns (A_SPLIT_TAIL .. A_LENGTH), in split_strings' order.
SPLIT_COLUMNS = slice(N_BASE_ATTRIBUTES, N_ATTRIBUTES)
# Longer rests of a split, and longer forms, are one length.
MAX_REST_LENGTH = 4
MAX_LENGTH = 10
AMBIGUITY_COLUMNS = (A_AMBIGUITY, A_MORPH_AMBIGUITY)
# The prefixes of the ambiguity classes' strings, in AMBIGUITY_COLUMNS order.
AMBIGUITY_PREFIXES = ("amb:", "morph:")
MAX_SHAPE = 8


def word_shape(form: str) -> str:
    """Collins's (2002) word shape: X for upper-case letters, x for lower-case ones, d for
    digits, other characters as they are; runs of one symbol collapsed; at most MAX_SHAPE
    symbols."""
    out: list[str] = []
    for char in form:
        if char.isupper():
            symbol = "X"
        elif char.islower():
            symbol = "x"
        elif char.isdigit():
            symbol = "d"
        else:
            symbol = char
        if not out or out[-1] != symbol:
            out.append(symbol)
            if len(out) == MAX_SHAPE:
                break
    return "".join(out)


def attribute_strings(form: str, ambiguity: str | None, known_form: bool = True,
                      known_lower: bool = True, morph_ambiguity: str | None = None
                      ) -> list[str | None]:
    """The strings of a form's attributes in A_* order (None: the attribute has no string,
    e.g. a suffix longer than the word, or a form too rare to be known, read as unknown)."""
    lower = form.lower()
    n = len(lower)
    suffixes = [lower[-k:] if n >= k else None for k in (1, 2, 3, 4, 5, 6)]
    prefixes = [lower[:k] if n >= k else None for k in (1, 2, 3)]
    return [form if known_form else None, lower if known_lower else None, *suffixes[:4],
            *prefixes, "shape:" + word_shape(form), ambiguity, *suffixes[4:], morph_ambiguity]


def split_strings(lower: str, class_of: Callable[[str], str | None],
                  longest: int) -> list[str | None]:
    """The word-split attributes of a lowercase, in SPLIT_COLUMNS order: the ambiguity class
    of the longest known word it ends with, alone, with the length of the rest and with the
    rest's class ("?": none); the class of the longest known word it starts with and the length
    of the rest (each "-" when no proper suffix or prefix is known); its length. class_of: a
    lowercase's ambiguity class, None when it has none; longest: the length of the longest
    lowercase it knows (no longer part is looked up, so that a form of n characters costs
    O(n + longest^2), not O(n^2): raw text may hold a token of a million)."""
    tail = tail_length = tail_head = head = "-"
    n = len(lower)
    for k in range(max(1, n - longest), n):
        found = class_of(lower[k:])
        if found is not None:
            rest = class_of(lower[:k]) if k <= longest else None
            tail = f"tail:{found}"
            tail_length = f"tail+length:{found}/{min(k, MAX_REST_LENGTH)}"
            tail_head = f"tail+head:{found}/{rest or '?'}"
            break
    for k in range(min(n - 1, longest), 0, -1):
        found = class_of(lower[:k])
        if found is not None:
            head = f"head+length:{found}/{min(len(lower) - k, MAX_REST_LENGTH)}"
            break
    return [tail, tail_length, tail_head, head, f"length:{min(len(lower), MAX_LENGTH)}"]


def ambiguity_class(tags: Counter[str], min_count: int, prefix: str = "amb:") -> str | None:
    """The ambiguity class of a lowercase that took these tags (None: seen too rarely)."""
    if sum(tags.values()) < min_count:
        return None
    return prefix + "|".join(sorted(tags))


def row_ids(strings: list[str | None], get: Callable[[str], int]) -> list[int]:
    """A table row: the ids of a form's attribute strings (None: UNKNOWN)."""
    return [UNKNOWN if s is None else get(s) for s in strings]


class Lexicon:
    """Forms -> lexicon entries (rows of attribute ids); the known forms are those of training,
    in the order of their entries; unknown forms get rows made on the fly, beyond them. splits:
    the rows have the word splits (else those columns are UNKNOWN; a table of
    N_BASE_ATTRIBUTES columns, from a model trained before them, gets them so)."""

    def __init__(self, strings: StringInterner, forms: Sequence[str], table: np.ndarray,
                 allowed_ptr: np.ndarray, allowed: np.ndarray, splits: bool = False) -> None:
        self.strings = strings
        self.forms = list(forms)
        self.entries = {form: i for i, form in enumerate(self.forms)}
        self.splits = splits
        table = np.asarray(table, dtype=np.int32)
        if table.ndim == 2 and table.shape[1] == N_BASE_ATTRIBUTES and not splits:
            table = np.pad(table, ((0, 0), (0, N_ATTRIBUTES - N_BASE_ATTRIBUTES)),
                           constant_values=UNKNOWN)
        self.table = np.ascontiguousarray(table)
        self.allowed_ptr = np.ascontiguousarray(allowed_ptr, dtype=np.int64)
        self.allowed = np.ascontiguousarray(allowed, dtype=np.int32)
        if self.table.shape != (len(self.forms), N_ATTRIBUTES):
            raise ValueError(f"the lexicon table needs {N_ATTRIBUTES} ids for each of its "
                             f"{len(self.forms)} forms")
        if self.allowed_ptr.shape != (len(self.forms) + 1,):
            raise ValueError("the tag dictionary needs one range per form")
        # Per ambiguity column: lowercase id -> the class id of the forms with that lowercase.
        self.lower_ambiguity: list[dict[int, int]] = []
        for column in AMBIGUITY_COLUMNS:
            pairs = self.table[:, [A_LOWER, column]]
            pairs = pairs[(pairs[:, 0] != UNKNOWN) & (pairs[:, 1] != UNKNOWN)]
            self.lower_ambiguity.append(dict(zip(pairs[:, 0].tolist(), pairs[:, 1].tolist())))
        # The known words of the word splits: lowercase -> its ambiguity class.
        self.lower_classes: dict[str, str] = {}
        if splits:
            classes = self.table[:, A_AMBIGUITY].tolist()
            self.lower_classes = {form.lower(): strings.strings[c]
                                  for form, c in zip(self.forms, classes) if c != UNKNOWN}
        self.longest_known = max(map(len, self.lower_classes), default=0)

    def split_ids(self, form: str, get: Callable[[str], int]) -> list[int]:
        """The ids of the form's word-split attributes (all UNKNOWN without splits)."""
        if not self.splits:
            return [UNKNOWN] * (N_ATTRIBUTES - N_BASE_ATTRIBUTES)
        return row_ids(split_strings(form.lower(), self.lower_classes.get, self.longest_known),
                       get)

    @classmethod
    def learn(cls, sentences: Sequence[tuple[Sequence[str], Sequence[str], Sequence[int],
                                             Sequence[str]]],
              ambiguity_min_count: int, dictionary_min_count: int,
              dictionary_min_share: float = 0.0, min_word_count: int = 1, splits: bool = False
              ) -> Lexicon:
        """The lexicon of training sentences, each (forms, tags, joint class ids, morphological
        labels): the tags and the labels (FEATS) make the two ambiguity classes; forms and
        lowercases seen fewer than min_word_count times have no form and lowercase attribute
        (train with encode_training, so that the affix and shape templates learn what unknown
        words are); splits: with the word splits."""
        strings = StringInterner()
        form_count: Counter[str] = Counter()
        lower_labels = (defaultdict(Counter), defaultdict(Counter))
        form_classes: defaultdict[str, Counter[int]] = defaultdict(Counter)
        for forms, tags, classes, morph in sentences:
            for form, tag, joint, label in zip(forms, tags, classes, morph):
                form_count[form] += 1
                lower_labels[0][form.lower()][tag] += 1
                lower_labels[1][form.lower()][label] += 1
                form_classes[form][joint] += 1
        forms = sorted(form_count, key=lambda f: (-form_count[f], f))
        table = np.full((len(forms), N_ATTRIBUTES), UNKNOWN, dtype=np.int32)
        ptr = [0]
        allowed: list[int] = []
        lower_count: Counter[str] = Counter()
        for form, n in form_count.items():
            lower_count[form.lower()] += n
        for i, form in enumerate(forms):
            lower = form.lower()
            tag_class, morph_class = (
                ambiguity_class(labels[lower], ambiguity_min_count, prefix)
                for labels, prefix in zip(lower_labels, AMBIGUITY_PREFIXES))
            strings_of = attribute_strings(
                form, tag_class, form_count[form] >= min_word_count,
                lower_count[lower] >= min_word_count, morph_class)
            table[i, :N_BASE_ATTRIBUTES] = row_ids(strings_of, strings.add)
            n = form_count[form]
            if dictionary_min_count and n >= dictionary_min_count:
                allowed.extend(sorted(c for c, k in form_classes[form].items()
                                      if k >= dictionary_min_share * n))
            ptr.append(len(allowed))
        lexicon = cls(strings, forms, table, np.asarray(ptr, dtype=np.int64),
                      np.asarray(allowed, dtype=np.int32), splits)
        if splits and forms:
            lexicon.table[:, SPLIT_COLUMNS] = [lexicon.split_ids(form, strings.add)
                                               for form in forms]
        return lexicon

    def encode_training(self, sentences: Sequence[tuple[Sequence[str], Sequence[str],
                                                        Sequence[str]]],
                        min_word_count: int, ambiguity_min_count: int
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """encode() of the training sentences (forms, tags, morphological labels) the lexicon
        was learned from, where a form seen fewer than min_word_count times stands for the rare
        and unknown forms of tagging time: its ambiguity classes are those of the other forms of
        its lowercase (its own occurrences left out, as the tags of a tagged text are at tagging
        time), while the lexicon keeps its whole classes for tagging."""
        table, entry, offsets = self.encode([forms for forms, _, _ in sentences])
        table = table.copy()
        form_count: Counter[str] = Counter()
        for forms, _, _ in sentences:
            form_count.update(forms)
        for position, (column, prefix) in enumerate(zip(AMBIGUITY_COLUMNS,
                                                        AMBIGUITY_PREFIXES)):
            form_labels: defaultdict[str, Counter[str]] = defaultdict(Counter)
            lower_labels: defaultdict[str, Counter[str]] = defaultdict(Counter)
            for sentence in sentences:
                for form, label in zip(sentence[0], sentence[1 + position]):
                    if form_count[form] < min_word_count:
                        form_labels[form][label] += 1
                    lower_labels[form.lower()][label] += 1
            for form, labels in form_labels.items():
                others = ambiguity_class(lower_labels[form.lower()] - labels,
                                         ambiguity_min_count, prefix)
                table[self.entries[form], column] = (UNKNOWN if others is None
                                                     else self.strings.add(others))
        return table, entry, offsets

    def unknown_row(self, form: str) -> list[int]:
        """The attribute ids of a form outside the lexicon: its form UNKNOWN, as is every
        string unseen in training, the ambiguity classes of its lowercase where a known form
        has that lowercase, and its word splits."""
        row = (row_ids(attribute_strings(form, None), self.strings.get)
               + self.split_ids(form, self.strings.get))
        row[A_FORM] = UNKNOWN
        for column, lower_class in zip(AMBIGUITY_COLUMNS, self.lower_ambiguity):
            row[column] = lower_class.get(row[A_LOWER], UNKNOWN)
        return row

    def encode(self, sentences: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray,
                                                                   np.ndarray]:
        """(table, entry, offsets) of sentences of forms: the lexicon's table with rows for
        their unknown forms appended, the entry of every word, the sentences' offsets."""
        entries = self.entries
        extra: dict[str, int] = {}
        entry: list[int] = []
        offsets = [0]
        known = len(self.forms)
        for forms in sentences:
            for form in forms:
                found = entries.get(form)
                if found is None:
                    found = extra.get(form)
                    if found is None:
                        found = extra[form] = known + len(extra)
                entry.append(found)
            offsets.append(len(entry))
        table = self.table
        if extra:
            rows = np.asarray([self.unknown_row(form) for form in extra], dtype=np.int32)
            table = np.concatenate([table, rows])
        return (table, np.asarray(entry, dtype=np.int32), np.asarray(offsets, dtype=np.int64))
