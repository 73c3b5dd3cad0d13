"""The sandboxed process's first file: ``python3 -s -S -B STAND_INS/start.py ENTRY LOOP [FOLDER ...]``.

Python puts this file's folder (the stand-ins') first on ``sys.path``, which is how ``_podium`` is found; the driver
then replaces it with the program's own folder and the requirement FOLDERs (see ``_podium/driver.py``).
"""

import sys

from _podium.driver import main  # type: ignore[import-not-found]  # only inside the sandbox

sys.exit(main(sys.path[0], sys.argv[1:]))
