/* ridge — error codes and the caller-supplied error buffer.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every libridge function that can fail returns an int status: RIDGE_OK (0) or one of the
 * negative codes below. Details (file, JSON path, value) go into a ridge_err the caller owns;
 * the library keeps no global error state and never prints, aborts or exits. */
#ifndef RIDGE_ERROR_H
#define RIDGE_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* One table gives the enum, the names and the messages (libuv's UV_ERRNO_MAP habit). */
#define RIDGE_ERRNO_MAP(X)                                                   \
    X(EINVAL, -1, "invalid input value")                                     \
    X(EPARSE, -2, "malformed input")                                         \
    X(ENOTFOUND, -3, "unknown name")                                         \
    X(EIO, -4, "file could not be read or written")                          \
    X(ENOMEM, -5, "out of memory")                                           \
    X(EUNSUPPORTED, -6, "not supported by this GPU")                         \
    X(EEXTERNAL, -7, "external program failed")

typedef enum {
    RIDGE_OK = 0,
#define RIDGE_ERR_ENUM_(name, code, msg) RIDGE_##name = (code),
    RIDGE_ERRNO_MAP(RIDGE_ERR_ENUM_)
#undef RIDGE_ERR_ENUM_
} ridge_status;

#define RIDGE_ERR_MSG_MAX 512

/* Filled by a failing call with one line (no trailing newline) naming file, path and problem. */
typedef struct {
    char msg[RIDGE_ERR_MSG_MAX];
} ridge_err;

/* "EINVAL" for RIDGE_EINVAL; "OK" for 0; "EUNKNOWN" otherwise. */
const char *ridge_err_name(int status);
/* A short sentence for a status code. */
const char *ridge_strerror(int status);
/* Formats into err (if not NULL) and returns status, so a caller can `return ridge_err_set(...)`. */
int ridge_err_set(ridge_err *err, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
