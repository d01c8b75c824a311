/* ridge tests: a private temporary folder for the files a test writes (header only).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Apart from check.h because mkdtemp is POSIX: a test that includes this header defines
 * _POSIX_C_SOURCE 200809L before its first include. The test removes the folder itself (rmdir
 * when it must be left empty, rm -rf otherwise). */
#ifndef RIDGE_TEST_CHECK_TMPDIR_H
#define RIDGE_TEST_CHECK_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

/* Makes /tmp/NAME-XXXXXX into dir; 0 (with the reason on stderr) when it cannot. */
static inline int check_tmpdir(char *dir, size_t cap, const char *name)
{
    snprintf(dir, cap, "/tmp/%s-XXXXXX", name);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 0;
    }
    return 1;
}

#endif
