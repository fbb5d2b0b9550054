"""Start-up is a feature: what `import polyparse` and each command load (sets of modules in a
fresh interpreter, never timings)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import polyparse

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "parser" / "models" / "example.conllu"
KNP_EXAMPLE = ROOT / "parser" / "models" / "example.knp"
# Loaded by none of the short commands: the tree kernels and what they read trees with.
TREES = {"nltk", "scipy", "polyparse.classifiers.tree_kernels", "polyparse.features.trees", "polyparse.features.svmlight_tk"}
# The trainers, which no parse needs.
TRAINERS = {"polyparse.classifiers.kernel_svm.smo", "polyparse.classifiers.online.kernel_slicing",
            "polyparse.classifiers.linear.poly2_linear", "polyparse.parser.dependency.oracle_rows",
            "polyparse.parser.dependency.training"}


def loaded_after(code: str) -> set[str]:
    """The modules (and their packages) a fresh interpreter holds after running code."""
    script = (f"{code}\nimport json, sys\n"
              "names = set()\n"
              "for name in sys.modules:\n"
              "    parts = name.split('.')\n"
              "    names.update('.'.join(parts[:k]) for k in range(1, len(parts) + 1))\n"
              "print(json.dumps(sorted(names)))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            cwd=ROOT, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout.splitlines()[-1]))


def command_code(*argv: str) -> str:
    """Code running `polyparse argv` in-process with its output thrown away."""
    return ("import contextlib, io\n"
            "from polyparse.parser.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    code = main({list(argv)!r})\n"
            "assert code == 0, code\n")


def test_import_polyparse_loads_nothing_heavy() -> None:
    loaded = loaded_after("import polyparse")
    assert not loaded & {"numpy", "nltk", "scipy", "tqdm", "conllu", "classifiers", "parser",
                         "features", "importlib.metadata"}


def test_the_version_and_the_help_load_no_group() -> None:
    loaded = loaded_after("from polyparse.parser.cli.main import build_parser\n"
                          "build_parser(['--version']).format_help()")
    assert not loaded & {"numpy", "polyparse.parser.cli.dep", "polyparse.parser.cli.ja", "polyparse.parser.cli.srl",
                         "polyparse.parser.cli.clf", "polyparse.parser.cli.tag"}


def test_dep_parse_loads_the_parser_and_nothing_else() -> None:
    loaded = loaded_after(command_code("dep", "parse", str(EXAMPLE)))
    assert {"polyparse.parser.dependency.decoder", "polyparse.classifiers.evaluators"} <= loaded
    # The bundled parser's classifiers are `linear` ones, whose class (LinearSVM of
    # classifiers/linear/poly2_linear_svm.py) imports poly2_linear with it.
    parse_time = TRAINERS - {"polyparse.classifiers.linear.poly2_linear"}
    assert not loaded & (TREES | parse_time | {"polyparse.parser.bunsetsu", "polyparse.parser.srl", "polyparse.parser.cli.clf",
                                             "tqdm"})
    # The bundled model holds split evaluators: nothing builds evaluators, trains in threads or
    # reaches for NumPy's masked arrays (which np.unique imports); tagged input loads no tagger.
    assert not loaded & {"polyparse.classifiers.evaluators.modes", "concurrent.futures", "numpy.ma",
                         "polyparse.parser.tagging.tagger"}


def test_dask_is_loaded_only_for_a_cluster(tmp_path: Path) -> None:
    """A parse in one process loads no scale-out machinery; --workers a process pool, not
    Dask, which only --scheduler loads."""
    out = str(tmp_path / "out.conllu")
    alone = loaded_after(command_code("dep", "parse", str(EXAMPLE), "-o", out))
    assert not alone & {"dask", "distributed", "polyparse.parser.scale_out.runners", "multiprocessing"}
    pooled = loaded_after(command_code("dep", "parse", str(EXAMPLE), "--workers", "2", "-o",
                                       out))
    assert "polyparse.parser.scale_out.runners" in pooled
    assert not pooled & {"dask", "distributed"}
    loaded = loaded_after("import polyparse\npolyparse.parse_files")
    assert not loaded & {"dask", "distributed"}


def test_ja_parse_loads_the_bunsetsu_parser_and_nothing_else(tmp_path: Path) -> None:
    loaded = loaded_after(command_code("ja", "parse", str(KNP_EXAMPLE), "-o",
                                       str(tmp_path / "out.knp")))
    assert "polyparse.parser.bunsetsu.bunsetsu_decoder" in loaded
    assert not loaded & (TREES | TRAINERS | {"polyparse.parser.dependency", "polyparse.parser.srl", "tqdm"})


def test_tokenize_loads_no_parser_and_no_trainer(tmp_path: Path) -> None:
    text = tmp_path / "text.txt"
    text.write_text("The dog barked. It wasn't late.\n", encoding="utf-8")
    loaded = loaded_after(command_code("tokenize", "tokenize", str(text), "-o",
                                       str(tmp_path / "out.conllu")))
    assert "polyparse.parser.tokenize.segmenter" in loaded
    assert not loaded & (TREES | TRAINERS | {"polyparse.parser.dependency.dependency_parser",
                                             "polyparse.parser.segmentation.training", "polyparse.parser.bunsetsu",
                                             "polyparse.parser.srl", "tqdm"})
    loaded = loaded_after("import polyparse\npolyparse.tokenize('Hello there.')")
    assert not loaded & (TREES | TRAINERS | {"polyparse.parser.dependency", "tqdm"})


def test_evaluation_loads_no_numpy(tmp_path: Path) -> None:
    parsed = tmp_path / "parsed.conllu"
    loaded_after(command_code("dep", "parse", str(EXAMPLE), "-o", str(parsed)))
    loaded = loaded_after(command_code("dep", "evaluate", str(parsed), str(parsed)))
    assert not loaded & {"numpy", "polyparse.classifiers.model_file", "polyparse.parser.dependency.dependency_parser"}


def test_tag_evaluate_loads_no_numpy_and_no_tagger() -> None:
    loaded = loaded_after(command_code("tag", "evaluate", str(EXAMPLE), str(EXAMPLE)))
    assert not loaded & {"numpy", "polyparse.parser.tagging.tagger", "polyparse.parser.dependency.dependency_parser"}


def test_load_parser_loads_no_trainer_and_no_tree_kernel() -> None:
    loaded = loaded_after("import polyparse\npolyparse.load_parser()")
    assert not loaded & (TREES | TRAINERS | {"polyparse.parser.views"})


def test_the_views_load_when_shown_and_only_what_is_shown(tmp_path: Path) -> None:
    """Parsing and scoring load no view; a text tree loads no picture and no page, a report
    is loaded with --html."""
    parsed = tmp_path / "parsed.conllu"
    assert "polyparse.parser.views" not in loaded_after(command_code("dep", "parse", str(EXAMPLE), "-o",
                                                           str(parsed)))
    assert "polyparse.parser.views" not in loaded_after(command_code("dep", "evaluate", str(parsed),
                                                           str(parsed)))
    text = loaded_after(command_code("dep", "show", str(parsed)))
    assert "polyparse.parser.views.text_tree" in text
    assert not text & {"polyparse.parser.views.svg_tree", "polyparse.parser.views.html_page", "numpy",
                       "polyparse.parser.dependency.dependency_parser"}
    report = loaded_after(command_code("dep", "evaluate", str(parsed), str(parsed), "--html",
                                       str(tmp_path / "report.html")))
    assert {"polyparse.parser.views.dependency_report", "polyparse.parser.views.svg_tree"} <= report
    assert "numpy" not in report


@pytest.mark.parametrize("name", polyparse.__all__)
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(polyparse, name) is not None
    assert name in dir(polyparse)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'parse_everything'"):
        polyparse.parse_everything  # noqa: B018
