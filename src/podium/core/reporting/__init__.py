"""Reporting: tables as CSV, JSON, Markdown and aligned text."""
