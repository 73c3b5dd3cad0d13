"""Allow ``python -m podium`` as a synonym for the ``podium`` command."""

from podium.cli.main import main

main()
