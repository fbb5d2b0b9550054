"""--workers, --output-dir and --resume as a user meets them (docs/scale.md): the same bytes as
one process, parts that survive a resume, one-line errors before any data is read, the exact
message of a bad sentence, and signals and closed pipes that end a run in workers quietly."""
from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
from pathlib import Path

import numpy as np
import pytest

from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.svmlight import write_svmlight
from polyparse.parser.models.bundled import bundled_example
from polyparse.parser.scale_out.parts_directory import MANIFEST, SUCCESS
from tests.child_processes import HANG_GUARD_SECONDS, start_with_stderr_on_a_terminal
from tests.parser.cli.user_runs import (
    POLYPARSE,
    besides_the_bar,
    check_a_closed_pipe_ends_quietly,
    check_a_signal_while_parsing_leaves_nothing,
    one_line,
    polyparse,
)
from tests.parser.dependency.synthetic import write_treebank

SHARD = "4K"


@pytest.fixture(scope="module")
def treebank(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A synthetic treebank of 400 sentences (about 30 shards of 4K), a model trained on it
    and another model (another seed's data)."""
    folder = tmp_path_factory.mktemp("scale")
    train = write_treebank(folder / "train.conllu", 400, seed=5)
    models = []
    for seed in (5, 6):
        data = train if seed == 5 else write_treebank(folder / "other.conllu", 200, seed=seed)
        model = folder / f"m{seed}.model"
        result = polyparse("dep", "train", "--train", str(data), "--model", str(model),
                           "--split-threshold", "100", "--classifier", "linear")
        assert result.returncode == 0, result.stderr
        models.append(model)
    return train, models[0], models[1]


@pytest.fixture(scope="module")
def one_process(treebank) -> bytes:
    train, model, _ = treebank
    result = subprocess.run([POLYPARSE, "dep", "parse", "--model", str(model), str(train)],
                            capture_output=True, check=True)
    return result.stdout


def parse(treebank, *options: str, **run: object) -> subprocess.CompletedProcess:
    train, model, _ = treebank
    return subprocess.run([POLYPARSE, "dep", "parse", "--model", str(model), str(train),
                           "--shard-size", SHARD, *options], capture_output=True, **run)


def manifest(folder: Path) -> tuple[dict, list[dict]]:
    lines = [json.loads(line) for line in (folder / MANIFEST).read_text().splitlines()]
    return lines[0], lines[1:]


def parts_bytes(folder: Path) -> bytes:
    return b"".join(path.read_bytes() for path in sorted(folder.glob("part-*")))


def test_workers_write_one_process_bytes(treebank, one_process: bytes, tmp_path: Path) -> None:
    result = parse(treebank, "--workers", "2")
    assert result.returncode == 0, result.stderr
    assert result.stdout == one_process and result.stderr == b""
    out = tmp_path / "out.conllu"
    assert parse(treebank, "--workers", "3", "-o", str(out)).returncode == 0
    assert out.read_bytes() == one_process and os.listdir(tmp_path) == ["out.conllu"]
    train, model, _ = treebank
    piped = subprocess.run([POLYPARSE, "dep", "parse", "--model", str(model), "--workers", "2",
                            "--shard-size", SHARD], input=train.read_bytes(),
                           capture_output=True)
    assert piped.stdout == one_process, piped.stderr


def test_output_dir_parts_manifest_success_and_resume(treebank, one_process: bytes,
                                                      tmp_path: Path) -> None:
    folder = tmp_path / "parts"
    result = parse(treebank, "--workers", "2", "--output-dir", str(folder))
    assert result.returncode == 0, result.stderr
    header, entries = manifest(folder)
    assert (folder / SUCCESS).read_bytes() == b""
    assert parts_bytes(folder) == one_process
    assert [entry["part"] for entry in entries] == sorted(p.name for p in folder.glob("part-*"))
    assert len(entries) > 10 and header["run"]["command"] == "dep parse"
    train, model, _ = treebank
    assert header["run"]["model"]["sha256"] == hashlib.sha256(model.read_bytes()).hexdigest()
    assert header["run"]["input"]["sha256"] == hashlib.sha256(train.read_bytes()).hexdigest()
    for entry in entries:
        data = (folder / entry["part"]).read_bytes()
        assert len(data) == entry["bytes"]
        assert hashlib.sha256(data).hexdigest() == entry["sha256"]
        assert data.count(b"\n\n") == entry["sentences"]
    start, end = entries[3]["range"]
    assert train.read_bytes()[start:end].count(b"\n\n") == entries[3]["sentences"]
    assert sum(entry["sentences"] for entry in entries) == 400

    before = {path.name: path.stat().st_mtime_ns for path in folder.glob("part-*")}
    (folder / entries[4]["part"]).unlink()
    damaged = folder / entries[7]["part"]
    damaged.write_bytes(damaged.read_bytes().replace(b"\t", b" ", 1))
    result = parse(treebank, "--workers", "1", "--output-dir", str(folder), "--resume")
    assert result.returncode == 0, result.stderr
    assert parts_bytes(folder) == one_process and (folder / SUCCESS).exists()
    after = {path.name: path.stat().st_mtime_ns for path in folder.glob("part-*")}
    redone = sorted(name for name in after if after[name] != before.get(name))
    assert redone == [entries[4]["part"], entries[7]["part"]]
    assert manifest(folder)[1] == entries
    assert sorted(os.listdir(folder)) == sorted([MANIFEST, SUCCESS, *after])


def test_resume_refuses_another_input_model_or_settings(treebank, tmp_path: Path) -> None:
    train, model, other = treebank
    folder = tmp_path / "parts"
    assert parse(treebank, "--output-dir", str(folder)).returncode == 0
    listing = sorted(os.listdir(folder))
    changed = tmp_path / "changed.conllu"
    changed.write_bytes(train.read_bytes().replace(b"\t", b"\t", 1) + b"")
    changed.write_bytes(train.read_bytes()[:-2] + b"\n\n\n")
    for argv, what in (
            ([str(changed), "--model", str(model)], "another input"),
            ([str(train), "--model", str(other)], "another model"),
            ([str(train), "--model", str(model), "--keep-deps"], "another settings"),
            ([str(train), "--model", str(model), "--shard-size", "8K"], "another shard size")):
        result = polyparse("dep", "parse", *argv, "--output-dir", str(folder), "--resume",
                           *(["--shard-size", SHARD] if "--shard-size" not in argv else []))
        one_line(result, "--resume", what)
    assert sorted(os.listdir(folder)) == listing


@pytest.mark.parametrize("options, message", [
    (["--resume"], "--resume completes an --output-dir"),
    (["--workers", "0"], "argument --workers: at least 1"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "give one of them"),
    (["--output-dir", "{tmp}/parts", "-o", "{tmp}/out"], "give one of them"),
    (["--output-dir", "{tmp}/full"], "the folder is not empty"),
    (["--output-dir", "{tmp}/none", "--resume"], "has no _manifest.jsonl"),
    (["--workers", "2", "--encoding", "utf-16"], "cannot be cut into shards"),
    (["--shard-size", "lots", "--workers", "2"], "argument --shard-size: 'lots' is not a size"),
])
def test_options_are_checked_before_the_data(treebank, tmp_path: Path, options: list[str],
                                             message: str) -> None:
    """The input is a FIFO nothing writes: reading it would hang the run."""
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    fifo = tmp_path / "never-written.conllu"
    os.mkfifo(fifo)
    _, model, _ = treebank
    options = [option.format(tmp=tmp_path) for option in options]
    result = polyparse("dep", "parse", "--model", str(model), str(fifo), *options,
                       timeout=HANG_GUARD_SECONDS)
    if message.startswith("argument "):  # argparse's own: the usage, then one error line
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert message in result.stderr.strip().splitlines()[-1]
    else:
        one_line(result, message)
    assert sorted(os.listdir(tmp_path)) == ["full", "never-written.conllu"]


def test_scheduler_without_an_address(treebank, monkeypatch) -> None:
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    one_line(parse(treebank, "--scheduler", text=True), "DASK_SCHEDULER_ADDRESS")


def test_a_bad_sentence_in_a_shard_reads_as_in_one_process(treebank, tmp_path: Path) -> None:
    train, model, _ = treebank
    lines = train.read_bytes().split(b"\n")
    bad = next(i for i in range(len(lines) * 2 // 3, len(lines)) if lines[i][:1].isdigit())
    columns = lines[bad].split(b"\t")
    columns[6] = b"-57"
    lines[bad] = b"\t".join(columns)
    broken = tmp_path / "broken.conllu"
    broken.write_bytes(b"\n".join(lines))
    alone = one_line(polyparse("dep", "parse", "--model", str(model), str(broken), "-o",
                               str(tmp_path / "one.conllu")), f"{broken}:{bad + 1}: HEAD -57")
    for options in (["--workers", "2"], ["--workers", "2", "-o", str(tmp_path / "w.conllu")]):
        result = polyparse("dep", "parse", "--model", str(model), str(broken), "--shard-size",
                           SHARD, *options)
        assert one_line(result) == alone
    folder = tmp_path / "parts"
    result = polyparse("dep", "parse", "--model", str(model), str(broken), "--shard-size",
                       SHARD, "--workers", "2", "--output-dir", str(folder))
    assert one_line(result) == alone
    _, entries = manifest(folder)
    whole = subprocess.run([POLYPARSE, "dep", "parse", "--model", str(model), str(train)],
                           capture_output=True, check=True).stdout
    assert not (folder / SUCCESS).exists()
    written = [entry["index"] for entry in entries]
    missing = sorted(set(range(max(written) + 1)) - set(written))
    assert len(missing) == 1 and missing[0] not in (0, max(written))
    for entry in entries:
        data = (folder / entry["part"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"] and data in whole


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_parsing_in_workers_leaves_nothing(treebank, tmp_path: Path,
                                                          signum: int) -> None:
    train, model, _ = treebank
    fed = "".join(block + "\n\n" for block in train.read_text().split("\n\n")[:20]).encode()
    check_a_signal_while_parsing_leaves_nothing(
        [POLYPARSE, "dep", "parse", "--model", str(model), "-", "--workers", "2", "-o",
         str(tmp_path / "out.conllu")], fed, tmp_path, signum)


def test_a_signal_leaves_an_output_dir_whole(treebank, tmp_path: Path) -> None:
    """SIGTERM once the bar shows, while the input (a pipe held open) waits for more: the parts
    written are whole and listed, nothing temporary is left, and there is no _SUCCESS."""
    train, model, _ = treebank
    folder = tmp_path / "parts"
    fed = "".join(block + "\n\n" for block in train.read_text().split("\n\n")[:20]).encode()
    child = start_with_stderr_on_a_terminal(
        [POLYPARSE, "dep", "parse", "--model", str(model), "-", "--workers", "2",
         "--output-dir", str(folder)], stdin=subprocess.PIPE)
    try:
        child.process.stdin.write(fed)
        child.process.stdin.flush()
        child.read_until(b"parsing")
        child.process.send_signal(signal.SIGTERM)
        code, shown = child.finish()
    finally:
        child.process.stdin.close()
    assert code == 128 + signal.SIGTERM
    assert besides_the_bar(shown, b"parsing") == [], shown
    _, entries = manifest(folder)
    names = sorted(os.listdir(folder))
    assert names == sorted([MANIFEST, *(entry["part"] for entry in entries)])
    for entry in entries:
        assert hashlib.sha256((folder / entry["part"]).read_bytes()).hexdigest() == \
            entry["sha256"]


def test_a_closed_pipe_ends_a_run_in_workers_quietly(treebank) -> None:
    train, model, _ = treebank
    blocks = train.read_text().split("\n\n")
    first = "".join(block + "\n\n" for block in blocks[:2]).encode()
    then = "".join(block + "\n\n" for block in blocks[2:5]).encode()
    check_a_closed_pipe_ends_quietly([POLYPARSE, "dep", "parse", "--model", str(model),
                                      "--workers", "2"], first, b"\n\n", 2, then)


def test_ja_parse_in_shards_writes_one_process_bytes(tmp_path: Path) -> None:
    knp = Path(bundled_example()).with_name("example.knp").read_bytes()
    data = tmp_path / "in.knp"
    data.write_bytes(b"".join(knp.replace(b"example-1", f"doc{n}-1".encode())
                              for n in range(60)))
    stripped = tmp_path / "stripped.knp"
    stripped.write_bytes(b"".join(line for line in data.read_bytes().splitlines(True)
                                  if not line.startswith((b"* ", b"+ "))))
    for path, options in ((data, []), (data, ["--output-format", "cabocha"]), (stripped, [])):
        one = subprocess.run([POLYPARSE, "ja", "parse", str(path), *options],
                             capture_output=True, check=True).stdout
        sharded = subprocess.run([POLYPARSE, "ja", "parse", str(path), *options, "--workers",
                                  "2", "--shard-size", "1K"], capture_output=True)
        assert sharded.stdout == one and sharded.returncode == 0, sharded.stderr


def test_clf_predict_in_shards_gives_one_process_values(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    rows = [np.unique(rng.integers(1, 60, size=8)).astype(np.int32) for _ in range(600)]
    labels = np.array([1 if 7 in row or 9 in row else -1 for row in rows])
    matrix = BinaryMatrix(np.cumsum([0] + [len(row) for row in rows]).astype(np.int64),
                          np.concatenate(rows), 60)
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    write_svmlight(train, matrix.take(np.arange(400)), labels[:400])
    write_svmlight(test, matrix.take(np.arange(400, 600)), labels[400:])
    model = tmp_path / "k.model"
    assert polyparse("clf", "train", str(train), "--model", str(model), "--classifier",
                     "kernel-svm").returncode == 0
    one = polyparse("clf", "predict", "--model", str(model), str(test), "--json",
                    "--decision-values", str(tmp_path / "one.txt"))
    sharded = polyparse("clf", "predict", "--model", str(model), str(test), "--json",
                        "--decision-values", str(tmp_path / "w.txt"), "--workers", "2",
                        "--shard-size", "1K")
    assert sharded.returncode == 0, sharded.stderr
    assert (tmp_path / "w.txt").read_bytes() == (tmp_path / "one.txt").read_bytes()
    summary = {key: value for key, value in json.loads(sharded.stdout).items()
               if key in ("accuracy", "correct", "n", "eval_mode", "backend")}
    assert summary == {key: json.loads(one.stdout)[key] for key in summary}


def write_real_svmlight(path: Path, X: np.ndarray, y: np.ndarray) -> None:
    """Rows of X (0 entries left out) as svmlight lines, values as Python writes them."""
    lines = [" ".join([str(label)] + [f"{j + 1}:{v!r}" for j, v in enumerate(row) if v])
             for row, label in zip(X.tolist(), y.tolist())]
    path.write_text("# real values\n" + "\n".join(lines) + "\n")


@pytest.mark.parametrize("classifier", ["kernel-svm", "poly2-linear"])
def test_clf_predict_in_shards_of_real_values_gives_one_process_bytes(
        tmp_path: Path, classifier: str) -> None:
    """Three classes (a header line naming the columns), real values: --workers and
    --output-dir's parts give the bytes of one process's --decision-values."""
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(400, 6)), 3)
    y = np.select([X[:, 0] > 0.4, X[:, 1] * X[:, 2] > 0], [3, 1], 2)
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    write_real_svmlight(train, X[:200], y[:200])
    write_real_svmlight(test, X[200:], y[200:])
    model = tmp_path / "m.model"
    assert polyparse("clf", "train", str(train), "--model", str(model), "--classifier",
                     classifier).returncode == 0
    one = polyparse("clf", "predict", "--model", str(model), str(test), "--json",
                    "--decision-values", str(tmp_path / "one.txt"))
    assert one.returncode == 0, one.stderr
    expected = (tmp_path / "one.txt").read_bytes()
    assert expected.startswith(b"# label ")
    sharded = polyparse("clf", "predict", "--model", str(model), str(test), "--json",
                        "--decision-values", str(tmp_path / "w.txt"), "--workers", "2",
                        "--shard-size", "1K")
    assert sharded.returncode == 0 and not sharded.stderr, sharded.stderr
    assert (tmp_path / "w.txt").read_bytes() == expected
    assert json.loads(sharded.stdout)["eval_mode"] == json.loads(one.stdout)["eval_mode"]
    folder = tmp_path / "parts"
    assert polyparse("clf", "predict", "--model", str(model), str(test), "--output-dir",
                     str(folder), "--shard-size", "1K").returncode == 0
    parts = sorted(folder.glob("part-*"))
    assert len(parts) > 3 and b"".join(part.read_bytes() for part in parts) == expected


def test_clf_predict_in_shards_refuses_real_values_as_one_process(tmp_path: Path) -> None:
    """A model of binary features given real values from the second shard on: the one line
    of one process, the file's line number included."""
    rng = np.random.default_rng(6)
    B = (rng.random((300, 8)) < 0.4).astype(float)
    y = np.where(B[:, 0] + B[:, 1] > 0, 1, -1)
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    write_real_svmlight(train, B[:200], y[:200])
    X = B[200:].copy()
    X[60:, 2] *= 0.5
    write_real_svmlight(test, X, y[200:])
    model = tmp_path / "m.model"
    assert polyparse("clf", "train", str(train), "--model", str(model), "--classifier",
                     "poly2-linear").returncode == 0
    expected = one_line(polyparse("clf", "predict", "--model", str(model), str(test)),
                        "takes binary features (0/1) only")
    assert one_line(polyparse("clf", "predict", "--model", str(model), str(test),
                              "--workers", "2", "--shard-size", "1K")) == expected


def test_clf_predict_in_shards_warns_of_binary_shards_of_a_real_file(tmp_path: Path) -> None:
    """A kernel model of 0/1 support vectors, a file whose real values begin after the first
    shard: one warning line; with --eval-mode naive, one process's bytes."""
    rng = np.random.default_rng(6)
    B = (rng.random((300, 8)) < 0.4).astype(float)
    y = np.where(B[:, 0] + B[:, 1] > 0, 1, -1)
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    write_real_svmlight(train, B[:200], y[:200])
    X = B[200:].copy()
    X[60:, 2] *= 0.5
    write_real_svmlight(test, X, y[200:])
    model = tmp_path / "m.model"
    assert polyparse("clf", "train", str(train), "--model", str(model), "--classifier",
                     "kernel-svm").returncode == 0
    warned = polyparse("clf", "predict", "--model", str(model), str(test), "--workers", "2",
                       "--shard-size", "1K")
    assert warned.returncode == 0 and "held 0/1 values only" in warned.stderr
    assert len(warned.stderr.strip().splitlines()) == 1, warned.stderr
    outputs = []
    for options in ([], ["--workers", "2", "--shard-size", "1K"]):
        values = tmp_path / f"v{len(outputs)}.txt"
        result = polyparse("clf", "predict", "--model", str(model), str(test), "--eval-mode",
                           "naive", "--decision-values", str(values), *options)
        assert result.returncode == 0 and not result.stderr, result.stderr
        outputs.append(values.read_bytes())
    assert outputs[0] == outputs[1]


def model_arrays(path: Path) -> bytes:
    """A model file's bytes but for its training command (the one header entry that names
    the options it was trained with)."""
    from polyparse.parser.dependency.dependency_parser import DependencyParser

    parser = DependencyParser.load(str(path))
    return parser.to_bytes(extra_header={})


@pytest.mark.parametrize("classifier", ["linear", "pa-slicing"])
def test_dep_train_with_workers_gives_the_same_model(treebank, tmp_path: Path,
                                                     classifier: str) -> None:
    train, _, _ = treebank
    models = []
    for options in ([], ["--workers", "2"]):
        model = tmp_path / f"m{len(models)}.model"
        result = polyparse("dep", "train", "--train", str(train), "--model", str(model),
                           "--split-threshold", "100", "--classifier", classifier,
                           *(["--iterations", "3"] if classifier == "pa-slicing" else []),
                           *options)
        assert result.returncode == 0, result.stderr
        models.append(model)
    assert model_arrays(models[0]) == model_arrays(models[1])
    parses = [subprocess.run([POLYPARSE, "dep", "parse", "--model", str(model), str(train)],
                             capture_output=True, check=True).stdout for model in models]
    assert parses[0] == parses[1]


def test_srl_predict_in_shards_writes_one_process_bytes(tmp_path: Path) -> None:
    """Train on the small gold_conll fixtures, predict their documents repeated (the file
    with document frames and the one without) in shards of one document or so."""
    data = Path(__file__).resolve().parents[2] / "data" / "gold_conll"
    model = tmp_path / "srl.model"
    assert polyparse("srl", "train", "--train", str(data / "good.gold_conll"), "--model",
                     str(model)).returncode == 0
    for name in ("good.gold_conll", "documents.gold_conll"):
        path = tmp_path / name
        path.write_bytes((data / name).read_bytes() * 20)
        one = subprocess.run([POLYPARSE, "srl", "predict", "--model", str(model), str(path)],
                             capture_output=True, check=True).stdout
        sharded = subprocess.run([POLYPARSE, "srl", "predict", "--model", str(model),
                                  str(path), "--workers", "2", "--shard-size", "1K"],
                                 capture_output=True)
        assert sharded.returncode == 0, sharded.stderr
        assert sharded.stdout == one
