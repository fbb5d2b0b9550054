"""`--output-dir DIR`: one part file per shard, a manifest, and `_SUCCESS`, all written by the
driver, so that a run that dies leaves parts that are whole and a manifest that says which.

    DIR/part-00000 ...       the output of shard 0, ... (written to a temporary name, renamed)
    DIR/_manifest.jsonl      line 1: the run (command, input, model and settings, with sha256s);
                             then one line per part written, in input order: its input range
                             (bytes and first line), sentences, bytes and sha256
    DIR/_SUCCESS             empty; written last, once every part is there

The parts, in order, are the output of a one-process run, byte for byte. The manifest is
rewritten whole (temporary file and rename) as parts are written, at most every
MANIFEST_SECONDS, and when the run ends, however it ends but SIGKILL. `--resume` keeps every
part the manifest lists whose file has its bytes and sha256, redoes the others, and refuses a
folder made from another input, model or settings.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from polyparse.features.errors import InputError
from polyparse.features.output_files import write_bytes, write_text
from polyparse.parser.scale_out.shards import Shard, ShardResult

MANIFEST = "_manifest.jsonl"
SUCCESS = "_SUCCESS"
MANIFEST_FORMAT = "polyparse-parts"
MANIFEST_VERSION = 1
MANIFEST_SECONDS = 2.0


def part_name(index: int) -> str:
    return f"part-{index:05d}"


def file_sha256(path: str | os.PathLike) -> str:
    """The sha256 of a regular file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def input_identity(path: str | os.PathLike, name: str, regular: bool) -> dict[str, Any]:
    """The input as an output folder records it: the path, size and sha256 of a regular file;
    standard input, a pipe or a FIFO (read once, by the run) by its name in messages."""
    if not regular:
        return {"path": name}
    return {"path": os.path.abspath(path), "size": os.path.getsize(path),
            "sha256": file_sha256(path)}


def model_identity(model: Any, model_path: str | None) -> dict[str, Any]:
    """The model as an output folder records it: the sha256 of its file, or of the bytes it
    pickles as when there is no file to read again (None)."""
    if model_path is not None:
        return {"sha256": file_sha256(model_path)}
    return {"sha256": hashlib.sha256(model.pickle_bytes()).hexdigest()}


def run_identity(command: str, path: str | os.PathLike, name: str, regular: bool, model: Any,
                 model_path: str | None, settings: dict[str, Any],
                 shard_bytes: int) -> dict[str, Any]:
    """What a run's output depends on, as a parts folder records it (see PartsDirectory)."""
    return {"command": command, "input": input_identity(path, name, regular),
            "model": model_identity(model, model_path), "settings": settings,
            "shard_bytes": shard_bytes}


class PartsDirectory:
    """The parts folder of one run; identity: what the run's output depends on (the command,
    the input's path, size and sha256, the model's sha256, the settings, the shard size), kept
    in the manifest's first line and compared by --resume."""

    def __init__(self, path: str | os.PathLike, identity: dict[str, Any],
                 resume: bool = False) -> None:
        self.path = Path(path)
        self.identity = identity
        self.entries: dict[int, dict[str, Any]] = {}
        self.kept: dict[int, dict[str, Any]] = {}
        self.written_at = 0.0
        if resume:
            self._resume()
        else:
            self._start()

    def _start(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        self.write_manifest()

    def _resume(self) -> None:
        manifest = self.path / MANIFEST
        if not manifest.is_file():
            raise InputError(f"--resume: {self.path} has no {MANIFEST}; it is not a parts "
                             "folder of polyparse (run without --resume into a new folder)")
        lines = manifest.read_text(encoding="utf-8").splitlines()
        try:
            header = json.loads(lines[0])
            entries = [json.loads(line) for line in lines[1:]]
        except (IndexError, ValueError):
            raise InputError(f"--resume: {manifest} is not a manifest polyparse "
                             "wrote") from None
        self._check_identity(header)
        (self.path / SUCCESS).unlink(missing_ok=True)
        for pattern in (".part-*.tmp", f".{MANIFEST}.*.tmp", f".{SUCCESS}.*.tmp"):
            for leftover in self.path.glob(pattern):
                leftover.unlink(missing_ok=True)
        for entry in entries:
            part = self.path / entry["part"]
            if part.is_file() and part.stat().st_size == entry["bytes"] \
                    and _sha256(part.read_bytes()) == entry["sha256"]:
                self.kept[entry["index"]] = entry
        self.entries = dict(self.kept)
        self.write_manifest()

    def _check_identity(self, header: dict[str, Any]) -> None:
        """InputError naming the first thing this run does not share with the folder's."""
        if header.get("format") != MANIFEST_FORMAT:
            raise InputError(f"--resume: {self.path / MANIFEST} is not a manifest polyparse "
                             "wrote")
        recorded = header.get("run", {})
        for key, what in (("command", "command"), ("input", "input"), ("model", "model"),
                          ("settings", "settings"), ("shard_bytes", "shard size")):
            theirs, ours = recorded.get(key), self.identity.get(key)
            if key in ("input", "model"):
                theirs, ours = (_content(value) for value in (theirs, ours))
            if theirs != ours:
                raise InputError(f"--resume: {self.path} was made from another {what} "
                                 f"({_shown(theirs)}, not {_shown(ours)}); resume it with the "
                                 "same one, or write into a new folder")

    def needs(self, shard: Shard) -> bool:
        """Whether the shard's part is still to be made (not kept from an earlier run)."""
        kept = self.kept.get(shard.index)
        return kept is None or kept["range"] != [shard.start, shard.end]

    def write(self, shard: Shard, result: ShardResult) -> None:
        """The shard's part file, then its line in the manifest (rewritten now and then)."""
        name = part_name(shard.index)
        write_bytes(self.path / name, result.output)
        self.entries[shard.index] = {
            "part": name, "index": shard.index, "input": shard.source,
            "range": [shard.start, shard.end], "first_line": shard.first_line,
            "sentences": result.records, "bytes": len(result.output),
            "sha256": _sha256(result.output), "input_sha256": _sha256(shard.data)}
        if result.tallies:
            self.entries[shard.index]["tallies"] = result.tallies
        if time.monotonic() - self.written_at >= MANIFEST_SECONDS:
            self.write_manifest()

    def write_manifest(self) -> None:
        header = {"format": MANIFEST_FORMAT, "version": MANIFEST_VERSION, "run": self.identity}
        lines = [json.dumps(header, sort_keys=True)]
        lines.extend(json.dumps(self.entries[index], sort_keys=True)
                     for index in sorted(self.entries))
        write_text(self.path / MANIFEST, "".join(f"{line}\n" for line in lines))
        self.written_at = time.monotonic()

    def finish(self, complete: bool) -> None:
        """The manifest as it stands; `_SUCCESS` after it when every part is written."""
        self.write_manifest()
        if complete:
            write_bytes(self.path / SUCCESS, b"")


def check_parts_folder(path: str, resume: bool) -> None:
    """InputError, before any work, when path cannot be a new parts folder (without resume:
    it exists and holds files) or an existing one (with resume)."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--output-dir {path}: is a file, not a folder")
    if resume:
        if not (folder / MANIFEST).is_file():
            raise InputError(f"--resume: {path} has no {MANIFEST}; it is not a parts folder "
                             "of polyparse")
        return
    if folder.is_dir() and any(folder.iterdir()):
        raise InputError(f"--output-dir {path}: the folder is not empty (give --resume to "
                         "complete the run that wrote it, or a new folder)")
    parent = folder.parent if not folder.is_dir() else folder
    while not parent.exists():
        parent = parent.parent
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"--output-dir {path}: cannot write in {parent} (permission denied)")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _content(identity: Any) -> Any:
    """What identifies an input's or a model's bytes: their size and sha256 (not the path)."""
    if not isinstance(identity, dict):
        return identity
    return {key: identity[key] for key in ("size", "sha256") if key in identity}


def _shown(value: Any) -> str:
    """A short form of an identity for a message: a sha256 cut to 12 digits."""
    if isinstance(value, dict):
        return ", ".join(f"{key} {_shown(item)}" for key, item in sorted(value.items()))
    if isinstance(value, str) and len(value) == 64:
        return value[:12]
    return str(value)
