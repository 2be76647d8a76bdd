#!/usr/bin/env bash
# Writes the audit certificate of a sweep's output folder with fairaudit, which prints it
# to certificate.pdf in headless Chromium, and checks the PDF: it exists, it is a PDF, its
# page count (pdfinfo where installed, else the PDF's page objects) is what manifest.json
# records and what a certificate has (a cover and six sections, each opening a page), and
# `certify --check` confirms it. Skips, saying so, where no Chromium is on the PATH.
# Usage: scripts/check-certificate.sh FAIRAUDIT_BINARY SWEEP_DIR
set -euo pipefail
bin=$(realpath "$1")
sweep=$(realpath "$2")
if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null \
  && ! command -v google-chrome >/dev/null && ! command -v google-chrome-stable >/dev/null; then
  echo "check-certificate: SKIPPED: no Chromium on the PATH (chromium, chromium-browser, google-chrome), so no PDF to check"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$(dirname "$0")/.."
status=0
"$bin" certify --sweep "$sweep" --operator "CI check" --out "$tmp/cert" >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
# 0 (PASS), 1 (FINDINGS) and 3 (INSUFFICIENT) are verdicts; 2 is an error.
if ((status == 2 || status > 3)); then
  echo "check-certificate: certify failed (exit $status)" >&2
  cat "$tmp/stderr" >&2
  exit 1
fi
pdf="$tmp/cert/certificate.pdf"
if [[ ! -s "$pdf" ]] || [[ "$(head -c 5 "$pdf")" != "%PDF-" ]]; then
  echo "check-certificate: no certificate.pdf was rendered" >&2
  cat "$tmp/stderr" >&2
  exit 1
fi
if command -v pdfinfo >/dev/null; then
  pages=$(pdfinfo "$pdf" | awk '/^Pages:/ {print $2}')
  how="pdfinfo"
else
  pages=$(grep -aoE '/Type ?/Page([^s]|$)' "$pdf" | wc -l)
  how="page objects"
fi
recorded=$(sed -n 's/^ *"pdf_pages": \([0-9]*\).*/\1/p' "$tmp/cert/manifest.json")
if [[ "$pages" != "$recorded" ]]; then
  echo "check-certificate: certificate.pdf has $pages pages ($how), manifest.json records '$recorded'" >&2
  exit 1
fi
if ((pages < 7 || pages > 80)); then
  echo "check-certificate: certificate.pdf has $pages pages; a certificate has a cover and six sections, each opening a page" >&2
  exit 1
fi
"$bin" certify --check "$tmp/cert" >"$tmp/check" || {
  echo "check-certificate: certify --check failed" >&2
  cat "$tmp/check" >&2
  exit 1
}
echo "check-certificate: certificate.pdf rendered, $pages pages ($how), as manifest.json records; certify --check passes"
