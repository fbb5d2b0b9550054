"""TreeKernelModel: a trained tree-kernel classifier (perceptron or SVM) and its model file.

The decision function of a kernel expansion over trees with SVM-light-TK's `-C +` kernel
(combination.py; Moschitti 2006, SVM-light-TK 1.5 `-t 5 -C +`):
    f(x) = b + sum_i alpha_i [P_n(v_i, v_x) + T * TK_n(t_i, t_x)],
TK_n(a, b) = TK(a, b) / sqrt(TK(a, a) TK(b, b)) the normalised tree kernel (kind, lam, mu),
P_n the normalised polynomial (s v.w + r)^d on the binary vectors (no vector part when degree
is None; the tree part is then TK_n alone, T ignored). The model keeps
- the weighted model trees (t_i, v_i, alpha_i): rows of a TreeForest sharing the training
  forest's interners, their vectors and weights, so that the plain kernel sum can be evaluated;
- the DAG of the model trees (dag.TreeDag: Aiolli et al. 2007; Severyn & Moschitti 2010,
  Theorem 1), each distinct subtree once with f(d) = sum_i alpha_i / sqrt(TK(t_i, t_i)) times
  its count in t_i, so that sum_i alpha_i TK_n(t_i, x) is one dynamic program;
- the explicit polynomial table (poly2_table.Poly2Table, degree 1 or 2) of sum_i alpha_i
  P_n(v_i, .).
`decision_function(..., method="dag")` is bias + table + T * DAG score (combined_scorer.py);
`method="plain"` sums the kernels over the model trees (the reference).

Model file (classifiers/model_file.py, format `polyparse-tree-kernel`): the kernel spec, bias and
counts in the header; arrays for the model trees (forest arrays), weights, vectors and the
label and production interners (UTF-8 strings with offsets, in id order), so that test files are
read with the model's interners (`read_svmlight_tk(path, model.labels, model.productions)`).
The DAG and the table are rebuilt on loading, in the same order, so that decisions are
identical; identical inputs give byte-identical files.
"""
from __future__ import annotations

import os
from dataclasses import asdict
from typing import Any

import numpy as np

from polyparse.classifiers.model_bytes import Buffer, ModelBytes, decode_model_bytes
from polyparse.classifiers.model_file import (
    ModelFileError,
    arrays_strings,
    decode_model,
    encode_model,
    inconsistent,
    read_model_file,
    require_arrays,
    string_arrays,
    write_model_file,
)
from polyparse.classifiers.tree_kernels.combined_scorer import CombinedScorer
from polyparse.classifiers.tree_kernels.dag import TreeDag
from polyparse.classifiers.tree_kernels.kernels import kernel_expansion, self_kernels
from polyparse.classifiers.tree_kernels.poly2_table import Poly2Table
from polyparse.classifiers.tree_kernels.settings import MODEL_FORMAT, TreeKernelSpec
from polyparse.features.binary_matrix import BinaryMatrix, BinaryMatrixLike, optional_binary_matrix
from polyparse.features.input_files import input_name
from polyparse.features.interning import StringInterner
from polyparse.features.trees import TreeForest

FORMAT = MODEL_FORMAT
FORMAT_VERSION = 1
METHODS = ("dag", "plain")
_FOREST_ARRAYS = {
    "tree_ptr": ("<i8", (None,)),
    "label": ("<i4", (None,)),
    "production": ("<i4", (None,)),
    "child_ptr": ("<i8", (None,)),
    "children": ("<i4", (None,)),
    "subtree_end": ("<i4", (None,)),
    "is_word": ("|u1", (None,)),
}


class TreeKernelModel(ModelBytes):
    """f(x) = bias + sum_i weights[i] K(model tree i, x) (see the module notes); pickles
    through its model file's bytes."""

    def __init__(self, spec: TreeKernelSpec, forest: TreeForest, weights: np.ndarray,
                 vectors: BinaryMatrix | None, bias: float = 0.0) -> None:
        self.spec = spec
        self.forest = forest
        self.weights = np.ascontiguousarray(weights, dtype=np.float64)
        if self.weights.shape != (len(forest),):
            raise ValueError(f"{self.weights.size} weights for {len(forest)} model trees")
        if spec.degree is not None and (vectors is None or len(vectors) != len(forest)):
            raise ValueError("the vector part needs one binary vector per model tree")
        self.vectors = vectors if spec.degree is not None else None
        self.bias = float(bias)
        self.dag = TreeDag(spec.kind, spec.lam, spec.mu, True)
        self.dag._check_interners(forest)
        self.table = (Poly2Table(spec.degree, spec.s, spec.r) if spec.degree in (1, 2)
                      else None)
        for i, weight in enumerate(self.weights.tolist()):
            if weight == 0.0:
                continue
            self.dag.add_tree(forest, i, weight)
            if self.table is not None:
                self.table.add(self.vectors.row(i), weight)

    @classmethod
    def from_weighted_trees(cls, spec: TreeKernelSpec, forest: TreeForest, rows: np.ndarray,
                            weights: np.ndarray, vectors: BinaryMatrix | None = None,
                            bias: float = 0.0) -> TreeKernelModel:
        """The model sum_k weights[k] K(tree rows[k] of forest, .) + bias (with row rows[k] of
        vectors for the vector part). Repeated rows are merged into their first place, their
        weights summed; rows whose weights sum to 0 are dropped."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        weights = np.asarray(weights, dtype=np.float64).reshape(-1)
        if rows.shape != weights.shape:
            raise ValueError(f"{rows.size} rows for {weights.size} weights")
        distinct, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
        summed = np.zeros(distinct.size, dtype=np.float64)
        np.add.at(summed, inverse.reshape(-1), weights)
        order = np.argsort(first, kind="stable")
        keep = order[summed[order] != 0.0]
        chosen = distinct[keep]
        model_vectors = None
        if spec.degree is not None:
            if vectors is None or len(vectors) != len(forest):
                raise ValueError("the vector part needs one binary vector per tree")
            model_vectors = _select_rows(vectors, chosen)
        return cls(spec, forest.select(chosen), summed[keep], model_vectors, bias)

    @property
    def labels(self) -> StringInterner:
        return self.forest.labels

    @property
    def productions(self) -> StringInterner:
        return self.forest.productions

    @property
    def n_trees(self) -> int:
        return len(self.forest)

    @property
    def n_tree_nodes(self) -> int:
        """Nodes of the model trees, each tree counted once (the plain model's size)."""
        return self.forest.n_nodes

    @property
    def n_dag_nodes(self) -> int:
        return int(self.dag.n_nodes)

    def decision_function(self, forest: TreeForest, vectors: BinaryMatrixLike | None = None,
                          method: str = "dag") -> np.ndarray:
        """f(x) for every tree of forest (and row of vectors: a BinaryMatrix, a 2-D 0/1 NumPy
        array or a scipy sparse matrix); forest must share the model's interners. method: `dag`
        (DAG and table) or `plain` (the kernel sum, the reference)."""
        vectors = optional_binary_matrix(vectors)
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, not {method!r}")
        if self.spec.degree is not None and (vectors is None or len(vectors) != len(forest)):
            raise ValueError("the vector part needs one binary vector per tree")
        if forest.labels is not self.labels or forest.productions is not self.productions:
            raise ValueError("the forest does not share the model's label and production "
                             "interners (read it with the model's interners)")
        if method == "dag":
            if spec_needs_plain(self.spec):
                raise ValueError(f"the DAG model's vector part holds degree 1 or 2, not "
                                 f"{self.spec.degree} (use method='plain')")
            scorer = CombinedScorer(self.dag, self.table, self.spec.tree_weight, forest,
                                    vectors if self.table is not None else None)
            return self.bias + scorer.scores()
        return self.bias + self._plain(forest, vectors)

    def _plain(self, forest: TreeForest, vectors: BinaryMatrix | None) -> np.ndarray:
        # sum_i alpha_i TK(t_i, x) / sqrt(TK(t_i, t_i) TK(x, x)) by the kernel expansion, plus
        # sum_i alpha_i P_n(v_i, v_x) by an inverted index over the model vectors.
        spec = self.spec
        own = self_kernels(self.forest, spec.kind, spec.lam, spec.mu)
        coefficients = np.zeros(len(self.forest), dtype=np.float64)
        positive = own > 0.0
        coefficients[positive] = self.weights[positive] / np.sqrt(own[positive])
        raw = kernel_expansion(forest, self.forest, coefficients, spec.kind, spec.lam, spec.mu,
                               False)
        norms = self_kernels(forest, spec.kind, spec.lam, spec.mu)
        tree = np.zeros(len(forest), dtype=np.float64)
        np.divide(raw, np.sqrt(norms), out=tree, where=norms > 0.0)
        if spec.degree is None:
            return tree
        return spec.tree_constant * tree + _polynomial_sum(self.vectors, self.weights, vectors,
                                                           spec.degree, spec.s, spec.r)

    def save(self, path: str | os.PathLike, extra_header: dict[str, Any] | None = None,
             extra_arrays: dict[str, np.ndarray] | None = None) -> None:
        """Write the model file (see the module notes); extra_header: JSON-ready extras
        (training command, data checksum, scores) stored under `metadata`; extra_arrays: what
        an application keeps beside the model (an SRL feature vocabulary), stored as
        `extra_<name>` and given back by `load_with_extras`."""
        write_model_file(path, *self._file_parts(extra_header, extra_arrays))

    def to_bytes(self, extra_header: dict[str, Any] | None = None,
                 extra_arrays: dict[str, np.ndarray] | None = None) -> bytes:
        """The bytes of the model file save() writes."""
        return bytes(encode_model(*self._file_parts(extra_header, extra_arrays)))

    def _file_parts(self, extra_header: dict[str, Any] | None,
                    extra_arrays: dict[str, np.ndarray] | None
                    ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        header: dict[str, Any] = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "spec": asdict(self.spec),
            "bias": self.bias,
            "n_trees": self.n_trees,
            "n_tree_nodes": self.n_tree_nodes,
            "n_dag_nodes": self.n_dag_nodes,
        }
        if extra_header:
            header["metadata"] = extra_header
        arrays = {f"forest_{name}": getattr(self.forest, name) for name in _FOREST_ARRAYS}
        arrays["weights"] = self.weights
        arrays.update(string_arrays("labels", self.labels.learned()))
        arrays.update(string_arrays("productions", self.productions.learned()))
        if self.vectors is not None:
            arrays["vector_indptr"] = self.vectors.indptr
            arrays["vector_indices"] = self.vectors.indices
        for name, array in (extra_arrays or {}).items():
            arrays[f"extra_{name}"] = array
        return header, arrays

    @classmethod
    def load(cls, path: str | os.PathLike) -> TreeKernelModel:
        """The model saved at path; ModelFileError (one line) when the file does not fit."""
        return cls.load_with_extras(path)[0]

    @classmethod
    def from_bytes(cls, data: Buffer, source: str = "model bytes") -> TreeKernelModel:
        """The model of a model file's bytes (as load reads the file)."""
        return cls.from_bytes_with_extras(data, source)[0]

    @classmethod
    def load_with_extras(cls, path: str | os.PathLike
                         ) -> tuple[TreeKernelModel, dict[str, Any], dict[str, np.ndarray]]:
        """The model saved at path, the `metadata` of its header and its extra arrays."""
        return cls._from_file_parts(*read_model_file(path, FORMAT), input_name(path))

    @classmethod
    def load_data_with_extras(cls, data: Any, source: str
                              ) -> tuple[TreeKernelModel, dict[str, Any], dict[str, np.ndarray]]:
        """load_with_extras of a model file's bytes as read (model_file_data), named source."""
        return cls._from_file_parts(*decode_model(data, source, FORMAT), source)

    @classmethod
    def from_bytes_with_extras(cls, data: Buffer, source: str = "model bytes"
                               ) -> tuple[TreeKernelModel, dict[str, Any], dict[str, np.ndarray]]:
        """load_with_extras on a model file's bytes; source names them in errors."""
        return cls._from_file_parts(*decode_model_bytes(data, source, FORMAT), source)

    @classmethod
    def _from_file_parts(cls, header: dict[str, Any], arrays: dict[str, np.ndarray], name: str
                         ) -> tuple[TreeKernelModel, dict[str, Any], dict[str, np.ndarray]]:
        if header.get("format_version") != FORMAT_VERSION:
            raise ModelFileError(f"{name}: tree-kernel model format version "
                                 f"{header.get('format_version')!r}, expected {FORMAT_VERSION}")
        expected = {f"forest_{key}": value for key, value in _FOREST_ARRAYS.items()}
        expected.update(weights=("<f8", (None,)), labels_text=("|u1", (None,)),
                        labels_offsets=("<i8", (None,)), productions_text=("|u1", (None,)),
                        productions_offsets=("<i8", (None,)))
        require_arrays(name, arrays, expected)
        with inconsistent(name):
            spec = TreeKernelSpec(**header["spec"])
            labels = StringInterner(arrays_strings(arrays, "labels"))
            productions = StringInterner(arrays_strings(arrays, "productions"))
            forest = TreeForest.from_arrays(
                labels, productions, *(arrays[f"forest_{key}"] for key in _FOREST_ARRAYS))
            _check_forest(forest, len(labels), len(productions))
            vectors = None
            if spec.degree is not None:
                require_arrays(name, arrays, {"vector_indptr": ("<i8", (len(forest) + 1,)),
                                              "vector_indices": ("<i4", (None,))})
                vectors = BinaryMatrix(arrays["vector_indptr"], arrays["vector_indices"])
            model = cls(spec, forest, arrays["weights"], vectors, float(header["bias"]))
            if (model.n_trees, model.n_dag_nodes) != (header["n_trees"], header["n_dag_nodes"]):
                raise ValueError("the stored counts do not match the model trees")
        extras = {name[len("extra_"):]: array for name, array in arrays.items()
                  if name.startswith("extra_")}
        return model, header.get("metadata") or {}, extras


def spec_needs_plain(spec: TreeKernelSpec) -> bool:
    """True when the vector part has no explicit table (degree above 2)."""
    return spec.degree is not None and spec.degree not in (1, 2)


def _check_forest(forest: TreeForest, n_labels: int, n_productions: int) -> None:
    n = forest.n_nodes
    if (forest.tree_ptr.size < 1 or forest.tree_ptr[0] != 0 or forest.tree_ptr[-1] != n
            or np.any(np.diff(forest.tree_ptr) < 0) or forest.child_ptr.size != n + 1
            or forest.child_ptr[0] != 0 or forest.child_ptr[-1] != forest.children.size
            or np.any(np.diff(forest.child_ptr) < 0) or forest.production.size != n
            or forest.subtree_end.size != n or forest.is_word.size != n):
        raise ValueError("the model trees' arrays do not fit together")
    if n and (forest.label.min() < 0 or forest.label.max() >= n_labels
              or forest.production.min() < 0 or forest.production.max() >= n_productions):
        raise ValueError("a model tree refers to a label or production the file does not hold")
    if forest.children.size and (forest.children.min() < 0 or forest.children.max() >= n):
        raise ValueError("a model tree node has a child outside the trees")


def _select_rows(vectors: BinaryMatrix, rows: np.ndarray) -> BinaryMatrix:
    lengths = np.diff(vectors.indptr)[rows]
    indptr = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    positions = np.repeat(vectors.indptr[rows], lengths) + (
        np.arange(int(indptr[-1]), dtype=np.int64) - np.repeat(indptr[:-1], lengths))
    return BinaryMatrix(indptr, vectors.indices[positions], vectors.n_features, validate=False)


def _polynomial_sum(model: BinaryMatrix, weights: np.ndarray, queries: BinaryMatrix,
                    degree: int, s: float, r: float, cells: int = 1 << 22) -> np.ndarray:
    """sum_i weights[i] P_n(model row i, query row) for every query row: the dot products of a
    block of queries with every model vector through the model's (feature, row) pairs sorted by
    feature, then the kernel matrix of the block times the weights."""
    def norm(n_ones: np.ndarray) -> np.ndarray:
        value = (s * n_ones.astype(np.float64) + r) ** degree
        return np.where(value == 0.0, 1.0, value)

    n_model = len(model)
    model_rows = np.repeat(np.arange(n_model, dtype=np.int64), np.diff(model.indptr))
    order = np.argsort(model.indices, kind="stable")
    features, rows = model.indices[order], model_rows[order]
    model_norms = norm(np.diff(model.indptr))
    query_norms = norm(np.diff(queries.indptr))
    out = np.zeros(len(queries), dtype=np.float64)
    block = max(1, cells // max(1, n_model))
    for start in range(0, len(queries), block):
        stop = min(start + block, len(queries))
        ids = queries.indices[queries.indptr[start]:queries.indptr[stop]]
        owner = np.repeat(np.arange(stop - start, dtype=np.int64),
                          np.diff(queries.indptr[start:stop + 1]))
        low = np.searchsorted(features, ids, "left")
        counts = np.searchsorted(features, ids, "right") - low
        firsts = np.cumsum(counts) - counts
        hits = np.repeat(low, counts) + (np.arange(int(counts.sum())) - np.repeat(firsts, counts))
        dots = np.bincount(np.repeat(owner, counts) * n_model + rows[hits],
                           minlength=(stop - start) * n_model).reshape(stop - start, n_model)
        kernels = (s * dots + r) ** degree / np.sqrt(np.outer(query_norms[start:stop],
                                                              model_norms))
        out[start:stop] = kernels @ weights
    return out
