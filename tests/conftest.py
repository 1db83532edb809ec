"""Test-wide settings.

MPLBACKEND is deliberately not set here: nbval's kernels inherit this environment, and they
must keep the inline backend so that notebook outputs match the stored ones. Library tests draw
on ``matplotlib.figure.Figure`` objects, which need no backend.
"""
