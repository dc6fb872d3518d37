"""Shared test and benchmark material (needs the optional ``cuda-tile`` package where it says so)."""
