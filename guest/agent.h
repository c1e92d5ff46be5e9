/* guest/agent.h: what the agent's rooms share (guest/agent.c and its
 * agent_*.c). The agent is one program, PID 1 of the guest, split by what
 * each part does: agent.c its life from boot to power-off and the records
 * it sends, agent_host.c the host's lines, agent_net.c the network,
 * agent_disk.c the disk under test, agent_measure.c what it measures
 * beside the job, agent_job.c the job itself. They share one state, A,
 * since a single-threaded PID 1 has one of each: one cell, one ttyS1, one
 * job. Not a library: nothing outside guest/agent*.c includes this. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/diskbus.h"
#include "common/guest-paths.h"
#include "common/proto.h"
#include "guest/sampler.h"

#define AGENT_TTY "/dev/ttyS1"
#define AGENT_FIFO KB_GUEST_HOST_FIFO

/* Settings the host may `set` before `go`, as a table: name -> buffer. */
struct agent_settings {
        char disk[256];
        char mnt[256];
        char fs[32];
        char mount_opts[1024];
        char swap[256];
        char net[8];
        char vmstat_interval_ms[16];
        char disk_bus[DISKBUS_NAME_MAX + 1];
        char ksyms[4];                  /* "1": list the kernel's symbols after the job (guest/ksymlist.h) */
};

/* The agent's state: written by the room named beside each field. */
struct agent {
        char cell[PROTO_CELL_MAX + 1];  /* the cell's id (agent.c, hello: agent_host.c) */
        uint64_t seq;                   /* next record's sequence number */
        int tty;                        /* ttyS1, -1 until open */
        struct agent_settings set;      /* agent_host.c, defaults from agent.c */
        char *script;                   /* the job, '\n'-joined, malloc'ed (agent_host.c) */
        size_t script_len;
        char script_error[128];         /* why the script is unusable, "" if fine */
        char release[65];               /* the kernel's uname release */
        bool go;                        /* the host said go (agent_host.c) */
        bool mounted, swapped;          /* agent_disk.c, undone by agent_poweroff */
        char swap_dev[300];             /* resolved swap device node */
        char disk_name[SAMPLER_DISK_NAME_MAX + 1]; /* the disk under test in /proc/diskstats */
        int fifo;                       /* /run/kbench/host, O_RDWR, during the job (agent_job.c) */
};

extern struct agent A;

/* CLOCK_MONOTONIC in ms. */
uint64_t agent_now_ms(void);

/* Read a small text file into buf (NUL-terminated). Returns length or -errno. */
ssize_t agent_read_small(const char *path, char *buf, size_t size);

/* One line on the console (stderr), for what cannot wait for ttyS1. */
void agent_console(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Send one framed record on ttyS1; payloads over PROTO_PAYLOAD_MAX are cut. */
void agent_record(const char *type, const void *payload, size_t len);

/* The same, formatted; a `log` record goes to the console too. */
void agent_recordf(const char *type, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* agent_record as a ksymlist emitter (userdata unused). */
void agent_emit(const char *type, const char *payload, size_t len, void *userdata);

/* Copy the cell id v (n bytes) if it fits the record format. Returns 0
 * or -EINVAL. OUT: ret_cell, PROTO_CELL_MAX + 1 bytes. */
int agent_cell_id(const char *v, size_t n, char *ret_cell);

/* The end of every path: flush ttyS1, sync, unmount, power off. */
__attribute__((noreturn)) void agent_poweroff(void);

/* Say why on the console and as a `log` record, send `done 255`, power off. */
__attribute__((noreturn)) void agent_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* agent_host.c: the host's lines. */
/* Consume whatever ttyS1 holds; complete lines are acted on. */
void agent_host_read(void);
/* The `ready` record, the kernel's symbol bases before it. */
void agent_host_ready(void);
/* Apply the host's sysctls before the job, or fail the cell. */
void agent_host_apply_sysctls(void);

/* agent_net.c: bring the network up when `set net 1` asked for it. */
void agent_net_setup(void);

/* agent_disk.c: mount the disk under test (and swap on the swap disk). */
void agent_disk_prepare(void);

/* agent_measure.c: what the agent measures beside the job. */
/* From the job's start: kernel counters, the PMU, the vmstat sampler. */
void agent_measure_start(void);
/* At a phase mark, just before its record: the PMU's and the kernel's counters. */
void agent_measure_mark(void);
/* After the job: the last vmstat row and the kernel's memory. */
void agent_measure_end(void);
/* The sampler's timerfd and the taskstats socket, for poll(); -1 when absent. */
int agent_measure_timer_fd(void);
int agent_measure_tasks_fd(void);
/* Without a timerfd: take the sample that is due; returns timeout (ms, -1
 * forever) shortened to the next sample. With one: timeout unchanged. */
int agent_measure_pace(int timeout);
/* The timerfd fired: a vmstat row. */
void agent_measure_tick(void);
/* The taskstats socket is readable: sum what it holds. */
void agent_measure_tasks(void);

/* agent_job.c: run the job to completion while serving the host, the
 * sampler and the job's pipes. Returns its exit code (128 + signal). */
int agent_job_run(void);
