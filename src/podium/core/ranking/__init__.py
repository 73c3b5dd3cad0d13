"""Leaderboards: declared sort keys, tie-breaks and rank assignment, shared by every track."""
