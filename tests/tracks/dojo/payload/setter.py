import random
random.seed(2026)
for _ in range(300):print(random.randrange(100000,1000000))
