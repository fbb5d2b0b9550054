"""The outputs a change of structure must leave byte for byte as they were: each is made by the
installed `polyparse` from a fixed input and reduced to its sha256. tests/test_reference_outputs.py
compares them with the digests recorded (REFERENCE_DIGESTS) before the code was moved; run as a
script from the repository's root (`python -m tests.reference_outputs FOLDER`) it prints them,
to record them again when an output is meant to change (say which and why in the commit).

The cases that need a treebank read them from POLYPARSE_CORPORA (None without it); the
others use data made here with fixed seeds."""
from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

POLYPARSE = str(Path(sys.executable).parent / "polyparse")

# sha256 of each output, recorded at the commit before the code was restructured into one
# namespace, one service and declared stages (what the cases below print there). Recorded again
# since: "dep parse, beam search", whose newly trained beam parser reads the morph columns
# (atomic FEATS values and suffixes; model files written before load without them); and the
# five outputs of the bundled English models ("dep parse of the bundled example", "dep parse of
# EWT test, bundled model", "tokenize tokenize of EWT test's text", "tag tag of EWT test,
# bundled tagger", "dep parse --format raw of EWT test's text"), since the three bundled files
# were replaced by one pipeline file (parser/models/en_ewt.md).
REFERENCE_DIGESTS: dict[str, str] = {
    "dep parse, greedy kernel-svm":
        "84ea099960e644fe9291366d42fe7d1f70e1ebf9ed52829f63b20a01dae52b46",
    "dep parse, beam search":
        "93ce6d13c047cea7c0554c4a41aa89990fc2c9dab4a9156ab94f51408d10aaf8",
    "tag tag":
        "b1ba99a82039a74299c6dc8958f6499d5525b5b4fc3c0b380b22d27a471b8764",
    "clf predict --decision-values":
        "65595b3e16c9bd49ebd4535621bc2f4ee66da93a8341a02e5302d809f47e30eb",
    "dep parse of the bundled example":
        "888b71214c8753c15b38f2804ef2c3539d099490141ce495d92bf8d3471d4da8",
    "dep parse of EWT test, bundled model":
        "33c60aad4a7b4f1a0db303e5c01ce02cec35ba918f3f0ff4e1342b9f9ca84bc7",
    "tokenize tokenize of EWT test's text":
        "d2fd382c7cbe154d6d4ad5d6460517cda495e349b2ec7b9ddd80b78991de0314",
    "tag tag of EWT test, bundled tagger":
        "fb6d1cbb7da0fe427f32253b43bbc094b4b432b077f9c7fdd546b8632c4a8e58",
    "dep parse --format raw of EWT test's text":
        "d697a4f4548423bfae10435730ab37711f1b6694b863f63afd56389038ed9826",
    "ja parse of KWDLC test, bundled model":
        "d692fe12bb32fec618b6a1b9763bb3591bf07384477bc4d0847373726222811e",
}


def run(*argv: str | Path, stdin: Path | None = None) -> bytes:
    """The stdout of a polyparse command that must succeed."""
    with open(stdin, "rb") if stdin is not None else open(os.devnull, "rb") as source:
        result = subprocess.run([POLYPARSE, *map(str, argv), "--quiet"], stdin=source,
                                capture_output=True, check=False)
    if result.returncode != 0:
        raise AssertionError(f"{argv}: {result.stderr.decode()}")
    return result.stdout


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def word_line(i: int, form: str, upos: str, xpos: str, feats: str, head: int,
              deprel: str) -> str:
    """A CoNLL-U word line whose lemma is its form."""
    return f"{i}\t{form}\t{form}\t{upos}\t{xpos}\t{feats}\t{head}\t{deprel}\t_\t_"


def write_sentences(path: Path, sentences: list[list[str]]) -> Path:
    """path written as CoNLL-U: each sentence's lines, then a blank line."""
    path.write_text("".join("\n".join(lines) + "\n\n" for lines in sentences), encoding="utf-8")
    return path


def synthetic_treebank(path: Path, n: int, seed: int) -> Path:
    """Random projective trees over a tiny grammar, with XPOS, lemmas and FEATS."""
    rng = random.Random(seed)
    words = {"DT": ("DET", ["the", "a"]), "NN": ("NOUN", ["dog", "cat", "park"]),
             "VB": ("VERB", ["saw", "ran"]), "JJ": ("ADJ", ["big", "old"]),
             "IN": ("ADP", ["in", "with"])}
    sentences = []
    for k in range(n):
        tags = ["DT", "JJ", "NN", "VB", "DT", "NN", "IN", "DT", "NN"][:rng.choice((4, 6, 9))]
        heads = {1: 3, 2: 3, 3: 4, 4: 0, 5: 6, 6: 4, 7: 9, 8: 9, 9: 6}
        labels = {1: "det", 2: "amod", 3: "nsubj", 4: "root", 5: "det", 6: "obj", 7: "case",
                  8: "det", 9: "nmod"}
        forms = [rng.choice(words[tag][1]) for tag in tags]
        lines = [f"# sent_id = s{k}", f"# text = {' '.join(forms)}"]
        for i, (tag, form) in enumerate(zip(tags, forms), 1):
            head = heads[i] if heads[i] <= len(tags) else 4
            feats = "Number=Sing" if tag == "NN" else "_"
            lines.append(word_line(i, form, words[tag][0], tag, feats, head, labels[i]))
        sentences.append(lines)
    return write_sentences(path, sentences)


def scrambled(path: Path, n: int, seed: int) -> Path:
    """Sentences of random tags and words (every word attached to the next, the last to the
    root), which a parser trained on the grammar above gets wrong in its own ways."""
    rng = random.Random(seed)
    words = [("DET", "DT", "the"), ("NOUN", "NN", "dog"), ("VERB", "VB", "saw"),
             ("ADJ", "JJ", "old"), ("ADP", "IN", "with"), ("NOUN", "NN", "park")]
    sentences = []
    for k in range(n):
        chosen = [rng.choice(words) for _ in range(rng.randint(3, 14))]
        lines = [f"# sent_id = r{k}"]
        for i, (upos, xpos, form) in enumerate(chosen, 1):
            head = 0 if i == len(chosen) else i + 1
            lines.append(word_line(i, form, upos, xpos, "_", head, "root" if head == 0 else "dep"))
        sentences.append(lines)
    return write_sentences(path, sentences)


def svmlight(path: Path, n: int, seed: int) -> Path:
    """Random binary examples of three classes."""
    rng = random.Random(seed)
    lines = []
    for _ in range(n):
        ids = sorted(rng.sample(range(1, 60), 6))
        label = 1 + (ids[0] % 3)
        lines.append(f"{label} " + " ".join(f"{i}:1" for i in ids))
    path.write_text("\n".join(lines) + "\n")
    return path


def cases(folder: Path, corpora: Path | None, root: Path) -> dict[str, Callable[[], bytes]]:
    """Each case's name and the command that makes its output (root: the repository)."""
    train = synthetic_treebank(folder / "train.conllu", 200, 1)
    test = scrambled(folder / "test.conllu", 80, 2)
    svm_train, svm_test = svmlight(folder / "train.svm", 300, 3), svmlight(folder / "t.svm", 80, 4)

    def trained(name: str, *argv: str) -> Path:
        model = folder / name
        if not model.exists():
            run(*argv, "--model", model)
        return model

    def greedy() -> bytes:
        model = trained("greedy.model", "dep", "train", "--train", train, "--classifier",
                        "kernel-svm", "--split-threshold", "200")
        return run("dep", "parse", "--model", model, test)

    def beam() -> bytes:
        model = trained("beam.model", "dep", "train", "--train", train, "--classifier",
                        "structured-perceptron", "--beam", "4", "--epochs", "3")
        return run("dep", "parse", "--model", model, test)

    def tagger() -> bytes:
        model = trained("tagger.model", "tag", "train", "--train", train)
        return run("tag", "tag", "--model", model, test)

    def decision_values() -> bytes:
        outputs = b""
        for backend in ("linear", "poly2-linear", "kernel-svm", "pa-slicing"):
            model = trained(f"{backend}.model", "clf", "train", svm_train, "--classifier",
                            backend)
            values = folder / f"{backend}.values"
            run("clf", "predict", "--model", model, svm_test, "--decision-values", values)
            outputs += values.read_bytes()
        return outputs

    found: dict[str, Callable[[], bytes]] = {
        "dep parse, greedy kernel-svm": greedy, "dep parse, beam search": beam,
        "tag tag": tagger, "clf predict --decision-values": decision_values,
        "dep parse of the bundled example": lambda: run(
            "dep", "parse", root / "parser" / "models" / "example.conllu"),
    }
    if corpora is not None:
        ewt_test = corpora / "en_ewt" / "en_ewt-ud-test.conllu"
        text = folder / "ewt-test.txt"

        def raw_text() -> Path:
            if not text.exists():
                from polyparse.parser.tokenize.treebank_text import raw_text as text_of

                text.write_text(text_of(ewt_test), encoding="utf-8")
            return text

        def kwdlc_test() -> Path:
            knp = folder / "kwdlc-test.knp"
            if not knp.exists():
                subprocess.run([sys.executable, str(root / "corpora_scripts" /
                                                    "knp_documents.py"),
                                "--ids", str(corpora / "kwdlc" / "id" / "test.id"),
                                "--corpus", str(corpora / "kwdlc" / "knp"), "-o", str(knp)],
                               check=True)
            return knp

        found.update({
            "dep parse of EWT test, bundled model": lambda: run("dep", "parse", ewt_test),
            "tokenize tokenize of EWT test's text": lambda: run("tokenize", "tokenize",
                                                                raw_text()),
            "tag tag of EWT test, bundled tagger": lambda: run("tag", "tag", ewt_test),
            "dep parse --format raw of EWT test's text": lambda: run(
                "dep", "parse", "--format", "raw", raw_text()),
            "ja parse of KWDLC test, bundled model": lambda: run("ja", "parse",
                                                                 kwdlc_test()),
        })
    return found


def main() -> None:
    folder = Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    corpora = os.environ.get("POLYPARSE_CORPORA")
    made = {}
    for name, make in cases(folder, Path(corpora) if corpora else None, Path.cwd()).items():
        try:
            made[name] = digest(make())
        except AssertionError as error:
            made[name] = f"failed: {error}"
    print(json.dumps(made, indent=4, ensure_ascii=False))


if __name__ == "__main__":
    main()
