"""Whether an input gives a parser the tags it was trained on.

A model reads some tag columns (the dependency parser its `tag_column` and `split_column`, the
Japanese parser the morphemes' parts of speech) and knows the tags each held in training.
Tokens whose tag is missing ("_") or was never seen make the model's features meaningless, and a
whole file of them parses at a fraction of the model's accuracy (a CaboCha file with IPAdic
tags given to a model trained on JUMAN's, say). TagCoverage counts both while a file is parsed
and gives one warning line when, in the worst column, they are more than `share` of the tokens.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

MISSING = "_"
# How many unknown tags a warning names, the most frequent first.
EXAMPLES = 5


def column_read(column: str, recorded: Mapping[str, Sequence[str]] | None) -> str:
    """The column a dependency model's tags come from: "xpos" (a missing XPOS read as the UPOS)
    is really "upos" when training had no XPOS at all, that is when the two columns held the same
    tags (recorded: the tags each column held in training, or None for models without them)."""
    if column == "xpos" and recorded is not None and set(recorded["xpos"]) == set(recorded["upos"]):
        return "upos"
    return column


@dataclass(frozen=True)
class TagColumn:
    """A column a model reads: its name in warnings ("XPOS"), the attribute of a sentence that
    holds its tags ("xpos"), the tags it held in training, and a sentence ending the warning."""

    name: str
    attribute: str
    known: frozenset[str]
    advice: str = ""


@dataclass
class TagCoverage:
    """Counts, per column a model reads, the tokens without a tag and those with tags the
    model never saw; unit: what the tokens are called; share: the part of the tokens above
    which the worst column is reported."""

    columns: Sequence[TagColumn]
    unit: str = "words"
    share: float = 0.1
    tokens: int = 0
    missing: dict[str, int] = field(default_factory=dict)
    unknown: dict[str, dict[str, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for column in self.columns:
            self.missing.setdefault(column.name, 0)
            self.unknown.setdefault(column.name, {})

    def add(self, sentences: Iterable[Any]) -> None:
        """Count the sentences' tags (each holds one tag per token in each column's attribute)."""
        for sentence in sentences:
            for i, column in enumerate(self.columns):
                tags = getattr(sentence, column.attribute)
                if i == 0:
                    self.tokens += len(tags)
                known, unknown = column.known, self.unknown[column.name]
                for tag in tags:
                    if tag == MISSING:
                        self.missing[column.name] += 1
                    elif tag not in known:
                        unknown[tag] = unknown.get(tag, 0) + 1

    def add_counts(self, n_tokens: int, unknown: Mapping[str, Mapping[str, int]]) -> None:
        """Count n_tokens tokens of which, per column name, `unknown` gives the tags outside the
        known ones and their counts ("_" among them counts as missing), as a fast reader finds
        them."""
        self.tokens += n_tokens
        for name, counts in unknown.items():
            for tag, n in counts.items():
                if tag == MISSING:
                    self.missing[name] += n
                else:
                    self.unknown[name][tag] = self.unknown[name].get(tag, 0) + n

    def counts(self) -> dict[str, Any]:
        """What has been counted: every field holding a count or a table of counts (a subclass's
        too), without the columns and their known tags; add_counted adds it to another."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if _is_count(getattr(self, f.name))}

    def add_counted(self, counts: Mapping[str, Any]) -> None:
        """Add what another coverage of the same model counted (its counts()), as a parse in
        shards (parser/scale_out) adds up those of its shards."""
        for name, value in counts.items():
            setattr(self, name, _sum_counts(getattr(self, name), value))

    def warning(self, source: str) -> str | None:
        """One line about the worst column when its missing and unknown tags exceed the share
        of the tokens, else None."""
        if not self.tokens or not self.columns:
            return None
        unknown = {name: sum(counts.values()) for name, counts in self.unknown.items()}
        column = max(self.columns, key=lambda c: self.missing[c.name] + unknown[c.name])
        name, missing = column.name, self.missing[column.name]
        if missing + unknown[name] <= self.share * self.tokens:
            return None
        parts = []
        if missing:
            parts.append(f"{missing} of {self.tokens} {self.unit} have no {name} "
                         f"(\"{MISSING}\")")
        if unknown[name]:
            counts = self.unknown[name]
            examples = ", ".join(sorted(counts, key=lambda tag: (-counts[tag], tag))[:EXAMPLES])
            of = "" if missing else f" of {self.tokens} {self.unit}"
            parts.append(f"{unknown[name]}{of} have {name} tags the model never saw in "
                         f"training ({examples})")
        advice = f"; {column.advice}" if column.advice else ""
        return f"{source}: {' and '.join(parts)}{advice}"


def _is_count(value: Any) -> bool:
    """An int (not a bool) or a dict of such counts, at any depth."""
    if isinstance(value, dict):
        return all(_is_count(item) for item in value.values())
    return isinstance(value, int) and not isinstance(value, bool)


def _sum_counts(mine: Any, other: Any) -> Any:
    """Two counts, or two tables of counts, added up key by key."""
    if isinstance(mine, dict):
        total = dict(mine)
        for key, value in other.items():
            total[key] = _sum_counts(total[key], value) if key in total else value
        return total
    return mine + other
