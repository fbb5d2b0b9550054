"""A gold sentence and what each system made of it, unit by unit (CoNLL words or bunsetsu): the
common ground of the evaluation reports, whatever the format. A system's tree is given over the
gold units (its heads as gold units, -1 where it has none), with each unit's judgement."""
from __future__ import annotations

from dataclasses import dataclass

from polyparse.parser.views.sentence_tree import SentenceTree

__all__ = ["HEAD_WRONG", "LABEL_WRONG", "NOT_SCORED", "JudgedSentence", "JudgedUnit"]

# The marks of a unit in a comparison picture (svg_tree's comparison_svg).
HEAD_WRONG, LABEL_WRONG, NOT_SCORED = "head-wrong", "label-wrong", "excluded"


@dataclass(frozen=True, slots=True)
class JudgedUnit:
    """One gold unit as one system has it: its head there (a gold unit from 1, 0 for the root,
    -1 for none), its label there ("" for none), whether the head is right, whether head and
    label are (for units without labels: the head), and whether the scores leave it out."""

    system_head: int
    system_label: str
    head_right: bool
    both_right: bool
    excluded: bool = False

    @property
    def mark(self) -> str:
        """"" (right), HEAD_WRONG, LABEL_WRONG or NOT_SCORED."""
        if self.excluded:
            return NOT_SCORED
        if not self.head_right:
            return HEAD_WRONG
        return "" if self.both_right else LABEL_WRONG


@dataclass(frozen=True)
class JudgedSentence:
    """Sentence number (from 1) of the gold file, its gold tree, and per system its tree, over
    the gold units, or over its own when same_units says they differ (a system that made its
    own bunsetsu), and its judged units (one per gold unit; a unit no score counts, like the
    last bunsetsu of a Japanese sentence, is excluded)."""

    number: int
    gold: SentenceTree
    systems: tuple[SentenceTree, ...]
    judged: tuple[tuple[JudgedUnit, ...], ...]
    same_units: tuple[bool, ...] = ()

    def has_gold_units(self, system: int) -> bool:
        return not self.same_units or self.same_units[system]

    def errors(self, system: int) -> int:
        """The scored units the system has wrong (head or label)."""
        return sum(1 for unit in self.judged[system] if not unit.excluded and
                   not unit.both_right)
