"""Small synthetic treebanks of made-up languages (written for the tests), as CoNLL-U text:

- `unspaced`: a made-up script (Private Use Area letters) written without spaces between words
  or sentences; half of the sentences end with a made-up full stop, the others with nothing;
- `spaced_tokens`: Latin letters, tokens of one to three syllables written with spaces between
  the syllables (as Vietnamese writes `Hà Nội`), sentences ending with a period;
- `multiword`: Latin letters with contractions: the preposition `zo` and the article `la` are
  written `zla`, and the pronoun `ni` is written joined to the verb before it (`tumani` = `tuma
  ni`), always, and `dar` is ambiguous: `da ra` after `ko`, the word `dar` elsewhere.
"""
from __future__ import annotations

import random
from collections.abc import Sequence

# Token: (form, words); sentence: tokens and whether a space follows each.
Token = tuple[str, list[str]]

_PUA = 0xE000
FULL_STOP = chr(_PUA + 0xFF)


def _conllu(sentences: Sequence[tuple[list[Token], list[bool]]]) -> str:
    blocks = []
    for number, (tokens, spaces) in enumerate(sentences, 1):
        text = "".join(form + (" " if space else "") for (form, _), space in zip(tokens, spaces))
        lines = [f"# sent_id = {number}", f"# text = {text.rstrip()}"]
        word = 1
        for (form, words), space in zip(tokens, spaces):
            misc = "_" if space else "SpaceAfter=No"
            if len(words) > 1:
                lines.append(f"{word}-{word + len(words) - 1}\t{form}\t_\t_\t_\t_\t_\t_\t_\t{misc}")
                for part in words:
                    head = 0 if word == 1 else 1
                    lines.append(f"{word}\t{part}\t_\tX\t_\t_\t{head}\tdep\t_\t_")
                    word += 1
            else:
                head = 0 if word == 1 else 1
                lines.append(f"{word}\t{form}\t_\tX\t_\t_\t{head}\tdep\t_\t{misc}")
                word += 1
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks) + "\n"


def unspaced_words(seed: int = 7, n_words: int = 60) -> list[str]:
    """A vocabulary of made-up words of one to three syllables (letters of the PUA)."""
    rng = random.Random(seed)
    words: set[str] = set()
    while len(words) < n_words:
        length = rng.choice((1, 2, 2, 3))
        words.add("".join(chr(_PUA + rng.randrange(40)) for _ in range(length)))
    return sorted(words)


def unspaced(n_sentences: int, seed: int = 1) -> str:
    """CoNLL-U of the made-up unspaced language."""
    rng = random.Random(seed)
    vocabulary = unspaced_words()
    sentences = []
    for _ in range(n_sentences):
        tokens: list[Token] = [(word, [word]) for word in rng.choices(vocabulary,
                                                                     k=rng.randint(3, 8))]
        if rng.random() < 0.5:
            tokens.append((FULL_STOP, [FULL_STOP]))
        sentences.append((tokens, [False] * len(tokens)))
    return _conllu(sentences)


_SYLLABLES = ["ba", "ku", "ti", "mo", "ne", "ra", "so", "lu", "ve", "do", "ga", "pi"]


def spaced_vocabulary(seed: int = 3) -> list[str]:
    """Tokens of one to three syllables, spaces between the syllables."""
    rng = random.Random(seed)
    tokens: set[str] = set()
    while len(tokens) < 40:
        tokens.add(" ".join(rng.choice(_SYLLABLES) for _ in range(rng.choice((1, 2, 2, 3)))))
    return sorted(tokens)


def spaced_tokens(n_sentences: int, seed: int = 1) -> str:
    """CoNLL-U of the made-up language whose tokens hold spaces."""
    rng = random.Random(seed)
    vocabulary = spaced_vocabulary()
    sentences = []
    for _ in range(n_sentences):
        words = rng.choices(vocabulary, k=rng.randint(3, 7))
        words[0] = words[0][0].upper() + words[0][1:]
        tokens: list[Token] = [(word, [word]) for word in words] + [(".", ["."])]
        spaces = [True] * (len(tokens) - 2) + [False, True]
        sentences.append((tokens, spaces))
    return _conllu(sentences)


_NOUNS = ["mesa", "kirol", "patu", "lenda", "soro", "vika", "dumo", "ferin"]
_VERBS = ["tuma", "seko", "rali", "pordu", "vesta", "mino", "kalde", "bru"]


def multiword(n_sentences: int, seed: int = 1, verbs: Sequence[str] = _VERBS[:6]) -> str:
    """CoNLL-U of the made-up language with contractions (see the module notes); only the
    given verbs are used."""
    rng = random.Random(seed)
    sentences = []
    for _ in range(n_sentences):
        tokens: list[Token] = [(rng.choice(_NOUNS), [])]
        verb = rng.choice(list(verbs))
        tokens.append((verb + "ni", [verb, "ni"]) if rng.random() < 0.5 else (verb, []))
        if rng.random() < 0.6:
            tokens.append(("zla", ["zo", "la"]))
            tokens.append((rng.choice(_NOUNS), []))
        if rng.random() < 0.5:
            tokens += [("ko", []), ("dar", ["da", "ra"])]
        else:
            tokens += [("dar", []), (rng.choice(_NOUNS), [])]
        tokens = [(form, words or [form]) for form, words in tokens]
        tokens.append((".", ["."]))
        spaces = [True] * (len(tokens) - 2) + [False, True]
        sentences.append((tokens, spaces))
    return _conllu(sentences)
