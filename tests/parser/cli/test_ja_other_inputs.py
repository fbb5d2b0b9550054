"""`polyparse ja` on the Japanese inputs other tools write, run as a user runs it: raw text
through MeCab with UniDic and the bundled UniDic model, MeCab's output in each dictionary with
one warning line when the model was trained on another dictionary's tags, empty sentences kept,
KNP written from raw text, scoring by characters, and one-line errors."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from parser.formats.cabocha import read_cabocha
from parser.formats.knp import read_knp
from tests.parser.cli.user_runs import one_line, polyparse
from tests.parser.formats.test_mecab_input import IPADIC, JUMANDIC, UNIDIC

SENTENCE = "太郎は花子が読んでいる本を次郎に渡した。"
# The bunsetsu of SENTENCE and their heads: 太郎は, 花子が -> 読んでいる, 読んでいる -> 本を,
# 本を, 次郎に -> 渡した。 (the root).
TREE = (["太郎は", "花子が", "読んでいる", "本を", "次郎に", "渡した。"], [5, 2, 3, 5, 5, -1])


def bunsetsu_tree(sentence) -> tuple[list[str], list[int]]:
    ends = [*sentence.chunk_starts[1:], len(sentence.surface)]
    texts = ["".join(sentence.surface[a:b]) for a, b in zip(sentence.chunk_starts, ends)]
    return texts, sentence.heads


@pytest.fixture(scope="module")
def mecab_ready():
    pytest.importorskip("fugashi")
    pytest.importorskip("unidic_lite")


def test_raw_text_is_parsed_with_the_bundled_unidic_model(mecab_ready, tmp_path):
    result = polyparse("ja", "parse", "--format", "raw", input=SENTENCE + "\n")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    (sentence,) = read_cabocha(tmp_path.joinpath("o").open("w").write(result.stdout) and
                               str(tmp_path / "o"))
    assert bunsetsu_tree(sentence) == TREE
    assert "".join(sentence.surface) == SENTENCE


def test_raw_text_as_knp_and_blank_lines_kept(mecab_ready, tmp_path):
    out = tmp_path / "out.knp"
    result = polyparse("ja", "parse", "--format", "raw", "--output-format", "knp", "-o",
                       str(out), input=f"\n{SENTENCE}\n\n")
    assert result.returncode == 0, result.stderr
    sentences = list(read_knp(str(out)))
    assert [len(s.surface) for s in sentences] == [0, 14, 0]
    assert bunsetsu_tree(sentences[1]) == TREE


@pytest.mark.parametrize("text, tagset, warned", [
    (UNIDIC, "UniDic", True), (IPADIC, "IPAdic", True), (JUMANDIC, "JUMAN", False)])
def test_mecab_input_with_the_jumans_model_warns_about_the_dictionary(text, tagset, warned):
    result = polyparse("ja", "parse", "--format", "mecab", input=text * 3)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("EOS\n") == 3
    lines = result.stderr.strip().splitlines()
    if warned:
        assert len(lines) == 1 and f"tagged with {tagset}'s parts of speech" in lines[0]
        assert "trained on JUMAN's" in lines[0]
    else:
        assert lines == []


def test_unidic_mecab_input_with_the_unidic_model_gives_no_warning(mecab_ready):
    result = polyparse("ja", "parse", "--format", "mecab", "--model", "ja_unidic", input=UNIDIC)
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith("* 0 ")


def test_empty_sentences_pass_through_every_format(tmp_path):
    knp = "EOS\n# S-ID:x\n太郎 たろう 太郎 名詞 6 人名 5 * 0 * 0\nEOS\nEOS\n"
    result = polyparse("ja", "parse", input=knp)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("EOS\n# S-ID:x\n* -1D\n") and result.stdout.endswith(
        "EOS\nEOS\n")
    result = polyparse("ja", "parse", "--format", "cabocha", input="#! DOC 1\nEOS\n" + JUMANDIC)
    assert result.returncode == 0 and result.stdout.startswith("#! DOC 1\nEOS\n* 0 ")
    path = tmp_path / "gold.cabocha"
    path.write_text("EOS\n" + result.stdout[len("#! DOC 1\nEOS\n"):], encoding="utf-8")
    scored = polyparse("ja", "evaluate", "--format", "cabocha", "--json", str(path), str(path))
    assert json.loads(scored.stdout)["sentences"] == 2


def test_scoring_raw_text_by_characters(mecab_ready, tmp_path):
    gold = tmp_path / "gold.knp"
    gold.write_text(
        "* 1D\n太郎 たろう 太郎 名詞 6 人名 5 * 0 * 0\nは は は 助詞 9 副助詞 2 * 0 * 0\n"
        "* -1D\n走った はしった 走る 動詞 2 * 0 子音動詞ラ行 10 タ形 10\n。 。 。 特殊 1 句点 1 * 0 * 0\n"
        "EOS\n", encoding="utf-8")
    system = polyparse("ja", "parse", "--format", "raw", input="太郎は走った。\n").stdout
    result = polyparse("ja", "evaluate", "--by-characters", "--gold-format", "knp",
                       "--format", "cabocha", "--json", str(gold), "-", input=system)
    scores = json.loads(result.stdout)
    assert scores["chunk_f1"] == 100.0 and scores["dependency_f1"] == 100.0
    other = polyparse("ja", "evaluate", "--by-characters", "--gold-format", "knp", "--format",
                      "cabocha", str(gold), "-",
                      input=polyparse("ja", "parse", "--format", "raw",
                                      input="次郎は走った。\n").stdout)
    one_line(other, "<stdin>:1: sentence 1 has another text than the gold file's")


def test_options_that_raw_text_cannot_take_are_one_line(tmp_path):
    one_line(polyparse("ja", "parse", "--format", "raw", "--rechunk", input="x\n"),
             "--rechunk reads bunsetsu lines")
    one_line(polyparse("ja", "parse", "--format", "raw", "--model", str(tmp_path / "none"),
                       input="x\n"), "none")


def test_training_sentences_without_a_decision_are_one_line(tmp_path):
    path = tmp_path / "tiny.knp"
    path.write_text("* 1D\n太郎 たろう 太郎 名詞 6 人名 5 * 0 * 0\n"
                    "* -1D\n走る はしる 走る 動詞 2 * 0 子音動詞ラ行 10 基本形 2\nEOS\n",
                    encoding="utf-8")
    model = tmp_path / "m.model"
    one_line(polyparse("ja", "train", "--quiet", "--train", str(path), "--model", str(model)),
             "give the dependency classifier no examples")
    assert not model.exists()


def test_the_bundled_models_name_their_dictionary():
    from parser.bunsetsu.bunsetsu_parser import BunsetsuParser
    from parser.models.bundled import bundled_japanese_model

    for name, tagset in (("ja_wac", "juman"), ("ja_unidic", "unidic")):
        path = bundled_japanese_model(name)
        assert isinstance(path, Path) and BunsetsuParser.load(str(path)).tagset == tagset


def test_raw_text_without_mecab_installed_says_what_to_install(tmp_path):
    import subprocess
    import sys

    blocked = ("import sys; sys.modules['fugashi'] = None; from parser.cli.main import main; "
               "sys.exit(main(['ja', 'parse', '--format', 'raw', '-o', 'out.cabocha']))")
    result = subprocess.run([sys.executable, "-c", blocked], input="太郎\n", cwd=tmp_path,
                            capture_output=True, text=True, check=False)
    one_line(result, "pip install 'polyparse[mecab]'")
    assert not (tmp_path / "out.cabocha").exists()


def test_the_chunkers_own_settings(tmp_path):
    from parser.bunsetsu.bunsetsu_parser import BunsetsuParser
    from tests.parser.bunsetsu.samples import synthetic_sentences
    from tests.parser.cli.test_ja import write_knp

    train = write_knp(tmp_path / "train.knp", synthetic_sentences(3, 60))
    model = tmp_path / "m.model"
    result = polyparse("ja", "train", "-q", "--train", str(train), "--model", str(model),
                       "--iterations", "2", "--chunker-C", "0.05", "--chunker-iterations", "3")
    assert result.returncode == 0, result.stderr
    config = BunsetsuParser.load(str(model)).config
    assert config.chunker_params["C"] == 0.05 and config.chunker_params["iterations"] == 3
    assert config.classifier_params["iterations"] == 2
    one_line(polyparse("ja", "train", "--train", str(train), "--model", str(model),
                       "--chunker-C", "0"), "C must be positive")
