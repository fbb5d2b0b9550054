"""What a Japanese input is, told from its first lines (parser/formats/bunsetsu_sniff.py): the
format of KNP (KNP's own and polyparse's), CaboCha (CaboCha's, UD's team's) and MeCab's output
in each dictionary and raw text, the dictionary of its first sentences, the stream that gives
the input again from its first byte, a pipe read no further than what is waiting, and the hint
added to an error when another format was given."""
from __future__ import annotations

import io
import os
import threading
from pathlib import Path

import pytest

from polyparse.features.input_files import more_ready
from polyparse.parser.formats.bunsetsu import read_bunsetsu
from polyparse.parser.formats.bunsetsu_sentence import BunsetsuFormatError
from polyparse.parser.formats.bunsetsu_sniff import format_hint, line_format, sniff_input
from tests.parser.formats.test_cabocha import UNIDIC as UD_CABOCHA
from tests.parser.formats.test_mecab_input import IPADIC, JUMANDIC, UNIDIC
from tests.parser.formats.test_tag_schemes import KNP_JUMAN, KNP_UNIDIC

# CaboCha -f1 with IPAdic, as CaboCha writes it.
CABOCHA_IPADIC = """* 0 1D 0/1 1.062087
太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー
は\t助詞,係助詞,*,*,*,*,は,ハ,ワ
* 1 -1D 0/1 0.000000
走っ\t動詞,自立,*,*,五段・ラ行,連用タ接続,走る,ハシッ,ハシッ
た\t助動詞,*,*,*,特殊・タ,基本形,た,タ,タ
EOS
"""
def sniffed(text: str, raw: bool = False):
    data = text.encode("utf-8")
    found = sniff_input(io.BytesIO(data), raw=raw, tagset=True)
    assert found.stream.read() == data, "the stream gives the whole input again"
    return found


@pytest.mark.parametrize("text, fmt, tagset", [
    (KNP_JUMAN, "knp", "juman"), (KNP_UNIDIC, "knp", "unidic"),
    (CABOCHA_IPADIC, "cabocha", "ipadic"), (UD_CABOCHA, "cabocha", "unidic"),
    (UNIDIC, "cabocha", "unidic"), (IPADIC, "cabocha", "ipadic"),
    (JUMANDIC, "cabocha", "juman")])
def test_the_format_and_dictionary_of_each_kind_of_input(text, fmt, tagset):
    found = sniffed(text)
    assert (found.format, found.tagset) == (fmt, tagset)
    assert [s.tagset for s in read_bunsetsu(io.StringIO(text), None)] == [tagset]


def test_raw_text_only_where_a_command_reads_it():
    assert sniffed("\n太郎は走った。\n", raw=True).format == "raw"
    assert sniffed("太郎は走った。\n").format is None
    assert line_format("# S-ID:1", raw=True) is None and line_format("EOS", raw=True) is None
    assert line_format("#\t補助記号,一般,*,*,,,,#,#") == "cabocha"
    assert line_format("\\  \\  \\  特殊 1 空白 6 * 0 * 0") == "knp"


def test_crlf_lines_a_byte_order_mark_and_an_empty_input():
    found = sniffed("\ufeff" + CABOCHA_IPADIC.replace("\n", "\r\n"))
    assert (found.format, found.tagset) == ("cabocha", "ipadic")
    assert sniffed("").format is None


def test_a_pipe_is_read_no_further_than_what_waits():
    """One sentence fed through a pipe whose writer then waits (for the parse of it, say):
    the sniff ends with it, and the rest comes through the same stream later."""
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as source, os.fdopen(write_end, "wb") as sink:
        sink.write(CABOCHA_IPADIC.encode())
        sink.flush()
        result: list = []
        worker = threading.Thread(target=lambda: result.append(
            sniff_input(source, more_ready=more_ready(source), tagset=True)))
        worker.start()
        worker.join(timeout=30)
        assert not worker.is_alive(), "the sniff waited for more input"
        (found,) = result
        assert (found.format, found.tagset) == ("cabocha", "ipadic")
        sink.write(KNP_JUMAN.encode())
        sink.close()
        assert found.stream.read() == (CABOCHA_IPADIC + KNP_JUMAN).encode()


def test_an_error_in_another_format_than_the_input_says_which(tmp_path: Path):
    path = tmp_path / "x.cabocha"
    path.write_text(CABOCHA_IPADIC, encoding="utf-8")
    with pytest.raises(BunsetsuFormatError) as raised:
        list(read_bunsetsu(path, "knp"))
    message = str(raised.value)
    assert message.startswith(f"{path}:1: ") and "\n" not in message
    assert "looks like CaboCha, line 1: '* 0 1D 0/1 1.062087'" in message
    assert "--input-format cabocha" in message
    assert [s.tagset for s in read_bunsetsu(path, None)] == ["ipadic"]
    found = sniffed(CABOCHA_IPADIC)
    with pytest.raises(BunsetsuFormatError) as raised, format_hint(found, "cabocha"):
        raise BunsetsuFormatError("bad")
    assert str(raised.value) == "bad"


def test_the_format_alone_is_told_from_what_a_buffered_stream_holds():
    """Without the dictionary, the lines a buffered stream already holds tell the format and
    nothing is read from it: the reader reads the stream itself."""
    source = io.BufferedReader(io.BytesIO(CABOCHA_IPADIC.encode()))
    found = sniff_input(source)
    assert (found.format, found.tagset, found.line_number) == ("cabocha", "", 1)
    assert found.stream is source and source.tell() == 0
    assert sniff_input(io.BufferedReader(io.BytesIO(b"\n# c\n"))).format is None
