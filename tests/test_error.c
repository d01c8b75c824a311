/* Tests of the status table and the error buffer (ridge/error.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "check.h"
#include "ridge/error.h"

static const struct {
    int status;
    const char *name;
    const char *msg;
} rows[] = {
    {RIDGE_OK, "OK", "success"},
    {RIDGE_EINVAL, "EINVAL", "invalid input value"},
    {RIDGE_EPARSE, "EPARSE", "malformed input"},
    {RIDGE_ENOTFOUND, "ENOTFOUND", "unknown name"},
    {RIDGE_EIO, "EIO", "file could not be read or written"},
    {RIDGE_ENOMEM, "ENOMEM", "out of memory"},
    {RIDGE_EUNSUPPORTED, "EUNSUPPORTED", "not supported by this GPU"},
    {RIDGE_EEXTERNAL, "EEXTERNAL", "external program failed"},
    {-1000, "EUNKNOWN", "unknown error"},
    {7, "EUNKNOWN", "unknown error"},
};

int main(void)
{
    ridge_err err = {{0}};
    char longer[RIDGE_ERR_MSG_MAX * 2];

    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        check_context(rows[i].name);
        CHECK_STR_EQ(ridge_err_name(rows[i].status), rows[i].name);
        CHECK_STR_EQ(ridge_strerror(rows[i].status), rows[i].msg);
        if (rows[i].status != RIDGE_OK && strcmp(rows[i].name, "EUNKNOWN") != 0)
            CHECK(rows[i].status < 0); /* negative means error, everywhere */
    }

    check_context("ridge_err_set");
    CHECK_INT(ridge_err_set(&err, RIDGE_EINVAL, "%s: $.%s: %.3f is out of range", "f.json", "tdp_w", 2.385),
              RIDGE_EINVAL);
    CHECK_STR_EQ(err.msg, "f.json: $.tdp_w: 2.385 is out of range");
    CHECK_INT(ridge_err_set(NULL, RIDGE_EIO, "ignored %d", 1), RIDGE_EIO);
    /* Long messages are cut, still terminated. */
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    CHECK_INT(ridge_err_set(&err, RIDGE_EPARSE, "%s", longer), RIDGE_EPARSE);
    CHECK_INT(strlen(err.msg), RIDGE_ERR_MSG_MAX - 1);
    check_context(NULL);
    return check_report();
}
