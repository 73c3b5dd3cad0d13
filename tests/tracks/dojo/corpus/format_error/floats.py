a,b=0,1
while 1:print(float(a));a,b=b,a+b
