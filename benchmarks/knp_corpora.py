"""The KNP corpora of the Japanese benchmarks (KWDLC, the web answers corpus) under the corpora
folder: a corpus's documents of one id list joined into one file, as
corpora_scripts/knp_documents.py joins them."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

KNP_DOCUMENTS = Path(__file__).resolve().parents[1] / "corpora_scripts" / "knp_documents.py"


def kwdlc_corpora(corpora: str, ids: str) -> Path:
    """The corpora folder, or the end of the benchmark where it holds no KWDLC id list ids."""
    folder = Path(corpora)
    if not (folder / "kwdlc" / "id" / ids).is_file():
        raise SystemExit(f"no KWDLC under {folder}")
    return folder


def documents(corpora: Path, corpus: str, ids: str, target: Path) -> Path:
    """target, written with the documents of corpora/corpus/id/ids in order."""
    subprocess.run([sys.executable, str(KNP_DOCUMENTS), "--ids", str(corpora / corpus / "id" / ids),
                    "--corpus", str(corpora / corpus / "knp"), "-o", str(target)], check=True)
    return target
