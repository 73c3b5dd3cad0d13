a,b=0,1
for _ in range(50):print(a);a,b=b,a+b
1/0
