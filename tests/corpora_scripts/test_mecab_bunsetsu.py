"""mecab_bunsetsu.py: gold bunsetsu trees carried over to UniDic morphemes by characters, with
the merge rule for a morpheme that crosses a gold boundary, and its statistics; on the real
corpora when POLYPARSE_CORPORA is set."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from polyparse.parser.formats.cabocha import read_cabocha
from polyparse.parser.formats.knp import read_knp

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "corpora_scripts" / "mecab_bunsetsu.py"
sys.path.insert(0, str(ROOT / "corpora_scripts"))

from mecab_bunsetsu import realigned  # noqa: E402

# むかし|むかし、ある 村に 住んで いた。: four gold bunsetsu (JUMAN's), of which the first two
# are one UniDic morpheme むかしむかし.
GOLD = """# S-ID:t-1
* 1D
むかし むかし むかし 名詞 6 時相名詞 10 * 0 * 0
* 4D
むかし むかし むかし 名詞 6 時相名詞 10 * 0 * 0
、 、 、 特殊 1 読点 2 * 0 * 0
* 3D
ある ある ある 指示詞 7 連体詞形態指示詞 2 * 0 * 0
* 4D
村 むら 村 名詞 6 普通名詞 1 * 0 * 0
に に に 助詞 9 格助詞 1 * 0 * 0
* -1D
住んで すんで 住む 動詞 2 * 0 子音動詞マ行 9 タ系連用テ形 14
いた いた いる 接尾辞 14 動詞性接尾辞 7 母音動詞 1 タ形 10
。 。 。 特殊 1 句点 1 * 0 * 0
EOS
"""


def unidic_lines(*surfaces: str) -> list[str]:
    return [f"{surface}\t名詞,普通名詞,一般,*,*,*" for surface in surfaces] + ["EOS"]


def run_on_one_document(tmp_path: Path, document_id: str, knp: str,
                        dictionary: str) -> tuple[dict, Path]:
    """The script run with --dictionary over a corpus of one KNP document (in the corpora's
    folder layout, knp/t0000000/t00000001.knp): its --json statistics and the CaboCha file it
    wrote."""
    folder = tmp_path / "knp" / document_id[:-1]
    folder.mkdir(parents=True)
    (folder / f"{document_id}.knp").write_text(knp, encoding="utf-8")
    ids = tmp_path / "ids"
    ids.write_text(f"{document_id}\n", encoding="utf-8")
    out = tmp_path / "out.cabocha"
    result = subprocess.run([sys.executable, str(SCRIPT), "--dictionary", dictionary, "--ids",
                             str(ids), "--corpus", str(tmp_path / "knp"), "-o", str(out),
                             "--json"], capture_output=True, text=True, timeout=120,
                            check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout), out


def test_a_crossing_morpheme_merges_the_bunsetsu_it_crosses():
    (sentence,) = read_knp(io.StringIO(GOLD))
    lines = unidic_lines("むかしむかし", "、", "ある", "村", "に", "住ん", "で", "い", "た", "。")
    starts, heads, types, crossed = realigned(sentence, lines)
    assert crossed == 1
    assert starts == [0, 2, 3, 5]
    # むかしむかし、 takes the head of the later gold bunsetsu (住んでいた。).
    assert heads == [3, 2, 3, -1] and types == ["D"] * 4


def test_without_crossings_the_gold_tree_is_kept():
    (sentence,) = read_knp(io.StringIO(GOLD))
    lines = unidic_lines("むかし", "むかし", "、", "ある", "村", "に", "住ん", "で", "いた", "。")
    starts, heads, _, crossed = realigned(sentence, lines)
    assert crossed == 0 and starts == [0, 1, 3, 4, 6] and heads == sentence.heads


def test_the_script_writes_cabocha_over_unidic_morphemes(tmp_path):
    pytest.importorskip("fugashi")
    pytest.importorskip("unidic_lite")
    stats, out = run_on_one_document(tmp_path, "t00000001", GOLD, "unidic")
    assert stats["sentences"] == 1 and stats["gold_bunsetsu"] == 5
    assert stats["boundaries_crossed"] == stats["gold_bunsetsu"] - stats["bunsetsu_written"]
    (sentence,) = read_cabocha(str(out))
    assert sentence.sid == "t-1" and sentence.tagset == "unidic"
    assert "".join(sentence.surface) == "むかしむかし、ある村に住んでいた。"
    assert sentence.heads[-1] == -1


@pytest.mark.skipif(not os.environ.get("POLYPARSE_CORPORA"), reason="POLYPARSE_CORPORA unset")
def test_wac_dev_realigns_with_few_crossings(tmp_path):
    pytest.importorskip("fugashi")
    pytest.importorskip("unidic_lite")
    corpora = Path(os.environ["POLYPARSE_CORPORA"]) / "ja_wac"
    result = subprocess.run([sys.executable, str(SCRIPT), "--dictionary", "unidic",
                             "--ids", str(corpora / "id/dev.id"),
                             "--corpus", str(corpora / "knp"), "-o", str(tmp_path / "o"),
                             "--json"], capture_output=True, text=True, timeout=300,
                            check=False)
    stats = json.loads(result.stdout)
    # As the bundled model's notes state: 443 sentences, one boundary crossed.
    assert stats["sentences"] == 443 and stats["boundaries_crossed"] == 1
    assert stats["mecab_morphemes"] > stats["gold_morphemes"]


# 学者と | して | 知られる。: KNP's corpora cut a bunsetsu after と; IPAdic reads として as one
# particle (格助詞,連語), as CaboCha does.
AS_A = """# S-ID:t-2
* 1D
学者 がくしゃ 学者 名詞 6 普通名詞 1 * 0 * 0
と と と 助詞 9 格助詞 1 * 0 * 0
* 2D
して して する 動詞 2 * 0 サ変動詞 16 タ系連用テ形 14
* -1D
知られる しられる 知られる 動詞 2 * 0 母音動詞 1 基本形 2
。 。 。 特殊 1 句点 1 * 0 * 0
EOS
"""


def test_the_script_writes_cabocha_over_ipadic_morphemes(tmp_path):
    pytest.importorskip("fugashi")
    pytest.importorskip("ipadic")
    stats, out = run_on_one_document(tmp_path, "t00000002", AS_A, "ipadic")
    assert stats["boundaries_crossed"] == 1
    (sentence,) = read_cabocha(str(out))
    assert sentence.tagset == "ipadic" and "として" in sentence.surface
    texts = ["".join(sentence.surface[a:b]) for a, b in
             zip(sentence.chunk_starts, [*sentence.chunk_starts[1:], len(sentence.surface)])]
    assert texts == ["学者として", "知られる。"] and sentence.heads == [1, -1]


def test_a_dictionary_that_is_not_installed_is_one_line(tmp_path):
    blocked = ("import sys; sys.modules['ipadic'] = None; sys.argv[0] = 'mecab_bunsetsu.py'; "
               f"sys.path.insert(0, {str(SCRIPT.parent)!r}); import mecab_bunsetsu; "
               "sys.exit(mecab_bunsetsu.main(['--dictionary', 'ipadic', '--ids', 'i', "
               "'--corpus', 'c', '-o', 'o']))")
    result = subprocess.run([sys.executable, "-c", blocked], cwd=tmp_path, capture_output=True,
                            text=True, check=False)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "pip install fugashi ipadic" in result.stderr and not (tmp_path / "o").exists()
