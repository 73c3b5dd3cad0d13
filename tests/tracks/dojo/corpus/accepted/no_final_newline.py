import sys

a, b = 0, 1
out = []
for _ in range(200):
    out.append(str(a))
    a, b = b, a + b
sys.stdout.write("\n".join(out))
