/* One reader for every input file (ridge/file.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include "ridge/file.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A named pipe (or a pipe reached by name, /dev/fd/N) is opened without blocking: open(2) of a
 * FIFO waits for a writer, forever when none comes (`mkfifo f; ridge validate f`). A read then
 * tells the cases apart: a byte (kept, pushed back), -1 EAGAIN when a writer holds the pipe open
 * and has not written yet (a process substitution `<(cmd)` still working: read on, blocking, as
 * from any pipe), 0 when no writer has it open. Then ridge waits up to RIDGE_FILE_FIFO_WAIT_MS
 * for one, in slices of 100 ms, and gives up with an error. A writer that opens and closes
 * without writing (poll's POLLHUP) is an empty file. Returns the stream, blocking, or NULL with
 * err set. */
static FILE *open_fifo(const char *path, ridge_err *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), flags, waited_ms = 0, have = 0;
    unsigned char first = 0;
    FILE *f;
    if (fd < 0) {
        ridge_err_set(err, RIDGE_EIO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        ssize_t got = read(fd, &first, 1);
        if (got == 1) {
            have = 1;
            break;
        }
        if (got < 0 && errno == EAGAIN)
            break;
        if (got < 0 && errno != EINTR) {
            ridge_err_set(err, RIDGE_EIO, "%s: read error (%s)", path, strerror(errno));
            close(fd);
            return NULL;
        }
        if (got < 0)
            continue;
        if (waited_ms >= RIDGE_FILE_FIFO_WAIT_MS) {
            ridge_err_set(err, RIDGE_EIO, "%s: a named pipe that no process opened to write (waited %d s)", path,
                          RIDGE_FILE_FIFO_WAIT_MS / 1000);
            close(fd);
            return NULL;
        }
        if (poll(&p, 1, 100) > 0 && (p.revents & POLLHUP) && !(p.revents & POLLIN))
            break;
        waited_ms += 100;
    }
    flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 || !(f = fdopen(fd, "rb"))) {
        ridge_err_set(err, RIDGE_EIO, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (have)
        ungetc(first, f);
    return f;
}

int ridge_file_read(const char *path, char **text, size_t *len, ridge_err *err)
{
    FILE *f;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    int rc = RIDGE_OK;
    *text = NULL;
    *len = 0;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISFIFO(st.st_mode)) {
        if (!(f = open_fifo(path, err)))
            return RIDGE_EIO; /* err set by open_fifo */
    } else if (!(f = fopen(path, "rb")))
        return ridge_err_set(err, RIDGE_EIO, "%s: cannot open: %s", path, strerror(errno));
    for (;;) {
        size_t got;
        if (n > RIDGE_FILE_MAX_BYTES) {
            rc = ridge_err_set(err, RIDGE_EIO, "%s: larger than %zu MiB, the limit for an input file", path,
                               RIDGE_FILE_MAX_BYTES >> 20);
            break;
        }
        if (n == cap) {
            /* Up to one byte past the limit (that byte tells a file of exactly the limit from a
             * larger one), plus the NUL. */
            size_t ncap = cap ? 2 * cap : 65536;
            char *nb;
            if (ncap > RIDGE_FILE_MAX_BYTES + 1)
                ncap = RIDGE_FILE_MAX_BYTES + 1;
            nb = realloc(buf, ncap + 1);
            if (!nb) {
                rc = ridge_err_set(err, RIDGE_ENOMEM, "%s: out of memory", path);
                break;
            }
            buf = nb;
            cap = ncap;
        }
        got = fread(buf + n, 1, cap - n, f);
        if (got == 0) {
            if (ferror(f))
                rc = ridge_err_set(err, RIDGE_EIO, "%s: read error (%s)", path, strerror(errno));
            break;
        }
        n += got;
    }
    fclose(f);
    if (rc != RIDGE_OK) {
        free(buf);
        return rc;
    }
    if (!buf && !(buf = malloc(1)))
        return ridge_err_set(err, RIDGE_ENOMEM, "%s: out of memory", path);
    /* A UTF-8 byte order mark (a Windows editor's) is no part of the text: every reader, JSON or
     * line-based (prices, traces), sees the file without it. */
    if (n >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
        n -= 3;
        memmove(buf, buf + 3, n);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return RIDGE_OK;
}

int ridge_file_load(const char *path, ridge_file_parse_fn parse, void *out, ridge_err *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = ridge_file_read(path, &text, &len, err);
    if (rc != RIDGE_OK)
        return rc;
    rc = parse(text, len, path, out, err);
    free(text);
    return rc;
}

int ridge_file_is_path(const char *id_or_path)
{
    size_t n = strlen(id_or_path);
    return strchr(id_or_path, '/') || (n > 5 && strcmp(id_or_path + n - 5, ".json") == 0);
}

size_t ridge_json_nul_escape(const char *text, size_t len)
{
    size_t line = 1;
    for (size_t i = 0; i + 1 < len; i++) {
        if (text[i] == '\n')
            line++;
        else if (text[i] == '\\') {
            if (text[i + 1] == 'u' && i + 5 < len && memcmp(text + i + 2, "0000", 4) == 0)
                return line;
            i++; /* the escaped character, whatever it is */
        }
    }
    return 0;
}

int ridge_json_refuse_nul_escape(const char *text, size_t len, const char *origin, ridge_err *err)
{
    size_t line = ridge_json_nul_escape(text, len);
    if (line)
        return ridge_err_set(err, RIDGE_EPARSE,
                             "%s: line %zu: malformed JSON (a \\u0000 escape: a string may not hold NUL)", origin,
                             line);
    return RIDGE_OK;
}
