n=0
while 1:print(n*n);n+=1
