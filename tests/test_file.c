/* The one input-file reader (model/base/file.c, ridge/file.h): contents, the size limit, errors.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "check_tmpdir.h"
#include "ridge/file.h"

/* Files read whole: the same bytes as check.h's reader, NUL-terminated; an empty file is an
 * empty string, not NULL. */
static void test_contents(void)
{
    static const char *const paths[] = {"/dev/null", RIDGE_TEST_DATA_DIR "/valid.json",
                                        RIDGE_TEST_DATA_DIR "/control_chars.json"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        char *text = NULL, *want = check_read_file(paths[i]);
        size_t len = 99;
        ridge_err err = {{0}};
        check_context(paths[i]);
        if (!CHECK(want != NULL))
            continue;
        if (CHECK(ridge_file_read(paths[i], &text, &len, &err) == RIDGE_OK)) {
            CHECK_INT(len, strlen(want));
            CHECK(text[len] == '\0');
            CHECK_STR_EQ(text, want);
            free(text);
        }
        free(want);
    }
    check_context(NULL);
}

/* Each failure is RIDGE_EIO naming the path, with *text NULL. */
static void test_errors(void)
{
    static const struct {
        const char *path;
        const char *msg;
    } rows[] = {
        {"/nonexistent/ridge.json", "/nonexistent/ridge.json: cannot open: No such file or directory"},
        {"/tmp", "/tmp: read error (Is a directory)"},
        {"/dev/zero", "/dev/zero: larger than 256 MiB, the limit for an input file"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char *text = (char *)"unset";
        size_t len = 99;
        ridge_err err = {{0}};
        check_context(rows[i].path);
        CHECK_INT(ridge_file_read(rows[i].path, &text, &len, &err), RIDGE_EIO);
        CHECK(text == NULL && len == 0);
        CHECK_STR_EQ(err.msg, rows[i].msg);
    }
    check_context(NULL);
}

/* A parse callback that records what it was given and fails with a status of its choice. */
typedef struct {
    int calls;
    size_t len;
    char first[8];
    char path[64];
    int status;
} load_probe;

static int probe_parse(const char *text, size_t len, const char *path, void *out, ridge_err *err)
{
    load_probe *p = out;
    p->calls++;
    p->len = len;
    snprintf(p->first, sizeof p->first, "%s", text);
    snprintf(p->path, sizeof p->path, "%s", path);
    return p->status == RIDGE_OK ? RIDGE_OK : ridge_err_set(err, p->status, "%s: probe failed", path);
}

/* ridge_file_load: the file's text and path reach the callback, whose status is returned; a file
 * that cannot be read never calls it and returns ridge_file_read's error. */
static void test_load(void)
{
    const char *valid = RIDGE_TEST_DATA_DIR "/valid.json";
    char *want = check_read_file(valid);
    load_probe p = {0};
    ridge_err err = {{0}};
    check_context("ridge_file_load");
    if (CHECK(want != NULL)) {
        CHECK_INT(ridge_file_load(valid, probe_parse, &p, &err), RIDGE_OK);
        CHECK_INT(p.calls, 1);
        CHECK_INT(p.len, strlen(want));
        CHECK(strncmp(p.first, want, strlen(p.first)) == 0);
        CHECK_STR_EQ(p.path, valid);
        free(want);
    }
    p.status = RIDGE_EPARSE;
    CHECK_INT(ridge_file_load(valid, probe_parse, &p, &err), RIDGE_EPARSE);
    CHECK_INT(p.calls, 2);
    CHECK_STR_HAS(err.msg, "valid.json: probe failed");
    CHECK_INT(ridge_file_load("/nonexistent/ridge.json", probe_parse, &p, &err), RIDGE_EIO);
    CHECK_INT(p.calls, 2);
    CHECK_STR_EQ(err.msg, "/nonexistent/ridge.json: cannot open: No such file or directory");
    check_context(NULL);
}

/* A leading UTF-8 byte order mark is dropped (a price sheet saved by a Windows editor read as the
 * same sheet without one); a file of only the mark is empty; the bytes elsewhere are kept. */
static void test_bom(void)
{
    const char *bom = RIDGE_TEST_DATA_DIR "/prices/bom.txt";
    char *text = NULL, *want = check_read_file(RIDGE_TEST_DATA_DIR "/prices/good.txt"), *raw = check_read_file(bom);
    size_t len = 99;
    ridge_err err = {{0}};
    char dir[64], path[96];
    check_context("a leading byte order mark");
    if (CHECK(want != NULL && raw != NULL) && CHECK(memcmp(raw, "\xef\xbb\xbf", 3) == 0) &&
        CHECK(ridge_file_read(bom, &text, &len, &err) == RIDGE_OK)) {
        CHECK_INT(len, strlen(want));
        CHECK_STR_EQ(text, want);
        free(text);
    }
    free(want);
    free(raw);
    if (check_tmpdir(dir, sizeof dir, "ridge-test-file")) {
        static const struct {
            const char *bytes, *text;
        } rows[] = {{"\xef\xbb\xbf", ""}, {"\xef\xbb", "\xef\xbb"}, {" \xef\xbb\xbf{}", " \xef\xbb\xbf{}"},
                    {"\xef\xbb\xbf\xef\xbb\xbf{}", "\xef\xbb\xbf{}"}};
        snprintf(path, sizeof path, "%s/f", dir);
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            FILE *f = fopen(path, "wb");
            if (!CHECK(f != NULL))
                break;
            fputs(rows[i].bytes, f);
            fclose(f);
            if (CHECK(ridge_file_read(path, &text, &len, &err) == RIDGE_OK)) {
                CHECK_INT(len, strlen(rows[i].text));
                CHECK_STR_EQ(text, rows[i].text);
                free(text);
            }
        }
        remove(path);
        rmdir(dir);
    }
    check_context(NULL);
}

int main(void)
{
    test_contents();
    test_bom();
    test_errors();
    test_load();
    return check_report();
}
