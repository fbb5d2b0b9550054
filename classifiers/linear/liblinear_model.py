"""liblinear's text model files (`train`, save_model) <-> the `linear` backend.

The format, as liblinear 2.x writes it:

    solver_type L2R_L2LOSS_SVC_DUAL
    nr_class 3
    label 1 2 3
    nr_feature 13
    bias 1                  (-1: no bias feature)
    w
    <nr_w weights>          (nr_feature lines, then one for the bias feature when bias >= 0)

with nr_w = 1 for two classes (positive: the first label) and nr_class otherwise (one weight
per class, argmax wins; MCSVM_CS keeps nr_class weights even for two classes). The decision
value of x is sum_i w_i x_i + bias w_bias (liblinear's predict_values), the sum over the ids
1 .. nr_feature of x (larger ids are ignored, as liblinear ignores them).

A LinearSVM holds that as effective weights (the single slot of feature i holds w_i, feature
ids kept as written, as features/svmlight.py keeps them) and the intercept bias w_bias, in
float64, so its decision values are liblinear's; MCSVM_CS's two-class weights become their
difference (the same argmax). Regression and one-class solvers are refused, as is any
malformed or cut-short file, in one ModelFileError naming the file and line. Writing uses
%.17g, so liblinear's load_model reads the weights exactly.
"""
from __future__ import annotations

import os

import numpy as np

from polyparse.classifiers.linear.poly2_linear_svm import LinearSVM
from polyparse.classifiers.model_file import ModelFileError
from polyparse.features.output_files import write_bytes

MAGIC = b"solver_type "
CLASSIFICATION_SOLVERS = (
    "L2R_LR", "L2R_L2LOSS_SVC_DUAL", "L2R_L2LOSS_SVC", "L2R_L1LOSS_SVC_DUAL", "MCSVM_CS",
    "L1R_L2LOSS_SVC", "L1R_LR", "L2R_LR_DUAL",
)
OTHER_SOLVERS = ("L2R_L2LOSS_SVR", "L2R_L2LOSS_SVR_DUAL", "L2R_L1LOSS_SVR_DUAL", "ONECLASS_SVM")
_KEYS = ("solver_type", "nr_class", "label", "nr_feature", "bias", "rho")
_LOW = np.uint64(0xFFFFFFFF)


def parse_liblinear_model(data: bytes, name: str = "<liblinear model>") -> LinearSVM:
    """The LinearSVM of a liblinear model file's bytes; `name` is used in error messages."""
    try:
        lines = data.decode("ascii").split("\n")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ModelFileError(f"{name}:{line}: not a liblinear model file (byte "
                             f"0x{data[error.start]:02x})") from None
    header, first = _read_header(lines, name)
    nr_class, nr_feature, bias = header["nr_class"], header["nr_feature"], header["bias"]
    nr_w = 1 if nr_class == 2 and header["solver_type"] != "MCSVM_CS" else nr_class
    w_size = nr_feature + (1 if bias >= 0 else 0)
    weights = np.zeros((w_size, nr_w))
    for row in range(w_size):
        number = first + row + 1
        if first + row >= len(lines) or (first + row == len(lines) - 1 and lines[-1] == ""):
            raise ModelFileError(f"{name}:{number}: the liblinear model file ends after {row} "
                                 f"of its {w_size} weight lines (cut short?)")
        tokens = lines[first + row].split()
        if len(tokens) != nr_w:
            raise ModelFileError(f"{name}:{number}: a weight line holds {nr_w} number(s), "
                                 f"found {len(tokens)}")
        for k, token in enumerate(tokens):
            try:
                weights[row, k] = float(token)
            except ValueError:
                raise ModelFileError(f"{name}:{number}: weight {token!r} is not a number") from None
            if not np.isfinite(weights[row, k]):
                raise ModelFileError(f"{name}:{number}: weight {token!r} is not finite")
    if any(text.strip() for text in lines[first + w_size:]):
        raise ModelFileError(f"{name}:{first + w_size + 1}: text after the {w_size} weight lines")
    if nr_class == 2 and nr_w == 2:
        weights = weights[:, :1] - weights[:, 1:]
    return _linear_model(header, weights)


def _read_header(lines: list[str], name: str) -> tuple[dict, int]:
    """The header's fields up to `w`, and the index of the line after it."""
    header: dict = {}
    for index, line in enumerate(lines):
        tokens = line.split()
        if not tokens:
            continue
        key, values = tokens[0], tokens[1:]
        where = f"{name}:{index + 1}"
        if key == "w" and not values:
            break
        if key not in _KEYS:
            shown = line if len(line) <= 40 else line[:40] + "..."
            raise ModelFileError(f"{where}: unknown line in a liblinear model header: {shown!r}")
        header[key] = _header_value(key, values, where)
    else:
        raise ModelFileError(f"{name}:{len(lines)}: the liblinear model file ends before its w "
                             "section (cut short?)")
    for key in ("solver_type", "nr_class", "nr_feature", "bias", "label"):
        if key not in header:
            raise ModelFileError(f"{name}: the liblinear model header has no {key} line")
    if len(header["label"]) != header["nr_class"] or len(set(header["label"])) != header[
            "nr_class"]:
        raise ModelFileError(f"{name}: label holds {len(header['label'])} distinct values, "
                             f"expected nr_class {header['nr_class']}")
    return header, index + 1


def _header_value(key: str, values: list[str], where: str) -> object:
    if key == "label":
        try:
            return [int(text) for text in values]
        except ValueError:
            raise ModelFileError(f"{where}: the labels must be integers") from None
    if len(values) != 1:
        raise ModelFileError(f"{where}: {key} takes one value, found {len(values)}")
    text = values[0]
    if key == "solver_type":
        if text in OTHER_SOLVERS:
            raise ModelFileError(f"{where}: solver_type {text} is not supported (polyparse reads "
                                 "liblinear's classifiers)")
        if text not in CLASSIFICATION_SOLVERS:
            raise ModelFileError(f"{where}: unknown solver_type {text!r}")
        return text
    try:
        value = int(text) if key in ("nr_class", "nr_feature") else float(text)
    except ValueError:
        raise ModelFileError(f"{where}: {key} {text!r} is not a number") from None
    if key == "nr_class" and value < 2 or key == "nr_feature" and value < 0:
        raise ModelFileError(f"{where}: {key} {value} is out of range")
    if not np.isfinite(value):
        raise ModelFileError(f"{where}: {key} {text!r} is not finite")
    return value


def _linear_model(header: dict, weights: np.ndarray) -> LinearSVM:
    """A fitted LinearSVM scoring as liblinear's weights (module notes)."""
    bias, nr_feature = header["bias"], header["nr_feature"]
    solver = header["solver_type"]
    clf = LinearSVM(gamma=1.0, coef0=bias * bias if bias >= 0 else 0.0,
                    loss="l1" if "L1LOSS" in solver else "l2", dtype="float64")
    intercept = weights[nr_feature] * bias if bias >= 0 else np.zeros(weights.shape[1])
    features = weights[:nr_feature]
    ids = np.arange(1, nr_feature + 1, dtype=np.uint64)
    keep = np.flatnonzero(np.any(features != 0, axis=1))
    keys = (ids[keep] << np.uint64(32)) | ids[keep]
    rows, columns = np.nonzero(features[keep])
    clf.classes_ = np.asarray(header["label"], dtype=np.int64)
    clf._set_model(keys, None, intercept.astype(np.float64), rows, columns,
                   features[keep][rows, columns])
    clf.stats_ = {"solver_type": solver}
    return clf


def format_liblinear_model(clf: LinearSVM) -> str:
    """The text of a liblinear model file holding a linear model (L2R_L2LOSS_SVC_DUAL, or
    L2R_L1LOSS_SVC_DUAL for the l1 loss; bias 1 carrying the intercept)."""
    if clf.degree != 1 or clf.classes_ is None:
        raise ValueError("liblinear model files hold fitted linear models")
    labels = clf.classes_
    if labels.size < 2:
        raise ValueError("liblinear model files hold two or more classes")
    if labels.dtype.kind not in "iuf" or not np.all(labels == np.round(labels)):
        raise ValueError("liblinear model files hold integer labels only")
    scorer = clf.scorer
    keys = scorer.index.keys()
    single = (keys >> np.uint64(32)) == (keys & _LOW)
    ids = (keys & _LOW).astype(np.int64)
    if (ids[single] < 1).any():
        raise ValueError("liblinear's feature ids start at 1; the model has a weight for id 0")
    nr_feature = int(ids.max()) if ids.size else 0
    weights = np.zeros((nr_feature, scorer.n_outputs))
    weights[ids[single] - 1] = clf._dense_weights()[single]
    solver = "L2R_L1LOSS_SVC_DUAL" if clf.loss == "l1" else "L2R_L2LOSS_SVC_DUAL"
    out = [f"solver_type {solver}", f"nr_class {labels.size}",
           "label" + "".join(f" {int(v)}" for v in labels.tolist()),
           f"nr_feature {nr_feature}", "bias 1", "w"]
    rows = np.vstack([weights, scorer.arrays["intercept"].astype(np.float64)[None, :]])
    out += ["".join(f"{v:.17g} " for v in row) for row in rows.tolist()]
    return "\n".join(out) + "\n"


def write_liblinear_model(path: str | os.PathLike, clf: LinearSVM) -> None:
    """Write a liblinear model file atomically (a temporary file, then os.replace)."""
    write_bytes(path, format_liblinear_model(clf).encode("ascii"))
