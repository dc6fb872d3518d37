"""Parameterised kernel builders: Python functions that write tileorch IR for a configuration."""
