/*
 * test_bench_util.cu - host-only table tests of the JSON writer, statistics
 * and formatting helpers in bench_util.cu.  Needs no GPU.
 * Prints "N passed, M failed"; exit status 1 if any failed.
 */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

static void expect_str(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want) == 0) {
        ++passed;
    } else {
        ++failed;
        printf("FAIL %s\n  got:  %s\n  want: %s\n", what, got, want);
    }
}

static void expect_num(const char *what, double got, double want)
{
    if (fabs(got - want) <= 1e-12 * (fabs(want) + 1.0)) {
        ++passed;
    } else {
        ++failed;
        printf("FAIL %s: got %.17g want %.17g\n", what, got, want);
    }
}

/* Run a writer script on a temporary file and return what it wrote. */
static void capture(void (*script)(ridge_json *), char *buf, size_t len)
{
    FILE *f = tmpfile();
    ridge_json j;
    size_t n;
    buf[0] = '\0';
    if (!f)
        return;
    ridge_json_init(&j, f);
    script(&j);
    ridge_json_flush(&j);
    rewind(f);
    n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Run `script` on a fresh writer and compare what it wrote with `want`. */
static void expect_json(const char *what, void (*script)(ridge_json *),
                        const char *want)
{
    char buf[4096];
    capture(script, buf, sizeof buf);
    expect_str(what, buf, want);
}

static void script_escapes(ridge_json *j)
{
    ridge_json_obj_begin(j, NULL);
    ridge_json_str(j, "a\"b", "line\nnew\ttab\\ \x01 end/");
    ridge_json_str(j, "nul", NULL);
    ridge_json_obj_end(j);
}

static void script_numbers(ridge_json *j)
{
    ridge_json_arr_begin(j, NULL);
    ridge_json_num(j, NULL, 2.385);
    ridge_json_num(j, NULL, NAN);
    ridge_json_num(j, NULL, INFINITY);
    ridge_json_num(j, NULL, -INFINITY);
    ridge_json_num(j, NULL, 1e-7);
    ridge_json_num(j, NULL, 4.3e12);
    ridge_json_int(j, NULL, 8796093022208LL);
    ridge_json_int(j, NULL, -3);
    ridge_json_bool(j, NULL, 1);
    ridge_json_bool(j, NULL, 0);
    ridge_json_null(j, NULL);
    ridge_json_arr_end(j);
}

static void script_nesting(ridge_json *j)
{
    ridge_json_obj_begin(j, NULL);
    ridge_json_int(j, "schema_version", 1);
    ridge_json_arr_begin_lines(j, "measurements");
    ridge_json_obj_begin(j, NULL);
    ridge_json_str(j, "id", "x/1");
    ridge_json_obj_begin(j, "config");
    ridge_json_arr_begin(j, "tile");
    ridge_json_int(j, NULL, 128);
    ridge_json_int(j, NULL, 256);
    ridge_json_arr_end(j);
    ridge_json_obj_end(j);
    ridge_json_obj_end(j);
    ridge_json_obj_begin(j, NULL);
    ridge_json_str(j, "id", "x/2");
    ridge_json_obj_end(j);
    ridge_json_arr_end(j);
    ridge_json_arr_begin_lines(j, "empty");
    ridge_json_arr_end(j);
    ridge_json_obj_end(j);
}

static void script_op(ridge_json *j)
{
    ridge_json_obj_begin(j, NULL);
    ridge_op_gemm(j, RIDGE_DT_BF16, 1, 4096, 14336, 1);
    ridge_json_obj_end(j);
}

static void script_op_batched(ridge_json *j)
{
    ridge_json_obj_begin(j, NULL);
    ridge_op_gemm(j, RIDGE_DT_FP16, 512, 512, 64, 96);
    ridge_op_copy(j, 4096, "h2d");
    ridge_op_custom(j, RIDGE_DT_FP32, 0, 0, "vector", 100);
    ridge_op_elementwise(j, RIDGE_DT_FP32, 1024, 2, 1, 2.0, 1);
    ridge_op_elementwise(j, RIDGE_DT_FP32, 1, 0, 0, 0.0, 100);
    ridge_op_reduce(j, RIDGE_DT_FP32, 1, 1024);
    ridge_json_obj_end(j);
}

int main(void)
{
    char buf[4096];
    ridge_stats st;
    double odd[] = {9.5, 2.25, 4.0};
    double even[] = {3.5, 1.25, 2.0, 10.0};
    static const struct {
        unsigned long long bytes;
        const char *want;
    } sizes[] = {{4096ULL, "4KiB"},          {1048576ULL, "1MiB"},
                 {4294967296ULL, "4GiB"},    {1000ULL, "1000B"},
                 {1536ULL, "1536B"},         {3145728ULL, "3MiB"},
                 {268435456ULL, "256MiB"},   {0ULL, "0B"}};
    static const struct {
        ridge_dtype dt;
        const char *name;
        size_t size;
    } dts[] = {{RIDGE_DT_FP64, "fp64", 8}, {RIDGE_DT_FP32, "fp32", 4},
               {RIDGE_DT_TF32, "tf32", 4}, {RIDGE_DT_FP16, "fp16", 2},
               {RIDGE_DT_BF16, "bf16", 2}, {RIDGE_DT_FP8, "fp8", 1},
               {RIDGE_DT_INT8, "int8", 1}, {RIDGE_DT_INT32, "int32", 4}};
    size_t i;

    expect_json("escapes", script_escapes,
                "{\"a\\\"b\":\"line\\nnew\\ttab\\\\ \\u0001 end/\","
                "\"nul\":null}");
    expect_json("numbers", script_numbers,
                "[2.385,null,null,null,1e-07,4.3e+12,8796093022208,-3,true,"
                "false,null]");
    expect_json("nesting", script_nesting,
                "{\"schema_version\":1,\"measurements\":[\n"
                "{\"id\":\"x/1\",\"config\":{\"tile\":[128,256]}},\n"
                "{\"id\":\"x/2\"}\n],\"empty\":[\n]}");
    expect_json("op gemm", script_op,
                "{\"op\":{\"op\":\"gemm\",\"dtype\":\"bf16\",\"m\":1,"
                "\"n\":4096,\"k\":14336,\"layout\":\"nt\"}}");
    expect_json("ops", script_op_batched,
                "{\"op\":{\"op\":\"gemm\",\"dtype\":\"fp16\",\"m\":512,"
                "\"n\":512,\"k\":64,\"batch\":96,\"layout\":\"nt\"},"
                "\"op\":{\"op\":\"copy\",\"dtype\":\"fp32\",\"bytes\":4096,"
                "\"kind\":\"h2d\"},"
                "\"op\":{\"op\":\"custom\",\"dtype\":\"fp32\",\"flops\":0,"
                "\"bytes\":0,\"unit\":\"vector\",\"count\":100},"
                "\"op\":{\"op\":\"elementwise\",\"dtype\":\"fp32\","
                "\"elements\":1024,\"inputs\":2,\"outputs\":1,"
                "\"flops_per_element\":2},"
                "\"op\":{\"op\":\"elementwise\",\"dtype\":\"fp32\","
                "\"elements\":1,\"inputs\":0,\"outputs\":0,"
                "\"flops_per_element\":0,\"count\":100},"
                "\"op\":{\"op\":\"reduce\",\"dtype\":\"fp32\",\"rows\":1,"
                "\"cols\":1024}}");

    ridge_stats_compute(odd, 3, &st);
    expect_num("odd min", st.min, 2.25);
    expect_num("odd median", st.median, 4.0);
    expect_num("odd max", st.max, 9.5);
    expect_num("odd mean", st.mean, 15.75 / 3.0);
    ridge_stats_compute(even, 4, &st);
    expect_num("even min", st.min, 1.25);
    expect_num("even median", st.median, 2.75);
    expect_num("even max", st.max, 10.0);
    expect_num("even mean", st.mean, 4.1875);
    expect_num("even n", st.n, 4);
    expect_num("even stddev", st.stddev,
               sqrt(((1.25 - 4.1875) * (1.25 - 4.1875) +
                     (2.0 - 4.1875) * (2.0 - 4.1875) +
                     (3.5 - 4.1875) * (3.5 - 4.1875) +
                     (10.0 - 4.1875) * (10.0 - 4.1875)) /
                    3.0));

    for (i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        char name[64];
        ridge_format_bytes(buf, sizeof buf, sizes[i].bytes);
        snprintf(name, sizeof name, "format_bytes(%llu)", sizes[i].bytes);
        expect_str(name, buf, sizes[i].want);
    }
    for (i = 0; i < sizeof dts / sizeof dts[0]; ++i) {
        expect_str("dtype name", ridge_dtype_name(dts[i].dt), dts[i].name);
        expect_num("dtype size", (double)ridge_dtype_size(dts[i].dt),
                   (double)dts[i].size);
    }

    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
