/* kernels/build.c: a kernel built from source into the store (see build.h).
 * Each step is a function; kbuild_run calls them in order. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glib.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/util.h"
#include "kernels/build.h"
#include "kernels/treepatch.h"

#define ARCH "x86_64"
#define IMAGE "arch/x86/boot/bzImage"
#define PROGRESS_EVERY_S 15
#define CONFIG_MAX (16u << 20)     /* bytes of a .config or fragment; Debian's is about 250 KiB */

/* What one build knows as it goes. */
struct build {
        const struct kbuild_opts *o;
        char *source;              /* o->source made absolute: tar and make run elsewhere */
        char *tree;                /* the source tree make runs in */
        char *source_id, *commit;
        char *config_base;         /* "defconfig", "tinyconfig" or "file:<sha256>" */
        GPtrArray *fragment_ids;   /* sha256 of each fragment, in order */
        GPtrArray *patch_ids;
        char *compiler;            /* first line of gcc --version */
        char *config_digest;       /* base, fragments, arch, compiler */
        char *key;                 /* source_id + config_digest: one exact build */
        char *o_dir, *log_path, *cache_path;
        int ccache;
};

/* One line of the build's progress for whoever watches it. */
#define say(b, ...) kb_progress((b)->o->events, KB_ORIGIN_KERNEL, __VA_ARGS__)

static char *sha256_text(const char *text) {
        return g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, -1);
}

/* argv's standard output, trailing newlines cut. */
static int capture(char **argv, const char *cwd, char **ret, struct kb_error *err) {
        g_autoptr(GError) gerr = NULL;
        g_autofree char *out = NULL;
        int status;

        if (!g_spawn_sync(cwd, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                          &status, &gerr))
                return error_setf(err, -ENOENT, "%s: %s", argv[0], gerr->message);
        if (!g_spawn_check_wait_status(status, NULL))
                return error_setf(err, -EIO, "%s %s failed in %s", argv[0], argv[1] ? argv[1] : "", cwd);
        g_strchomp(out);
        *ret = TAKE_PTR(out);
        return 0;
}

/* The log's last non-empty line, for progress and for the error line. */
static char *log_last_line(const char *log) {
        g_autofree char *text = NULL;
        gsize n = 0;
        char *end, *start;

        if (!g_file_get_contents(log, &text, &n, NULL) || n == 0)
                return g_strdup("");
        end = text + n;
        while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
                end--;
        *end = '\0';
        start = strrchr(text, '\n');
        start = g_strstrip(start ? start + 1 : text);
        return g_utf8_make_valid(start, (gssize)MIN(strlen(start), 200));
}

/* Run argv in cwd with its output appended to the build's log, saying
 * every PROGRESS_EVERY_S how long it has run and what it last printed. */
static int run_logged(const struct build *b, char **argv, const char *cwd, const char *what,
                      struct kb_error *err) {
        g_autofree char *cmd = g_strjoinv(" ", argv);
        int fd = open(b->log_path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
        gint64 start = g_get_monotonic_time(), next = start + PROGRESS_EVERY_S * G_USEC_PER_SEC;
        int status;
        pid_t pid;

        if (fd < 0)
                return error_setf(err, -errno, "%s: %s", b->log_path, strerror(errno));
        dprintf(fd, "$ (cd %s && %s)\n", cwd, cmd);
        pid = fork();
        if (pid < 0) {
                close(fd);
                return error_setf(err, -errno, "fork: %s", strerror(errno));
        }
        if (pid == 0) {
                int null = open("/dev/null", O_RDONLY);

                if (chdir(cwd) < 0 || dup2(null, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
                        _exit(126);
                execvp(argv[0], argv);
                dprintf(2, "%s: %s\n", argv[0], strerror(errno));
                _exit(127);
        }
        close(fd);
        for (;;) {
                pid_t w = waitpid(pid, &status, WNOHANG);

                if (w == pid)
                        break;
                if (w < 0 && errno != EINTR)
                        return error_setf(err, -errno, "waitpid: %s", strerror(errno));
                if (g_get_monotonic_time() >= next) {
                        g_autofree char *last = log_last_line(b->log_path);

                        say(b, "%s: %.0f s: %s", what, (double)(g_get_monotonic_time() - start) / 1e6, last);
                        next += PROGRESS_EVERY_S * G_USEC_PER_SEC;
                }
                g_usleep(200 * 1000);
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                g_autofree char *last = log_last_line(b->log_path);

                return error_setf(err, -EIO, "%s failed (%s %d): see %s (last line: %s)", what,
                                  WIFEXITED(status) ? "exit" : "signal",
                                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), b->log_path, last);
        }
        return 0;
}

/* A tree's identity without git: every regular file's path, size and
 * modification time (not its bytes: hashing a kernel tree's ~1 GB each
 * build would cost more than an incremental build). nftw passes no user
 * pointer, hence the two statics; a build runs one walk at a time. */
static GChecksum *manifest_ck;
static size_t manifest_root_len;

static int manifest_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        const char *base = path + ftw->base;

        if (flag == FTW_D && strcmp(base, ".git") == 0)
                return FTW_SKIP_SUBTREE;
        if (flag == FTW_F && S_ISREG(st->st_mode)) {
                g_autofree char *line = g_strdup_printf("%s\t%lld\t%lld.%09ld\n", path + manifest_root_len,
                                                        (long long)st->st_size, (long long)st->st_mtim.tv_sec,
                                                        st->st_mtim.tv_nsec);
                g_checksum_update(manifest_ck, (const guchar *)line, (gssize)strlen(line));
        }
        return FTW_CONTINUE;
}

static int tree_digest(const char *dir, char **ret, struct kb_error *err) {
        int r;

        manifest_ck = g_checksum_new(G_CHECKSUM_SHA256);
        manifest_root_len = strlen(dir);
        r = nftw(dir, manifest_entry, 64, FTW_PHYS | FTW_ACTIONRETVAL);
        if (r == 0)
                *ret = g_strdup(g_checksum_get_string(manifest_ck));
        g_checksum_free(manifest_ck);
        manifest_ck = NULL;
        return r == 0 ? 0 : error_setf(err, -EIO, "%s: cannot read the tree", dir);
}

static int is_git(const char *dir) {
        g_autofree char *dotgit = g_build_filename(dir, ".git", NULL);

        return g_file_test(dotgit, G_FILE_TEST_EXISTS);
}

/* The untracked files git does not ignore (a new source file, a Kconfig
 * fragment dropped into the tree), each as its path and the sha256 of its
 * bytes, appended to out: they are built as surely as tracked ones, and git
 * diff does not show them. */
static int git_untracked(const char *dir, GString *out, struct kb_error *err) {
        char *argv[] = { "git", "ls-files", "-z", "--others", "--exclude-standard", NULL };
        g_autoptr(GError) gerr = NULL;
        g_autofree char *list = NULL;
        int status;

        if (!g_spawn_sync(dir, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &list, NULL,
                          &status, &gerr))
                return error_setf(err, -ENOENT, "git: %s", gerr->message);
        if (!g_spawn_check_wait_status(status, NULL))
                return error_setf(err, -EIO, "git ls-files failed in %s", dir);
        for (const char *p = list; *p; p += strlen(p) + 1) {
                g_autofree char *path = g_build_filename(dir, p, NULL), *digest = NULL;
                struct stat st;
                int r;

                /* A link is its target's text, as git would commit it. */
                if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
                        g_autofree char *target = g_file_read_link(path, NULL);

                        digest = sha256_text(target ? target : "");
                } else {
                        r = kstore_file_sha256(path, &digest, err);
                        if (r < 0)
                                return r;
                }
                g_string_append_printf(out, "untracked %s %s\n", p, digest);
        }
        return 0;
}

/* A git tree is its commit, plus a digest of its uncommitted changes when
 * there are any: to tracked files, and untracked files git does not ignore. */
static int git_id(const char *dir, char **ret_id, char **ret_commit, struct kb_error *err) {
        char *rev[] = { "git", "rev-parse", "--verify", "HEAD^{commit}", NULL };
        char *diff[] = { "git", "diff", "HEAD", "--binary", NULL };
        g_autofree char *commit = NULL, *diff_text = NULL;
        g_autoptr(GString) changes = g_string_new(NULL);
        int r = capture(rev, dir, &commit, err);

        if (r >= 0)
                r = capture(diff, dir, &diff_text, err);
        if (r >= 0) {
                g_string_append(changes, diff_text);
                r = git_untracked(dir, changes, err);
        }
        if (r < 0)
                return error_prefix(err, r, "source %s", dir);
        if (changes->len) {
                g_autofree char *d = sha256_text(changes->str);

                *ret_id = g_strdup_printf("%s+%.12s", commit, d);
        } else
                *ret_id = g_strdup(commit);
        *ret_commit = TAKE_PTR(commit);
        return 0;
}

int kbuild_source_id(const char *source, char **ret_id, char **ret_commit, struct kb_error *err) {
        g_autofree char *kconfig = g_build_filename(source, "Kconfig", NULL);
        g_autofree char *digest = NULL;
        struct stat st;
        int r;

        *ret_commit = NULL;
        if (stat(source, &st) < 0)
                return error_setf(err, -errno, "source %s: %s", source, strerror(errno));
        if (S_ISREG(st.st_mode)) {
                r = kstore_file_sha256(source, &digest, err);
                if (r >= 0)
                        *ret_id = g_strdup_printf("sha256:%s", digest);
                return r;
        }
        if (!S_ISDIR(st.st_mode) || !g_file_test(kconfig, G_FILE_TEST_IS_REGULAR))
                return error_setf(err, -EINVAL, "source %s: not a kernel source tree (no Kconfig) nor a tarball",
                                  source);
        if (is_git(source))
                return git_id(source, ret_id, ret_commit, err);
        r = tree_digest(source, &digest, err);
        if (r >= 0)
                *ret_id = g_strdup_printf("tree:%s", digest);
        return r;
}

/* A file named by an option must be a regular file of at most max bytes,
 * checked without waiting on it (a FIFO would block the build, /dev/zero
 * never end it). */
static int check_file(const char *opt, const char *path, size_t max, struct kb_error *err) {
        int r = fileio_check(path, max, err);

        return r < 0 ? error_prefix(err, r, "%s", opt) : 0;
}

int kbuild_check_inputs(const struct kbuild_opts *o, struct kb_error *err) {
        struct stat st;
        int r = 0;

        if (stat(o->source, &st) < 0)
                return error_setf(err, -errno, "source %s: %s", o->source, strerror(errno));
        if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
                return error_setf(err, -EINVAL, "source %s: not a kernel source tree nor a tarball", o->source);
        if (o->config && strcmp(o->config, "defconfig") != 0 && strcmp(o->config, "tinyconfig") != 0)
                r = check_file("--config", o->config, CONFIG_MAX, err);
        for (size_t i = 0; r >= 0 && o->fragments && o->fragments[i]; i++)
                r = check_file("--fragment", o->fragments[i], CONFIG_MAX, err);
        for (size_t i = 0; r >= 0 && o->patches && o->patches[i]; i++)
                r = check_file("--patch", o->patches[i], TREEPATCH_MAX, err);
        return r;
}

/* dst made by fill(tmp) under a temporary name and renamed, so a build
 * killed half way leaves no half tree behind under the final name. */
static int make_dir_once(const struct build *b, const char *dst, const char *what,
                         int (*fill)(const struct build *b, const char *tmp, struct kb_error *err),
                         struct kb_error *err) {
        g_autofree char *tmp = g_strconcat(dst, ".tmp", NULL);
        char *rm[] = { "rm", "-rf", tmp, NULL };
        int r;

        if (g_file_test(dst, G_FILE_TEST_IS_DIR))
                return 0;
        say(b, "%s", what);
        r = run_logged(b, rm, "/", "removing an unfinished copy", err);
        if (r >= 0 && g_mkdir_with_parents(tmp, 0755) < 0)
                r = error_setf(err, -errno, "%s: %s", tmp, strerror(errno));
        if (r >= 0)
                r = fill(b, tmp, err);
        if (r >= 0 && rename(tmp, dst) < 0)
                r = error_setf(err, -errno, "%s: %s", dst, strerror(errno));
        return r;
}

static int unpack_tarball(const struct build *b, const char *tmp, struct kb_error *err) {
        char *tar[] = { "tar", "-xf", b->source, "-C", (char *)tmp, "--strip-components=1", NULL };

        return run_logged(b, tar, "/", "unpacking the source", err);
}

/* The tree as it is (git's uncommitted changes included, .git left out). */
static int copy_tree(const struct build *b, const char *tmp, struct kb_error *err) {
        const char *from = b->tree;
        g_autofree char *pipe = g_strdup_printf("tar -C '%s' --exclude=.git -cf - . | tar -C '%s' -xf -", from, tmp);
        char *sh[] = { "sh", "-c", pipe, NULL };

        if (strchr(from, '\'') || strchr(tmp, '\''))
                return error_setf(err, -EINVAL, "source %s: a path with a quote cannot be copied", from);
        return run_logged(b, sh, "/", "copying the tree", err);
}

/* patch(1) through the build's log, for treepatch_apply. */
static int run_patch(char **argv, const char *cwd, const char *what, void *userdata, struct kb_error *err) {
        return run_logged(userdata, argv, cwd, what, err);
}

/* The tree make runs in, and its identity. */
static int step_source(struct build *b, struct kb_error *err) {
        const struct kbuild_opts *o = b->o;
        struct stat st;
        int owned = 0;             /* b->tree is kbench's own, to patch in place */
        int r = kbuild_source_id(b->source, &b->source_id, &b->commit, err);

        if (r < 0)
                return r;
        if (stat(b->source, &st) == 0 && S_ISREG(st.st_mode)) {
                b->tree = g_strdup_printf("%s/src/%.16s", o->work_dir, b->source_id + strlen("sha256:"));
                r = make_dir_once(b, b->tree, "unpacking the source (about a minute)", unpack_tarball, err);
                if (r < 0)
                        return r;
                owned = 1;
        } else {
                /* The real path: the O= tree is keyed by it, and a store may
                 * reach its build directory through a link. */
                char *real = realpath(b->source, NULL);

                if (!real)
                        return error_setf(err, -errno, "source %s: %s", o->source, strerror(errno));
                b->tree = g_strdup(real);
                free(real);
        }
        if (o->patches && o->patches[0]) {
                g_autoptr(GString) ids = g_string_new(b->source_id);
                g_autofree char *digest = NULL, *plain = b->source_id;

                for (size_t i = 0; o->patches[i]; i++) {
                        g_autofree char *pid = NULL;

                        r = kstore_file_sha256(o->patches[i], &pid, err);
                        if (r < 0)
                                return error_prefix(err, r, "--patch");
                        g_string_append_printf(ids, "\npatch:%s", pid);
                        g_ptr_array_add(b->patch_ids, TAKE_PTR(pid));
                }
                digest = sha256_text(ids->str);
                /* The user's own tree is never patched: a copy of it, one
                 * per content (a new commit is a new copy). */
                if (!owned) {
                        g_autofree char *key = sha256_text(plain);
                        char *copy = g_strdup_printf("%s/src/patched-%.16s", o->work_dir, key);

                        r = make_dir_once(b, copy, "copying the tree to patch it", copy_tree, err);
                        g_free(b->tree);
                        b->tree = copy;
                        if (r < 0)
                                return r;
                        owned = 1;
                }
                b->source_id = g_strdup_printf("%s+patches:%.12s", plain, digest);
        }
        if (owned) {
                if (o->patches && o->patches[0])
                        say(b, "applying the patches");
                r = treepatch_apply(b->tree, o->patches, run_patch, b, err);
        }
        return r;
}

/* What decides the configuration: base, fragments, arch, compiler. */
static int step_inputs(struct build *b, struct kb_error *err) {
        const struct kbuild_opts *o = b->o;
        const char *base = o->config ? o->config : "defconfig";
        char *gcc[] = { "gcc", "--version", NULL };
        g_autofree char *version = NULL, *key_text = NULL, *o_text = NULL, *o_key = NULL;
        g_autoptr(GString) in = g_string_new(NULL);
        int r;

        if (strcmp(base, "defconfig") == 0 || strcmp(base, "tinyconfig") == 0)
                b->config_base = g_strdup(base);
        else {
                g_autofree char *id = NULL;

                r = kstore_file_sha256(base, &id, err);
                if (r < 0)
                        return error_prefix(err, r, "--config");
                b->config_base = g_strdup_printf("file:%s", id);
        }
        g_string_append_printf(in, "base:%s\narch:%s\n", b->config_base, ARCH);
        for (size_t i = 0; o->fragments && o->fragments[i]; i++) {
                g_autofree char *id = NULL;

                r = kstore_file_sha256(o->fragments[i], &id, err);
                if (r < 0)
                        return error_prefix(err, r, "--fragment");
                g_string_append_printf(in, "fragment:%s\n", id);
                g_ptr_array_add(b->fragment_ids, TAKE_PTR(id));
        }
        r = capture(gcc, "/", &version, err);
        if (r < 0)
                return r;
        b->compiler = g_strndup(version, strcspn(version, "\n"));
        g_string_append_printf(in, "compiler:%s\n", b->compiler);
        b->config_digest = sha256_text(in->str);
        key_text = g_strdup_printf("%s\n%s", b->source_id, b->config_digest);
        b->key = sha256_text(key_text);
        /* One O= tree per (tree, configuration), whatever the commit: the
         * next build of a nearby commit in the same tree is incremental. */
        o_text = g_strdup_printf("%s\n%s", b->tree, b->config_digest);
        o_key = sha256_text(o_text);
        b->o_dir = g_strdup_printf("%s/o/%.16s", o->work_dir, o_key);
        b->cache_path = g_strdup_printf("%s/cache/%.16s", o->work_dir, b->key);
        b->log_path = g_strdup_printf("%s/log/%.16s.log", o->work_dir, b->key);
        {
                g_autofree char *ccache = g_find_program_in_path("ccache");

                b->ccache = ccache != NULL;
        }
        return 0;
}

/* make in the tree with O=, ARCH and what makes the image reproducible:
 * the same sources give the same bytes, so the same content id. */
static char **make_argv(const struct build *b, const char *target) {
        GPtrArray *a = g_ptr_array_new();
        int jobs = b->o->jobs > 0 ? b->o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);

        g_ptr_array_add(a, g_strdup("make"));
        g_ptr_array_add(a, g_strdup_printf("O=%s", b->o_dir));
        g_ptr_array_add(a, g_strdup("ARCH=" ARCH));
        g_ptr_array_add(a, g_strdup_printf("-j%d", jobs > 0 ? jobs : 1));
        if (b->ccache)
                g_ptr_array_add(a, g_strdup("CC=ccache gcc"));
        g_ptr_array_add(a, g_strdup("KBUILD_BUILD_TIMESTAMP=1970-01-01"));
        g_ptr_array_add(a, g_strdup("KBUILD_BUILD_USER=kbench"));
        g_ptr_array_add(a, g_strdup("KBUILD_BUILD_HOST=kbench"));
        g_ptr_array_add(a, g_strdup("KBUILD_BUILD_VERSION=1"));
        g_ptr_array_add(a, g_strdup(target));
        g_ptr_array_add(a, NULL);
        return (char **)g_ptr_array_free(a, FALSE);
}

static int make_target(const struct build *b, const char *target, const char *what, struct kb_error *err) {
        g_auto(GStrv) argv = make_argv(b, target);

        return run_logged(b, argv, b->tree, what, err);
}

/* A configuration or fragment the user named, read as every file kbench
 * is given is (fileio_read: a regular file, never waited on, its size
 * checked first). OUT: *ret_text (NUL-terminated, g_free), *ret_len (may
 * be NULL). Returns 0 or -errno with err naming the file. */
static int build_read_input(const char *path, char **ret_text, size_t *ret_len, struct kb_error *err) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r = fileio_read(path, CONFIG_MAX, &buf, &len, NULL, err);

        if (r < 0)
                return r;
        *ret_text = g_strndup(buf, len);
        if (ret_len)
                *ret_len = len;
        return 0;
}

/* A fragment's settings that olddefconfig dropped (a dependency forbids
 * them) are said, not silently lost. */
static void check_fragments(const struct build *b) {
        g_autofree char *config_path = g_build_filename(b->o_dir, ".config", NULL);
        g_autofree char *config = NULL;

        if (!g_file_get_contents(config_path, &config, NULL, NULL))
                return;
        for (size_t i = 0; b->o->fragments && b->o->fragments[i]; i++) {
                g_autofree char *text = NULL;
                g_auto(GStrv) lines = NULL;

                if (build_read_input(b->o->fragments[i], &text, NULL, &(struct kb_error){ { 0 } }) < 0)
                        continue;
                lines = g_strsplit(text, "\n", -1);
                for (size_t k = 0; lines[k]; k++) {
                        g_autofree char *line = g_strstrip(g_strdup(lines[k]));
                        g_autofree char *needle = g_strconcat("\n", line, "\n", NULL);
                        g_autofree char *hay = g_strconcat("\n", config, NULL);

                        if (g_str_has_prefix(line, "CONFIG_") && !strstr(hay, needle))
                                say(b, "fragment %s: %s did not stick (olddefconfig dropped it)", b->o->fragments[i],
                                    line);
                }
        }
}

static int step_configure(struct build *b, struct kb_error *err) {
        const char *base = b->o->config ? b->o->config : "defconfig";
        g_autofree char *config = g_build_filename(b->o_dir, ".config", NULL);
        int r;

        if (g_mkdir_with_parents(b->o_dir, 0755) < 0)
                return error_setf(err, -errno, "%s: %s", b->o_dir, strerror(errno));
        if (g_str_has_prefix(b->config_base, "file:")) {
                g_autofree char *text = NULL;
                size_t n = 0;
                g_autoptr(GError) gerr = NULL;

                r = build_read_input(base, &text, &n, err);
                if (r < 0)
                        return error_prefix(err, r, "--config");
                if (!g_file_set_contents(config, text, (gssize)n, &gerr))
                        return error_setf(err, -EIO, "%s: %s", config, gerr->message);
                r = make_target(b, "olddefconfig", "configuring", err);
        } else
                r = make_target(b, base, "configuring", err);
        if (r >= 0 && b->o->fragments && b->o->fragments[0]) {
                GPtrArray *a = g_ptr_array_new_with_free_func(g_free);

                g_ptr_array_add(a, g_strdup("scripts/kconfig/merge_config.sh"));
                g_ptr_array_add(a, g_strdup("-m"));
                g_ptr_array_add(a, g_strdup("-O"));
                g_ptr_array_add(a, g_strdup(b->o_dir));
                g_ptr_array_add(a, g_strdup(config));
                for (size_t i = 0; b->o->fragments[i]; i++)
                        g_ptr_array_add(a, g_canonicalize_filename(b->o->fragments[i], NULL));
                g_ptr_array_add(a, NULL);
                r = run_logged(b, (char **)a->pdata, b->tree, "merging the fragments", err);
                g_ptr_array_free(a, TRUE);
                if (r >= 0)
                        r = make_target(b, "olddefconfig", "configuring", err);
                if (r >= 0)
                        check_fragments(b);
        }
        return r;
}

/* The record beside the image. */
static json_t *build_record(const struct build *b, double build_s) {
        json_t *frags = json_array(), *patches = json_array();

        for (size_t i = 0; b->o->fragments && b->o->fragments[i]; i++)
                json_array_append_new(frags, json_pack("{s:s, s:s}", "path", b->o->fragments[i], "sha256",
                                                       (const char *)b->fragment_ids->pdata[i]));
        for (size_t i = 0; b->o->patches && b->o->patches[i]; i++)
                json_array_append_new(patches, json_pack("{s:s, s:s}", "path", b->o->patches[i], "sha256",
                                                         (const char *)b->patch_ids->pdata[i]));
        return json_pack("{s:s, s:s, s:o, s:s, s:o, s:o, s:s, s:s, s:b, s:f, s:f, s:s, s:s}",
                         "source", b->o->source, "source_id", b->source_id,
                         "commit", b->commit ? json_string(b->commit) : json_null(),
                         "config", b->config_base, "fragments", frags, "patches", patches,
                         "compiler", b->compiler, "arch", ARCH, "ccache", b->ccache,
                         "build_s", build_s, "built_at", (double)g_get_real_time() / 1e6,
                         "log", b->log_path, "o_dir", b->o_dir);
}

static char *default_name(const struct build *b, const char *release) {
        if (b->commit)
                return g_strdup_printf("%s-g%.12s%s", release, b->commit, strchr(b->source_id, '+') ? "-dirty" : "");
        return g_strdup_printf("%s-%.8s", release, b->key);
}

/* Store the image, its .config and its record; remember the inputs. */
static int step_store(struct build *b, struct kstore *s, double build_s, struct kbuild_result *ret,
                      struct kb_error *err) {
        g_autofree char *image = g_build_filename(b->o_dir, IMAGE, NULL);
        g_autofree char *config = g_build_filename(b->o_dir, ".config", NULL);
        g_autofree char *map = g_build_filename(b->o_dir, "System.map", NULL);
        g_autofree char *record_path = g_strconcat(b->log_path, ".build.json", NULL);
        g_autofree char *release = NULL, *name = NULL;
        g_auto(GStrv) rel_argv = NULL;
        json_auto_t *record = NULL;
        int r;

        rel_argv = make_argv(b, "kernelrelease");
        r = capture(rel_argv, b->tree, &release, err);
        if (r < 0)
                return r;
        name = b->o->name ? g_strdup(b->o->name) : default_name(b, release);
        if (!kstore_name_valid(name))
                return error_setf(err, -EINVAL, "kernel build: '%.128s' is not a kernel name", name);
        r = kstore_add(s, image, name, &ret->kernel, &ret->existed, err);
        if (r < 0)
                return r;
        r = kstore_attach(s, ret->kernel, "config", config, "config", err);
        if (r >= 0)
                r = kstore_attach(s, ret->kernel, "system_map", map, "System.map", err);
        record = build_record(b, build_s);
        if (r >= 0) {
                _cleanup_free_ char *text = json_dumps(record, JSON_INDENT(2) | JSON_SORT_KEYS);

                r = text ? fileio_write_atomic(record_path, text, strlen(text), 0644, err)
                         : error_setf(err, -ENOMEM, "%s: cannot write", record_path);
        }
        if (r >= 0)
                r = kstore_attach(s, ret->kernel, "build", record_path, "build.json", err);
        if (r >= 0 && !g_file_set_contents(b->cache_path, ret->kernel->id, -1, NULL))
                r = error_setf(err, -EIO, "%s: cannot write", b->cache_path);
        unlink(record_path);
        if (r < 0)
                return r;
        /* The stored copy, with its new members. */
        kstore_kernel_free(ret->kernel);
        ret->kernel = NULL;
        return kstore_find(s, name, &ret->kernel, err);
}

/* A kernel stored before kbench kept a build's System.map gets it from
 * the O= tree, when the tree's image is still that kernel's: a profile of
 * a kernel without kallsyms needs it (cell/cellprof.h). */
static void attach_map_late(const struct build *b, struct kstore *s, const struct kstore_kernel *k) {
        g_autofree char *image = g_build_filename(b->o_dir, IMAGE, NULL);
        g_autofree char *map = g_build_filename(b->o_dir, "System.map", NULL);
        g_autofree char *sum = NULL;
        struct kb_error ignored = { { 0 } };

        if (k->system_map_path || kstore_file_sha256(image, &sum, &ignored) < 0 || strcmp(sum, k->id) != 0)
                return;
        kstore_attach(s, k, "system_map", map, "System.map", &ignored);
}

/* The same inputs built a kernel that is still stored: take it (under
 * o->name too, when one is asked for). */
static int try_cache(const struct build *b, struct kstore *s, struct kbuild_result *ret, struct kb_error *err) {
        g_autofree char *id = NULL;
        struct kstore_kernel *k = NULL;
        struct kb_error ignored = { { 0 } };

        if (!g_file_get_contents(b->cache_path, &id, NULL, NULL))
                return 0;
        g_strstrip(id);
        if (strlen(id) != 64 || kstore_find(s, id, &k, &ignored) < 0)
                return 0;
        attach_map_late(b, s, k);
        if (b->o->name && strcmp(b->o->name, k->name) != 0) {
                g_autofree char *image = g_strdup(k->image_path);

                kstore_kernel_free(k);
                k = NULL;
                int r = kstore_add(s, image, b->o->name, &k, &ret->existed, err);

                if (r < 0)
                        return r;
        }
        ret->kernel = k;
        ret->cache_hit = 1;
        return 1;
}

static void build_clear(struct build *b) {
        g_free(b->source);
        g_free(b->tree);
        g_free(b->source_id);
        g_free(b->commit);
        g_free(b->config_base);
        g_free(b->compiler);
        g_free(b->config_digest);
        g_free(b->key);
        g_free(b->o_dir);
        g_free(b->log_path);
        g_free(b->cache_path);
        g_ptr_array_free(b->fragment_ids, TRUE);
        g_ptr_array_free(b->patch_ids, TRUE);
}

static int make_dirs(const char *work, struct kb_error *err) {
        static const char *const sub[] = { "src", "o", "cache", "log", "ccache" };

        for (size_t i = 0; i < G_N_ELEMENTS(sub); i++) {
                g_autofree char *d = g_build_filename(work, sub[i], NULL);

                if (g_mkdir_with_parents(d, 0755) < 0)
                        return error_setf(err, -errno, "%s: %s", d, strerror(errno));
        }
        return 0;
}

int kbuild_run(struct kstore *s, const struct kbuild_opts *o, struct kbuild_result *ret, struct kb_error *err) {
        struct build b = { .o = o, .fragment_ids = g_ptr_array_new_with_free_func(g_free),
                           .patch_ids = g_ptr_array_new_with_free_func(g_free) };
        g_autofree char *ccache_dir = g_build_filename(o->work_dir, "ccache", NULL);
        gint64 start;
        int r;

        *ret = (struct kbuild_result){ 0 };
        b.source = g_canonicalize_filename(o->source, NULL);
        r = kbuild_check_inputs(o, err);
        if (r >= 0)
                r = make_dirs(o->work_dir, err);
        if (r >= 0) {
                /* The log of the unpacking or copying, before the build's key is known. */
                b.log_path = g_build_filename(o->work_dir, "log", "source.log", NULL);
                r = step_source(&b, err);
                g_clear_pointer(&b.log_path, g_free);
        }
        if (r >= 0)
                r = step_inputs(&b, err);
        if (r >= 0)
                r = try_cache(&b, s, ret, err);
        if (r > 0) {
                say(&b, "cache hit: %s was built from the same source and configuration", ret->kernel->name);
                ret->source_id = g_strdup(b.source_id);
                r = 0;
                goto out;
        }
        if (r < 0)
                goto out;
        g_setenv("CCACHE_DIR", ccache_dir, TRUE);
        unlink(b.log_path);
        start = g_get_monotonic_time();
        say(&b, "building %s (%s, %s) in %s; log %s", b.source_id, o->config ? o->config : "defconfig",
            b.ccache ? "ccache" : "no ccache", b.o_dir, b.log_path);
        r = step_configure(&b, err);
        if (r >= 0)
                r = make_target(&b, "bzImage", "make bzImage", err);
        if (r >= 0)
                r = step_store(&b, s, (double)(g_get_monotonic_time() - start) / 1e6, ret, err);
        if (r >= 0) {
                ret->build_s = (double)(g_get_monotonic_time() - start) / 1e6;
                ret->source_id = g_strdup(b.source_id);
                ret->log_path = g_strdup(b.log_path);
        } else
                error_prefix(err, r, "kernel build of %s", o->source);
out:
        build_clear(&b);
        return r < 0 ? r : 0;
}

void kbuild_result_clear(struct kbuild_result *r) {
        kstore_kernel_free(r->kernel);
        g_free(r->source_id);
        g_free(r->log_path);
        *r = (struct kbuild_result){ 0 };
}
