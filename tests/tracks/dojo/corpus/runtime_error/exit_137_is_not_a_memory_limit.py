import os
os._exit(137)
