"""Park data in every keyring a run can name: session, user, user-session."""

import sys

from keys import KEYRINGS, add

token = sys.argv[1]
print("parked", *(f"{name}:{add('podium-parked-' + token, 'terms ' + token, ring)}" for name, ring in KEYRINGS.items()))
