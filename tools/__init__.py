"""Maintenance scripts: re-executing notebooks, student copies, the HTML course."""
