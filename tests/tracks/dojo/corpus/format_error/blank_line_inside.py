a,b=0,1
for n in range(200):
 print(a)
 if n==5:print()
 a,b=b,a+b
