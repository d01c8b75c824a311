/* The gnuplot side of every chart: chart paths, atomic file writes, and a runner that finds
 * gnuplot and renders a script under the C locale into a chart replaced atomically.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ridge/plot.h"

extern char **environ;

/* ---- paths ---- */

static int ends_with_ci(const char *s, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    if (n < m)
        return 0;
    for (size_t i = 0; i < m; i++)
        if (tolower((unsigned char)s[n - m + i]) != suffix[i])
            return 0;
    return 1;
}

int ridge_plot_paths_from_chart(const char *chart_path, ridge_plot_paths *out, ridge_err *err)
{
    size_t n, base;
    const char *slash;
    if (!chart_path || !chart_path[0])
        return ridge_err_set(err, RIDGE_EINVAL, "empty chart path");
    n = strlen(chart_path);
    /* Room for the longest companion suffix (".dat" + ".XXXXXX" for its temporary file) and the
     * terminator. */
    if (n + 12 > RIDGE_PLOT_PATH_MAX)
        return ridge_err_set(err, RIDGE_EINVAL, "%.80s...: chart path too long", chart_path);
    if (ends_with_ci(chart_path, n, ".png"))
        out->format = RIDGE_PLOT_PNG;
    else if (ends_with_ci(chart_path, n, ".svg"))
        out->format = RIDGE_PLOT_SVG;
    else
        return ridge_err_set(err, RIDGE_EINVAL, "%s: chart must end in .png or .svg", chart_path);
    /* The script names its .dat and chart in gnuplot strings, which cannot hold a control byte:
     * such a path could not be rendered. */
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)chart_path[i] < 0x20 || chart_path[i] == 0x7f)
            return ridge_err_set(err, RIDGE_EINVAL, "chart path has a control character (byte %zu)", i + 1);
    base = n - 4;
    slash = strrchr(chart_path, '/');
    if (base == 0 || (slash && (size_t)(slash - chart_path) + 1 == base))
        return ridge_err_set(err, RIDGE_EINVAL, "%s: chart file needs a name before the extension", chart_path);
    memcpy(out->chart, chart_path, n + 1);
    memcpy(out->dat, chart_path, base);
    memcpy(out->dat + base, ".dat", 5);
    memcpy(out->gp, chart_path, base);
    memcpy(out->gp + base, ".gp", 4);
    return RIDGE_OK;
}

/* ---- atomic files ---- */

/* Whether path is a link, through any chain of links, to an open file descriptor (/dev/stdout ->
 * /proc/self/fd/1, /dev/fd/3): what it names is the caller's descriptor, a plain file when
 * standard output is redirected to one, and the link is no file of ridge's to replace. */
static int fd_alias(const char *path)
{
    char cur[RIDGE_PLOT_PATH_MAX], next[RIDGE_PLOT_PATH_MAX];
    if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur)
        return 0;
    for (int hops = 0; hops < 16; hops++) {
        ssize_t n;
        if (strncmp(cur, "/proc/", 6) == 0 || strncmp(cur, "/dev/fd/", 8) == 0)
            return 1;
        n = readlink(cur, next, sizeof next - 1);
        if (n < 0)
            return 0;
        next[n] = '\0';
        if (next[0] != '/') { /* relative to the link's directory */
            const char *slash = strrchr(cur, '/');
            int dir = slash ? (int)(slash - cur) + 1 : 0;
            char joined[RIDGE_PLOT_PATH_MAX];
            if (snprintf(joined, sizeof joined, "%.*s%s", dir, cur, next) >= (int)sizeof joined)
                return 0;
            memcpy(next, joined, sizeof joined);
        }
        memcpy(cur, next, sizeof cur);
    }
    return 0;
}

/* Such a path is written in place, as a shell's '>' writes it: renaming a file over it would put
 * a plain file in its place (run as root, a /dev/null that is a file, a /dev/stdout that is no
 * longer a link). */
int ridge_plot_in_place(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || S_ISDIR(st.st_mode))
        return 0;
    return !S_ISREG(st.st_mode) || fd_alias(path);
}

/* A new temporary file beside `path`, for writing it and renaming it over `path` (atomic: the
 * same directory): "PATH.XXXXXX", made by mkstemp, so it is a name no one else has (two runs
 * writing the same output get different ones) and created here (never an existing file, nor the
 * target of a link). mkstemp makes it 0600; it gets the mode a plain fopen would have given it,
 * 0666 less the umask. Fills tmp and *fd. A path written in place is only copied to, never
 * renamed over: its temporary file is made under $TMPDIR (else /tmp), not in /dev. */
static int temp_open(const char *path, char *tmp, size_t cap, int *fd, ridge_err *err)
{
    const char *dir = getenv("TMPDIR");
    mode_t mask;
    int e, n;
    if (ridge_plot_in_place(path))
        n = snprintf(tmp, cap, "%s/ridge.XXXXXX", dir && dir[0] == '/' ? dir : "/tmp");
    else
        n = snprintf(tmp, cap, "%s.XXXXXX", path);
    if (n < 0 || (size_t)n >= cap)
        return ridge_err_set(err, RIDGE_EINVAL, "%.80s...: path too long", path);
    *fd = mkstemp(tmp);
    if (*fd < 0)
        return ridge_err_set(err, RIDGE_EIO, "%s: cannot write (%s)", path, strerror(errno));
    /* The umask is read by setting it: ridge writes its files from one thread. */
    mask = umask(0);
    umask(mask);
    if (fchmod(*fd, 0666 & ~mask) == 0)
        return RIDGE_OK;
    e = errno;
    close(*fd);
    unlink(tmp);
    return ridge_err_set(err, RIDGE_EIO, "%s: cannot write (%s)", path, strerror(e));
}

/* Write size bytes of data to fd, through short writes and EINTR: 0, or an errno (EIO for a
 * write that takes nothing). */
static int write_all(int fd, const char *data, size_t size)
{
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, data + done, size - done);
        if (w > 0)
            done += (size_t)w;
        else if (w < 0 && errno != EINTR)
            return errno;
        else if (w == 0)
            return EIO;
    }
    return 0;
}

/* Write all of fd_in's bytes from its start to path, opened for writing in place
 * (ridge_plot_in_place); 0, or an errno. */
static int copy_in_place(int fd_in, const char *path)
{
    char buf[65536];
    int e = 0, out = open(path, O_WRONLY | O_TRUNC);
    if (out < 0)
        return errno;
    if (lseek(fd_in, 0, SEEK_SET) != 0)
        e = errno;
    while (!e) {
        ssize_t r = read(fd_in, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            e = errno;
        if (r <= 0)
            break;
        e = write_all(out, buf, (size_t)r);
    }
    if (close(out) != 0 && !e)
        e = errno;
    return e;
}

/* Finish a temporary file of temp_open: flushed to the disk, closed, renamed over `path` (a path
 * to write in place, ridge_plot_in_place: its bytes copied there, the temporary file removed); on a
 * failure (`e` an errno already, or one here) removed, and RIDGE_EIO naming `path`. */
static int temp_commit(const char *tmp, const char *path, int fd, int e, ridge_err *err)
{
    if (!e && ridge_plot_in_place(path)) {
        e = copy_in_place(fd, path);
        close(fd);
        unlink(tmp);
        return e ? ridge_err_set(err, RIDGE_EIO, "%s: cannot write (%s)", path, strerror(e)) : RIDGE_OK;
    }
    if (!e && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (e) {
        unlink(tmp);
        return ridge_err_set(err, RIDGE_EIO, "%s: cannot write (%s)", path, strerror(e));
    }
    if (rename(tmp, path) != 0) {
        e = errno;
        unlink(tmp);
        return ridge_err_set(err, RIDGE_EIO, "%s: cannot replace (%s)", path, strerror(e));
    }
    return RIDGE_OK;
}

int ridge_plot_write_file(const char *path, const char *data, size_t size, ridge_err *err)
{
    char tmp[RIDGE_PLOT_PATH_MAX + 8];
    int fd = -1, rc = temp_open(path, tmp, sizeof tmp, &fd, err);
    if (rc != RIDGE_OK)
        return rc;
    return temp_commit(tmp, path, fd, write_all(fd, data, size), err);
}

/* ---- finding gnuplot ---- */

static int executable(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

static int search_path(const char *name, char *out, size_t cap)
{
    const char *path = getenv("PATH"), *p, *colon;
    char buf[RIDGE_PLOT_PATH_MAX];
    if (!path || !path[0])
        path = "/usr/local/bin:/usr/bin:/bin";
    for (p = path;; p = colon + 1) {
        size_t len;
        int w;
        colon = strchr(p, ':');
        len = colon ? (size_t)(colon - p) : strlen(p);
        /* An empty PATH entry means the current directory. */
        if (len == 0)
            w = snprintf(buf, sizeof buf, "./%s", name);
        else
            w = snprintf(buf, sizeof buf, "%.*s/%s", (int)len, p, name);
        if (w > 0 && (size_t)w < sizeof buf && executable(buf)) {
            if (out && snprintf(out, cap, "%s", buf) >= (int)cap)
                return 0;
            return 1;
        }
        if (!colon)
            return 0;
    }
}

int ridge_gnuplot_find(char *path, size_t cap)
{
    const char *env = getenv("RIDGE_GNUPLOT");
    const char *name = "gnuplot";
    if (env) {
        if (!env[0])
            return 0; /* explicitly disabled */
        if (strchr(env, '/')) {
            if (!executable(env))
                return 0;
            if (path && snprintf(path, cap, "%s", env) >= (int)cap)
                return 0;
            return 1;
        }
        name = env;
    }
    return search_path(name, path, cap);
}

/* ---- running gnuplot ---- */

/* The environment for gnuplot: ours without locale settings, plus LC_ALL=C, so numbers are
 * read and printed with '.' whatever the user's locale. Built before fork (no allocation in the
 * child). */
static char **c_locale_env(void)
{
    size_t n = 0, k = 0;
    char **env;
    while (environ && environ[n])
        n++;
    env = malloc((n + 2) * sizeof *env);
    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LC_", 3) != 0 && strncmp(environ[i], "LANG=", 5) != 0 &&
            strncmp(environ[i], "LANGUAGE=", 9) != 0)
            env[k++] = environ[i];
    env[k++] = (char *)(uintptr_t) "LC_ALL=C";
    env[k] = NULL;
    return env;
}

/* The last non-blank line of gnuplot's messages, trimmed, for a one-line error. */
static void last_line(const char *buf, size_t len, char *out, size_t cap)
{
    size_t end = len, start;
    while (end > 0 && isspace((unsigned char)buf[end - 1]))
        end--;
    start = end;
    while (start > 0 && buf[start - 1] != '\n')
        start--;
    while (start < end && isspace((unsigned char)buf[start]))
        start++;
    snprintf(out, cap, "%.*s", (int)(end - start), buf + start);
}

int ridge_gnuplot_run(const ridge_plot_paths *paths, ridge_err *err)
{
    char exe[RIDGE_PLOT_PATH_MAX], tmp[RIDGE_PLOT_PATH_MAX + 8];
    char msg[8192]; /* the tail of gnuplot's output; larger than a read chunk */
    char line[300];
    size_t used = 0;
    int fds[2], status = 0, out = -1, rc;
    char **env;
    struct stat st;
    pid_t pid;

    if (!ridge_gnuplot_find(exe, sizeof exe))
        return ridge_err_set(err, RIDGE_ENOTFOUND, "gnuplot not found (set RIDGE_GNUPLOT or install gnuplot)");
    env = c_locale_env();
    if (!env)
        return ridge_err_set(err, RIDGE_ENOMEM, "out of memory starting gnuplot");
    /* The chart is rendered into a temporary file and renamed over the old one, never written in
     * place: a gnuplot that fails or is killed leaves the old chart as it was. */
    rc = temp_open(paths->chart, tmp, sizeof tmp, &out, err);
    if (rc != RIDGE_OK) {
        free(env);
        return rc;
    }
    if (pipe(fds) != 0) {
        rc = ridge_err_set(err, RIDGE_EEXTERNAL, "cannot start gnuplot: pipe: %s", strerror(errno));
        goto fail;
    }
    pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        rc = ridge_err_set(err, RIDGE_EEXTERNAL, "cannot start gnuplot: fork: %s", strerror(e));
        goto fail;
    }
    if (pid == 0) {
        /* `gnuplot -c SCRIPT -`: ARG1 '-' has the script write the chart to standard output
         * (rp_gp_terminal), which is the temporary file; messages go to the pipe. */
        char *const args[] = {exe, (char *)(uintptr_t) "-c", (char *)(uintptr_t)paths->gp, (char *)(uintptr_t) "-",
                              NULL};
        close(fds[0]);
        /* ridge ignores SIGPIPE (cli/main.c); an ignored signal survives execve, and gnuplot
         * expects the default. signal() is async-signal-safe here, after fork. */
        signal(SIGPIPE, SIG_DFL);
        dup2(out, STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(out);
        close(fds[1]);
        execve(exe, args, env);
        _exit(127);
    }
    free(env);
    env = NULL;
    close(fds[1]);
    /* Keep the last sizeof msg bytes: gnuplot's error is at the end. */
    for (;;) {
        char chunk[4096];
        ssize_t r = read(fds[0], chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        /* chunk is smaller than msg: drop the oldest bytes to make room. */
        if (used + (size_t)r > sizeof msg) {
            size_t drop = used + (size_t)r - sizeof msg;
            memmove(msg, msg + drop, used - drop);
            used -= drop;
        }
        memcpy(msg + used, chunk, (size_t)r);
        used += (size_t)r;
    }
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            rc = ridge_err_set(err, RIDGE_EEXTERNAL, "gnuplot (%s): waitpid: %s", exe, strerror(errno));
            goto fail;
        }
    }
    last_line(msg, used, line, sizeof line);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !line[0])
        rc = ridge_err_set(err, RIDGE_EEXTERNAL, "could not run gnuplot (%s)", exe);
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        rc = ridge_err_set(err, RIDGE_EEXTERNAL, "gnuplot failed on %s (exit status %d)%s%s", paths->gp,
                           WEXITSTATUS(status), line[0] ? ": " : "", line);
    else if (WIFSIGNALED(status))
        rc = ridge_err_set(err, RIDGE_EEXTERNAL, "gnuplot killed by signal %d on %s", WTERMSIG(status), paths->gp);
    else if (fstat(out, &st) != 0 || st.st_size == 0)
        rc = ridge_err_set(err, RIDGE_EEXTERNAL, "gnuplot wrote no chart from %s%s%s", paths->gp, line[0] ? ": " : "",
                           line);
    if (rc != RIDGE_OK)
        goto fail;
    return temp_commit(tmp, paths->chart, out, 0, err);
fail:
    free(env);
    close(out);
    unlink(tmp);
    return rc;
}
