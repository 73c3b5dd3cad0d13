"""Competition tracks; each is a sub-package that registers itself through the ``podium.tracks`` entry point."""
