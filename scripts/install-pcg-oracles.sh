#!/usr/bin/env bash
# Install the official Python packages of PCG response generation, each in its own virtual environment under
# .oracle/, as black-box oracles for tests/integration/tracks/pcg/test_generate_oracle.py:
#   .oracle/chatgpt4pcg-1.2.2/   (2024)      .oracle/llms4pcg-2.0.1/   (2025)
# They are only ever run as subprocesses against a loopback chat server; podium never imports them.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
mkdir -p .oracle
for package in chatgpt4pcg==1.2.2 llms4pcg==2.0.1; do
  name="${package%%==*}"; version="${package##*==}"; venv=".oracle/${name}-${version}"
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import ${name}.competition" 2>/dev/null; then
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "$package"
  fi
  "$venv/bin/python" -c "import ${name}.competition" && echo "oracle: $package installed in $venv/"
done
