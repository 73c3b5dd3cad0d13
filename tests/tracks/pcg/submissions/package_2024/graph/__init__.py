from .controller import plan
