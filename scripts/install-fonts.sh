#!/usr/bin/env bash
# Install the Debian font packages whose Latin capitals train the embedded letter classifier (see
# docs/pcg-classifier-model-card.md). Needed to retrain it and for the tests that measure it on held-out font
# families; `make test` runs this script, so those tests run everywhere the suite runs. The shipped weights need
# no fonts. Does nothing when every package is installed already; packages apt does not know are skipped with a
# note. Runs as root, or with sudo.
set -euo pipefail
PACKAGES=(
  fonts-dejavu-core fonts-dejavu-extra fonts-liberation fonts-liberation2 fonts-freefont-ttf fonts-urw-base35
  fonts-texgyre fonts-noto-core fonts-noto-mono fonts-crosextra-carlito fonts-crosextra-caladea fonts-croscore
  fonts-roboto-unhinted fonts-cantarell fonts-open-sans fonts-lato fonts-linuxlibertine fonts-ebgaramond
  fonts-comfortaa fonts-oxygen fonts-firacode fonts-inconsolata fonts-hack fonts-league-spartan fonts-stix
  fonts-go fonts-jetbrains-mono fonts-sil-gentiumplus fonts-sil-charis fonts-sil-andika fonts-junicode
  fonts-quicksand fonts-dosis fonts-paratype fonts-cabin fonts-karla fonts-mplus
  fonts-anonymous-pro fonts-courier-prime fonts-agave fonts-fantasque-sans fonts-hermit fonts-inter
  fonts-adf-baskervald fonts-adf-gillius fonts-adf-universalis fonts-adf-verana fonts-adf-tribun fonts-adf-libris
  fonts-adf-berenis fonts-adf-ikarius fonts-adf-romande fonts-averia-gwf fonts-bebas-neue fonts-yanone-kaffeesatz
  fonts-oflb-euterpe fonts-tuffy fonts-jura fonts-mononoki fonts-monoid fonts-glasstty fonts-cmu fonts-lmodern
  fonts-arkpandora fonts-femkeklaver fonts-f500 fonts-ecolier-court fonts-oldstandard fonts-play fonts-radisnoir
  fonts-sil-doulos fonts-dustin fonts-humor-sans fonts-staypuft
  fonts-quattrocento fonts-goudybookletter fonts-beteckna fonts-atarismall fonts-tomsontalks fonts-opendyslexic
  fonts-ocr-a fonts-3270 fonts-uralic fonts-linex
)
MISSING=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null | grep -qx installed || MISSING+=("$package")
done
[ ${#MISSING[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-fonts: no apt-get here; install these font packages (or their equivalents): ${MISSING[*]}" >&2
  exit 1
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
# shellcheck source=scripts/apt-wait.sh
. "$(dirname "$0")/apt-wait.sh"
apt_update $SUDO
AVAILABLE=()
for package in "${MISSING[@]}"; do
  candidate=$(apt-cache policy "$package" 2>/dev/null | awk '/Candidate:/ {print $2}')
  if [ -n "$candidate" ] && [ "$candidate" != "(none)" ]; then
    AVAILABLE+=("$package")
  else
    echo "install-fonts: apt has no $package, skipped" >&2
  fi
done
[ ${#AVAILABLE[@]} -eq 0 ] && exit 0
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get "${APT_WAIT_OPTIONS[@]}" install -y -q --no-install-recommends "${AVAILABLE[@]}"
echo "install-fonts: $(find /usr/share/fonts -type f \( -iname '*.ttf' -o -iname '*.otf' \) | wc -l) TTF/OTF files"
