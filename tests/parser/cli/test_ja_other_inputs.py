"""`polyparse ja` on the Japanese inputs other tools write, run as a user runs it: raw text
through MeCab with UniDic and the bundled UniDic model, MeCab's output in each dictionary with
one warning line when the model was trained on another dictionary's tags, empty sentences kept,
KNP written from raw text, scoring by characters, and one-line errors."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from polyparse.parser.formats.cabocha import read_cabocha
from polyparse.parser.formats.knp import read_knp
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


# MeCab's output in each dictionary, the name warnings give it and its bundled model.
DICTIONARIES = [(UNIDIC, "UniDic", "ja_unidic"), (IPADIC, "IPAdic", "ja_ipadic"),
                (JUMANDIC, "JUMAN", "ja_wac")]


@pytest.mark.parametrize("text, tagset, model", DICTIONARIES)
def test_mecab_input_is_parsed_by_the_bundled_model_of_its_dictionary(text, tagset, model):
    """`--format mecab` (or no --format) without --model: the model of the dictionary the
    input is tagged with, no warning; --model of another dictionary: one warning line naming
    both and the model that reads the input."""
    chosen = polyparse("ja", "parse", "--format", "mecab", "--model", model, input=text * 3)
    assert chosen.returncode == 0 and chosen.stderr == "", chosen.stderr
    assert chosen.stdout.count("EOS\n") == 3
    for options in (["--format", "mecab"], ["--input-format", "mecab"], []):
        result = polyparse("ja", "parse", *options, input=text * 3)
        assert (result.returncode, result.stderr) == (0, ""), result.stderr
        assert result.stdout == chosen.stdout
    other = "ja_unidic" if model == "ja_wac" else "ja_wac"
    warned = polyparse("ja", "parse", "--format", "mecab", "--model", other, input=text * 3)
    assert warned.returncode == 0
    (line,) = warned.stderr.splitlines()
    assert f"tagged with {tagset}'s parts of speech" in line and f"(--model {model})" in line


def test_the_model_chosen_for_ipadic_is_not_the_jumans():
    """MeCab-IPAdic's output of longer sentences: the IPAdic model parses it without a warning,
    and otherwise than the JUMAN model, whose features read other names."""
    pytest.importorskip("fugashi")
    pytest.importorskip("ipadic")
    from polyparse.parser.tokenize.mecab import MeCabTagger

    tagger = MeCabTagger("ipadic")
    text = "".join("\n".join(tagger.morpheme_lines(sentence)) + "\nEOS\n" for sentence in (
        "昨日、東京で開かれた会議には、多くの研究者が参加し、新しい技術について議論した。",
        "この町の人々は、古くから伝わる祭りを大切に守りながら、新しい文化も受け入れてきた。"))
    ipadic = polyparse("ja", "parse", input=text)
    juman = polyparse("ja", "parse", "--model", "ja_wac", input=text)
    assert ipadic.returncode == juman.returncode == 0
    assert ipadic.stderr == "" and "tagged with IPAdic's" in juman.stderr
    assert ipadic.stdout == polyparse("ja", "parse", "--model", "ja_ipadic", input=text).stdout
    assert ipadic.stdout != juman.stdout


def test_knp_written_from_raw_text_is_read_back_as_unidic(mecab_ready, tmp_path):
    """KNP written by `ja parse --format raw --output-format knp` holds UniDic's tags: read
    back without --model it is parsed by the UniDic model, from a file or a pipe; the JUMAN
    model gets one warning line; and KNP's own JUMAN tags warn the UniDic model."""
    from tests.parser.formats.test_tag_schemes import KNP_JUMAN

    knp = tmp_path / "raw.knp"
    text = "".join(f"{sentence}\n" for sentence in (SENTENCE, "僕は走った。", "今日は晴れだ。"))
    made = polyparse("ja", "parse", "--format", "raw", "--output-format", "knp", "-o", str(knp),
                     input=text)
    assert made.returncode == 0, made.stderr
    unidic = polyparse("ja", "parse", "--model", "ja_unidic", str(knp))
    assert unidic.returncode == 0 and unidic.stderr == ""
    for result in (polyparse("ja", "parse", str(knp)),
                   polyparse("ja", "parse", input=knp.read_text(encoding="utf-8"))):
        assert (result.returncode, result.stderr) == (0, ""), result.stderr
        assert result.stdout == unidic.stdout
    juman = polyparse("ja", "parse", "--model", "ja_wac", str(knp))
    (line,) = juman.stderr.splitlines()
    assert "tagged with UniDic's parts of speech, but the model was trained on JUMAN's" in line
    assert "(--model ja_unidic)" in line
    wrong = polyparse("ja", "parse", "--model", "ja_unidic", input=KNP_JUMAN * 3)
    (line,) = wrong.stderr.splitlines()
    assert "tagged with JUMAN's parts of speech, but the model was trained on UniDic's" in line


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
    from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
    from polyparse.parser.models.bundled import bundled_japanese_model

    for name, tagset in (("ja_wac", "juman"), ("ja_unidic", "unidic"), ("ja_ipadic", "ipadic")):
        path = bundled_japanese_model(name)
        assert isinstance(path, Path) and BunsetsuParser.load(str(path)).tagset == tagset


def test_raw_text_without_mecab_installed_says_what_to_install(tmp_path):
    import subprocess
    import sys

    blocked = ("import sys; sys.modules['fugashi'] = None; from polyparse.parser.cli.main import main; "
               "sys.exit(main(['ja', 'parse', '--format', 'raw', '-o', 'out.cabocha']))")
    result = subprocess.run([sys.executable, "-c", blocked], input="太郎\n", cwd=tmp_path,
                            capture_output=True, text=True, check=False)
    one_line(result, "pip install 'polyparse[mecab]'")
    assert not (tmp_path / "out.cabocha").exists()


def test_the_chunkers_own_settings(tmp_path):
    from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
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


def test_scoring_by_characters_passes_over_white_space(mecab_ready, tmp_path):
    """Raw text with a space that the gold surfaces lack ("Ad Planner" against the morphemes
    Ad and Planner), and the gold file's full-width space that the text lacks: every sentence
    is scored, by its characters other than white space."""
    gold = tmp_path / "gold.knp"
    gold.write_text(
        "* 1D\nAd Ad Ad 名詞 6 組織名 6 * 0 * 0\nPlanner Planner Planner 名詞 6 組織名 6 * 0 * 0\n"
        "を を を 助詞 9 格助詞 1 * 0 * 0\n"
        "* -1D\n使う つかう 使う 動詞 2 * 0 子音動詞ワ行 12 基本形 2\n。 。 。 特殊 1 句点 1 * 0 * 0\n"
        "EOS\n"
        "* 1D\n太郎 たろう 太郎 名詞 6 人名 5 * 0 * 0\nは は は 助詞 9 副助詞 2 * 0 * 0\n"
        "　 　 　 特殊 1 空白 6 * 0 * 0\n"
        "* -1D\n走った はしった 走る 動詞 2 * 0 子音動詞ラ行 10 タ形 10\n。 。 。 特殊 1 句点 1 * 0 * 0\n"
        "EOS\n", encoding="utf-8")
    system = polyparse("ja", "parse", "--format", "raw", input="Ad Plannerを使う。\n太郎は走った。\n")
    assert system.returncode == 0, system.stderr
    assert " \t空白" in system.stdout
    result = polyparse("ja", "evaluate", "--by-characters", "--json", str(gold), "-",
                       input=system.stdout)
    assert result.returncode == 0, result.stderr
    scores = json.loads(result.stdout)
    assert scores["sentences"] == 2 and scores["chunk_f1"] == 100.0
    assert scores["dependency_f1"] == 100.0


# CaboCha -f1 with IPAdic, as CaboCha writes it: a sentence of three bunsetsu (one dependency
# to decide, for training).
CABOCHA_THREE = """* 0 2D 0/1 0.000000
太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー
は\t助詞,係助詞,*,*,*,*,は,ハ,ワ
* 1 2D 0/1 0.000000
本\t名詞,一般,*,*,*,*,本,ホン,ホン
を\t助詞,格助詞,一般,*,*,*,を,ヲ,ヲ
* 2 -1D 0/1 0.000000
読ん\t動詞,自立,*,*,五段・マ行,連用タ接続,読む,ヨン,ヨン
だ\t助動詞,*,*,*,特殊・タ,基本形,だ,ダ,ダ
。\t記号,句点,*,*,*,*,。,。,。
EOS
"""


def cabocha_file(tmp_path: Path) -> Path:
    from tests.parser.formats.test_bunsetsu_sniff import CABOCHA_IPADIC

    path = tmp_path / "in.cabocha"
    path.write_text(CABOCHA_IPADIC + CABOCHA_THREE * 2, encoding="utf-8")
    return path


def test_cabocha_without_a_format_option_is_read_as_cabocha(tmp_path):
    """A .cabocha file given to every ja command without --format: read as CaboCha (told by
    its first lines), parsed by the IPAdic model its tags ask for."""
    path = cabocha_file(tmp_path)
    parsed = polyparse("ja", "parse", str(path))
    assert (parsed.returncode, parsed.stderr) == (0, ""), parsed.stderr
    assert parsed.stdout.startswith("* 0 1D ") and parsed.stdout.count("EOS\n") == 3
    assert parsed.stdout.count("* 2 -1D") == 2
    assert parsed.stdout == polyparse("ja", "parse", "--model", "ja_ipadic", "--input-format",
                                      "cabocha", input=path.read_text(encoding="utf-8")).stdout
    shown = polyparse("ja", "show", str(path))
    assert shown.returncode == 0 and "太郎は-D" in shown.stdout
    scored = polyparse("ja", "evaluate", "--json", str(path), "-", input=parsed.stdout)
    assert scored.returncode == 0 and json.loads(scored.stdout)["sentences"] == 3
    model = tmp_path / "m.model"
    trained = polyparse("ja", "train", "-q", "--train", str(path), "--model", str(model),
                        "--iterations", "1", "--no-chunker")
    assert trained.returncode == 0, trained.stderr
    from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser

    assert BunsetsuParser.load(str(model)).tagset == "ipadic"


def test_every_ja_command_names_its_input_format_input_format(tmp_path):
    path = cabocha_file(tmp_path)
    train = ["-q", "--model", str(tmp_path / "m.model"), "--iterations", "1", "--no-chunker"]
    for command in (["parse", str(path)], ["show", str(path)],
                    ["evaluate", str(path), str(path)], ["train", *train, "--train", str(path)]):
        result = polyparse("ja", command[0], "--input-format", "cabocha", *command[1:])
        assert result.returncode == 0, (command, result.stderr)
        assert "--input-format" in polyparse("ja", command[0], "--help").stdout


def test_a_format_the_input_is_not_says_what_it_looks_like(tmp_path):
    path = cabocha_file(tmp_path)
    for command in (["parse"], ["show"], ["evaluate", str(path)]):
        line = one_line(polyparse("ja", *command, "--input-format", "knp", str(path)),
                        f"{path}:1: ", "looks like CaboCha, line 1: '* 0 1D 0/1 1.062087'",
                        "give --input-format cabocha")
        assert "Traceback" not in line
    # As raw text: CaboCha's tabs stop it, with the hint; KNP is read as told, with a warning.
    pytest.importorskip("fugashi")
    pytest.importorskip("ipadic")
    one_line(polyparse("ja", "parse", "--format", "raw", "--model", "ja_ipadic", str(path)),
             f"{path}:2: a tab in raw text", "looks like CaboCha, line 1")
    from tests.parser.formats.test_tag_schemes import KNP_JUMAN

    warned = polyparse("ja", "parse", "--format", "raw", "--model", "ja_ipadic",
                       input=KNP_JUMAN)
    assert warned.returncode == 0
    assert warned.stdout.count("\nEOS\n") == len(KNP_JUMAN.splitlines())
    (line,) = warned.stderr.splitlines()
    assert "--format raw reads every line as a sentence of text" in line
    assert "looks like KNP (line 2: '* 1D')" in line
