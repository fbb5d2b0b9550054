"""Reading and writing CoNLL-U / CoNLL-X (parser.formats.conll)."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from polyparse.parser.formats.conll import ConllFormatError, Sentence, read_conll, write_conll

CONLL_DATA = Path(__file__).parents[2] / "data" / "conll"


def read_all(path: Path | str, **options) -> list[Sentence]:
    return list(read_conll(path, **options))


def write_all(sentences: list[Sentence], heads=None, deprels=None, keep_deps=True) -> str:
    out = io.StringIO()
    for index, sentence in enumerate(sentences):
        write_conll(
            sentence,
            sentence.head if heads is None else heads[index],
            sentence.deprel if deprels is None else deprels[index],
            out,
            keep_deps=keep_deps,
        )
    return out.getvalue()


def error_message(path: Path, **options) -> str:
    with pytest.raises(ConllFormatError) as caught:
        read_all(path, **options)
    message = str(caught.value)
    assert "\n" not in message
    return message


# -- small fixtures ------------------------------------------------------------------------


def test_reads_words_and_keeps_special_lines():
    first, second = read_all(CONLL_DATA / "good.conllu")
    assert len(first) == 4 and len(second) == 2
    assert first.form == ["I", "do", "n't", "."]
    assert first.upos == ["PRON", "AUX", "PART", "PUNCT"]
    assert first.xpos == ["PRP", "VBP", "RB", "."]
    assert first.lemma == ["i", "do", "n't", "."]
    assert first.head == [3, 3, 0, 3]
    assert first.deprel == ["nsubj", "aux", "root", "punct"]
    assert first.start_line == 1 and second.start_line == 11
    assert first.lines[4].startswith("2-3\t") and first.lines[7].startswith("3.1\t")
    assert first.word_lines == [3, 5, 6, 8]
    assert first.line_number(4) == 9


@pytest.mark.parametrize("keep_deps", [False, True])
def test_write_changes_only_head_deprel_and_deps(keep_deps: bool):
    sentences = read_all(CONLL_DATA / "good.conllu")
    heads = [[0, 1, 1, 1], [0, 1]]
    deprels = [["root", "x", "y", "z"], ["root", "punct"]]
    text = write_all(sentences, heads, deprels, keep_deps=keep_deps)
    original = (CONLL_DATA / "good.conllu").read_text().split("\n")
    if not keep_deps:
        # Without DEPS the empty node 3.1, a node of the enhanced graph only, goes too.
        original = [line for line in original if not line.startswith("3.1\t")]
    written = text.split("\n")
    assert len(written) == len(original) + 1 and written[-2:] == ["", ""]
    deps_changed = 0
    for old, new in zip(original, written):
        old_columns, new_columns = old.split("\t"), new.split("\t")
        if old_columns[0].isdigit():
            assert old_columns[:6] + old_columns[9:] == new_columns[:6] + new_columns[9:]
            assert new_columns[8] == (old_columns[8] if keep_deps else "_")
            deps_changed += old_columns[8] != new_columns[8]
        else:
            assert old == new
    assert (deps_changed > 0) != keep_deps
    assert written[3].split("\t")[6:8] == ["0", "root"]
    assert written[5].split("\t")[6:8] == ["1", "x"]


def test_empty_nodes_and_deps_are_kept_or_dropped_together():
    """UD's validator rejects an enhanced graph whose words lost their DEPS while its empty
    nodes kept theirs (EWT test's 24.1): both go, or, with keep_deps, both stay."""
    (sentence, _) = read_all(CONLL_DATA / "good.conllu")
    dropped, kept = io.StringIO(), io.StringIO()
    write_conll(sentence, sentence.head, sentence.deprel, dropped)
    write_conll(sentence, sentence.head, sentence.deprel, kept, keep_deps=True)
    ids = [line.split("\t")[0] for line in dropped.getvalue().splitlines() if "\t" in line]
    assert ids == ["1", "2-3", "2", "3", "4"]
    assert all(line.split("\t")[8] == "_" for line in dropped.getvalue().splitlines()
               if "\t" in line)
    assert "3.1\tknow\tknow\tVERB\tVB\t_\t_\t_\t3:conj\t_" in kept.getvalue()


@pytest.mark.parametrize("block, problem", [
    # A range over three words of a two-word sentence (it once passed into an invalid output).
    ("# text = ab\n1-3\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n"
     "2\tb\tb\tX\t_\t_\t1\tdep\t_\t_\n",
     "x.conllu:2: multiword range 1-3 covers words that do not exist: the sentence has 2 words"),
    ("1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n",
     "x.conllu:1: multiword range 1-2 covers words that do not exist: the sentence has 1 word"),
    ("1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n"
     "2\tb\tb\tX\t_\t_\t1\tdep\t_\t_\n",
     "x.conllu:2: multiword range 1-2 does not stand before its first word: the next word is 2"),
    ("1-1\tab\t_\t_\t_\t_\t_\t_\t_\t_\n3-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n",
     "x.conllu:2: multiword range 3-2 does not stand before its first word"),
    ("2-1\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n",
     "x.conllu:1: multiword range 2-1 does not stand before its first word: the next word is 1"),
    ("1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n"
     "2-3\tbc\t_\t_\t_\t_\t_\t_\t_\t_\n2\tb\tb\tX\t_\t_\t1\tdep\t_\t_\n"
     "3\tc\tc\tX\t_\t_\t1\tdep\t_\t_\n",
     "x.conllu:3: multiword range 2-3 overlaps 1-2"),
    ("1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n2.1\tb\tb\tX\t_\t_\t_\t_\t1:dep\t_\n",
     "x.conllu:2: empty node 2.1 is out of place: after word 1 the next empty node is 1.1"),
    ("1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n1.2\tb\tb\tX\t_\t_\t_\t_\t1:dep\t_\n",
     "x.conllu:2: empty node 1.2 is out of place: after word 1 the next empty node is 1.1"),
    ("1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n2-3\tbc\t_\t_\t_\t_\t_\t_\t_\t_\n"
     "1.1\tb\tb\tX\t_\t_\t_\t_\t1:dep\t_\n2\tb\tb\tX\t_\t_\t1\tdep\t_\t_\n"
     "3\tc\tc\tX\t_\t_\t1\tdep\t_\t_\n",
     "x.conllu:3: empty node 1.1 stands between multiword range 2-3 and its first word"),
])
def test_ranges_and_empty_nodes_out_of_place_are_one_line(block: str, problem: str):
    with pytest.raises(ConllFormatError) as caught:
        read_all(None, stream=io.StringIO(block + "\n"), name="x.conllu")
    assert str(caught.value).startswith(problem), str(caught.value)
    assert "\n" not in str(caught.value)


def test_ranges_and_empty_nodes_in_place_are_read():
    block = ("1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n1.1\tb\tb\tX\t_\t_\t_\t_\t1:dep\t_\n"
             "1.2\tb\tb\tX\t_\t_\t_\t_\t1:dep\t_\n2-3\tbc\t_\t_\t_\t_\t_\t_\t_\t_\n"
             "2\tb\tb\tX\t_\t_\t1\tdep\t_\t_\n3\tc\tc\tX\t_\t_\t1\tdep\t_\t_\n"
             "3.1\tb\tb\tX\t_\t_\t_\t_\t1:dep\t_\n\n")
    (sentence,) = read_all(None, stream=io.StringIO(block))
    assert sentence.form == ["a", "b", "c"]


def test_lines_are_read_in_normalization_form_c():
    """UD asks for NFC: decomposed input (e + combining acute) is read composed, comments too."""
    import unicodedata

    text = "# text = café\n1\tcafé\tcafé\tNOUN\tNN\t_\t0\troot\t_\t_\n\n"
    decomposed = unicodedata.normalize("NFD", text)
    assert decomposed != text
    (sentence,) = read_all(None, stream=io.StringIO(decomposed))
    assert sentence.form == ["caf\u00e9"] and sentence.lines[0] == "# text = caf\u00e9"


def test_write_unknown_head_as_underscore():
    (sentence, _) = read_all(CONLL_DATA / "good.conllu")
    out = io.StringIO()
    write_conll(sentence, [-1, -1, -1, -1], ["_"] * 4, out)
    rows = [line.split("\t") for line in out.getvalue().split("\n")]
    assert [columns[6] for columns in rows if columns[0].isdigit()] == ["_"] * 4


def test_write_rejects_wrong_length():
    (sentence, _) = read_all(CONLL_DATA / "good.conllu")
    with pytest.raises(ValueError):
        write_conll(sentence, [0], ["root"], io.StringIO())


def test_final_sentence_without_blank_line_round_trips_with_blank_line():
    path = CONLL_DATA / "good.conllu"
    assert write_all(read_all(path)) == path.read_text() + "\n"


def test_reads_text_stream_and_binary_stream():
    text = (CONLL_DATA / "good.conllu").read_text()
    from_text = read_all(None, stream=io.StringIO(text), name="in.conllu")
    from_bytes = read_all("-", stream=io.BytesIO(text.encode()))
    expected = [["I", "do", "n't", "."], ["Hello", "!"]]
    assert [s.form for s in from_text] == [s.form for s in from_bytes] == expected


def test_crlf_line_ends_are_accepted():
    text = (CONLL_DATA / "good.conllu").read_text().replace("\n", "\r\n")
    sentences = read_all(None, stream=io.BytesIO(text.encode()))
    assert sentences[0].lines[-1].endswith("SpaceAfter=No")


def test_unknown_heads_allowed_unless_tree_required():
    text = "1\tHi\thi\tINTJ\tUH\t_\t_\t_\t_\t_\n\n"
    (sentence,) = read_all(None, stream=io.StringIO(text))
    assert sentence.head == [-1] and sentence.deprel == ["_"]
    with pytest.raises(ConllFormatError, match=r"^<stream>:1: HEAD is missing"):
        read_all(None, stream=io.StringIO(text), require_tree=True)


def test_missing_deprel_in_tree():
    text = "# c\n1\tHi\thi\tINTJ\tUH\t_\t0\t_\t_\t_\n\n"
    with pytest.raises(ConllFormatError, match=r'^x:2: DEPREL is missing \("_"\)$'):
        read_all(None, stream=io.StringIO(text), require_tree=True, name="x")
    (sentence,) = read_all(None, stream=io.StringIO(text), require_tree=True, require_deprel=False)
    assert sentence.deprel == ["_"]


def test_basque_conllx_latin1(data_dir):
    path = data_dir / "conll" / "basque_latin1.conllx"
    first, second = read_all(
        path, fmt="conllx", encoding="iso-8859-1", require_tree=True, single_root=False
    )
    assert first.form == ["Ñoño", "etxea"]
    assert first.upos == ["ADJ", "IZE"] and first.xpos == ["ADJ_CAL", "IZE_ARR"]
    assert second.head == [0, 0]
    out = io.StringIO()
    for sentence in (first, second):
        write_conll(sentence, sentence.head, sentence.deprel, out, fmt="conllx")
    assert out.getvalue().encode("iso-8859-1") == path.read_bytes()


def test_conllx_rejects_range_ids():
    text = "1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n1\tdo\tdo\tV\tV\t_\t0\tROOT\t_\t_\n\n"
    with pytest.raises(ConllFormatError, match=r"^<stream>:1: ID '1-2' is not an integer$"):
        read_all(None, stream=io.StringIO(text), fmt="conllx")


def test_ids_out_of_order():
    text = "1\ta\ta\tX\tX\t_\t0\troot\t_\t_\n3\tb\tb\tX\tX\t_\t1\tdep\t_\t_\n\n"
    with pytest.raises(ConllFormatError, match=r"^<stream>:2: word id 3 out of order, expected 2$"):
        read_all(None, stream=io.StringIO(text))


def test_head_not_an_integer_and_negative():
    text = "1\ta\ta\tX\tX\t_\tx\troot\t_\t_\n\n"
    with pytest.raises(ConllFormatError, match=r"^<stream>:1: HEAD 'x' is not an integer$"):
        read_all(None, stream=io.StringIO(text))
    text = "1\ta\ta\tX\tX\t_\t-2\troot\t_\t_\n\n"
    message = r"^<stream>:1: HEAD -2 is outside the sentence \(1 words\)$"
    with pytest.raises(ConllFormatError, match=message):
        read_all(None, stream=io.StringIO(text))


def test_comment_only_block():
    with pytest.raises(ConllFormatError, match=r"^<stream>:3: sentence has no words$"):
        read_all(None, stream=io.StringIO("1\ta\ta\tX\tX\t_\t0\troot\t_\t_\n\n# lonely\n"))


# -- one test per kind of bad input, each with the exact file:line ------------------------


def test_wrong_column_count():
    path = CONLL_DATA / "wrong_columns.conllu"
    assert error_message(path) == f"{path}:7: expected 10 tab-separated columns, found 7"


def test_non_integer_id():
    path = CONLL_DATA / "bad_id.conllu"
    assert error_message(path) == f"{path}:6: ID 'one' is not an integer"


def test_head_outside_sentence():
    path = CONLL_DATA / "head_outside.conllu"
    assert error_message(path) == f"{path}:7: HEAD 57 is outside the sentence (2 words)"


def test_cycle():
    path = CONLL_DATA / "cycle.conllu"
    read_all(path)
    assert error_message(path, require_tree=True) == (
        f"{path}:7: cycle in HEAD: 2 -> 3 -> 2 (each word's head is the next one)"
    )


def test_self_loop():
    text = "1\ta\ta\tX\tX\t_\t0\troot\t_\t_\n2\tb\tb\tX\tX\t_\t2\tdep\t_\t_\n\n"
    with pytest.raises(ConllFormatError, match=r"^<stream>:2: word 2 is its own head$"):
        read_all(None, stream=io.StringIO(text), require_tree=True)


def test_missing_root():
    path = CONLL_DATA / "no_root.conllu"
    read_all(path)
    expected = f"{path}:5: no root: no word of the sentence is attached to 0"
    assert error_message(path, require_tree=True) == expected


def test_several_roots():
    path = CONLL_DATA / "several_roots.conllu"
    read_all(path, require_tree=True, single_root=False)
    expected = f"{path}:8: several roots: words 1 and 3 are attached to 0"
    assert error_message(path, require_tree=True) == expected


def test_non_utf8_bytes():
    path = CONLL_DATA / "latin1.conllu"
    message = error_message(path)
    assert message.startswith(f"{path}:6: not valid utf-8 text (byte e9 ")
    assert [s.form for s in read_all(path, encoding="latin-1")][1] == ["Café", "opens"]


def test_non_utf8_bytes_far_into_a_large_stream():
    good = b"1\ta\ta\tX\tX\t_\t0\troot\t_\t_\n\n"
    data = good * 100_000 + "1\tb\xe9\tb\tX\tX\t_\t0\troot\t_\t_\n\n".encode("latin-1")
    message = r"^big:200001: not valid utf-8 text \(byte e9 at byte column 4"
    with pytest.raises(ConllFormatError, match=message):
        read_all(None, stream=io.BytesIO(data), name="big")


@pytest.mark.parametrize("name", ["empty.conllu", "blank_lines_only.conllu"])
def test_empty_file(name):
    path = CONLL_DATA / name
    assert error_message(path) == f"{path}:1: empty file, no sentences"


def test_unknown_format_and_encoding_fail_at_the_call():
    with pytest.raises(ValueError, match="unknown format"):
        read_conll(CONLL_DATA / "good.conllu", fmt="conll09")
    with pytest.raises(ConllFormatError, match=r"^in\.conllu:1: unknown text encoding 'latin-99'$"):
        read_conll("in.conllu", encoding="latin-99")


def test_utf8_byte_order_mark_is_skipped():
    data = "\ufeff# sent_id = 1\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n\n".encode()
    (sentence,) = read_all(None, stream=io.BytesIO(data))
    assert sentence.lines[0] == "# sent_id = 1" and sentence.form == ["Hi"]


# -- real treebanks ------------------------------------------------------------------------


@pytest.mark.parametrize("split", ["test", "dev"])
def test_ewt_round_trip_is_byte_identical(corpora, split):
    path = corpora / "en_ewt" / f"en_ewt-ud-{split}.conllu"
    sentences = read_all(path, require_tree=True)
    assert len(sentences) == {"test": 2077, "dev": 2001}[split]
    assert write_all(sentences).encode("utf-8") == path.read_bytes()


def test_ewt_changed_heads_touch_only_columns_7_and_8(corpora):
    path = corpora / "en_ewt" / "en_ewt-ud-test.conllu"
    sentences = read_all(path, require_tree=True)
    heads = [[(head + 1) % (len(s) + 1) for head in s.head] for s in sentences]
    deprels = [["changed"] * len(s) for s in sentences]
    written = write_all(sentences, heads, deprels).split("\n")
    original = path.read_text(encoding="utf-8").split("\n")
    assert len(written) == len(original)
    changed = 0
    for old, new in zip(original, written):
        if old == new:
            continue
        old_columns, new_columns = old.split("\t"), new.split("\t")
        assert old_columns[0].isdigit()
        assert old_columns[:6] + old_columns[8:] == new_columns[:6] + new_columns[8:]
        assert new_columns[7] == "changed"
        changed += 1
    assert changed == sum(len(s) for s in sentences)


def test_ewt_train_counts(corpora):
    sentences = read_all(corpora / "en_ewt" / "en_ewt-ud-train.conllu", require_tree=True)
    assert len(sentences) == 12544
    ids = [line.split("\t", 1)[0] for s in sentences for line in s.lines if line[0] != "#"]
    ranges = sum("-" in word_id for word_id in ids)
    empty = sum("." in word_id for word_id in ids)
    assert (ranges, empty) == (2614, 37)


def test_conll2007_basque_latin1_round_trip(corpora):
    path = corpora / "conll2007" / "eus.train"
    sentences = read_all(
        path, fmt="conllx", encoding="iso-8859-1", require_tree=True, single_root=False
    )
    assert len(sentences) == 2595
    assert write_all(sentences).encode("iso-8859-1") == path.read_bytes()
    with pytest.raises(ConllFormatError, match=r"not valid utf-8 text"):
        read_all(path, fmt="conllx")
    with pytest.raises(ConllFormatError, match=r"several roots"):
        read_all(path, fmt="conllx", encoding="iso-8859-1", require_tree=True)
