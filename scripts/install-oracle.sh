#!/usr/bin/env bash
# Install the official npm package chatgpt4pcg@1.4.1 into .oracle/ as a black-box oracle for differential tests.
# Node.js and npm come from apt when the machine lacks them. Only the package's public functions are called.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v npm >/dev/null 2>&1; then
  echo "npm not found: installing nodejs and npm with apt-get" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  # shellcheck source=scripts/apt-wait.sh
  . scripts/apt-wait.sh
  apt_update $SUDO
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get "${APT_WAIT_OPTIONS[@]}" install -y -q nodejs npm
fi
mkdir -p .oracle
npm install --prefix .oracle --no-audit --no-fund --loglevel=error chatgpt4pcg@1.4.1
node -e "require('./.oracle/node_modules/chatgpt4pcg')" && echo "oracle: chatgpt4pcg@1.4.1 installed in .oracle/"
