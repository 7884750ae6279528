"""Bytes <-> core models: every file format retrieval-eval reads or writes."""
