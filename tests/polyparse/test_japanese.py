"""polyparse's Japanese face: train from files, parse KNP and CaboCha text, evaluate, save and
load; the same trees as `polyparse ja`."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import polyparse
from polyparse.parser.formats.cabocha import knp_to_cabocha
from polyparse.parser.formats.knp import read_knp
from tests.parser.bunsetsu.samples import synthetic_sentences
from tests.parser.cli.test_ja import without_bunsetsu_lines, write_knp

POLYPARSE = str(Path(sys.executable).parent / "polyparse")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("japanese")
    train = write_knp(folder / "train.knp", synthetic_sentences(1, 300), "train")
    test = write_knp(folder / "test.knp", synthetic_sentences(2, 40), "test")
    return {"folder": folder, "train": train, "test": test}


def test_api_gives_the_command_line_trees(files: dict[str, Path]) -> None:
    parser, scores, skipped = polyparse.train_japanese_parser(
        files["train"], dev=files["test"], iterations=5)
    assert skipped == [] and 0 < scores["dependency_accuracy"] <= 100
    model = files["folder"] / "api.model"
    parser.save(model)
    text = files["test"].read_text(encoding="utf-8")
    parsed = polyparse.load_japanese_parser(model).parse(text)
    command = subprocess.run([POLYPARSE, "ja", "parse", "--model", str(model),
                              str(files["test"])], capture_output=True, text=True, check=True)
    assert parsed == command.stdout == parser.parse(text)
    out = files["folder"] / "parsed.knp"
    out.write_text(parsed, encoding="utf-8")
    assert polyparse.evaluate_japanese(files["test"], out)["dependency_accuracy"] == \
        scores["dependency_accuracy"]
    chunked = parser.parse(without_bunsetsu_lines(text))
    assert chunked.count("\n* ") + chunked.startswith("* ") > 0
    cabocha = "".join(knp_to_cabocha(s) for s in read_knp(str(files["test"])))
    assert parser.parse(cabocha, format="cabocha").count("EOS\n") == 40


def test_settings_are_checked_before_the_data_and_bad_text_is_one_line(
        files: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="gamma applies to kernel-svm"):
        polyparse.train_japanese_parser(tmp_path / "missing.knp", gamma=0.5)
    parser, _, _ = polyparse.train_japanese_parser(files["train"], iterations=2, chunker=False)
    with pytest.raises(polyparse.InputError, match="<text>:2:"):
        parser.parse("# S-ID:x\n* xD\n猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0\nEOS\n")
    broken = files["train"].read_text(encoding="utf-8").replace("* 1D", "* 0D", 1)
    bad = tmp_path / "bad.knp"
    bad.write_text(broken, encoding="utf-8")
    _, _, skipped = polyparse.train_japanese_parser(bad, iterations=2, chunker=False)
    assert len(skipped) == 1 and "is its own head" in skipped[0]
    with pytest.raises(polyparse.InputError, match="its own head"):
        polyparse.train_japanese_parser(bad, iterations=2, chunker=False, strict=True)


def test_bundled_model_parses_the_bundled_example() -> None:
    text = polyparse.bundled_japanese_example().read_text(encoding="utf-8")
    parsed = polyparse.load_japanese_parser().parse(text)
    assert [line for line in parsed.splitlines() if line.startswith("* ")] == \
        ["* 3D", "* 2D", "* 3D", "* -1D"]


def test_raw_text_with_the_bundled_unidic_model_gives_the_command_line_tree() -> None:
    pytest.importorskip("fugashi")
    pytest.importorskip("unidic_lite")
    text = "太郎は花子が読んでいる本を次郎に渡した。\n\n"
    parser = polyparse.load_japanese_parser("ja_unidic")
    command = subprocess.run([POLYPARSE, "ja", "parse", "--format", "raw", "--output-format",
                              "knp"], input=text, capture_output=True, text=True, check=True)
    assert parser.parse(text, format="raw", output_format="knp") == command.stdout
    with pytest.raises(ValueError, match="format must be one of"):
        parser.parse(text, format="plain")


def test_another_dictionarys_tags_give_an_input_warning() -> None:
    from tests.parser.formats.test_mecab_input import UNIDIC

    with pytest.warns(polyparse.InputWarning, match="tagged with UniDic's parts of speech"):
        polyparse.load_japanese_parser().parse(UNIDIC * 2, format="mecab")


def test_raw_text_is_segmented_with_the_dictionary_of_the_models_tags() -> None:
    """The JUMAN model reads raw text through MeCab with JUMAN's dictionary, the IPAdic model
    through IPAdic: their own parts of speech, so no warning."""
    import warnings

    pytest.importorskip("fugashi")
    for name, module, period in (("ja_wac", "jumandic", "特殊"), ("ja_ipadic", "ipadic", "記号")):
        pytest.importorskip(module)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            parsed = polyparse.load_japanese_parser(name).parse("太郎は走った。\n", format="raw")
        assert parsed.splitlines()[-2].startswith(f"。\t{period},句点")
    cabocha = polyparse.load_japanese_parser("ja_ipadic").parse(parsed, format="cabocha")
    assert polyparse.load_japanese_parser("ja_ipadic").parse(parsed, format=None) == cabocha
