import threading

terms = [0] * 200


def fill(start, step):
    for n in range(start, 200, step):
        a, b = 0, 1
        for _ in range(n):
            a, b = b, a + b
        terms[n] = a


workers = [threading.Thread(target=fill, args=(i, 4)) for i in range(4)]
for worker in workers:
    worker.start()
for worker in workers:
    worker.join()
print("\n".join(map(str, terms)))
