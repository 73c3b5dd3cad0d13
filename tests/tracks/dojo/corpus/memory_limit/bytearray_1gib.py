x=bytearray(1<<30)
print(len(x))
