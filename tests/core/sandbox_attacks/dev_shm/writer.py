"""Park a file in /dev/shm."""

import sys

try:
    with open(f"/dev/shm/podium-parked-{sys.argv[1]}", "w") as parked:
        parked.write("terms")
    print("parked /dev/shm")
except OSError as error:
    print("refused", error.errno)
