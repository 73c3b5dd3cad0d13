import sys

a, b = 0, 1
for _ in range(200):
    sys.stdout.write(f"{a} \t\r\n")
    a, b = b, a + b
sys.stdout.write("\n\n")
