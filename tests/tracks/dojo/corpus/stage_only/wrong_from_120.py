a, b = 0, 1
for n in range(200):
    print(a if n < 120 else a + 1)
    a, b = b, a + b
