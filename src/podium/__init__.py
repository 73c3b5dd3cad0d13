"""podium: judge AI and programming competitions end to end.

The package has one shared core (``podium.core``), the command line (``podium.cli``) and one sub-package per
competition track (``podium.tracks.*``). Arrows point down only: tracks use the core, the core knows no track.
"""

__version__ = "0.1.0"
