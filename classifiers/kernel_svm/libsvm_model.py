"""libsvm's text model files (svm-train, svm_save_model) <-> OneVsOneExpansion.

The format, as libsvm 3.x writes it:

    svm_type c_svc
    kernel_type polynomial          (or linear: K = x.z, i.e. degree 1, gamma 1, coef0 0)
    degree 2                        (polynomial only)
    gamma 1                         (polynomial only)
    coef0 1                         (polynomial only)
    nr_class 2
    total_sv 2715
    rho 0.376...                    (one value per pair of classes)
    label 1 -1
    nr_sv 1408 1307                 (support vectors per class, in label order)
    SV
    <nr_class-1 coefficients> id:value id:value ...     (total_sv lines)

Optional header lines probA and probB (Platt's sigmoid of each pair, `-b 1`) are kept (the
expansion's prob_a, prob_b) and written back; prob_density_marks (one-class models) is read and
ignored. Support vectors of real values are kept with their values (OneVsOneExpansion's
sv_values, scored by the naive kernel sum); a model whose values are all 1 is binary (0 drops
the feature). Feature ids are kept as written (like features/svmlight.py with id_offset 0).
Reading accepts
c_svc and nu_svc models (same decision function); kernels other than linear and polynomial,
and every malformed or cut-short file, raise ModelFileError naming the file and line.
Writing uses libsvm's own number formats (%.17g for reals), so svm_load_model reads it and
predicts with exactly the stored coefficients.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from polyparse.classifiers.evaluators.one_vs_one_expansion import OneVsOneExpansion
from polyparse.classifiers.model_file import ModelFileError
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.output_files import write_bytes

MAGIC = b"svm_type"
SVM_TYPES = ("c_svc", "nu_svc")
OTHER_SVM_TYPES = ("one_class", "epsilon_svr", "nu_svr")
KERNELS = ("linear", "polynomial")
OTHER_KERNELS = ("rbf", "sigmoid", "precomputed")
MAX_ID = np.iinfo(np.int32).max
_HEADER_KEYS = (
    "svm_type", "kernel_type", "degree", "gamma", "coef0", "nr_class", "total_sv", "rho",
    "label", "probA", "probB", "prob_density_marks", "nr_sv",
)


@dataclass
class LibsvmModel:
    """A libsvm model file's decision function and the two header fields that name its kind."""

    expansion: OneVsOneExpansion
    svm_type: str
    kernel_type: str


def is_libsvm_model(path: str | os.PathLike) -> bool:
    """True when the file starts like a libsvm model file (`svm_type ...`)."""
    with open(path, "rb") as stream:
        return stream.read(len(MAGIC)) == MAGIC


def read_libsvm_model(path: str | os.PathLike) -> LibsvmModel:
    """Parse a libsvm model file; ModelFileError (`file:line: problem`) when it is unusable."""
    return parse_libsvm_model(Path(path).read_bytes(), str(path))


class _Lines:
    """The lines of a file with 1-based numbers, and whether the last one was terminated."""

    def __init__(self, data: bytes, name: str) -> None:
        self.name = name
        try:
            text = data.decode("ascii")
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            raise ModelFileError(
                f"{name}:{line}: not a libsvm model file (byte 0x{data[error.start]:02x})"
            ) from None
        self.terminated = text.endswith("\n")
        self.lines = text.split("\n")
        if self.terminated:
            self.lines.pop()
        self.number = 0

    def next(self) -> str | None:
        if self.number >= len(self.lines):
            return None
        self.number += 1
        return self.lines[self.number - 1].rstrip("\r")

    def error(self, problem: str, number: int | None = None) -> ModelFileError:
        return ModelFileError(f"{self.name}:{self.number if number is None else number}: {problem}")


def parse_libsvm_model(data: bytes, name: str = "<libsvm model>") -> LibsvmModel:
    """Parse the bytes of a libsvm model file; `name` is used in error messages."""
    lines = _Lines(data, name)
    header = _read_header(lines)
    svm_type, kernel_type = header["svm_type"], header["kernel_type"]
    nr_class, total_sv = header["nr_class"], header["total_sv"]
    if kernel_type == "linear":
        degree, gamma, coef0 = 1, 1.0, 0.0
    else:
        degree, gamma, coef0 = header["degree"], header["gamma"], header["coef0"]
    coefficients, indptr, indices, values = _read_support_vectors(lines, nr_class - 1, total_sv)
    n_features = int(indices.max()) + 1 if indices.size else 0
    try:
        expansion = OneVsOneExpansion(
            BinaryMatrix(indptr, indices, n_features, validate=False),
            coefficients.T if nr_class > 1 else np.zeros((0, total_sv)),
            header["rho"], gamma, coef0, degree, np.asarray(header["label"], dtype=np.int64),
            np.asarray(header["nr_sv"], dtype=np.int32),
            None if np.all(values == 1.0) else values,
            header.get("probA"), header.get("probB"),
        )
    except ValueError as error:
        raise ModelFileError(f"{name}: inconsistent libsvm model ({error})") from None
    return LibsvmModel(expansion, svm_type, kernel_type)


def _read_header(lines: _Lines) -> dict:
    """The header lines up to `SV`, checked for the fields a classifier needs."""
    header: dict = {}
    where: dict[str, int] = {}
    while True:
        line = lines.next()
        if line is None:
            raise lines.error("the libsvm model file ends before its SV section (cut short?)")
        if lines.number == len(lines.lines) and not lines.terminated:
            raise lines.error("the libsvm model file ends before its SV section (cut short?)")
        tokens = line.split()
        if not tokens:
            continue
        key, values = tokens[0], tokens[1:]
        if key == "SV":
            if values:
                raise lines.error(f"unexpected text after SV: {' '.join(values)!r}")
            break
        if key not in _HEADER_KEYS:
            shown = line if len(line) <= 40 else line[:40] + "..."
            raise lines.error(f"unknown line in a libsvm model header: {shown!r}")
        header[key] = _header_value(lines, key, values)
        where[key] = lines.number
    for key in ("svm_type", "kernel_type", "nr_class", "total_sv", "rho", "label", "nr_sv"):
        if key not in header:
            raise lines.error(f"the libsvm model header has no {key} line")
    if header["kernel_type"] == "polynomial":
        for key in ("degree", "gamma", "coef0"):
            if key not in header:
                raise lines.error(f"the polynomial kernel's {key} line is missing")
        if header["degree"] < 1:
            raise lines.error(f"degree {header['degree']} is not supported (at least 1)",
                              where["degree"])
    nr_class, total_sv = header["nr_class"], header["total_sv"]
    counts = {"rho": nr_class * (nr_class - 1) // 2, "label": nr_class, "nr_sv": nr_class,
              "probA": nr_class * (nr_class - 1) // 2, "probB": nr_class * (nr_class - 1) // 2}
    if ("probA" in header) != ("probB" in header):
        raise lines.error("probA and probB come together (one value each per pair of classes)")
    for key, expected in counts.items():
        if key in header and len(header[key]) != expected:
            raise lines.error(
                f"{key} holds {len(header[key])} values, expected {expected} "
                f"for nr_class {nr_class}", where[key],
            )
    if sum(header["nr_sv"]) != total_sv:
        raise lines.error(
            f"nr_sv adds up to {sum(header['nr_sv'])}, not total_sv {total_sv}", where["nr_sv"]
        )
    if len(set(header["label"])) != nr_class:
        raise lines.error("the labels are not distinct", where["label"])
    return header


def _header_value(lines: _Lines, key: str, values: list[str]) -> object:
    def one() -> str:
        if len(values) != 1:
            raise lines.error(f"{key} takes one value, found {len(values)}")
        return values[0]

    def integer(text: str, what: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise lines.error(f"{what} {text!r} is not an integer") from None

    def real(text: str, what: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise lines.error(f"{what} {text!r} is not a number") from None
        if not np.isfinite(value):
            raise lines.error(f"{what} {text!r} is not finite")
        return value

    if key in ("svm_type", "kernel_type"):
        value = one()
        if key == "svm_type":
            read, others, what = (SVM_TYPES, OTHER_SVM_TYPES,
                                  f"the classifiers {' and '.join(SVM_TYPES)}")
        else:
            read, others, what = KERNELS, OTHER_KERNELS, "linear and polynomial kernels"
        if value in others:
            raise lines.error(f"{key} {value} is not supported (polyparse reads {what})")
        if value not in read:
            raise lines.error(f"unknown {key} {value!r}")
        return value
    if key in ("degree", "nr_class", "total_sv"):
        value = integer(one(), key)
        if value < (1 if key == "nr_class" else 0):
            raise lines.error(f"{key} {value} is out of range")
        return value
    if key in ("gamma", "coef0"):
        return real(one(), key)
    if key in ("label", "nr_sv"):
        numbers = [integer(text, f"{key} value") for text in values]
        if key == "nr_sv" and any(n < 0 for n in numbers):
            raise lines.error("nr_sv values must not be negative")
        return numbers
    if key in ("rho", "probA", "probB"):
        return [real(text, f"{key} value") for text in values]
    return values  # prob_density_marks (one-class models): not used here


def _read_support_vectors(
    lines: _Lines, n_coef: int, total_sv: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(coefficients (total_sv, n_coef), indptr, indices, values) of the SV section."""
    coefficients = np.zeros((total_sv, max(n_coef, 0)))
    indptr = np.zeros(total_sv + 1, dtype=np.int64)
    ids: list[int] = []
    kept: list[float] = []
    for s in range(total_sv):
        line = lines.next()
        if line is None:
            raise lines.error(
                f"the libsvm model file ends after {s} of its {total_sv} support vectors "
                "(cut short?)"
            )
        tokens = line.split()
        if len(tokens) < n_coef or any(":" in token for token in tokens[:n_coef]):
            raise lines.error(
                f"a support vector line starts with {n_coef} coefficient(s), then id:value pairs"
            )
        for k, token in enumerate(tokens[:n_coef]):
            try:
                coefficients[s, k] = float(token)
            except ValueError:
                raise lines.error(f"coefficient {token!r} is not a number") from None
            if not np.isfinite(coefficients[s, k]):
                raise lines.error(f"coefficient {token!r} is not finite")
        previous = -1
        for token in tokens[n_coef:]:
            id_text, colon, value_text = token.partition(":")
            if not colon or not id_text.isdigit() or not value_text:
                raise lines.error(f"expected id:value, found {token!r}")
            index = int(id_text)
            if index > MAX_ID:
                raise lines.error(f"feature id {id_text} is too large (at most {MAX_ID})")
            if index <= previous:
                raise lines.error(
                    f"feature ids must be strictly ascending ({previous} then {index})"
                )
            previous = index
            try:
                value = float(value_text)
            except ValueError:
                raise lines.error(
                    f"value {value_text!r} of feature {index} is not a number"
                ) from None
            if not np.isfinite(value):
                raise lines.error(f"value {value_text!r} of feature {index} is not finite")
            if value != 0.0:
                ids.append(index)
                kept.append(value)
        indptr[s + 1] = len(ids)
    if total_sv and not lines.terminated and lines.number == len(lines.lines):
        raise lines.error("the last support vector line has no line end (cut short?)")
    while (line := lines.next()) is not None:
        if line.strip():
            raise lines.error(f"text after the {total_sv} support vectors of total_sv")
    return (coefficients, indptr, np.asarray(ids, dtype=np.int32),
            np.asarray(kept, dtype=np.float64))


def format_libsvm_model(expansion: OneVsOneExpansion, svm_type: str = "c_svc") -> str:
    """The text of a libsvm model file holding the expansion (libsvm's svm_save_model)."""
    if svm_type not in SVM_TYPES:
        raise ValueError(f"svm_type must be one of {SVM_TYPES}, not {svm_type!r}")
    labels = expansion.labels
    if labels.dtype.kind not in "iuf" or not np.all(np.asarray(labels) == np.round(labels)):
        raise ValueError("libsvm model files hold integer labels only")
    linear = expansion.degree == 1 and expansion.gamma == 1.0 and expansion.coef0 == 0.0
    out = [f"svm_type {svm_type}"]
    if linear:
        out.append("kernel_type linear")
    else:
        out += [
            "kernel_type polynomial",
            f"degree {expansion.degree}",
            f"gamma {_real(expansion.gamma)}",
            f"coef0 {_real(expansion.coef0)}",
        ]
    out += [
        f"nr_class {expansion.n_classes}",
        f"total_sv {expansion.n_support_vectors}",
        "rho" + "".join(f" {_real(v)}" for v in expansion.rho.tolist()),
        "label" + "".join(f" {int(v)}" for v in labels.tolist()),
    ]
    if expansion.prob_a is not None and expansion.prob_b is not None:
        out += ["probA" + "".join(f" {_real(v)}" for v in expansion.prob_a.tolist()),
                "probB" + "".join(f" {_real(v)}" for v in expansion.prob_b.tolist())]
    out += [
        "nr_sv" + "".join(f" {int(v)}" for v in expansion.n_support.tolist()),
        "SV",
    ]
    sv = expansion.support_vectors
    coef = expansion.dual_coef.T.tolist()
    indptr, ids = sv.indptr.tolist(), sv.indices.tolist()
    values = None if expansion.sv_values is None else expansion.sv_values.tolist()
    for s in range(expansion.n_support_vectors):
        head = "".join(f"{_real(v)} " for v in coef[s])
        if values is None:
            nodes = "".join(f"{i}:1 " for i in ids[indptr[s] : indptr[s + 1]])
        else:
            # %.17g (libsvm writes %.8g): the values read back are the values trained.
            nodes = "".join(f"{i}:{_real(v)} " for i, v in zip(ids[indptr[s] : indptr[s + 1]],
                                                           values[indptr[s] : indptr[s + 1]]))
        out.append(head + nodes)
    return "\n".join(out) + "\n"


def write_libsvm_model(
    path: str | os.PathLike, expansion: OneVsOneExpansion, svm_type: str = "c_svc"
) -> None:
    """Write a libsvm model file atomically (a temporary file, then os.replace)."""
    write_bytes(path, format_libsvm_model(expansion, svm_type).encode("ascii"))


def _real(value: float) -> str:
    """libsvm's %.17g."""
    return format(value, ".17g")
