"""The KNP documents of a document id list, as KWDLC and the Wikipedia Annotated Corpus lay
them out under their `knp/` folder; the document of an id is the first of these that exists:

- `DIR/<id minus its last 5 characters>/<id>.knp` (KWDLC: `w201106-00000/w201106-0000060050.knp`);
- `DIR/<first 8 characters of the id>/<id>.knp` (the Wikipedia Annotated Corpus:
  `wiki0001/wiki00010002.knp`).
"""
from __future__ import annotations

from pathlib import Path

from polyparse.features.errors import InputError

KNP_SUFFIX = ".knp"


def candidate_paths(corpus: Path, document_id: str) -> list[Path]:
    """Where the document of document_id may be, in the order they are tried."""
    folders = [document_id[:-5], document_id[:8]]
    paths: list[Path] = []
    for folder in folders:
        path = corpus / folder / f"{document_id}{KNP_SUFFIX}"
        if folder and path not in paths:
            paths.append(path)
    return paths


def read_ids(id_file: Path) -> list[tuple[int, str]]:
    """(line number, id) of each non-blank line of id_file."""
    try:
        text = id_file.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{id_file}: not UTF-8 text ({error.reason})") from None
    ids = []
    for number, line in enumerate(text.splitlines(), start=1):
        document_id = line.strip()
        if not document_id:
            continue
        if "/" in document_id or document_id.startswith(".") or any(c.isspace()
                                                                     for c in document_id):
            raise InputError(f"{id_file}:{number}: {document_id!r} is not a document id")
        ids.append((number, document_id))
    return ids


def document_paths(id_file: Path, corpus: Path) -> list[Path]:
    """The document of every id of id_file, in order; InputError naming the id file and line
    of the first id without a document."""
    if not corpus.is_dir():
        raise InputError(f"{corpus}: no such corpus folder")
    paths = []
    for number, document_id in read_ids(id_file):
        candidates = candidate_paths(corpus, document_id)
        found = next((path for path in candidates if path.exists() and not path.is_dir()), None)
        if found is None:
            tried = ", ".join(str(path) for path in candidates)
            raise InputError(f"{id_file}:{number}: no document {document_id} (tried {tried})")
        paths.append(found)
    return paths
