/* kernels/kstore: the kernel store. Kernels are content-addressed by the
 * sha256 of their boot image and live under <root>/<sha256>/:
 *   image        the bzImage (or whatever was given)
 *   vmlinux      the decompressed ELF kernel, kept when it carries a PVH note
 *                (boots ~3 s faster under TCG: no xz decompression)
 *   config       the kernel's .config, when known
 *   System.map   when known
 *   modules/lib/modules/<release>/  modules (decompressed .ko), with modules.dep from depmod -b
 *   build.json   how it was built, for a kernel built from source (kernels/build.h)
 *   kernel.json  metadata (name, release, source, pvh, added_at, module count)
 * Names are unique; <root>/names/<name> is a symlink to <sha256>. Imports are
 * built in a temporary directory and renamed into place, so a failed import
 * changes nothing. */
#pragma once

#include <jansson.h>
#include <stddef.h>

#include "common/error.h"
#include "common/event.h"

struct kstore;

struct kstore_kernel {
        char *id;                  /* sha256 hex of image */
        char *name;
        char *release;             /* "6.1.0-47-amd64"; NULL if unknown */
        char *image_path;          /* absolute path of the boot image in the store */
        char *vmlinux_path;        /* PVH-bootable ELF, or NULL */
        char *modules_dir;         /* .../lib/modules/<release>, or NULL (drivers built in) */
        char *config_path;         /* or NULL */
        char *source;              /* what was imported */
        double added_at;           /* unix time */
        int n_modules;
        /* Fields below were added with the implementation. */
        char *dir;                 /* <root>/<id> */
        char *version;             /* whole kernel version string, or NULL */
        char *system_map_path;     /* or NULL */
        int pvh;                   /* vmlinux carries XEN_ELFNOTE_PHYS32_ENTRY */
        char *build_path;          /* build.json of a kernel built from source (kernels/build.h), or NULL */
};

#define KSTORE_NAME_MAX 128     /* bytes of a kernel name */
#define KSTORE_ID_PREFIX_MIN 8  /* hex digits of the shortest id prefix kstore_find takes */
/* The rule of kstore_name_new_valid, for messages. */
#define KSTORE_NAME_RULE "1-128 of letters, digits and . + - _ ~, not starting with . or -, and not 8 or " \
        "more hex digits alone, which read as a kernel id"

/* Whether s may name a kernel in the store: 1..KSTORE_NAME_MAX of letters,
 * digits and . + - _ ~, not starting with '.' or '-' (a name is a file in
 * names/). What `kernel remove` and lookups take. */
int kstore_name_valid(const char *s);

/* Whether a new kernel may take the name s (KSTORE_NAME_RULE): valid, and
 * not 8 to 64 lowercase hex digits alone, which kstore_find would read as
 * an id prefix that may be another kernel's. */
int kstore_name_new_valid(const char *s);

/* Open the store at root (created if missing). OUT: *ret, free with kstore_free. */
int kstore_open(const char *root, struct kstore **ret, struct kb_error *err);
/* Open the store at root for reading and removing: nothing is created, and
 * a store without kernels/names lists no kernel. Returns 0. OUT: *ret. */
int kstore_open_existing(const char *root, struct kstore **ret, struct kb_error *err);
struct kstore *kstore_free(struct kstore *s);

/* Import a Debian linux-image .deb or a bare kernel image (bzImage or ELF
 * vmlinux). name NULL = the kernel release. OUT: *ret (caller frees with
 * kstore_kernel_free), *ret_existed = 1 if the image was already stored (no-op).
 * A file that is not a kernel, or a name taken by another image, is a one-line
 * error naming the file and nothing changes; a file that is neither a .deb
 * nor starts like an image, or an image over KIMAGE_MAX_VMLINUX bytes, is
 * refused before anything is copied. name, and the release when name is
 * NULL, must pass kstore_name_new_valid. */
int kstore_add(struct kstore *s, const char *path, const char *name,
               struct kstore_kernel **ret, int *ret_existed, struct kb_error *err);

/* Find by exact name, or by unique id prefix (>= 8 hex digits). -ENOENT with a
 * message listing some known names if absent; -EINVAL when the prefix is
 * several kernels' or when a name (from a store older than the rule of
 * kstore_name_new_valid) is also another kernel's id prefix. */
int kstore_find(struct kstore *s, const char *name_or_id, struct kstore_kernel **ret,
                struct kb_error *err);

/* All kernels sorted by name. OUT: *ret (array of pointers; free with
 * kstore_kernel_list_free), *ret_n. Damaged entries are left out. */
int kstore_list(struct kstore *s, struct kstore_kernel ***ret, size_t *ret_n, struct kb_error *err);

/* A name whose kernel cannot be loaded: a link to no image, an image
 * without a readable kernel.json, a file in names/ that is not a link. */
struct kstore_damaged {
        char *name;                /* the entry in names/ */
        char *id;                  /* the id it points at, or NULL */
        char *why;                 /* one line */
};

/* kstore_list, and the damaged entries in names/ order of readdir.
 * OUT: *ret_damaged (kstore_damaged_free; may be NULL to ignore them),
 * *ret_nd. */
int kstore_list_all(struct kstore *s, struct kstore_kernel ***ret, size_t *ret_n, struct kstore_damaged **ret_damaged,
                    size_t *ret_nd, struct kb_error *err);
void kstore_damaged_free(struct kstore_damaged *v, size_t n);

/* The image directories no name points at (a removal killed between
 * its name and its directory, a hand-edited store): their ids, sorted.
 * kstore_find still finds one by an id prefix. OUT: *ret (NULL-terminated;
 * g_strfreev). */
int kstore_unnamed(struct kstore *s, char ***ret, struct kb_error *err);

/* Remove a kernel by name, a damaged one too; the image dir goes when no
 * other name points at it. -ENOENT naming some known names when there is
 * no such name. OUT: *ret_gone_id (may be NULL): the id no name points at
 * any more (its directory, if there was one, is gone: what else is kept of
 * it, snapshots, is the caller's to remove; g_free), else NULL. */
int kstore_remove(struct kstore *s, const char *name, char **ret_gone_id, struct kb_error *err);

/* Where kstore_add says its slow steps ("reading data.tar.xz ...",
 * "running depmod"): KB_EVENT_PROGRESS lines of origin KB_ORIGIN_KERNEL
 * to events, which must outlive s's imports; NULL: silence (the default). */
void kstore_set_events(struct kstore *s, const struct kb_sink *events);

/* The kernel as a JSON object (id, name, release, version, paths, pvh,
 * n_modules, added_at, source); NULL paths are JSON null. New reference. */
json_t *kstore_kernel_to_json(const struct kstore_kernel *k);

/* Give stored kernel k the file src as its kernel.json member key, kept as
 * dst in its directory (a plain name), replacing an earlier one; the file
 * and kernel.json are each written to a temporary name and renamed, so a
 * failure leaves the kernel as it was. For what a build knows beyond the
 * image: its .config ("config") and its record ("build"). */
int kstore_attach(struct kstore *s, const struct kstore_kernel *k, const char *key, const char *src,
                  const char *dst, struct kb_error *err);

/* The staging directories (<root>/.tmp-add-*) of imports whose process is
 * gone, a kernel add killed mid-way: no import holds their flock. An
 * empty one younger than a minute is left out: it may be an import's
 * moment between mkdtemp and flock. Every import removes them first;
 * doctor names them. OUT: *ret, their names in root, sorted
 * (NULL-terminated, g_strfreev; NULL when none). */
int kstore_staging_stale(struct kstore *s, char ***ret, struct kb_error *err);
/* Remove the staging directory name of kstore_staging_stale when it is
 * still stale (its flock held while it goes). -EBUSY when an import holds
 * it now or it is gone. */
int kstore_staging_remove(struct kstore *s, const char *name, struct kb_error *err);

/* sha256 of a file's bytes as 64 hex digits. OUT: *ret (g_free). */
int kstore_file_sha256(const char *path, char **ret, struct kb_error *err);

struct kstore_kernel *kstore_kernel_free(struct kstore_kernel *k);
void kstore_kernel_list_free(struct kstore_kernel **v, size_t n);
