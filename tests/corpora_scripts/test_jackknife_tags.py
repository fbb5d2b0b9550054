"""jackknife_tags.py: each training sentence tagged by a tagger trained without its fold."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from polyparse.parser.formats.conll import read_conll
from polyparse.parser.tagging.config import TaggerConfig
from polyparse.parser.tagging.jackknife import fold_bounds, jackknifed
from polyparse.parser.tagging.tagger import Tagger
from tests.parser.tagging.synthetic import synthetic_conllu

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "corpora_scripts" / "jackknife_tags.py"


def run(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], check=False,
                          capture_output=True, text=True, timeout=120)


def with_feats(text: str) -> str:
    """The synthetic treebank with a FEATS value on every word."""
    lines = []
    for line in text.split("\n"):
        columns = line.split("\t")
        if len(columns) == 10:
            columns[5] = "Number=Sing"
        lines.append("\t".join(columns))
    return "\n".join(lines)


def test_each_fold_is_tagged_by_a_tagger_trained_on_the_other_folds(tmp_path: Path) -> None:
    path = tmp_path / "train.conllu"
    # Sentence 0's last word before the full stop is "zorb", tagged X / FW nowhere else: a
    # tagger that saw sentence 0 learns it, its fold's tagger cannot.
    blocks = synthetic_conllu(45, seed=3).split("\n\n")
    lines = blocks[0].split("\n")
    columns = lines[-2].split("\t")
    columns[1:5] = ["zorb", "zorb", "X", "FW"]
    lines[-2] = "\t".join(columns)
    blocks[0] = "\n".join(lines)
    path.write_text("\n\n".join(blocks), encoding="utf-8")
    sentences = list(read_conll(path))
    config = TaggerConfig(min_word_count=1)
    seen = Tagger(config)
    seen.train(sentences)
    assert seen.tag(sentences[:1])[0].upos[-2] == "X"
    out = jackknifed(sentences, 3, config)
    assert out[0].form[-2] == "zorb" and out[0].upos[-2] != "X"
    assert fold_bounds(45, 3) == [0, 15, 30, 45] and fold_bounds(7, 3) == [0, 2, 4, 7]
    for start in (0, 15, 30):
        held = range(start, start + 15)
        reference = Tagger(config)
        reference.train([s for i, s in enumerate(sentences) if i not in held])
        for i, tags in zip(held, reference.tag([sentences[i] for i in held])):
            assert out[i].upos == tags.upos and out[i].xpos == tags.xpos
            assert out[i].lemma == tags.lemma
            assert out[i].head == sentences[i].head and out[i].deprel == sentences[i].deprel


def test_the_script_keeps_every_other_byte_and_writes_the_same_bytes_twice(
        tmp_path: Path) -> None:
    train = tmp_path / "train.conllu"
    text = with_feats(synthetic_conllu(40, seed=5))
    train.write_text(text, encoding="utf-8")
    model = tmp_path / "tagger.model"
    tagger = Tagger(TaggerConfig(min_word_count=2))
    tagger.train(list(read_conll(train)))
    tagger.save(model)
    outputs = []
    for name, extra in (("a", []), ("b", []), ("c", ["--blank-feats"])):
        out = tmp_path / f"{name}.conllu"
        done = run(train, "-o", out, "--folds", "4", "--like", model, *extra)
        assert done.returncode == 0, done.stderr
        assert done.stderr.count("fold ") == 4
        outputs.append(out.read_text(encoding="utf-8"))
    assert outputs[0] == outputs[1]
    for original, kept, blanked in zip(text.split("\n"), outputs[0].split("\n"),
                                       outputs[2].split("\n")):
        a, b, c = original.split("\t"), kept.split("\t"), blanked.split("\t")
        if len(a) != 10:
            assert a == b == c
            continue
        assert a[:2] + a[5:] == b[:2] + b[5:]
        assert b[:5] == c[:5] and c[5] == "_" and a[6:] == c[6:]


def test_bad_options_and_untagged_training_words_are_one_line(tmp_path: Path) -> None:
    train = tmp_path / "train.conllu"
    train.write_text(synthetic_conllu(6), encoding="utf-8")
    done = run(train, "--folds", "1")
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0
    assert "--folds must be 2 to 100" in done.stderr
    done = run(train, "--folds", "7")
    assert done.returncode == 2 and "6 sentences cannot fill 7 folds" in done.stderr
    done = run(tmp_path / "missing.conllu")
    assert done.returncode == 2 and "missing.conllu" in done.stderr
    untagged = tmp_path / "untagged.conllu"
    untagged.write_text(synthetic_conllu(6).replace("\tNOUN\t", "\t_\t", 1), encoding="utf-8")
    done = run(untagged, "-o", tmp_path / "out.conllu")
    assert done.returncode == 2 and "untagged.conllu:" in done.stderr
    assert "UPOS is missing" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out.conllu").exists()
