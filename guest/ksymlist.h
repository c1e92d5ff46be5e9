/* guest/ksymlist: what the agent tells the host of its kernel's symbols,
 * so that a profile of the kernel's instructions (plugin/kbprof.c) can be
 * put in the kernel's own functions. The host knows each block's address;
 * only the running kernel knows where this boot put its text (KASLR) and
 * its modules, and, for a kernel packaged without its System.map (Debian),
 * which functions lie where. So with every `ready` the agent sends the
 * bases (`kbase` records: cheap, the first lines of /proc/kallsyms and
 * /proc/modules), and when the host asks (`set ksyms 1`, once per kernel:
 * the store keeps the table) it lists every text symbol after the job's
 * `done` (`ksym` records in kernels/ksyms.h's text form, then `ksyms-end
 * N`). Linked into the static agent: libc only. */
#pragma once

#include <stddef.h>

/* How a record leaves: the agent's framing (type, payload of len bytes). */
typedef void (*ksymlist_emit_fn)(const char *type, const char *payload, size_t len, void *userdata);

/* The `kbase` records of this boot under root ("" for the guest's own
 * /proc): "text HEX" (the kernel's _text), or "none" when /proc/kallsyms
 * is missing or hides its addresses; then "module NAME HEX SIZE" per
 * loaded module. */
void ksymlist_base(const char *root, ksymlist_emit_fn emit, void *userdata);

/* Every text symbol (types t, T, w, W) of the kernel and its loaded
 * modules, as `ksym` records of at most payload_max bytes, then one
 * `ksyms-end N`, N the symbols sent. With no /proc/kallsyms, or its
 * addresses hidden, only `ksyms-end 0`. */
void ksymlist_dump(const char *root, size_t payload_max, ksymlist_emit_fn emit, void *userdata);
