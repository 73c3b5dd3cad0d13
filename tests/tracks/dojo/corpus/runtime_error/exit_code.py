print(0)
print(1)
raise SystemExit(3)
