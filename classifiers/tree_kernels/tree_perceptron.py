"""Kernel perceptron and voted / averaged perceptron over trees, with a plain or a DAG model.

Kernel perceptron (Rosenblatt; over tree kernels: Collins & Duffy 2002): instances (x_t, y_t),
y_t = +-1, visited in order for `epochs` passes; the score of x is
    s(x) = sum over mistakes m of y_m K(x_m, x),    K normalised: K(a, b) / sqrt(K(a, a) K(b, b)),
and y_t s(x_t) <= 0 records a mistake (x_t joins the model with weight y_t).

Voted perceptron (Freund & Schapire 1999): v_1 = 0 and v_{k+1} = v_k + y_m x_m at mistake m = k;
v_k survives c_k examples (the new v_{k+1} counts the example that made it, c_{k+1} = 1, then
one more per example classified correctly). With T examples seen in all and mistake m made at
step t_m (0-based over the whole stream):
    voted:    sign(sum_k c_k sign(v_k . x)),  c_{m+1} = t_{m+1} - t_m (t_{M+1} = T), v_1 . x = 0
    averaged: sign(sum_k c_k v_k . x) = sign(sum_m y_m w_m K(x_m, x)),  w_m = T - t_m,
so the averaged perceptron is the kernel expansion (or DAG) of the mistakes with weights y_m w_m,
and the voted one needs the partial sums v_k . x = sum_{m < k} y_m K(x_m, x): a prefix sum over
the per-mistake kernel values.

Model stores with one interface: `plain` keeps the mistake trees as coefficients over the
training forest (kernels.kernel_expansion), `dag` a TreeDag with one `add_tree` per mistake
(scored by combined_scorer.CombinedScorer). They make the same mistakes in the same order up to
floating-point rounding.
Forests scored after training must share the label and production interners of the training
forest (read_svmlight_tk(path, train.forest.labels, train.forest.productions)).

Optional vector part, SVM-light-TK's `-C +` (combination.svmlight_tk_sum):
    K(a, b) = P(x_a, x_b) / sqrt(P(x_a, x_a) P(x_b, x_b)) + T * TK_n(a, b),
    P(x, z) = (s x.z + r)^d,
on the instances' binary vectors (a zero P(x, x) replaced by 1, as combination.polynomial_gram):
the plain store sums P_n over the mistake vectors (any degree), the dag store holds the sum as
an explicit weight table (poly2_table.Poly2Table: degree 1 or 2) and scores an instance with
combined_scorer.CombinedScorer.

Uneven treatment of the classes (optional, both off by default):
- margins (Li, Zaragoza, Herbrich, Shawe-Taylor & Kandola 2002, "The perceptron algorithm with
  uneven margins", PAUM): an update happens when y_t s(x_t) <= tau_{y_t}, with margins
  tau_{+1} = margin_positive, tau_{-1} = margin_negative (0, 0: the perceptron);
- positive_weight c: an update on a positive instance adds c y_t K(x_t, .) instead of
  y_t K(x_t, .), the perceptron form of SVM-light's `-j` cost factor.
With them, "mistake" above means update and y_m its weight y_m c_{y_m}; the voted and averaged
formulas are unchanged.

Which prediction is which: `decision_function` gives the averaged perceptron (average=True, the
default) or the last one; both are a single kernel expansion, so a DAG model (TreeKernelModel
with method "dag") computes them exactly. The voted perceptron's sum_k c_k sign(v_k . x) needs
each prefix sum v_k . x = sum_{m < k} y_m K(x_m, x), i.e. every per-mistake kernel value, which
one DAG score (a sum over all mistakes) does not give. `voted_decision_function` computes it
exactly either way: for the plain store from the per-mistake kernels (kernels.gram_matrix, M
tree kernels per instance), for the dag store from postings of the DAG nodes and vector
features (voted_dag.VotedDag: each per-mistake kernel is a sum over the DAG nodes the instance
matches). Training is the same for the three predictions: each step scores x_t against the
current v_k, one DAG score. The headline figure of benchmarks/srl_boundary.py (all of train.tk)
is the averaged perceptron's.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from polyparse.classifiers.tree_kernels.combined_scorer import CombinedScorer
from polyparse.classifiers.tree_kernels.dag import TreeDag
from polyparse.classifiers.tree_kernels.kernels import gram_matrix, kernel_expansion, self_kernels
from polyparse.classifiers.tree_kernels.poly2_table import Poly2Table
from polyparse.classifiers.tree_kernels.tree_model import TreeKernelModel, TreeKernelSpec
from polyparse.classifiers.tree_kernels.voted_dag import VotedDag
from polyparse.features.binary_matrix import BinaryMatrix, BinaryMatrixLike, optional_binary_matrix
from polyparse.features.trees import TreeForest

STORES = ("plain", "dag")
# fit reports its progress every this many instances.
PROGRESS_STEP = 4096
# A prefix sum v_k . x within VOTE_TIE times the sum of its terms' magnitudes is a tie (sign 0),
# as in voted_dag.pyx: its sign would be rounding noise of a sum that is 0 in exact arithmetic.
VOTE_TIE = 1e-10


# The most steps (epochs x instances) one fit takes: it keeps every step's score (8 bytes).
MAX_STEPS = 1 << 28

class _Polynomial:
    """The normalised polynomial kernel P_n(x, z) = (s x.z + r)^d / sqrt(P(x, x) P(z, z)) of
    binary vectors, against a growing list of model vectors through an inverted index."""

    def __init__(self, degree: int, s: float, r: float) -> None:
        self.degree, self.s, self.r = degree, s, r
        self.postings: dict[int, list[int]] = {}
        self.norms: list[float] = []

    def norm(self, n_ones: np.ndarray) -> np.ndarray:
        value = (self.s * np.asarray(n_ones, dtype=np.float64) + self.r) ** self.degree
        return np.where(value == 0.0, 1.0, value)

    def add(self, ids: np.ndarray) -> None:
        entry = len(self.norms)
        for f in ids.tolist():
            self.postings.setdefault(f, []).append(entry)
        self.norms.append(float(self.norm(ids.size)))

    def kernels(self, ids: np.ndarray) -> np.ndarray:
        """P_n(x, model vector e) for every model vector e."""
        hits = [self.postings[f] for f in ids.tolist() if f in self.postings]
        flat = np.concatenate(hits).astype(np.int64) if hits else np.zeros(0, dtype=np.int64)
        dots = np.bincount(flat, minlength=len(self.norms)).astype(np.float64)
        own = float(self.norm(ids.size))
        return (self.s * dots + self.r) ** self.degree / np.sqrt(own * np.asarray(self.norms))


class _PlainStore:
    """sum_m weight_m K_n(x_m, .) as coefficients weight_m / sqrt(K(x_m, x_m)) over the
    training forest (un-normalised expansion, then divided by sqrt(K(x, x))); with a vector
    part, plus sum_m weight_m P_n(v_m, .) and the tree part times tree_constant."""

    def __init__(self, forest: TreeForest, norms: np.ndarray, kind: str, lam: float,
                 mu: float, vectors: BinaryMatrix | None = None,
                 polynomial: tuple[int, float, float] | None = None,
                 tree_constant: float = 1.0) -> None:
        self.forest = forest
        self.norms = norms
        self.kind, self.lam, self.mu = kind, lam, mu
        self.coefficients = np.zeros(len(forest), dtype=np.float64)
        self._row = np.zeros(1, dtype=np.int64)
        self.vectors = vectors
        self.poly = _Polynomial(*polynomial) if polynomial is not None else None
        self.tree_constant = tree_constant
        self.entry_weights: list[float] = []

    def add(self, t: int, weight: float) -> None:
        if self.norms[t] > 0.0 and weight != 0.0:
            self.coefficients[t] += weight / np.sqrt(self.norms[t])
        if self.poly is not None and weight != 0.0:
            self.poly.add(self.vectors.row(t))
            self.entry_weights.append(weight)

    def _vector_score(self, ids: np.ndarray) -> float:
        if not self.entry_weights:
            return 0.0
        return float(np.dot(self.entry_weights, self.poly.kernels(ids)))

    def score(self, t: int) -> float:
        tree = 0.0
        if self.norms[t] > 0.0:
            self._row[0] = t
            raw = kernel_expansion(self.forest, self.forest, self.coefficients, self.kind,
                                   self.lam, self.mu, False, rows_x=self._row)[0]
            tree = float(raw / np.sqrt(self.norms[t]))
        if self.poly is None:
            return tree
        return self._vector_score(self.vectors.row(t)) + self.tree_constant * tree


class _DagStore:
    """sum_m weight_m K_n(x_m, .) as a TreeDag (each distinct subtree stored once); with a
    vector part, plus the explicit table of sum_m weight_m P_n(v_m, .) and the DAG part times
    tree_constant."""

    def __init__(self, forest: TreeForest, kind: str, lam: float, mu: float,
                 vectors: BinaryMatrix | None = None,
                 polynomial: tuple[int, float, float] | None = None,
                 tree_constant: float = 1.0) -> None:
        self.forest = forest
        self.vectors = vectors
        self.dag = TreeDag(kind, lam, mu, True)
        self.dag._check_interners(forest)
        self.table = Poly2Table(*polynomial) if polynomial is not None else None
        self.scorer = CombinedScorer(self.dag, self.table,
                                     1.0 if self.table is None else tree_constant, forest,
                                     vectors if self.table is not None else None)

    def add(self, t: int, weight: float) -> None:
        self.dag.add_tree(self.forest, t, weight)
        if self.table is not None and weight != 0.0:
            self.table.add(self.vectors.row(t), weight)

    def score(self, t: int) -> float:
        return self.scorer.score(t)


class TreePerceptron:
    """Kernel perceptron over trees (normalised tree kernel `kind` with lam, mu), trained
    online in file order for `epochs` passes; `average` predicts with the averaged perceptron
    (Freund & Schapire), else with the last one. `voted_decision_function` gives the voted
    perceptron's sum_k c_k sign(v_k . x). With `degree`, the kernel is the `-C +` sum
    P_n + tree_constant * TK_n with the instances' binary vectors. margin_positive,
    margin_negative and positive_weight give the classes uneven treatment (module notes)."""

    def __init__(self, kind: str = "sst", lam: float = 0.4, mu: float = 0.4, epochs: int = 1,
                 store: str = "dag", average: bool = True, degree: int | None = None,
                 s: float = 1.0, r: float = 1.0, tree_constant: float = 1.0,
                 margin_positive: float = 0.0, margin_negative: float = 0.0,
                 positive_weight: float = 1.0) -> None:
        if store not in STORES:
            raise ValueError(f"store must be one of {STORES}, not {store!r}")
        if epochs < 1:
            raise ValueError(f"epochs must be >= 1, not {epochs}")
        if degree is not None and store == "dag" and degree not in (1, 2):
            raise ValueError(f"the dag store's vector part holds degree 1 or 2, not {degree}")
        if not positive_weight > 0:
            raise ValueError(f"positive_weight must be positive, not {positive_weight}")
        self.degree, self.s, self.r, self.tree_constant = degree, s, r, tree_constant
        self.kind, self.lam, self.mu = kind, lam, mu
        self.epochs = epochs
        self.store = store
        self.average = average
        self.margin_positive, self.margin_negative = margin_positive, margin_negative
        self.positive_weight = positive_weight
        self.mistake_rows = np.zeros(0, dtype=np.int64)
        self.mistake_steps = np.zeros(0, dtype=np.int64)
        self.mistake_labels = np.zeros(0, dtype=np.float64)
        self.mistake_weights = np.zeros(0, dtype=np.float64)
        self.train_scores = np.zeros(0, dtype=np.float64)
        self.n_seen = 0
        self._forest: TreeForest | None = None
        self._last: _PlainStore | _DagStore | None = None
        self._vectors: BinaryMatrix | None = None
        self._models: dict[bool, TreeKernelModel] = {}
        self._voted: VotedDag | None = None

    @property
    def spec(self) -> TreeKernelSpec:
        return TreeKernelSpec(self.kind, self.lam, self.mu, self.degree, self.s, self.r,
                              self.tree_constant)

    def _new_store(self, forest: TreeForest, norms: np.ndarray) -> _PlainStore | _DagStore:
        polynomial = None if self.degree is None else (self.degree, self.s, self.r)
        if self.store == "plain":
            return _PlainStore(forest, norms, self.kind, self.lam, self.mu, self._vectors,
                               polynomial, self.tree_constant)
        return _DagStore(forest, self.kind, self.lam, self.mu, self._vectors, polynomial,
                         self.tree_constant)

    def _check_vectors(self, forest: TreeForest,
                       vectors: BinaryMatrixLike | None) -> BinaryMatrix | None:
        """vectors as a BinaryMatrix (features.binary_matrix.as_binary_matrix), one row per tree
        of forest when the kernel has a vector part."""
        vectors = optional_binary_matrix(vectors)
        if self.degree is not None and (vectors is None or len(vectors) != len(forest)):
            raise ValueError("the vector part needs one binary vector per tree")
        return vectors

    # Kernel perceptron (Rosenblatt 1958; Freund & Schapire 1999, section 2), with the update
    # rule of PAUM (Li et al. 2002, Algorithm 1) when margins are given: an update when
    # y_t s(x_t) <= tau_{y_t}, adding c_{y_t} y_t K(x_t, .).
    def fit(self, forest: TreeForest, y: np.ndarray, vectors: BinaryMatrixLike | None = None,
            progress: Callable[[int], object] | None = None) -> TreePerceptron:
        """Train on tree t of forest (and vectors row t, with `degree`) with label y[t]
        (+1 / -1), t in order, `epochs` times; progress(n) is told of every PROGRESS_STEP
        instances seen (and of the rest at the end of each epoch)."""
        labels = np.asarray(y, dtype=np.float64)
        if labels.shape != (len(forest),):
            raise ValueError(f"{labels.size} labels for {len(forest)} trees")
        if not np.all(np.abs(labels) == 1.0):
            raise ValueError("labels must be +1 or -1")
        self._vectors = vectors = self._check_vectors(forest, vectors)
        norms = self_kernels(forest, self.kind, self.lam, self.mu)
        model = self._new_store(forest, norms)
        margins = np.where(labels > 0, self.margin_positive, self.margin_negative).tolist()
        updates = (labels * np.where(labels > 0, self.positive_weight, 1.0)).tolist()
        rows: list[int] = []
        steps: list[int] = []
        n_steps = len(forest) * self.epochs
        if n_steps > MAX_STEPS:
            raise ValueError(f"{self.epochs:,} epochs over {len(forest):,} instances are "
                             f"{n_steps:,} steps, more than the {MAX_STEPS:,} a run keeps the "
                             "scores of (2 GiB)")
        scores = np.empty(n_steps, dtype=np.float64)
        step = reported = 0
        signs = labels.tolist()
        score = model.score
        for _ in range(self.epochs):
            for t in range(len(forest)):
                value = score(t)
                scores[step] = value
                if signs[t] * value <= margins[t]:
                    model.add(t, updates[t])
                    rows.append(t)
                    steps.append(step)
                step += 1
                if progress is not None and step - reported == PROGRESS_STEP:
                    progress(PROGRESS_STEP)
                    reported = step
            if progress is not None and step > reported:
                progress(step - reported)
                reported = step
        self._forest = forest
        self._norms = norms
        self.n_seen = step
        self.mistake_rows = np.asarray(rows, dtype=np.int64)
        self.mistake_steps = np.asarray(steps, dtype=np.int64)
        self.mistake_labels = labels[self.mistake_rows] if rows else np.zeros(0)
        self.mistake_weights = (np.asarray(updates)[self.mistake_rows] if rows
                                else np.zeros(0))
        self.train_scores = scores
        self._last = model
        self._models = {}
        self._voted = None
        return self

    def averaging_weights(self) -> np.ndarray:
        """w_m = T - t_m: the examples v_{m+1}, v_{m+2}, ... survive in all."""
        return (self.n_seen - self.mistake_steps).astype(np.float64)

    def survival_counts(self) -> np.ndarray:
        """c_{m+1} = t_{m+1} - t_m (t_{M+1} = T) of the perceptron made by mistake m."""
        return np.diff(np.append(self.mistake_steps, self.n_seen)).astype(np.float64)

    def _check_fitted(self) -> None:
        if self._forest is None:
            raise RuntimeError("the perceptron is not trained (call fit first)")

    def model(self, average: bool | None = None) -> TreeKernelModel:
        """The averaged (sum_m y_m w_m K(x_m, .)) or last (sum_m y_m K(x_m, .)) perceptron as a
        TreeKernelModel (average: self.average by default)."""
        self._check_fitted()
        average = self.average if average is None else average
        if average not in self._models:
            weights = self.mistake_weights * (self.averaging_weights() if average else 1.0)
            self._models[average] = TreeKernelModel.from_weighted_trees(
                self.spec, self._forest, self.mistake_rows, weights, self._vectors)
        return self._models[average]

    def decision_function(self, forest: TreeForest,
                          vectors: BinaryMatrixLike | None = None) -> np.ndarray:
        """Averaged sum_m y_m w_m K(x_m, x) (average) or last sum_m y_m K(x_m, x): by the DAG
        model for the dag store, by the plain kernel sum for the plain one."""
        self._check_fitted()
        vectors = self._check_vectors(forest, vectors)
        method = "dag" if self.store == "dag" else "plain"
        return self.model().decision_function(forest, vectors, method)

    def predict(self, forest: TreeForest, vectors: BinaryMatrixLike | None = None) -> np.ndarray:
        """+1 where the decision value is > 0, else -1."""
        return np.where(self.decision_function(forest, vectors) > 0.0, 1, -1)

    def mistake_kernels(self, forest: TreeForest, rows: np.ndarray | None = None,
                        vectors: BinaryMatrixLike | None = None) -> np.ndarray:
        """K(x_m, x)[i, m] for the trees `rows` of forest (all by default) and mistakes m."""
        self._check_fitted()
        vectors = self._check_vectors(forest, vectors)
        index = np.arange(len(forest)) if rows is None else np.asarray(rows, dtype=np.int64)
        distinct, position = np.unique(self.mistake_rows, return_inverse=True)
        gram = gram_matrix(forest, self._forest, self.kind, self.lam, self.mu, True,
                           rows_a=index, rows_b=distinct)[:, position]
        if self.degree is None:
            return gram
        polynomial = _Polynomial(self.degree, self.s, self.r)
        for t in self.mistake_rows.tolist():
            polynomial.add(self._vectors.row(t))
        vector = np.array([polynomial.kernels(vectors.row(i)) for i in index.tolist()])
        return vector.reshape(gram.shape) + self.tree_constant * gram

    def voted_decision_function(self, forest: TreeForest,
                                vectors: BinaryMatrixLike | None = None,
                                chunk: int = 1000) -> np.ndarray:
        """sum_k c_k sign(v_k . x) by a prefix sum over the mistakes' kernel values: from the
        postings of a DAG of the mistake trees (voted_dag.VotedDag) for the dag store, from
        per-mistake kernels (kernels.gram_matrix) for the plain one."""
        self._check_fitted()
        vectors = self._check_vectors(forest, vectors)
        counts = self.survival_counts()
        out = np.zeros(len(forest), dtype=np.float64)
        if counts.size == 0:
            return out
        if self.store == "dag" and self.degree in (None, 1, 2):
            return self._voted_dag().scores(forest, counts, vectors)
        for start in range(0, len(forest), chunk):
            rows = np.arange(start, min(start + chunk, len(forest)))
            kernels = self.mistake_kernels(forest, rows, vectors)
            terms = kernels * self.mistake_weights
            partial = np.cumsum(terms, axis=1)
            ties = np.abs(partial) <= VOTE_TIE * np.cumsum(np.abs(terms), axis=1)
            out[rows] = np.where(ties, 0.0, np.sign(partial)) @ counts
        return out

    def _voted_dag(self) -> VotedDag:
        if self._voted is None:
            voted = VotedDag(self.kind, self.lam, self.mu, self.degree, self.s, self.r,
                             self.tree_constant)
            for t, update in zip(self.mistake_rows.tolist(), self.mistake_weights.tolist()):
                voted.add(self._forest, t, update, self._vectors)
            self._voted = voted
        return self._voted

    def predict_voted(self, forest: TreeForest,
                      vectors: BinaryMatrixLike | None = None) -> np.ndarray:
        return np.where(self.voted_decision_function(forest, vectors) > 0.0, 1, -1)

    @property
    def n_mistakes(self) -> int:
        return int(self.mistake_rows.size)

    @property
    def n_tree_nodes(self) -> int:
        """Nodes of the mistake trees, counted once per mistake (the plain model's size)."""
        self._check_fitted()
        sizes = np.diff(self._forest.tree_ptr)[self.mistake_rows]
        return int(sizes[self._norms[self.mistake_rows] > 0.0].sum())

    @property
    def n_dag_nodes(self) -> int:
        """Nodes of the DAG of the mistake trees (the dag store's size; 0 for plain)."""
        self._check_fitted()
        return int(self._last.dag.n_nodes) if isinstance(self._last, _DagStore) else 0
