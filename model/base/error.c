/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ridge/error.h"

#include <stdarg.h>
#include <stdio.h>

const char *ridge_err_name(int status)
{
    switch (status) {
    case RIDGE_OK: return "OK";
#define RIDGE_ERR_NAME_(name, code, msg) \
    case code: return #name;
        RIDGE_ERRNO_MAP(RIDGE_ERR_NAME_)
#undef RIDGE_ERR_NAME_
    default: return "EUNKNOWN";
    }
}

const char *ridge_strerror(int status)
{
    switch (status) {
    case RIDGE_OK: return "success";
#define RIDGE_ERR_STR_(name, code, msg) \
    case code: return msg;
        RIDGE_ERRNO_MAP(RIDGE_ERR_STR_)
#undef RIDGE_ERR_STR_
    default: return "unknown error";
    }
}

int ridge_err_set(ridge_err *err, int status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        /* Messages are one line: names and values echoed from user files may hold control
         * characters (an escaped newline in a JSON key). */
        for (char *p = err->msg; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
    }
    return status;
}
