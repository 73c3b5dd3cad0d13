"""Park a number as the value of a SysV semaphore, which outlives the process that set it."""

import ctypes
import sys

from sem import IPC_CREAT, SETVAL, key_of, libc, number_of

token = sys.argv[1]
semaphores = libc.semget(key_of(token), 1, IPC_CREAT | 0o666)
if semaphores >= 0 and libc.semctl(semaphores, 0, SETVAL, number_of(token)) == 0:
    print("parked", number_of(token))
else:
    print("refused", ctypes.get_errno())
