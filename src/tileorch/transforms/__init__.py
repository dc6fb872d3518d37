"""Passes over the cutlass dialect and its lowerings (one module per pass)."""
