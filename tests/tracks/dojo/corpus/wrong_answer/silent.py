# prints nothing
