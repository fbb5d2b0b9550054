"""The ja evaluate report (parser/views/bunsetsu_report.py): bunsetsu judged as the accuracy
counts them (over the gold bunsetsu, the last of each sentence left out, and over predicted
bunsetsu when the system made its own), endings, and the sentences listed."""
from __future__ import annotations

import io

from polyparse.parser.bunsetsu.bunsetsu_files import sentence_scores
from polyparse.parser.formats.knp import read_knp
from polyparse.parser.views.bunsetsu_report import (
    BunsetsuErrors,
    bunsetsu_endings,
    bunsetsu_report,
    judged_bunsetsu_sentences,
)
from tests.parser.cli.test_show import KNP
from tests.parser.views.pages import page_json_lines, page_sentences

# 太郎は on 京都の (wrong: gold 行った。), 京都の and 大学に right.
WRONG = KNP.replace("# S-ID:ja-1\n* 3D\n+ 3D", "# S-ID:ja-1\n* 1D\n+ 1D")
# Other bunsetsu: 京都の大学に as one bunsetsu; 太郎は right on 行った。.
CHUNKED = "\n".join(line for line in KNP.splitlines()
                    if line not in ("* 3D", "+ 3D", "* 2D", "+ 2D")).replace(
    "# S-ID:ja-1\n", "# S-ID:ja-1\n* 2D\n+ 2D\n").replace(
    "京都 きょうと", "* 2D\n+ 2D\n京都 きょうと") + "\n"


def read(text: str) -> list:
    return list(read_knp(io.StringIO(text), name="x"))


def test_endings_name_the_particle() -> None:
    (sentence,) = read(KNP)
    assert bunsetsu_endings(sentence) == ["助詞 は", "助詞 の", "助詞 に", "動詞"]


def test_judged_as_the_accuracy_counts() -> None:
    gold = read(KNP)
    for text, correct in ((WRONG, 2), (CHUNKED, 1), (KNP, 3)):
        system = read(text)
        scores = sentence_scores(gold, system, "gold", "system")
        judged = judged_bunsetsu_sentences(gold, [system])
        units = judged[0].judged[0]
        assert [u.excluded for u in units] == [False, False, False, True]
        assert sum(u.head_right for u in units if not u.excluded) == scores["correct"] == correct
        errors = BunsetsuErrors(judged, [bunsetsu_endings(s) for s in gold], 1)
        assert errors.endings.total(0).head_right == correct
    assert judged[0].has_gold_units(0)
    chunked = judged_bunsetsu_sentences(gold, [read(CHUNKED)])[0]
    assert not chunked.has_gold_units(0)


def test_the_report_lists_the_wrong_sentences() -> None:
    gold, wrong, chunked = read(KNP), read(WRONG), read(CHUNKED)
    scores = [sentence_scores(gold, wrong, "gold", "a"), sentence_scores(gold, chunked, "g", "b")]
    page = bunsetsu_report("gold.knp", gold, [("a.knp", wrong), ("b.knp", chunked)], scores)
    assert len(page_json_lines(page)) == 2 and "chunk_f1" in page_json_lines(page)[1]
    (sentence,) = page_sentences(page)
    assert sentence["id"] == "ja-1" and sentence["relations"] == ["助詞 に", "助詞 の", "助詞 は"]
    assert sentence["html"].count("<svg") == 3    # A against gold; gold and B one under the other
    assert "b, over its own units" not in sentence["html"] and "B, over its own units" in \
        sentence["html"]
    one = bunsetsu_report("gold.knp", gold, [("a.knp", wrong)], scores[:1])
    (sentence,) = page_sentences(one)
    assert sentence["relations"] == ["助詞 は"] and "1 error: 1 wrong head" in sentence["html"]
