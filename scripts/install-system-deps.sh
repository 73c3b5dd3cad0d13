#!/usr/bin/env bash
# Install the system packages podium's tests need, only where they are missing (Debian/Ubuntu, apt):
#   bubblewrap   the sandbox that runs untrusted solvers (bwrap)
#   libseccomp2  compiles the sandbox's system-call filter (on every Debian with apt; checked anyway)
#   util-linux   unshare and prlimit, which start each sandboxed run (essential on Debian; checked anyway)
#   postgresql   a real PostgreSQL server that the dojo tests start in a temporary folder
#   fonts-wqy-zenhei  Chinese glyphs for that browser: the wmeval rubric is English and Chinese (a .ttc file, so
#                the letter classifier's training fonts, TTF/OTF only, are unchanged)
#   g++          builds the model server the PCG tests talk to (llama-cpp-python has no binary wheel on PyPI)
#   chromium     the real browser the dojo page tests drive through Playwright (/usr/bin/chromium; Playwright's
#                own browser downloads are never used)
# Runs as root on CI (fresh Debian 12); elsewhere it uses sudo when it has to install something.
set -euo pipefail

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
/sbin/ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2 ' || missing+=(libseccomp2)
{ command -v unshare >/dev/null 2>&1 && command -v prlimit >/dev/null 2>&1; } || missing+=(util-linux)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
{ [ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1; } || missing+=(chromium)
{ command -v cc >/dev/null 2>&1 && command -v c++ >/dev/null 2>&1; } || missing+=(g++)
dpkg-query -W -f='${db:Status-Status}' fonts-wqy-zenhei 2>/dev/null | grep -qx installed || missing+=(fonts-wqy-zenhei)
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-system-deps: missing ${missing[*]} and no apt-get here; install them with your package manager" >&2
    exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "install-system-deps: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
fi
echo "install-system-deps: installing ${missing[*]}"
# shellcheck source=scripts/apt-wait.sh
. "$(dirname "$0")/apt-wait.sh"
apt_update "${sudo[@]}"
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${APT_WAIT_OPTIONS[@]}" install -y -qq --no-install-recommends "${missing[@]}"
