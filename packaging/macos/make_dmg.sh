#!/usr/bin/env bash
# Make dist/Assista-<version>-macos-<arch>.dmg from dist/Assista.app (macOS only: hdiutil).
#   packaging/macos/make_dmg.sh [dist-dir]
# The image holds the app and an /Applications link (drag to install), compressed (UDZO).
# With MACOS_CODESIGN_IDENTITY set, the .dmg is signed too; notarize it afterwards with
# packaging/macos/sign_and_notarize.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dist="${1:-$root/dist}"
app="$dist/Assista.app"
[ -d "$app" ] || { echo "make_dmg: $app not found (build it: python packaging/build.py)" >&2; exit 2; }
version="$(/usr/libexec/PlistBuddy -c 'Print :CFBundleShortVersionString' "$app/Contents/Info.plist")"
arch="$(uname -m)"
dmg="$dist/Assista-$version-macos-$arch.dmg"

staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT
# ditto keeps symlinks, extended attributes and code signatures intact (cp -R may not).
ditto "$app" "$staging/Assista.app"
ln -s /Applications "$staging/Applications"

rm -f "$dmg"
hdiutil create -volname "Assista $version" -srcfolder "$staging" -fs HFS+ \
    -format UDZO -imagekey zlib-level=9 -ov "$dmg"

if [ -n "${MACOS_CODESIGN_IDENTITY:-}" ]; then
    codesign --force --timestamp --sign "$MACOS_CODESIGN_IDENTITY" "$dmg"
    codesign --verify --verbose=2 "$dmg"
fi
hdiutil verify "$dmg"
echo "$dmg"
