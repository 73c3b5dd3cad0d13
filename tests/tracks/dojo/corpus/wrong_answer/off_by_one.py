a,b=1,1
while 1:print(a);a,b=b,a+b
