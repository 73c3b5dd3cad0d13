a,b=0,1
while 1:print(f"+{a}");a,b=b,a+b
