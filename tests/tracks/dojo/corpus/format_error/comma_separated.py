a,b=0,1
t=[]
for _ in range(200):t.append(a);a,b=b,a+b
print(*t,sep=",")
