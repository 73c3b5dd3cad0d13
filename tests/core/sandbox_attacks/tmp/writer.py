"""Park a file in /tmp."""

import sys

try:
    with open(f"/tmp/podium-parked-{sys.argv[1]}", "w") as parked:
        parked.write("terms")
    print("parked /tmp")
except OSError as error:
    print("refused", error.errno)
