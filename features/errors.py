"""The one exception type for bad user input: its message is a single line naming file and line."""


class InputError(Exception):
    """Bad input (file, line and problem in one line); the CLI prints it and exits non-zero."""
