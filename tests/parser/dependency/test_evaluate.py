"""UAS/LAS evaluation (parser.dependency.evaluate)."""
from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from polyparse.parser.dependency.evaluate import PTB_PUNCT_TAGS, evaluate, judge_words
from polyparse.parser.formats.conll import ConllFormatError, read_conll

DATA = Path(__file__).parents[2] / "data"
GOLD = DATA / "evaluate" / "punct_gold.conllu"
SYSTEM = DATA / "evaluate" / "punct_system.conllu"


def sentences(text: str, name: str = "x") -> list:
    return list(read_conll(None, stream=io.StringIO(text), name=name))


def score(punct: str):
    return evaluate(read_conll(GOLD, require_tree=True), read_conll(SYSTEM), punct=punct)


# Per word of the fixture (head right, universal label right, full label right):
#   1 ``    T T T   excluded: upos, ptb
#   2 My    T T F
#   3 dog   T F F
#   4 barks T T T
#   5 !!!   F T T   excluded: unicode
#   6 ...   T T T   excluded: upos, unicode
#   7 $     T T T
#   8 .     F T T   excluded: upos, unicode, ptb
@pytest.mark.parametrize(
    "punct, words, excluded, uas, las, las_exact, la, uem, lem",
    [
        ("none", 8, 0, 6 / 8, 5 / 8, 4 / 8, 7 / 8, 0, 0),
        ("upos", 5, 3, 4 / 5, 3 / 5, 2 / 5, 4 / 5, 0, 0),
        ("unicode", 5, 3, 5 / 5, 4 / 5, 3 / 5, 4 / 5, 1, 0),
        ("ptb", 6, 2, 5 / 6, 4 / 6, 3 / 6, 5 / 6, 0, 0),
    ],
)
def test_punctuation_policies(punct, words, excluded, uas, las, las_exact, la, uem, lem):
    scores = score(punct)
    assert (scores.words, scores.excluded, scores.sentences) == (words, excluded, 1)
    assert scores.punct == punct
    assert scores.UAS == pytest.approx(100 * uas)
    assert scores.LAS == pytest.approx(100 * las)
    assert scores.LAS_exact == pytest.approx(100 * las_exact)
    assert scores.LA == pytest.approx(100 * la)
    assert (scores.UEM, scores.LEM) == (100 * uem, 100 * lem)
    assert f"punct={punct}" in scores.summary()


def test_ptb_opening_quote_tag_is_two_backquotes():
    assert "``" in PTB_PUNCT_TAGS and "`" not in PTB_PUNCT_TAGS


def test_as_dict_keys():
    result = score("none").as_dict()
    assert {"UAS", "LAS", "LAS_exact", "words", "sentences", "punct", "LA"} <= set(result)
    assert result["punct"] == "none" and result["words"] == 8 and result["UAS"] == 75.0


def test_range_lines_and_empty_nodes_are_not_scored():
    gold = list(read_conll(DATA / "conll" / "good.conllu", require_tree=True))
    system = list(read_conll(DATA / "conll" / "good.conllu"))
    system[0].head[:] = [3, 3, 0, 1]
    system[1].deprel[:] = ["root", "dep"]
    scores = evaluate(gold, system)
    assert (scores.words, scores.sentences) == (6, 2)
    assert scores.UAS == pytest.approx(100 * 5 / 6) and scores.LAS == pytest.approx(100 * 4 / 6)
    assert (scores.UEM, scores.LEM) == (50.0, 0.0)


def test_treebank_without_ud_relations_gets_a_note():
    """CoNLL 2007 Basque relations (ncmod, ROOT, PUNC) are not UD's: CLAS, MLAS and BLEX are
    0.00, and the scores say why."""
    path = DATA / "conll" / "basque_latin1.conllx"
    read = lambda: read_conll(path, fmt="conllx", encoding="iso-8859-1")  # noqa: E731
    scores = evaluate(read(), read())
    assert (scores.UAS, scores.LAS, scores.CLAS, scores.MLAS, scores.BLEX) == (
        100.0, 100.0, 0.0, 0.0, 0.0)
    (note,) = scores.notes
    assert note.startswith("CLAS, MLAS and BLEX need UD relations: all 4 gold words have "
                           "relations that are not UD's (ROOT, PUNC, ncmod)")
    assert scores.summary().splitlines()[-1] == f"note: {note}"
    assert scores.as_dict()["notes"] == [note]


def test_ud_treebank_gets_no_note():
    scores = score("none")
    assert scores.notes == [] and "note:" not in scores.summary()


def test_unknown_policy():
    with pytest.raises(ValueError, match="punctuation policy"):
        score("commas")


ONE = "# a\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n2\tthere\tthere\tADV\tRB\t_\t1\tadvmod\t_\t_\n\n"
OTHER = "1\tBye\tbye\tINTJ\tUH\t_\t0\troot\t_\t_\n\n"


def test_texts_that_differ_are_rejected_with_both_places():
    system_text = ONE + OTHER.replace("\n\n", "\n2\tnow\tnow\tADV\tRB\t_\t1\tadvmod\t_\t_\n\n")
    gold, system = sentences(ONE + OTHER), sentences(system_text)
    with pytest.raises(ConllFormatError) as caught:
        evaluate(gold, system, gold_name="g.conllu", system_name="s.conllu")
    assert str(caught.value) == ("s.conllu:6: the text differs from g.conllu:5 after 10 "
                                 "characters: 'now' against 'the end of the file'")
    with pytest.raises(ConllFormatError, match=r"^s:3: the text differs from g:3 after 2 "
                                               r"characters: 'here' against 'there'$"):
        evaluate(sentences(ONE), sentences(ONE.replace("there", "here")), gold_name="g",
                 system_name="s")
    with pytest.raises(ConllFormatError, match=r"^s:3: the text differs from g:5 after 7 "
                                               r"characters: 'the end of the file' against 'Bye'$"):
        evaluate(sentences(ONE + OTHER), sentences(ONE), gold_name="g", system_name="s")


def words_file(tokens: list[str]) -> list:
    """A one-sentence file of the tokens; "abc a b c" is the multiword token abc of the words
    a, b, c (the notation of conll18_ud_eval.py's own alignment tests); heads: a chain."""
    lines, n = [], 0
    for token in tokens:
        parts = token.split(" ")
        if len(parts) > 1:
            lines.append(f"{n + 1}-{n + len(parts) - 1}\t{parts[0]}\t_\t_\t_\t_\t_\t_\t_\t_")
            parts = parts[1:]
        for part in parts:
            n += 1
            lines.append(f"{n}\t{part}\t_\tX\t_\t_\t{n - 1}\t{'root' if n == 1 else 'dep'}"
                         "\t_\t_")
    return sentences("\n".join(lines) + "\n\n")


# conll18_ud_eval.py's alignment cases: (gold tokens, system tokens, aligned words).
ALIGNMENT_CASES = [
    (["a"], ["a"], 1),
    (["a", "b", "c"], ["a", "b", "c"], 3),
    (["abc a b c"], ["a", "b", "c"], 3),
    (["a", "bc b c", "d"], ["a", "b", "c", "d"], 4),
    (["abcd a b c d"], ["ab a b", "cd c d"], 4),
    (["abc a b c", "de d e"], ["a", "bcd b c d", "e"], 5),
    (["abcd"], ["a", "b", "c", "d"], 0),
    (["abc", "d"], ["a", "b", "c", "d"], 1),
    (["a", "bc", "d"], ["a", "b", "c", "d"], 2),
    (["a", "bc b c", "d"], ["a", "b", "cd"], 2),
    (["abc a BX c", "def d EX f"], ["ab a b", "cd c d", "ef e f"], 4),
    (["ab a b", "cd bc d"], ["a", "bc", "d"], 2),
    (["a", "bc b c", "d"], ["ab AX BX", "cd CX a"], 1),
]


@pytest.mark.parametrize("gold, system, aligned", ALIGNMENT_CASES)
def test_words_are_aligned_as_conll18_aligns_them(gold, system, aligned):
    scores = evaluate(words_file(gold), words_file(system))
    n_gold = sum(max(1, len(token.split(" ")) - 1) for token in gold)
    n_system = sum(max(1, len(token.split(" ")) - 1) for token in system)
    assert (scores.aligned_words, scores.words, scores.system_words) == (aligned, n_gold, n_system)
    assert scores.Words == pytest.approx(200 * aligned / (n_gold + n_system))


def test_content_and_morphology_scores_by_hand():
    gold_text = ("1\tThe\tthe\tDET\tDT\tDefinite=Def\t2\tdet\t_\t_\n"
                 "2\tdog\tdog\tNOUN\tNN\tNumber=Sing\t3\tnsubj\t_\t_\n"
                 "3\tbarks\tbark\tVERB\tVBZ\tNumber=Sing\t0\troot\t_\t_\n"
                 "4\tloudly\tloudly\tADV\tRB\t_\t3\tadvmod\t_\t_\n\n")
    # dog: right head and relation but a wrong lemma; barks: right, but its functional child
    # 'The' is not its child in the system (it is dog's in both); loudly: wrong head.
    system_text = (gold_text.replace("\tdog\tdog\t", "\tdog\tdogs\t")
                   .replace("4\tloudly\tloudly\tADV\tRB\t_\t3", "4\tloudly\tloudly\tADV\tRB\t_\t2"))
    scores = evaluate(sentences(gold_text), sentences(system_text))
    assert (scores.UAS, scores.LAS) == (75.0, 75.0)
    assert scores.CLAS == pytest.approx(100 * 2 / 3)
    assert scores.MLAS == pytest.approx(100 * 2 / 3)
    assert scores.BLEX == pytest.approx(100 * 1 / 3)
    assert scores.Lemmas == 75.0
    wrong_child = system_text.replace("DT\tDefinite=Def\t2\tdet", "DT\tDefinite=Ind\t2\tdet")
    scores = evaluate(sentences(gold_text), sentences(wrong_child))
    assert scores.MLAS == pytest.approx(100 * 1 / 3) and scores.CLAS == pytest.approx(200 / 3)


def udapi_scores(gold: Path, system: Path) -> dict[str, float]:
    """F1 of udapi's reimplementation of conll18_ud_eval.py (udapy eval.Conll18)."""
    udapy = Path(sys.executable).parent / "udapy"
    result = subprocess.run(
        [str(udapy), "read.Conllu", "zone=gold", f"files={gold}", "read.Conllu", "zone=pred",
         f"files={system}", "ignore_sent_id=1", "util.ResegmentGold", "eval.Conll18"],
        capture_output=True, text=True, check=True)
    rows = [line.split("|") for line in result.stdout.splitlines() if "|" in line]
    return {row[0].strip(): float(row[3]) for row in rows[1:] if row[3].strip()}


def without_range_lines(path: Path, out: Path) -> Path:
    """The file with its multiword tokens split into plain words (same text, other tokens)."""
    kept = [line for line in path.read_text(encoding="utf-8").split("\n")
            if "-" not in line.split("\t", 1)[0] or line.startswith("#")]
    out.write_text("\n".join(kept), encoding="utf-8")
    return out


def test_ewt_scores_equal_udapis_conll18(corpora, tmp_path):
    pytest.importorskip("udapi")
    from polyparse.parser.cli.main import main

    gold = corpora / "en_ewt" / "en_ewt-ud-test.conllu"
    system = tmp_path / "pred.conllu"
    assert main(["dep", "parse", str(gold), "-o", str(system)]) == 0
    for candidate in (system, without_range_lines(system, tmp_path / "split.conllu")):
        ours = evaluate(read_conll(gold), read_conll(candidate), gold_name=str(gold),
                        system_name=str(candidate))
        theirs = udapi_scores(gold, candidate)
        for metric in ("Words", "UPOS", "Lemmas", "UAS", "LAS", "CLAS", "MLAS", "BLEX"):
            assert round(getattr(ours, metric), 2) == theirs[metric], (candidate.name, metric)
    split = evaluate(read_conll(gold), read_conll(tmp_path / "split.conllu"))
    assert split.system_words == split.words and split.Tokens < 100.0


@pytest.fixture(scope="module")
def ewt_test(corpora: Path) -> tuple[list, list]:
    """EWT test read once as gold (trees required) and once as a system output."""
    path = corpora / "en_ewt" / "en_ewt-ud-test.conllu"
    return list(read_conll(path, require_tree=True)), list(read_conll(path))


@pytest.mark.parametrize("punct", ["none", "upos", "unicode", "ptb"])
def test_ewt_test_against_itself(ewt_test: tuple[list, list], punct: str) -> None:
    gold, system = ewt_test
    scores = evaluate(gold, system, punct=punct)
    percentages = (scores.UAS, scores.LAS, scores.LAS_exact, scores.LA, scores.UEM, scores.LEM)
    assert percentages == (100.0,) * 6
    assert scores.sentences == 2077 and scores.words + scores.excluded == 25094
    assert (scores.excluded > 0) == (punct != "none")


SMALL_TREE = ("1\tDogs\tdog\tNOUN\tNNS\t_\t2\tnsubj\t_\t_\n"
              "2\tbark\tbark\tVERB\tVBP\t_\t0\troot\t_\t_\n"
              "3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n")


@pytest.mark.parametrize("system, problem", [
    (SMALL_TREE.replace("2\tnsubj", "0\troot") + "\n", "x.conllu:2: several roots"),
    (SMALL_TREE, "x.conllu:3: the file does not end with an empty line"),
])
def test_dep_evaluate_refuses_what_conll18_ud_eval_refuses(tmp_path: Path, system: str,
                                                           problem: str) -> None:
    """Issue 22, C7: several roots in a sentence, or no empty line at the end, are refused in
    one line as the official script refuses them; --lenient scores them."""
    from polyparse.parser.cli.main import main

    gold = tmp_path / "gold.conllu"
    gold.write_text(SMALL_TREE + "\n")
    (tmp_path / "x.conllu").write_text(system)
    command = ["dep", "evaluate", str(gold), str(tmp_path / "x.conllu"), "--json"]
    result = subprocess.run([sys.executable, "-m", "polyparse.parser.cli.main", *command],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert problem in line
    assert main([*command, "--lenient"]) == 0


@pytest.mark.parametrize("punct", ["none", "upos", "unicode", "ptb"])
def test_word_judgements_count_the_scores(punct: str) -> None:
    judged = judge_words(read_conll(GOLD, require_tree=True), read_conll(SYSTEM), punct=punct)
    scores = score(punct)
    (words,) = judged
    scored = [word for word in words if not word.excluded]
    assert len(scored) == scores.words
    assert 100 * sum(word.head_right for word in scored) / len(scored) == pytest.approx(scores.UAS)
    assert 100 * sum(word.head_and_label_right for word in scored) / len(scored) == \
        pytest.approx(scores.LAS)
    system = list(read_conll(SYSTEM))[0]
    assert [word.system_head for word in words] == system.head
    assert [word.system_deprel for word in words] == system.deprel


@pytest.mark.parametrize("gold, system, aligned", ALIGNMENT_CASES)
def test_word_judgements_follow_the_alignment(gold, system, aligned):
    (words,) = judge_words(words_file(gold), words_file(system))
    scores = evaluate(words_file(gold), words_file(system))
    assert sum(word.system_deprel is not None for word in words) == aligned
    correct = sum(word.head_right for word in words)
    assert scores.UAS == pytest.approx(200 * correct / (scores.words + scores.system_words))
    for word in words:
        assert word.head_right <= (word.system_head == word.word)  # each head: the word before
