/* kernels/build: a kernel built from a source tree into the kernel store,
 * the way tuxmake builds one: a base configuration plus fragments merged
 * with `make olddefconfig`, a persistent O= tree per (source tree,
 * configuration) so the next build of a nearby commit is incremental,
 * ccache when it is installed, and a record of what was built (build.json
 * beside the image: source, commit or digest, the configuration's inputs,
 * the compiler, the build time). The build is reproducible where Kbuild
 * allows it (fixed timestamp, user, host and build number), so two builds
 * of the same source give the same image, and the same content id: a step
 * of a bisection whose image equals one already measured is found by id.
 *
 * Under work_dir (<store>/build):
 *   src/<digest>/   an unpacked linux-source tarball, or a private copy of
 *                   the tree with the patches applied
 *   o/<digest>/     the O= tree of one (source tree, configuration)
 *   cache/<key>     the kernel id built from one exact set of inputs
 *   ccache/         ccache's directory
 *   log/<key>.log   the build's log */
#pragma once

#include "common/error.h"
#include "common/event.h"
#include "kernels/kstore.h"

struct kbuild_opts {
        const char *source;        /* a kernel source tree (a git checkout, an unpacked
                                      linux-source) or a linux-source .tar.xz */
        const char *config;        /* a .config file, "defconfig" or "tinyconfig"; NULL: defconfig */
        char **fragments;          /* config fragments merged over it, in order; NULL-terminated or NULL */
        char **patches;            /* patches applied with patch -p1 to a private copy; NULL-terminated or NULL */
        const char *name;          /* store name; NULL: <kernelrelease>-g<commit> or -<digest> */
        const char *work_dir;      /* <store>/build */
        int jobs;                  /* make -j; <= 0: the host's CPUs */
        const struct kb_sink *events; /* the build's progress lines (KB_EVENT_PROGRESS of origin
                                      KB_ORIGIN_KERNEL), common/event.h; NULL: nowhere */
};

struct kbuild_result {
        struct kstore_kernel *kernel;  /* the stored kernel (kstore_kernel_free) */
        int cache_hit;             /* the same inputs built it before: no make ran */
        int existed;               /* the image was already stored (an identical build) */
        char *source_id;           /* commit, commit+<digest of the diff and the untracked files>,
                                      sha256:<tarball> or tree:<digest> */
        char *log_path;            /* the build's log (NULL on a cache hit) */
        double build_s;            /* wall time of configure and make */
};

/* What a build is given by name, checked before anything is made: the
 * source exists as a directory or a file, and each --config file, fragment
 * and patch is a regular file (a FIFO, socket or device is refused at once,
 * never read). Returns 0 or -errno with err naming the option and file. */
int kbuild_check_inputs(const struct kbuild_opts *o, struct kb_error *err);

/* Build o->source (a path relative to the working directory or absolute)
 * into store s; kbuild_check_inputs first. A failed step is one error line
 * naming the build's log. OUT: *ret (kbuild_result_clear). */
int kbuild_run(struct kstore *s, const struct kbuild_opts *o, struct kbuild_result *ret, struct kb_error *err);

void kbuild_result_clear(struct kbuild_result *r);

/* The source identity alone (see kbuild_result.source_id), for a caller
 * that must know whether two trees are the same before building. */
int kbuild_source_id(const char *source, char **ret_id, char **ret_commit, struct kb_error *err);
