/* guest/elfdeps: the shared-library closure of an ELF binary, found the way
 * the dynamic loader would find it but without running anything: read
 * PT_INTERP and the dynamic section (DT_NEEDED, DT_RUNPATH, DT_RPATH) of each
 * object ourselves and search the standard multiarch directories. The guest
 * initramfs needs the closure of every host binary it carries (GNU dd,
 * bonnie++, vsftpd), and ldd would execute the binary. Files are untrusted:
 * every offset, size and string is bounds-checked. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define ELFDEPS_NEEDED_MAX 1024    /* DT_NEEDED entries per object */
#define ELFDEPS_CLOSURE_MAX 4096   /* objects in one closure */
#define ELFDEPS_FILE_MAX (1024UL * 1024 * 1024) /* largest file read, bytes */

/* What one ELF object asks of the dynamic loader. Strings are owned. */
struct elfdeps_info {
        uint16_t machine;          /* e_machine (EM_X86_64, ...) */
        uint16_t type;             /* e_type (ET_EXEC, ET_DYN) */
        char *interp;              /* PT_INTERP path, NULL when there is none (static) */
        char **needed;             /* DT_NEEDED names in file order, NULL-terminated */
        char **runpath;            /* DT_RUNPATH split on ':', NULL-terminated, or NULL if absent */
        char **rpath;              /* DT_RPATH split on ':', NULL-terminated, or NULL if absent */
        int dynamic;               /* 1 if the object has a PT_DYNAMIC segment */
};

/* Parse an in-memory ELF image (64-bit little-endian only). Never reads
 * outside data[0..size). Returns 0, -ENOEXEC (not ELF, or malformed: the
 * message says which field), -EPROTONOSUPPORT (32-bit or big-endian), or
 * -ENOMEM. OUT: *ret, free with elfdeps_info_free. */
int elfdeps_parse(const uint8_t *data, size_t size, struct elfdeps_info **ret,
                  struct kb_error *err);
struct elfdeps_info *elfdeps_info_free(struct elfdeps_info *info);

/* Parse the file at path (at most ELFDEPS_FILE_MAX bytes). Same errors as
 * elfdeps_parse plus -errno from open/read, message naming the file. */
int elfdeps_parse_file(const char *path, struct elfdeps_info **ret, struct kb_error *err);

/* The closure of the executable at path: its interpreter (as written in
 * PT_INTERP, e.g. /lib64/ld-linux-x86-64.so.2) followed by every shared
 * library it needs, directly or indirectly, as the absolute path where the
 * library was found (breadth first, no duplicates, path itself excluded).
 * The search per object is: DT_RUNPATH if it has one, else its DT_RPATH and
 * the executable's ($ORIGIN expanded), then /lib/<triplet>,
 * /usr/lib/<triplet>, /lib64, /usr/lib64, /lib, /usr/lib; a candidate of
 * another machine or class is skipped, as ld.so does. A static binary has
 * an empty closure. Returns 0, -ENOENT naming the library that was not
 * found and who needs it, or a parse error. OUT: *ret_paths, a
 * NULL-terminated vector the caller frees with g_strfreev. */
int elfdeps_closure(const char *path, char ***ret_paths, struct kb_error *err);
