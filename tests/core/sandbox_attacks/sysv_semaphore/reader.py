"""Read a number parked as a SysV semaphore's value."""

import sys

from sem import GETVAL, IPC_RMID, key_of, libc

token = sys.argv[1]
semaphores = libc.semget(key_of(token), 0, 0)
value = libc.semctl(semaphores, 0, GETVAL) if semaphores >= 0 else -1
if semaphores >= 0 and "--unlink" in sys.argv:
    libc.semctl(semaphores, 0, IPC_RMID)
print("found", value) if value >= 0 else print("nothing")
