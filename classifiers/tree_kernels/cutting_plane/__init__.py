"""Cutting-plane SVMs over tree kernels (Severyn & Moschitti 2010): uSVM, SDAG, SDAG+."""
