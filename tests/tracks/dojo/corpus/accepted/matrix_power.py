def mul(x, y):
    return [[sum(x[i][k] * y[k][j] for k in range(2)) for j in range(2)] for i in range(2)]


def power(m, n):
    result = [[1, 0], [0, 1]]
    while n:
        if n & 1:
            result = mul(result, m)
        m = mul(m, m)
        n >>= 1
    return result


for n in range(200):
    print(power([[1, 1], [1, 0]], n)[0][1])
