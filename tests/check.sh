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
