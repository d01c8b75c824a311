/* Private: the compiler attributes the hot paths use to keep a helper inlined, or one call out of
 * line (GCC and Clang; empty elsewhere, where the compiler's own choice stands).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_ATTRS_H
#define RIDGE_ATTRS_H

#if defined(__GNUC__)
#define RIDGE_ALWAYS_INLINE __attribute__((always_inline))
#define RIDGE_NOINLINE __attribute__((noinline))
#else
#define RIDGE_ALWAYS_INLINE
#define RIDGE_NOINLINE
#endif

#endif
