"""What a word form looks like, as the affix templates read it: its suffix and its shape."""
from __future__ import annotations

SUFFIX_LENGTH = 3
MAX_SHAPE = 8


def suffix(form: str, length: int = SUFFIX_LENGTH) -> str:
    """The last `length` characters of the lower-cased form (the whole form when shorter)."""
    return form.lower()[-length:]


def shape(form: str) -> str:
    """Character classes of the form with repeats collapsed: X upper case, x lower case, d
    digit, any other character itself ("Hello" -> "Xx", "1990s" -> "dx", "U.S." -> "X.X.");
    at most MAX_SHAPE classes."""
    classes: list[str] = []
    for char in form:
        kind = "X" if char.isupper() else "x" if char.islower() else "d" if char.isdigit() \
            else char
        if not classes or classes[-1] != kind:
            classes.append(kind)
            if len(classes) == MAX_SHAPE:
                break
    return "".join(classes)
