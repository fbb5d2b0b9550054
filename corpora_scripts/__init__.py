"""Thin scripts that turn raw corpora into the inputs the applications read and print corpus
statistics (README.md in this folder lists them)."""
