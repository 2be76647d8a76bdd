#!/usr/bin/env bash
# Regenerates the committed reports/ folder with the README's main command
# (`cargo run --release -- sweep`) and fails when any file in it other than run.json and
# report.html (which record the command line, threads and timing) differs from the
# committed one, or when a file appears or disappears. It pins every published figure of
# the default run: a change to a p-value, a note or a CSV format fails here until
# reports/ is regenerated on purpose (run this script, review `git diff reports/`,
# commit). It rewrites reports/run.json and reports/report.html as the main command does.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
cargo run --release --quiet -- sweep >/dev/null || status=$?
if [ "$status" -ge 2 ]; then
  echo "check-reports: the main command failed (exit $status)" >&2
  exit 1
fi
changed=$(git status --porcelain --untracked-files=all -- reports \
  ':(exclude)reports/run.json' ':(exclude)reports/report.html')
if [ -n "$changed" ]; then
  echo "check-reports: reports/ differs from a regeneration by the main command:" >&2
  echo "$changed" >&2
  git --no-pager diff --stat -- reports >&2 || true
  echo "check-reports: if the change is on purpose, commit the regenerated reports/" >&2
  exit 1
fi
echo "check-reports: reports/ matches a regeneration (run.json and report.html excluded)"
