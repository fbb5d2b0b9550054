"""`polyparse dep show` and `polyparse ja show` run as a user runs them: text trees (coloured on
a terminal only), SVG pictures and an HTML page, the sentence chosen by id or number, one-line
errors, options checked before the data, outputs never half written, and quiet ends on signals
and closed pipes."""
from __future__ import annotations

import os
import re
import select
import signal
import stat
import subprocess
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.child_processes import HANG_GUARD_SECONDS
from tests.parser.cli.user_runs import (
    POLYPARSE,
    check_a_closed_pipe_ends_quietly,
    check_a_signal_while_the_input_waits,
    leftovers,
    one_line,
    polyparse,
)
from tests.parser.views.pages import page_sentences
from tests.parser.views.test_text_tree import CROSSING_TEXT
from tests.parser.views.trees import CROSSING

# Three sentences: the hand-checked one and two more with their own ids.
THREE = "".join(CROSSING.replace("crossing-1", f"crossing-{i}") for i in (1, 2, 3))
KNP = """\
# S-ID:ja-1
* 3D
+ 3D
太郎 たろう 太郎 名詞 6 人名 5 * 0 * 0
は は は 助詞 9 副助詞 2 * 0 * 0
* 2D
+ 2D
京都 きょうと 京都 名詞 6 地名 4 * 0 * 0
の の の 助詞 9 格助詞 1 * 0 * 0
* 3D
+ 3D
大学 だいがく 大学 名詞 6 普通名詞 1 * 0 * 0
に に に 助詞 9 格助詞 1 * 0 * 0
* -1D
+ -1D
行った いった 行く 動詞 2 * 0 子音動詞カ行促音便形 3 タ形 10
。 。 。 特殊 1 句点 1 * 0 * 0
EOS
"""
# Worked out by hand with CaboCha's rule (tree.cpp): each bunsetsu ends two columns right of
# the one before, the longest (行った。, 8 columns) starting at column 6.
KNP_TREE = """\
# S-ID:ja-1
  太郎は-----D
    京都の-D |
      大学に-D
      行った。
EOS
"""


@pytest.fixture()
def three(tmp_path: Path) -> Path:
    path = tmp_path / "three.conllu"
    path.write_text(THREE, encoding="utf-8")
    return path


def on_a_terminal(argv: list[str], **env: str) -> bytes:
    """What argv writes to its stdout when that is a terminal (a pseudo-terminal here)."""
    controller, terminal = os.openpty()
    try:
        child = subprocess.Popen(argv, stdout=terminal, stderr=subprocess.PIPE,
                                 stdin=subprocess.DEVNULL, env={**os.environ, **env})
    finally:
        os.close(terminal)
    shown = b""
    while True:
        ready, _, _ = select.select([controller], [], [], HANG_GUARD_SECONDS)
        assert ready, shown
        try:
            chunk = os.read(controller, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    assert child.wait(timeout=HANG_GUARD_SECONDS) == 0, child.stderr.read()
    return shown.replace(b"\r\n", b"\n")


def test_text_trees_of_a_file_and_of_a_pipe(three: Path) -> None:
    result = polyparse("dep", "show", str(three))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "\n".join(CROSSING_TEXT.replace("crossing-1", f"crossing-{i}")
                                      for i in (1, 2, 3))
    piped = polyparse("dep", "show", input=THREE)
    assert piped.stdout == result.stdout


@pytest.mark.parametrize("choice, expected", [(["--index", "2"], "crossing-2"),
                                              (["--sent-id", "crossing-3"], "crossing-3")])
def test_one_sentence_by_number_or_id(three: Path, choice: list[str], expected: str) -> None:
    result = polyparse("dep", "show", str(three), *choice)
    assert result.returncode == 0, result.stderr
    assert result.stdout == CROSSING_TEXT.replace("crossing-1", expected)


@pytest.mark.parametrize("choice, message", [
    (["--index", "4"], "three.conllu: --index 4, but the input has 3 sentences"),
    (["--sent-id", "nowhere"], "three.conllu: no sentence has the id 'nowhere'"),
])
def test_a_sentence_that_is_not_there_is_one_line(three: Path, choice: list[str],
                                                  message: str) -> None:
    one_line(polyparse("dep", "show", str(three), *choice), message)


def test_colour_on_a_terminal_only(three: Path) -> None:
    shown = on_a_terminal([POLYPARSE, "dep", "show", str(three), "--index", "1"])
    assert b"\x1b[1mhearing\x1b[0m" in shown and b"\x1b[35m" in shown
    plain = re.sub(rb"\x1b\[[0-9;]*m", b"", shown).decode()
    assert plain == CROSSING_TEXT
    for argv, env in (([], {"NO_COLOR": "1"}), (["--no-color"], {})):
        shown = on_a_terminal([POLYPARSE, "dep", "show", str(three), "--index", "1", *argv],
                              **env)
        assert shown.decode() == CROSSING_TEXT
    assert "\x1b" not in polyparse("dep", "show", str(three)).stdout


def test_svg_pictures_one_per_sentence(three: Path, tmp_path: Path) -> None:
    one = tmp_path / "one.svg"
    result = polyparse("dep", "show", str(three), "--index", "2", "--format", "svg", "-o",
                       str(one))
    assert result.returncode == 0, result.stderr
    title = ET.parse(one).getroot().find("{http://www.w3.org/2000/svg}title").text
    assert title.startswith("crossing-2: ")
    one_line(polyparse("dep", "show", str(three), "--format", "svg", "-o",
                       str(tmp_path / "all.svg")),
             "dep show: ", "three.conllu holds 3 sentences", "give -o FOLDER")
    assert not (tmp_path / "all.svg").exists()
    folder = tmp_path / "pictures"
    folder.mkdir()
    result = polyparse("dep", "show", str(three), "--format", "svg", "-o", str(folder))
    assert result.returncode == 0, result.stderr
    assert sorted(os.listdir(folder)) == ["1-crossing-1.svg", "2-crossing-2.svg",
                                          "3-crossing-3.svg"]
    for path in folder.iterdir():
        ET.parse(path)


def test_an_html_page_of_every_sentence(three: Path, tmp_path: Path) -> None:
    page = tmp_path / "trees.html"
    result = polyparse("dep", "show", str(three), "--format", "html", "-o", str(page))
    assert result.returncode == 0, result.stderr
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "<script src" not in text
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    sentences = page_sentences(text)
    assert [s["id"] for s in sentences] == ["crossing-1", "crossing-2", "crossing-3"]
    assert all(s["html"].count("<svg") == 1 for s in sentences)


def test_ja_show_prints_cabocha_trees(tmp_path: Path) -> None:
    knp = tmp_path / "one.knp"
    knp.write_text(KNP, encoding="utf-8")
    result = polyparse("ja", "show", str(knp))
    assert result.returncode == 0, result.stderr
    assert result.stdout == KNP_TREE
    cabocha = polyparse("ja", "parse", "--model", "ja_wac", str(knp), "--output-format",
                        "cabocha")
    assert cabocha.returncode == 0, cabocha.stderr
    svg = polyparse("ja", "show", "--input-format", "cabocha", "--format", "svg",
                    input=cabocha.stdout)
    assert svg.returncode == 0, svg.stderr
    words = [t.text for t in ET.fromstring(svg.stdout.split("\n", 1)[1]).iter(
        "{http://www.w3.org/2000/svg}text") if t.get("class") == "form"]
    assert words == ["太郎は", "京都の", "大学に", "行った。"]


def test_ja_show_wants_bunsetsu(tmp_path: Path) -> None:
    knp = tmp_path / "morphemes.knp"
    knp.write_text("".join(line + "\n" for line in KNP.splitlines()
                           if not line.startswith(("* ", "+ "))), encoding="utf-8")
    one_line(polyparse("ja", "show", str(knp)),
             f"{knp}:1: the sentence has no bunsetsu lines", "polyparse ja parse")


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.conllu"
    broken.write_text(CROSSING.replace("\t2\tnmod", "\t_\tnmod"), encoding="utf-8")
    one_line(polyparse("dep", "show", str(broken)), f"{broken}:8: HEAD is missing")


def test_the_output_path_is_checked_before_the_input_is_read(tmp_path: Path) -> None:
    """The input is a FIFO nobody writes: had the command read it first, it would hang."""
    fifo = tmp_path / "never-written.conllu"
    os.mkfifo(fifo)
    for group in ("dep", "ja"):
        result = polyparse(group, "show", str(fifo), "-o", str(tmp_path / "no" / "out.txt"),
                           timeout=HANG_GUARD_SECONDS)
        one_line(result, "no such folder")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_writing_leaves_nothing(tmp_path: Path, signum: int) -> None:
    """The output's temporary file is open while the input, a pipe held open here, waits for
    more: the run can only end by the signal, and must leave nothing behind."""
    folder = tmp_path / "out"
    folder.mkdir()
    check_a_signal_while_the_input_waits([POLYPARSE, "dep", "show", "-", "-o",
                                          str(folder / "trees.txt")], CROSSING.encode(), folder,
                                         signum, output_open=True)


@pytest.mark.parametrize("group, text, end", [("dep", CROSSING, b"obl:tmod\n"),
                                              ("ja", KNP, b"EOS\n")])
def test_closed_pipe_ends_quietly(group: str, text: str, end: bytes) -> None:
    check_a_closed_pipe_ends_quietly([POLYPARSE, group, "show"], (text * 2).encode(), end, 2,
                                     (text * 50).encode())


def test_a_symlink_is_followed_and_a_fifo_written_into(three: Path, tmp_path: Path) -> None:
    """Outputs are never replaced when they are not regular files: the picture goes to the
    symlink's target (the link and the target's permission bits stay), the text into the FIFO
    (a reader waiting on it gets it)."""
    target = tmp_path / "target.html"
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.html"
    link.symlink_to(target.name)
    result = polyparse("dep", "show", str(three), "--format", "html", "-o", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    fifo = tmp_path / "trees.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = polyparse("dep", "show", str(three), "-o", str(fifo), timeout=HANG_GUARD_SECONDS)
    reader.join(timeout=HANG_GUARD_SECONDS)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert received == [polyparse("dep", "show", str(three)).stdout.encode()]
    assert leftovers(tmp_path) == []
