"""The exception for bad user input (its message a single line naming file and line), and the
warning for input that runs but cannot give the model what it needs."""


class InputError(Exception):
    """Bad input (file, line and problem in one line); the CLI prints it and exits non-zero."""


class InputWarning(UserWarning):
    """Input that runs but cannot give what was meant (tags the model never saw, a dev file that
    is the training file): one line; the CLI prints it as `polyparse: warning: ...`, the Python
    API issues it with warnings.warn, so that it can be filtered by this category."""
