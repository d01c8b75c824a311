/* The contracts every libFuzzer target checks (tests/fuzz/README.md), in one place.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_FUZZ_CONTRACT_H
#define RIDGE_FUZZ_CONTRACT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ridge/error.h"

/* A broken contract: name it (libFuzzer then saves the input as crash-*). */
#define REQUIRE(cond)                                                                          \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "%s:%d: contract broken: %s\n", __FILE__, __LINE__, #cond);        \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

/* A failure is a known negative status with one non-empty line in err. */
static inline void fuzz_check_error(int rc, const ridge_err *err)
{
    REQUIRE(rc < 0 && strcmp(ridge_err_name(rc), "EUNKNOWN") != 0);
    REQUIRE(memchr(err->msg, '\0', sizeof err->msg) != NULL);
    REQUIRE(err->msg[0] != '\0' && strchr(err->msg, '\n') == NULL);
}

#endif
