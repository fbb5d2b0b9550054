"""Tree kernels (SST, ST, PT, ET) over features.trees.TreeForest, and their combinations."""
