/* The ttyS1 record format shared by the guest agent (writer) and the host
 * (reader: the cell as records arrive, the store when it migrates cells
 * stored before their marks were rows). It sits in common/ because it uses
 * nothing beyond libc and both floors need the one parser. ttyS0 carries the kernel console; everything the host must parse
 * travels on ttyS1 as one framed record per line:
 *
 *   @kb <cell> <seq> <t_ms> <type> <payload> *<crc>\n
 *
 *   cell     the cell id from the kernel command line (kbench.cell=) or from the
 *            host's hello, [A-Za-z0-9_-]{1,31}
 *   seq      0, 1, 2, ... per boot, and again from 0 after a hello; a gap means
 *            a lost record
 *   t_ms     guest CLOCK_MONOTONIC in milliseconds when the record was made
 *   type     [a-z-]{1,15}: ready, vmstat-header, vmstat-boot, vmstat, vmstat-note, out, err,
 *            event, metric, done, log, sysctl, disk-head (CRC-32 of the disk's first 4 KiB as the
 *            guest reads them before mounting, 8 hex digits). vmstat rows hold the columns of
 *            common/vmstat-columns.h, "-" where the guest's kernel does not
 *            provide a value (stored NULL, never 0); one vmstat-note
 *            "# absent COL...: why" after the header says which and why.
 *   payload  printable ASCII; '\' is written "\\" and any other byte outside
 *            0x20..0x7e as "\xHH", so a record never spans lines
 *   crc      CRC-32 (8 lower-case hex digits) of the bytes from '@' up to,
 *            not including, the " *" before it
 *
 * Host -> guest lines on the same port are unframed (the host is trusted):
 *   hello <cell> <unix_ms>  a guest restored from a snapshot (warm start) takes
 *                       the cell's id and the wall clock, restarts seq at 0 and
 *                       answers with a new ready record
 *   set <key> <value>   agent setting before the job starts
 *   sysctl <key> <value>  a sysctl the agent writes (/proc/sys/<key, '.' -> '/'>)
 *                       after the disk is ready and before the job; it reads
 *                       each back and records it as a `sysctl` record
 *                       "<key>=<value as read>", or gives up (done 255, a log
 *                       naming the key) when the kernel has no such sysctl or
 *                       refuses the value. key and value pass proto_sysctl_check.
 *   script <line>       one line of the job's shell script (escaped as above)
 *   go                  start: the agent mounts, runs the script, samples vmstat
 *   say <text>          during the job, written as a line to /run/kbench/host
 *                       (a FIFO the job script may read: `read x < /run/kbench/host`)
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define PROTO_CELL_MAX 31
#define PROTO_TYPE_MAX 15
#define PROTO_PAYLOAD_MAX 2048     /* unescaped bytes */
#define PROTO_LINE_MAX 8400        /* longest valid framed line, escapes included */
#define PROTO_SYSCTL_KEY_MAX 128   /* bytes of a sysctl name */
#define PROTO_SYSCTL_VALUE_MAX 256 /* bytes of a sysctl value */
#define PROTO_SYSCTL_MAX 32        /* sysctls one cell may set */
#define PROTO_SYSCTL_READBACK_MAX 1023 /* bytes of a value the agent reads back */

struct proto_record {
        char cell[PROTO_CELL_MAX + 1];
        uint64_t seq;
        uint64_t t_ms;                             /* guest monotonic, ms */
        char type[PROTO_TYPE_MAX + 1];
        char payload[PROTO_PAYLOAD_MAX + 1];       /* unescaped, NUL-terminated */
        size_t payload_len;                        /* may contain NULs from \x00 */
};

enum proto_status {
        PROTO_OK = 0,
        PROTO_NOT_RECORD = -1,    /* line does not start with "@kb " (stray text) */
        PROTO_MALFORMED = -2,     /* starts like a record but fields are wrong */
        PROTO_BAD_CRC = -3,       /* well-formed, checksum mismatch */
};

/* Write a framed record (with trailing '\n') into buf. payload may hold any
 * bytes. Returns the length written, or -ENOSPC if buf is too small
 * (PROTO_LINE_MAX + 1 is always enough for payloads up to PROTO_PAYLOAD_MAX). */
int proto_format(char *buf, size_t size, const char *cell, uint64_t seq, uint64_t t_ms,
                 const char *type, const void *payload, size_t payload_len);

/* Parse one line (without or with trailing "\n"/"\r\n"; len bytes, need not be
 * NUL-terminated). Returns PROTO_OK and fills *ret, or a negative proto_status;
 * *ret is written only on success. Bounded: never reads past len. */
int proto_parse(const char *line, size_t len, struct proto_record *ret);

/* Escape src into dst as described above. Returns the escaped length or
 * -ENOSPC. dst is NUL-terminated. */
int proto_escape(char *dst, size_t size, const void *src, size_t len);

/* Undo proto_escape. Returns the unescaped length, -EINVAL on a bad escape, or
 * -ENOSPC. dst is NUL-terminated. */
int proto_unescape(char *dst, size_t size, const char *src, size_t len);

/* Whether key and value may travel in a "sysctl" host line: key is 1 to
 * PROTO_SYSCTL_KEY_MAX bytes of [a-z0-9_.], neither starting nor ending
 * with '.' nor holding "..", so that it names a file below /proc/sys and
 * nothing else; value is at most PROTO_SYSCTL_VALUE_MAX bytes of printable
 * ASCII (no newline, no tab) and not empty. Returns 0, or -EINVAL with
 * *ret_why (a static string: "not a sysctl name", ...) saying which. */
int proto_sysctl_check(const char *key, const char *value, const char **ret_why);

/* The payload of a `sysctl` record, "key=value" as the agent read it back:
 * key passes proto_sysctl_check, value is at most PROTO_SYSCTL_READBACK_MAX
 * bytes of printable ASCII, possibly empty, where a tab (the kernel puts
 * them between the fields of some sysctls) becomes a space. key has room
 * for PROTO_SYSCTL_KEY_MAX + 1 bytes, value for PROTO_SYSCTL_READBACK_MAX
 * + 1; both come out NUL-terminated. Returns 0, or -EINVAL for a payload
 * that is not such a record (no '=', a NUL byte, a bad key, a control or
 * non-ASCII byte in the value, a value too long). */
int proto_sysctl_record_parse(const char *payload, size_t len, char *key, char *value);

/* The /proc/sys path of a sysctl key ("vm.dirty_ratio" ->
 * "/proc/sys/vm/dirty_ratio") into buf. Returns its length, -EINVAL for a
 * key proto_sysctl_check refuses, or -ENOSPC. */
int proto_sysctl_path(const char *key, char *buf, size_t size);

/* Human name of a proto_status for error messages. */
const char *proto_status_str(int status);
