"""The ``podium`` command line: one click group; each installed track adds its sub-group."""
