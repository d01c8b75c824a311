#!/usr/bin/env bash
# Install the build into a temporary prefix, then check as a user would: the installed `ridge`
# works from another directory (the catalogue is embedded) and predicts the installed example
# workloads; libridge is a shared library with a soname; a C program and a C++ program compile
# and link against it with exactly `$(pkg-config --cflags --libs ridge)` and run.
# Usage: run_install_test.sh BUILD_DIR C_COMPILER [EXTRA_FLAGS [CXX_COMPILER]]
set -euo pipefail
build=$1
cc=${2:-cc}
extra=${3:-}
cxx=${4:-}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
cd /
fail() { echo "install test: $*"; exit 1; }
# Outputs are captured first: `grep -q` closing a pipe early would fail the pipeline.
out=$("$prefix/bin/ridge" --version)
[[ $out == ridge\ * ]] || fail "unexpected --version: $out"
out=$("$prefix/bin/ridge" gpu show h200-sxm-141gb --format json)
grep -Eq '"id":[[:space:]]*"h200-sxm-141gb"' <<<"$out" || fail "installed ridge cannot show h200-sxm-141gb"

# The example workloads, where the docs say, and the installed ridge predicts them.
examples=$(find "$prefix" -type d -path '*/share/ridge/examples' | head -n 1)
[ -n "$examples" ] || fail "no share/ridge/examples installed"
for w in all-kinds gemm-sweep transformer-layer; do
    [ -f "$examples/$w.json" ] || fail "missing example $w.json"
done
[ ! -e "$examples/bad" ] || fail "the tests' invalid files (examples/bad) were installed"
out=$("$prefix/bin/ridge" predict --gpu a100-sxm4-80gb --workload "$examples/transformer-layer.json" --format csv)
[ "$(wc -l <<<"$out")" -gt 2 ] || fail "installed ridge cannot predict the installed transformer-layer.json"

# libridge: shared, versioned, with a soname (what a non-static link needs at run time).
lib=$(find "$prefix" -name 'libridge.so.*.*.*' | head -n 1)
[ -n "$lib" ] || fail "no versioned libridge.so.MAJOR.MINOR.PATCH installed"
libdir=$(dirname "$lib")
[ -e "$libdir/libridge.so" ] || fail "no libridge.so link for the linker"
if command -v readelf >/dev/null; then
    soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
    [[ $soname == libridge.so.[0-9]* ]] || fail "libridge has soname '$soname'"
    [ -e "$libdir/$soname" ] || fail "the soname $soname is not installed"
fi
for h in error gpu op kernel schedule workload figures queue comm parallel plan version; do
    [ -f "$prefix/include/ridge/$h.h" ] || fail "missing header ridge/$h.h"
done
pc=$(find "$prefix" -name ridge.pc | head -n 1)
[ -n "$pc" ] || fail "no ridge.pc installed"
if ! command -v pkg-config >/dev/null; then
    echo "pkg-config not found: skipped the link checks"
    echo "install test passed"
    exit 0
fi
export PKG_CONFIG_PATH
PKG_CONFIG_PATH="$(dirname "$pc")"
flags=$(pkg-config --cflags --libs ridge)

# A C program, linked exactly as docs say: the GPU catalogue, the kernel model and the versions.
cat >"$prefix/user.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <ridge/kernel.h>
#include <ridge/version.h>
int main(void)
{
    ridge_gpu g;
    ridge_err e;
    ridge_op op = ridge_op_gemm(RIDGE_DTYPE_BF16, 4096, 4096, 4096, 1);
    ridge_kernel_result r;
    if (ridge_catalog_load("a40", &g, &e) || ridge_kernel_predict(&g, &op, &r, &e))
        return 1;
    if (strcmp(ridge_version(), RIDGE_VERSION_STRING) != 0) /* the header matches the library */
        return 2;
    printf("%s %s\n", g.id, ridge_bound_name(r.bound));
    return 0;
}
C
# shellcheck disable=SC2086 # word splitting of the flag lists is intended
"$cc" -std=c11 $extra "$prefix/user.c" $flags -o "$prefix/user" || fail "C: cc t.c \$(pkg-config --cflags --libs ridge) failed"
out=$(LD_LIBRARY_PATH="$libdir" "$prefix/user") || fail "C: the linked program failed"
[ "$out" = "a40 compute" ] || fail "C: the linked program printed: $out"

# A C++ program including every installed header: each has its extern "C" guard, so the
# C functions (ridge_version among them) link.
if [ -n "$cxx" ]; then
    {
        for h in "$prefix"/include/ridge/*.h; do
            echo "#include <ridge/$(basename "$h")>"
        done
        cat <<'CXX'
#include <cstdio>
#include <string>
int main()
{
    ridge_gpu g;
    ridge_err e;
    if (ridge_catalog_load("h200-sxm-141gb", &g, &e) != RIDGE_OK)
        return 1;
    std::string v = ridge_version();
    if (v != RIDGE_VERSION_STRING || std::string(ridge_gsl_version()).empty())
        return 2;
    std::printf("%s %s\n", g.id, ridge_err_name(RIDGE_ENOTFOUND));
    return 0;
}
CXX
    } >"$prefix/user.cpp"
    # shellcheck disable=SC2086
    "$cxx" -std=c++11 $extra "$prefix/user.cpp" $flags -o "$prefix/user++" ||
        fail "C++: c++ t.cpp \$(pkg-config --cflags --libs ridge) failed"
    out=$(LD_LIBRARY_PATH="$libdir" "$prefix/user++") || fail "C++: the linked program failed"
    [ "$out" = "h200-sxm-141gb ENOTFOUND" ] || fail "C++: the linked program printed: $out"
else
    echo "no C++ compiler found: skipped the C++ check (Debian: build-essential has g++)"
fi
echo "install test passed"
