/* Private: the compiler attributes the hot paths use to keep a helper inlined, or one call out of
 * line, and to keep the library's private functions out of its exports (RIDGE_PRIVATE: hidden, so
 * a call between its files is a direct call, not one through the PLT). GCC and Clang; empty
 * elsewhere, where the compiler's own choice stands.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_ATTRS_H
#define RIDGE_ATTRS_H

#if defined(__GNUC__)
#define RIDGE_ALWAYS_INLINE __attribute__((always_inline))
#define RIDGE_NOINLINE __attribute__((noinline))
#define RIDGE_PRIVATE __attribute__((visibility("hidden")))
#else
#define RIDGE_ALWAYS_INLINE
#define RIDGE_NOINLINE
#define RIDGE_PRIVATE
#endif

#endif
