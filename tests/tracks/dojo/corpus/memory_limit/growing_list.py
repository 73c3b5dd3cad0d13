x=[]
while 1:x.append(bytearray(1<<20))
