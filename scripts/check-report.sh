#!/usr/bin/env bash
# Opens a fairaudit report.html in headless Chromium and fails if the page does not
# render or logs errors (console messages, failed loads). With --screenshot PNG it also
# saves a picture of the page, for people.
# Usage: scripts/check-report.sh REPORT.html [--screenshot OUT.png]
# Installs Debian's chromium when it is missing (needs root and Debian's mirrors).
set -euo pipefail
report=$(realpath "$1")
shift
screenshot=""
if [[ "${1:-}" == "--screenshot" ]]; then
  screenshot=$(realpath -m "$2")
fi
if ! command -v chromium >/dev/null; then
  echo "installing chromium (Debian package)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Flags from this machine's known-good setup: no sandbox as root, no GPU, and no
# background networking (the network is closed; those connections would only add noise).
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
  --disable-background-networking --disable-component-update --disable-sync
  --user-data-dir="$tmp/profile" --enable-logging=stderr --v=0)
chromium "${flags[@]}" --dump-dom "file://$report" >"$tmp/dom.html" 2>"$tmp/log.txt" || {
  echo "check-report: chromium failed to open $report" >&2
  cat "$tmp/log.txt" >&2
  exit 1
}
if ! grep -q 'id="verdict"' "$tmp/dom.html" || ! grep -q '<svg' "$tmp/dom.html"; then
  echo "check-report: the page did not render (no verdict or no chart in the DOM)" >&2
  exit 1
fi
if grep -E 'CONSOLE|Uncaught|Failed to load resource|net::ERR_' "$tmp/log.txt" >&2; then
  echo "check-report: the page logged errors (above)" >&2
  exit 1
fi
if [[ -n "$screenshot" ]]; then
  chromium "${flags[@]}" --hide-scrollbars --window-size=1100,2400 --screenshot="$screenshot" \
    "file://$report" 2>>"$tmp/log.txt" >/dev/null
  [[ -s "$screenshot" ]] || { echo "check-report: no screenshot written" >&2; exit 1; }
fi
echo "check-report: $report renders without errors"
