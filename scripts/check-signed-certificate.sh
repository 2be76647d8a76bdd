#!/usr/bin/env bash
# The committed certificate and a signed one, checked as a regulator would:
# 1. reports/certificate/ is copied to a fresh folder and `certify --check` runs on the
#    copy from another working directory (the dossier is relocatable), and must pass;
# 2. a key generated for this run only (no private key is committed) signs a certificate
#    of reports/ with `certify --sign`; `ssh-keygen -Y verify` and
#    `certify --check --allowed-signers` must both accept it, and both must refuse it once
#    one byte of manifest.json changes.
# Usage: scripts/check-signed-certificate.sh FAIRAUDIT_BINARY
set -euo pipefail
bin=$(realpath "$1")
cd "$(dirname "$0")/.."
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cp -r reports/certificate "$tmp/committed"
(cd "$tmp" && "$bin" certify --check committed >"$tmp/check-committed") || {
  echo "check-signed-certificate: the committed certificate does not check from another directory:" >&2
  cat "$tmp/check-committed" >&2
  exit 1
}
echo "check-signed-certificate: reports/certificate checks from another directory ($(head -1 "$tmp/check-committed"))"

ssh-keygen -q -t ed25519 -N "" -C "fairaudit CI" -f "$tmp/key"
echo "ci@fairaudit.invalid $(cat "$tmp/key.pub")" >"$tmp/allowed_signers"
status=0
"$bin" certify --sweep reports --operator "CI check" --no-pdf --auditor "CI run" \
  --auditor-id ci@fairaudit.invalid --sign "$tmp/key" --out "$tmp/signed" >"$tmp/certify" 2>&1 || status=$?
# 0 (PASS), 1 (FINDINGS) and 3 (INSUFFICIENT) are verdicts; 2 is an error.
if ((status == 2 || status > 3)); then
  echo "check-signed-certificate: certify --sign failed (exit $status)" >&2
  cat "$tmp/certify" >&2
  exit 1
fi
verify_with_ssh_keygen() {
  ssh-keygen -Y verify -f "$tmp/allowed_signers" -I ci@fairaudit.invalid -n fairaudit-certificate \
    -s "$tmp/signed/manifest.json.sig" <"$tmp/signed/manifest.json" >/dev/null 2>&1
}
verify_with_fairaudit() {
  (cd "$tmp" && "$bin" certify --check signed --allowed-signers allowed_signers >"$tmp/check-signed" 2>&1)
}
verify_with_ssh_keygen || { echo "check-signed-certificate: ssh-keygen -Y verify refuses fairaudit's signature" >&2; exit 1; }
verify_with_fairaudit || { echo "check-signed-certificate: certify --check refuses its own signature:" >&2; cat "$tmp/check-signed" >&2; exit 1; }
grep -q "signature: GOOD" "$tmp/check-signed"
sed -i 's/"operator": "CI check"/"operator": "CI chock"/' "$tmp/signed/manifest.json"
if verify_with_ssh_keygen; then
  echo "check-signed-certificate: ssh-keygen accepts a changed manifest" >&2
  exit 1
fi
if verify_with_fairaudit; then
  echo "check-signed-certificate: certify --check accepts a changed manifest" >&2
  exit 1
fi
echo "check-signed-certificate: a signed certificate verifies with ssh-keygen and fairaudit, and neither accepts it changed"
cd "$root"
