a,b=0,1
while 1:print(f"{a:_}");a,b=b,a+b
