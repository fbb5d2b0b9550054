"""pa-slicing's choices, in the order of the enums of classifiers/online/kernel_slicing.pyx
(plain Python: settings are checked, and a model loaded, without the compiled trainer)."""
from __future__ import annotations

# How margins are computed; every strategy trains the same model.
STRATEGIES = ("kernel", "expand", "split", "slice")
# The online update: the perceptron, PA, PA-I and PA-II (Crammer et al. 2006).
VARIANTS = ("perceptron", "pa", "pa1", "pa2")
