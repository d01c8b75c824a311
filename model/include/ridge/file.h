/* ridge — reading an input file: one reader, with one size limit, for every file ridge reads
 * (GPU, cluster, model, operator-list and measurement files; the CLI's plan files, baselines and
 * serving traces).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_FILE_H
#define RIDGE_FILE_H

#include <stddef.h>

#include "ridge/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest input file, in bytes (256 MiB): an operator list of RIDGE_OPLIST_MAX_OPS GEMMs
 * with names (113 MB) fits, and a device or pipe that never ends (/dev/zero) stops here. */
#define RIDGE_FILE_MAX_BYTES ((size_t)256 << 20)

/* How long ridge_file_read waits for a writer to open a named pipe that none has open (10 s):
 * `mkfifo f; ridge validate f` is an error then, not a hang. A pipe that a writer holds open is
 * read to its end, however long the writer takes. */
#define RIDGE_FILE_FIFO_WAIT_MS 10000

/* Read all of `path` into *text, NUL-terminated (*len bytes before the NUL; the caller frees
 * *text). A leading UTF-8 byte order mark (EF BB BF) is dropped: *text starts after it. Pipes and
 * devices are read as files are. Errors leave *text NULL and name the path:
 * RIDGE_EIO "PATH: cannot open: REASON", "PATH: read error (REASON)", "PATH: larger than
 * 256 MiB, the limit for an input file" or "PATH: a named pipe that no process opened to write
 * (waited 10 s)"; RIDGE_ENOMEM. */
int ridge_file_read(const char *path, char **text, size_t *len, ridge_err *err);

/* Parses `len` bytes of NUL-terminated `text` read from `path` (the origin in its errors) into
 * `out`; returns a ridge_err status and fills err on failure. */
typedef int (*ridge_file_parse_fn)(const char *text, size_t len, const char *path, void *out, ridge_err *err);

/* The loaders' one shape: ridge_file_read(path), then parse(text, len, path, out, err), then free
 * the text. Returns ridge_file_read's error (out untouched) or parse's status. */
int ridge_file_load(const char *path, ridge_file_parse_fn parse, void *out, ridge_err *err);

/* The line (1-based) of the first \u0000 escape in JSON text, or 0 when it has none: cJSON
 * ends a string at it, silently cutting a name or an id, so every JSON reader refuses it. A
 * backslash escapes the character after it: "\\u0000" (a backslash, then u0000) is text. */
size_t ridge_json_nul_escape(const char *text, size_t len);
/* RIDGE_OK when the text has no \u0000 escape; else RIDGE_EPARSE and err "ORIGIN: line N:
 * malformed JSON (a \u0000 escape: a string may not hold NUL)". Every JSON file reader calls it
 * before cJSON. */
int ridge_json_refuse_nul_escape(const char *text, size_t len, const char *origin, ridge_err *err);

/* 1 when an argument that takes a built-in id or a file names a file: it contains '/' or ends
 * in ".json" (the host-profile and cluster loaders); 0 otherwise. */
int ridge_file_is_path(const char *id_or_path);

#ifdef __cplusplus
}
#endif
#endif
