"""The corpora scripts (corpora_scripts/)."""
