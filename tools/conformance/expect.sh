#!/bin/sh
# expect.sh WANT_STATUS MUST_MATCH MUST_NOT_MATCH COMMAND [ARGS...]
# For the ctest registrations of opkit-conformance: runs COMMAND, prints its output, and
# succeeds when its exit status is WANT_STATUS, some output line matches MUST_MATCH
# (grep -E; "" = no check) and no line matches MUST_NOT_MATCH (grep -E; "" = no check).
want=$1 must=$2 must_not=$3
shift 3
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
if [ "$status" -ne "$want" ]; then
    echo "expect.sh: exit status $status, expected $want"
    exit 1
fi
if [ -n "$must" ] && ! printf '%s\n' "$out" | grep -Eq -- "$must"; then
    echo "expect.sh: no line matches: $must"
    exit 1
fi
if [ -n "$must_not" ] && printf '%s\n' "$out" | grep -Eq -- "$must_not"; then
    echo "expect.sh: a line matches what must not appear: $must_not"
    exit 1
fi
exit 0
