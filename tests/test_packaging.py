"""An installation adds one import name, `polyparse`: the folders features/, classifiers/ and
parser/ are polyparse.features, polyparse.classifiers and polyparse.parser, so that a user's
own parser.py or features/ package shadows nothing of polyparse's."""
from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path


def test_the_installation_adds_polyparse_and_no_other_import_name() -> None:
    top_level = importlib.metadata.distribution("polyparse").read_text("top_level.txt")
    assert top_level is not None and top_level.split() == ["polyparse"]


def test_a_script_beside_its_own_parser_and_features_uses_polyparse(tmp_path: Path) -> None:
    (tmp_path / "parser.py").write_text("raise SystemExit('the user script imported parser.py')\n")
    (tmp_path / "features").mkdir()
    (tmp_path / "features" / "__init__.py").write_text("raise SystemExit('features/ imported')\n")
    (tmp_path / "classifiers.py").write_text("raise SystemExit('classifiers.py imported')\n")
    script = tmp_path / "script.py"
    script.write_text(
        "import polyparse\n"
        "parser = polyparse.load_parser()\n"
        "tree = parser.parse([[('Dogs', 'NOUN'), ('bark', 'VERB'), ('.', 'PUNCT')]])[0]\n"
        "print(' '.join(token['deprel'] for token in tree))\n")
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["nsubj", "root", "punct"]
