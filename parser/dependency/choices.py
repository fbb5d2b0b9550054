"""The dependency parser's names and limits, defined once: the configurations, the training
and opening services, the command line, the Python API and the Cython beam search all read
them from here. Plain Python, so that the command line checks its options before NumPy loads."""
from __future__ import annotations

# The classifier name of the beam-search parser (a structured perceptron over whole transition
# sequences, parser/dependency/beam_parser.py); every other name is a backend of the greedy
# parser's per-POS classifiers (parser/dependency/dependency_parser.py).
STRUCTURED = "structured-perceptron"
# The tags the feature templates read: XPOS (a missing XPOS read as the UPOS) or UPOS.
TAG_COLUMNS = ("xpos", "upos")
# The tags that split the greedy parser's states (none: one split).
SPLIT_COLUMNS = (*TAG_COLUMNS, "none")
# The greedy parser's template sets (parser/dependency/feature_templates.pyx).
FEATURE_SETS = ("chang2010", "rich", "morph")
# The beam search's perceptron updates (Huang, Fayong & Guo 2012; Collins & Roark 2004);
# parser/dependency/beam_search.pyx maps each name to its own code.
UPDATES = ("max-violation", "early")
# The widest beam a model is trained or parsed with (wide enough to hold every prefix of a
# short sentence, as the exhaustive-search test of the beam search asks).
MAX_BEAM = 256
