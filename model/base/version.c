/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ridge/version.h"

#include <cjson/cJSON.h>
#include <gsl/gsl_version.h>

const char *ridge_version(void)
{
    return RIDGE_VERSION_STRING;
}

const char *ridge_gsl_version(void)
{
    return gsl_version; /* the GSL libridge runs with */
}

const char *ridge_cjson_version(void)
{
    return cJSON_Version();
}
