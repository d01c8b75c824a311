/* libFuzzer target: GPU description parsing (ridge_gpu_parse) and what is computed from a
 * parsed GPU (figures, sources, MIG slices). See tests/fuzz/README.md.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Besides crashes and sanitizer reports, it aborts when a contract of ridge/gpu.h breaks:
 * a failure must return a known negative status and one non-empty line in err; a success must
 * give a GPU whose figures are finite. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_contract.h"
#include "ridge/error.h"
#include "ridge/figures.h"
#include "ridge/gpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int one_printable_line(const char *s)
{
    for (; *s; s++) {
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    }
    return 1;
}

/* A GPU file's errors are printable too (fuzz_check_error: one line). */
static void check_error(int rc, const ridge_err *err)
{
    fuzz_check_error(rc, err);
    REQUIRE(one_printable_line(err->msg));
}

static void check_figures(const ridge_gpu *g, const ridge_gpu_provenance *prov)
{
    for (size_t i = 0; i < ridge_figure_count(); i++) {
        const ridge_figure_info *f = ridge_figure(i);
        char text[64];
        double num = 0;
        ridge_figure_kind k = ridge_figure_value(g, i, &num, text, sizeof text);
        if (k == RIDGE_FIGURE_NUMBER)
            REQUIRE(isfinite(num) && num > 0);
        (void)ridge_gpu_source_for(prov, f->source_key);
    }
    for (int p = 0; p < RIDGE_PEAK_COUNT; p++)
        REQUIRE(isfinite(ridge_gpu_ridge_point(g, (ridge_peak)p)));
    REQUIRE(isfinite(ridge_gpu_pcie_bw_bytes_per_s(g)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The input buffer is exactly `size` bytes, not NUL-terminated: ASan catches any read past it. */
    static ridge_gpu g, slice;
    static ridge_gpu_provenance prov;
    ridge_err err;
    int rc;
    memset(&err, 0, sizeof err);
    rc = ridge_gpu_parse_prov((const char *)data, size, "fuzz.json", &g, &prov, &err);
    /* Without the provenance the same checks run. */
    REQUIRE(ridge_gpu_parse((const char *)data, size, "fuzz.json", &slice, NULL) == rc);
    if (rc != RIDGE_OK) {
        check_error(rc, &err);
        return 0;
    }
    REQUIRE(g.id[0] != '\0' && g.sm_count > 0 && g.memory_bw_bytes_per_s > 0);
    check_figures(&g, &prov);
    for (int i = 0; i < g.mig_count; i++) {
        slice = g;
        rc = ridge_gpu_mig_slice(&slice, g.mig[i].profile, &err);
        REQUIRE(rc == RIDGE_OK);
        REQUIRE(slice.sm_count == g.mig[i].sm_count && strcmp(slice.mig_of, g.id) == 0);
        check_figures(&slice, &prov);
    }
    slice = g;
    rc = ridge_gpu_mig_slice(&slice, "no-such-profile", &err);
    if (rc != RIDGE_OK)
        check_error(rc, &err);
    return 0;
}
