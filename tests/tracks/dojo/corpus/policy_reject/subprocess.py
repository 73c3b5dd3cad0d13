import subprocess
subprocess.run(["ls"])
