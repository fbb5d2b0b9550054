"""What the pickling tests share: a pickle with one byte of its model bytes changed fails with
the one line that names the class."""
from __future__ import annotations

import pickle
import re
from typing import Any

import pytest

from polyparse.classifiers.model_file import ModelFileError


def changed_pickle(pickled: bytes, payload: bytes, at: int) -> bytes:
    """The pickle with byte `at` of the model bytes inside it changed."""
    start = pickled.index(payload)
    changed = bytearray(pickled)
    changed[start + at] ^= 0x01
    return bytes(changed)


def assert_changed_payload_fails(model: Any, name: str, at: int | None = None) -> ModelFileError:
    """Unpickling model's pickle with one byte of its model bytes changed (by default the
    middle one) raises one ModelFileError line naming `pickled name`; the error is returned."""
    pickled = pickle.dumps(model)
    payload = model.pickle_bytes()
    position = len(payload) // 2 if at is None else at
    with pytest.raises(ModelFileError, match=rf"^pickled {re.escape(name)}: the model bytes do "
                                             r"not match their sha256 \(changed or cut short on "
                                             r"the way\)$") as error:
        pickle.loads(changed_pickle(pickled, payload, position))
    return error.value
