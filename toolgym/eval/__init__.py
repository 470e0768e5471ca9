"""Batch evaluation and paper-style tables."""
