# ridge test scripts: what they share (bash, sourced: . "$(dirname "${BASH_SOURCE[0]}")/check.sh").
# SPDX-License-Identifier: GPL-3.0-or-later

# check_usage N USAGE ARGS...: unless ARGS are N words, "usage: SCRIPT USAGE" on stderr and exit 2.
check_usage() {
    local want=$1 usage=$2
    shift 2
    if [ $# -ne "$want" ]; then
        echo "usage: $0 $usage" >&2
        exit 2
    fi
}

# check MESSAGE COMMAND...: one check; the command's status decides. Counts into the caller's n
# and failed (start them at 0).
check() {
    local msg=$1
    shift
    n=$((n + 1))
    if ! "$@"; then
        echo "FAIL: $msg"
        failed=$((failed + 1))
    fi
}
