import os
print(0)
os._exit(152)
