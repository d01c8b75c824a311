#!/usr/bin/env bash
# Install the build into a temporary prefix, then check as a user would: the installed `ridge`
# works from another directory (the catalogue is embedded), and a program compiles and links
# against the installed libridge through pkg-config.
# Usage: run_install_test.sh BUILD_DIR C_COMPILER [EXTRA_FLAGS]
set -euo pipefail
build=$1
cc=${2:-cc}
extra=${3:-}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
cd /
# Outputs are captured first: `grep -q` closing a pipe early would fail the pipeline.
out=$("$prefix/bin/ridge" --version)
[[ $out == ridge\ * ]] || { echo "unexpected --version: $out"; exit 1; }
out=$("$prefix/bin/ridge" gpu show h200-sxm-141gb --format json)
grep -Eq '"id":[[:space:]]*"h200-sxm-141gb"' <<<"$out" || { echo "installed ridge cannot show h200-sxm-141gb"; exit 1; }
pc=$(find "$prefix" -name ridge.pc | head -n 1)
[ -n "$pc" ] || { echo "no ridge.pc installed"; exit 1; }
for h in error gpu op kernel schedule workload figures version; do
    [ -f "$prefix/include/ridge/$h.h" ] || { echo "missing header ridge/$h.h"; exit 1; }
done
if command -v pkg-config >/dev/null; then
    cat >"$prefix/user.c" <<'C'
#include <stdio.h>
#include <ridge/kernel.h>
int main(void)
{
    ridge_gpu g;
    ridge_err e;
    ridge_op op = ridge_op_gemm(RIDGE_DTYPE_BF16, 4096, 4096, 4096, 1);
    ridge_kernel_result r;
    if (ridge_catalog_load("a40", &g, &e) || ridge_kernel_predict(&g, &op, &r, &e))
        return 1;
    printf("%s %s\n", g.id, ridge_bound_name(r.bound));
    return 0;
}
C
    flags=$(PKG_CONFIG_PATH="$(dirname "$pc")" pkg-config --static --cflags --libs ridge)
    # shellcheck disable=SC2086 # word splitting of the flag lists is intended
    "$cc" -std=c11 $extra "$prefix/user.c" $flags -o "$prefix/user"
    out=$("$prefix/user")
    [ "$out" = "a40 compute" ] || { echo "linked program printed: $out"; exit 1; }
else
    echo "pkg-config not found: skipped the link check"
fi
echo "install test passed"
