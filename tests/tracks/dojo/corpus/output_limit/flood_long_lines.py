while 1:print("9"*100000)
