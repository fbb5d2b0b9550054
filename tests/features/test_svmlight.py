"""svmlight/libsvm reader and writer: round trips, conventions, one-line errors."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.errors import InputError, InputWarning
from polyparse.features.svmlight import (
    SvmlightFormatError,
    parse_line,
    parse_svmlight,
    read_svmlight,
    write_svmlight,
)


def datasets() -> Path | None:
    value = os.environ.get("POLYPARSE_DATASETS")
    repo = Path(__file__).resolve().parents[2]
    path = Path(value) if value else repo.parent / "shared" / "datasets"
    return path if path.is_dir() else None


def test_reads_labels_and_ids_as_written() -> None:
    X, y = parse_svmlight(b"+1 1:1 3:1\n-1 2:1\n")
    assert y.tolist() == [1, -1] and y.dtype == np.int64
    assert X.row(0).tolist() == [1, 3] and X.row(1).tolist() == [2]
    assert X.n_features == 4


def test_id_offset_maps_one_based_ids() -> None:
    X, _ = parse_svmlight(b"1 1:1 3:1\n", id_offset=1)
    assert X.row(0).tolist() == [0, 2]
    with pytest.raises(SvmlightFormatError, match="below the first id 1"):
        parse_svmlight(b"1 0:1\n", "f.svm", id_offset=1)


def test_float_labels_stay_float() -> None:
    _, y = parse_svmlight(b"0.5 1:1\n2 2:1\n")
    assert y.dtype == np.float64 and y.tolist() == [0.5, 2.0]


def test_value_spellings_comments_blank_lines_and_zero_values() -> None:
    X, y = parse_svmlight(b"# header\n\n1 2:1.0 4:0 5:1e0  # tail\r\n  \n\t-1\t7:1\n")
    assert y.tolist() == [1, -1]
    assert X.row(0).tolist() == [2, 5]
    assert X.row(1).tolist() == [7]


def test_last_line_without_newline_and_empty_rows() -> None:
    X, y = parse_svmlight(b"1\n-1 3:1")
    assert y.tolist() == [1, -1] and X.row(0).tolist() == [] and X.row(1).tolist() == [3]


def test_query_ids_after_the_label_are_skipped_with_one_warning() -> None:
    """Issue 22, C6: as SVMlight and scikit-learn's reader do for classification."""
    from polyparse.features.errors import InputWarning

    with pytest.warns(InputWarning, match="q.svm: 3 query ids"):
        X, y = parse_svmlight(b"1 qid:1 1:1 3:1\n-1\tqid:1 2:1\n1 qid:2\n", "q.svm")
    plain, labels = parse_svmlight(b"1 1:1 3:1\n-1 2:1\n1\n", "p.svm")
    assert X == plain and y.tolist() == labels.tolist()


def test_a_byte_order_mark_is_skipped() -> None:
    X, y = parse_svmlight(b"\xef\xbb\xbf1 1:1\n-1 2:1\n", "bom.svm")
    assert y.tolist() == [1, -1] and X == BinaryMatrix.from_rows([[1], [2]], n_features=3)


def test_n_features_bound() -> None:
    with pytest.raises(SvmlightFormatError, match="outside the 3 features"):
        parse_svmlight(b"1 1:1\n1 3:1\n", "f.svm", n_features=3)


@pytest.mark.parametrize(
    "data, line, fragment",
    [
        (b"1 1:1\n-1 a:1\n", 2, "unexpected character 'a'"),
        (b"1 1:1\n-1 3:1 2:1\n", 2, "strictly ascending (3 then 2)"),
        (b"1 1:1\n-1 2:1 2:1\n", 2, "strictly ascending (2 then 2)"),
        (b"1 1:1\n\n1:1 2:1\n", 3, "missing label"),
        (b"1 2:0.5\n", 1, "value 0.5; only binary features"),
        (b"1 2:-1\n", 1, "value -1"),
        (b"1 2:\n", 1, "expected id:value"),
        (b"1 2:1:1\n", 1, "expected id:value"),
        (b"1 2\n", 1, "expected id:value"),
        (b"1 :1\n", 1, "is not a non-negative integer"),
        (b"1 -3:1\n", 1, "is not a non-negative integer"),
        (b"1 1.5:1\n", 1, "is not a non-negative integer"),
        (b"1 99999999999:1\n", 1, "too large"),
        (b"1 2:1 qid:3\n", 1, "unexpected character 'q'"),
        (b"+ 1:1\n", 1, "label '+' is not a number"),
        (b"1e999 1:1\n", 1, "label '1e999' is not a number"),
        (b"1 2:1e\n", 1, "value '1e' of feature 2 is not a number"),
        (b"1 1:1\n1 2:1\n\xff 3:1\n", 3, "not valid UTF-8"),
        (b"1 1:1 # caf\xc3\xa9\n1 2:1 \xc3\xa9\n", 2, "unexpected character"),
    ],
)
def test_errors_name_file_line_and_problem(data: bytes, line: int, fragment: str) -> None:
    with pytest.raises(SvmlightFormatError) as caught:
        parse_svmlight(data, "bad.svm")
    message = str(caught.value)
    assert message.startswith(f"bad.svm:{line}: "), message
    assert fragment in message
    assert "\n" not in message
    assert isinstance(caught.value, InputError)


@pytest.mark.parametrize("data", [b"", b"\n \n", b"# only a comment\n"])
def test_empty_file(data: bytes) -> None:
    with pytest.raises(SvmlightFormatError, match=r"^e\.svm: empty file"):
        parse_svmlight(data, "e.svm")


def test_first_bad_line_wins() -> None:
    data = b"1 1:1\n1 2:1 1:1\n1 x:1\n"
    with pytest.raises(SvmlightFormatError, match=r"^f\.svm:2: "):
        parse_svmlight(data, "f.svm")


line_bytes = st.lists(
    st.sampled_from(
        [b"1", b"0", b"2", b"+", b"-", b".", b"e", b":", b" ", b"\t", b"\r", b"#", b"x", b"5"]
    ),
    max_size=12,
).map(b"".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(line_bytes, min_size=1, max_size=6))
def test_fast_reader_agrees_with_line_parser(lines: list[bytes]) -> None:
    data = b"\n".join(lines)
    try:
        expected_rows = []
        for number, line in enumerate(data.split(b"\n"), 1):
            parsed = parse_line(line.split(b"#", 1)[0], f"r.svm:{number}")
            if parsed is not None:
                expected_rows.append(parsed)
        expected_error = None if expected_rows else "r.svm: empty file (no examples)"
    except SvmlightFormatError as error:
        expected_error = str(error)
    try:
        X, y = parse_svmlight(data, "r.svm")
    except SvmlightFormatError as error:
        assert str(error) == expected_error
        return
    assert expected_error is None
    assert [float(v) for v in y] == [label for label, _ in expected_rows]
    assert [X.row(i).tolist() for i in range(len(X))] == [ids for _, ids in expected_rows]


@given(
    st.lists(st.sets(st.integers(0, 3000), max_size=15).map(sorted), min_size=1, max_size=25),
    st.sampled_from([0, 1]),
)
def test_write_read_round_trip(rows: list[list[int]], offset: int) -> None:
    import tempfile

    X = BinaryMatrix.from_rows(rows, n_features=3001)
    y = np.arange(len(rows)) % 3 - 1
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "rt.svm"
        write_svmlight(path, X, y, id_offset=offset)
        Z, z = read_svmlight(path, n_features=3001, id_offset=offset)
    assert Z == X
    assert z.tolist() == y.tolist()


def test_write_float_labels(tmp_path: Path) -> None:
    X = BinaryMatrix.from_rows([[1], [2]])
    write_svmlight(tmp_path / "f.svm", X, np.array([0.25, 3.0]))
    assert (tmp_path / "f.svm").read_text() == "0.25 1:1\n3 2:1\n"


def test_kwdlc_train_matches_liblinear_reader() -> None:
    """How long reading train.svm takes is a figure for a benchmark, not a test: `polyparse clf
    predict --json` reports its read_seconds."""
    folder = datasets()
    if folder is None or not (folder / "kwdlc_dep" / "train.svm").exists():
        pytest.skip("kwdlc_dep dataset not found (set POLYPARSE_DATASETS)")
    liblinear = pytest.importorskip("liblinear.liblinearutil")
    path = folder / "kwdlc_dep" / "train.svm"
    X, y = read_svmlight(path)
    assert len(X) == 77428 and X.nnz == 2424660
    labels, rows = liblinear.svm_read_problem(str(path))
    assert y.tolist() == [int(v) for v in labels]
    for i in (0, 1, 5000, 77427):
        assert X.row(i).tolist() == sorted(rows[i])


@settings(max_examples=200, deadline=None)
@given(st.lists(line_bytes, min_size=1, max_size=12), st.integers(1, 20))
def test_chunked_reading_agrees_with_one_chunk(lines: list[bytes], chunk: int) -> None:
    import polyparse.features.svmlight as svmlight

    data = b"\n".join(lines)

    def outcome() -> object:
        try:
            X, y = parse_svmlight(data, "c.svm")
        except SvmlightFormatError as error:
            return str(error)
        return X.indptr.tolist(), X.indices.tolist(), y.tolist(), str(y.dtype)

    whole = outcome()
    saved = svmlight.CHUNK_BYTES
    svmlight.CHUNK_BYTES = chunk
    try:
        assert outcome() == whole
    finally:
        svmlight.CHUNK_BYTES = saved


def test_example_line_counts_lines_as_the_reader_does() -> None:
    from polyparse.features.svmlight import example_line

    data = b"\xef\xbb\xbf# head\n1 1:1\n\n  \n-1 2:1 # note\n#\n1 qid:3 3:1\n2"
    with pytest.warns(InputWarning, match="query ids"):
        _, y = parse_svmlight(data, "x.svm")
    assert len(y) == 4
    assert [example_line(data, k) for k in range(4)] == [2, 5, 7, 8]
    assert example_line(data, 1, first_line=10) == 14
    with pytest.raises(IndexError):
        example_line(data, 4)
