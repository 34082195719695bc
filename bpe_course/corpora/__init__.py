"""Corpora: the dataset registry and downloads, the offline generators, and slices."""
