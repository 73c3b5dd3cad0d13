"""Tools that work on podium but are not part of the installed package: run them from a checkout of the repo."""
