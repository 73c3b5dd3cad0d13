"""Read a file parked in /tmp."""

import os
import sys

path = f"/tmp/podium-parked-{sys.argv[1]}"
try:
    with open(path) as parked:
        print("found", parked.read())
    if "--unlink" in sys.argv:
        os.remove(path)
except OSError:
    print("nothing")
