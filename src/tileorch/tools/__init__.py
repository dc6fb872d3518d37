"""Command-line drivers (``tileorch-opt``)."""
