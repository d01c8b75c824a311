/* Private to plots/: a growing text buffer for the .dat and .gp files, and gnuplot quoting.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_PLOTS_TEXTBUF_H
#define RIDGE_PLOTS_TEXTBUF_H

#include <stddef.h>

#include "ridge/error.h"
#include "ridge/plot.h"

typedef struct {
    char *s;
    size_t len, cap;
    int oom; /* an allocation failed: the text is incomplete (sticky) */
} rp_buf;

void rp_printf(rp_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A gnuplot single-quoted string literal: '' stands for a quote; control bytes become spaces.
 * Nothing inside single quotes is special to gnuplot (no backquote command, no @macro, no
 * escapes) and the terminals are noenhanced, so any text is safe in one. */
void rp_gp_string(rp_buf *b, const char *s);
/* rp_gp_string of a printf-formatted text. */
void rp_gp_stringf(rp_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The common start of a .gp script after its title line: how to render it, a C locale, and `dat`
 * naming the data file relative to the script's own directory (so it runs from anywhere). */
void rp_gp_preamble(rp_buf *gp, const char *gp_path, const char *dat_path, const char *chart_path);
/* The terminal (svg, else pngcairo or plain png) of w x h pixels with a font_pt Sans font, and
 * `set output` naming the chart next to the script. */
void rp_gp_terminal(rp_buf *gp, const ridge_plot_paths *paths, double w_px, double h_px, int font_pt);
/* Write the .dat, then the .gp (atomically each); never leaves one without the other.
 * RIDGE_ENOMEM when either buffer ran out of memory. */
int rp_write_pair(const ridge_plot_paths *paths, const rp_buf *dat, const rp_buf *gp, ridge_err *err);
/* `set title` with an optional second line (the note) in 14 pt; nothing when both are NULL. */
void rp_gp_title(rp_buf *gp, const char *title, const char *note);
/* The key title of block i as a gnuplot string: name, or "NOUN i+1" when it is NULL or empty. */
void rp_gp_key_title(rp_buf *gp, size_t i, const char *name, const char *noun);
/* "# Columns: x (XLABEL) y (YLABEL)" of a two-column .dat ("x", "y" for NULL); the caller ends the
 * line. */
void rp_dat_xy_columns(rp_buf *dat, const char *xlabel, const char *ylabel);
/* Text for a comment line of a .dat or .gp: control bytes become spaces and backslashes '/', so
 * that the text cannot end the comment (a line break) or continue it onto the next line (a
 * trailing backslash). Every piece of text that is not ridge's own goes into a .gp through this
 * or rp_gp_string. */
void rp_comment(rp_buf *b, const char *s);
/* rp_comment of a printf-formatted text; the caller writes the "# " and the line's end. */
void rp_commentf(rp_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The same, also turning '"' into a space: text inside a "..." column of a .dat. */
void rp_quoted_text(rp_buf *b, const char *s);
/* The first lines of a multi-block .dat: "# ridge VERSION KIND[: TITLE]", then how its blocks of
 * NOUN (series, set) are separated. The caller continues with the column line. */
void rp_dat_blocks_header(rp_buf *dat, const char *kind, const char *title, const char *noun);
/* The comment line opening block i: "# [index i] NAME" (or "NOUN i+1" when unnamed), preceded by
 * the two blank lines that separate blocks; the caller adds any suffix and the newline. */
void rp_dat_block_header(rp_buf *dat, size_t i, const char *name, const char *noun);
/* "set Xtics (t, ...)\n" for axis X ('x', 'y'): the 1-2-5 steps within [lo, hi] of a log axis
 * (a narrow log range would otherwise label one tic or none). */
void rp_gp_log_tics(rp_buf *gp, char axis, double lo, double hi);
/* The file name part of a path. */
const char *rp_base_name(const char *path);

#endif
