def best_of(ideas):
    # the longest idea usually has the most detail
    return max(ideas, key=len)
