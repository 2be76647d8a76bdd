#!/usr/bin/env bash
# Runs a TestU01 battery (through TestU01Drv, `cargo install TestU01Drv`) on the raw 32-bit
# stream that a command writes to stdout, and fails when a statistic clearly fails.
#
#   scripts/testu01-check.sh BATTERY STREAM_COMMAND [ARG...]
#   scripts/testu01-check.sh SmallCrush target/release/fairaudit stream
#
# BATTERY is SmallCrush, Crush or BigCrush. TestU01Drv reads 32-bit words from stdin and
# prints TestU01's report; it exits 0 whatever the p-values, so this script reads the
# report's summary. TestU01 lists there every statistic whose p-value lies outside
# [0.001, 0.999], as "eps" (below 1e-300), "1 - eps1" (above 1 - 1e-15), or a number.
#
# Exit status: 0 when no p-value is outside [1e-6, 1 - 1e-6] ("All tests were passed", or
# only SUSPECT values, which about 0.2% of a perfect generator's statistics give); 1 when
# any is (FAILED); 2 when the check could not be made (TestU01Drv missing, no summary,
# TestU01Drv or the stream command failing). The stream is fixed data, so the outcome is
# deterministic: a run that passes once passes every time.
set -uo pipefail

if [ "$#" -lt 2 ]; then
    echo "usage: $0 BATTERY STREAM_COMMAND [ARG...]" >&2
    exit 2
fi
battery=$1
shift
if ! command -v TestU01Drv >/dev/null; then
    echo "TestU01Drv not found (cargo install TestU01Drv --locked)" >&2
    exit 2
fi

output=$(mktemp)
trap 'rm -f "$output"' EXIT
started=$(date +%s)
"$@" | TestU01Drv -T "$battery" >"$output" 2>&1
statuses=("${PIPESTATUS[@]}")
seconds=$(($(date +%s) - started))

# 141 is death by SIGPIPE: how a stream without a handler ends when the reader is done.
if [ "${statuses[0]}" -ne 0 ] && [ "${statuses[0]}" -ne 141 ]; then
    echo "the stream command exited with status ${statuses[0]}" >&2
    exit 2
fi
summary=$(sed -n '/Summary results of/,$p' "$output")
if [ -z "$summary" ]; then
    echo "TestU01 $battery: no summary reported (${seconds} s); the end of its output:" >&2
    tail -n 20 "$output" >&2
    exit 2
fi
if [ "${statuses[1]}" -ne 0 ]; then
    echo "TestU01Drv exited with status ${statuses[1]}" >&2
    exit 2
fi

statistics=$(awk '/Number of statistics:/ { print $NF }' <<<"$summary")
if grep -q 'All tests were passed' <<<"$summary"; then
    echo "TestU01 $battery: all $statistics statistics passed (${seconds} s)"
    exit 0
fi

# Rows of the table between the dashed lines: "  6  MaxOft AD      1 - eps1". Each row
# becomes "VERDICT p name": FAILED when p < 1e-6 or p > 1 - 1e-6, else SUSPECT.
verdicts=$(awk '
    /^ *-+ *$/ { inside = !inside; next }
    inside && NF >= 3 {
        upper = ($(NF - 1) == "-" && $(NF - 2) == "1")
        value = $NF
        if (value == "eps") small = 1e-300
        else if (value == "eps1") small = 1e-15
        else small = value + 0
        if (upper) { last = NF - 3; p = "1 - " value } else { last = NF - 1; small = (small > 0.5 ? 1 - small : small); p = value }
        name = $2; for (i = 3; i <= last; i++) name = name " " $i
        print ((small < 1e-6) ? "FAILED" : "SUSPECT") "\t" p "\t" $1 " " name
    }' <<<"$summary")
if [ -z "$verdicts" ]; then
    echo "TestU01 $battery: a summary without 'All tests were passed' and without p-values; it reads:" >&2
    echo "$summary" >&2
    exit 2
fi
while IFS=$'\t' read -r verdict p name; do
    echo "$verdict: $name, p = $p"
done <<<"$verdicts"
failed=$(grep -c '^FAILED' <<<"$verdicts")
suspect=$(grep -c '^SUSPECT' <<<"$verdicts")
if [ "$failed" -ne 0 ]; then
    echo "TestU01 $battery: FAILED: $failed of $statistics statistics outside [1e-6, 1 - 1e-6], $suspect more outside [0.001, 0.999] (${seconds} s)"
    exit 1
fi
echo "TestU01 $battery: no statistic failed: $suspect of $statistics outside [0.001, 0.999], none outside [1e-6, 1 - 1e-6] (${seconds} s)"
