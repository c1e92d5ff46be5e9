/* report/hostdisk: the host's view of the disk under test beside the
 * guest's. The guest's vmstat says how many blocks its kernel wrote out each
 * second (bo); libvirt's block statistics (results' host_block rows) say how
 * many bytes QEMU wrote to the image. Put on one clock (both are stamped in
 * seconds since the cell's QEMU start on the host), they should tell the same
 * story; a second where one says "writing" and the other "idle" is worth a
 * look (writes stuck in the guest's queue, a throttled or stalled host disk,
 * a guest counter that lies). Pure arithmetic over stored rows, used by the
 * harness for a cell's host.disk_* metrics and by show for the side-by-side
 * view. */
#pragma once

#include <stddef.h>

#include "results/db.h"

/* A rate at or above HOSTDISK_WRITING_BPS is "writing"; one below
 * HOSTDISK_IDLE_BPS is "idle"; in between is neither and never flagged, so
 * a rate near one edge cannot flip a second into disagreement. Idle is the
 * guest's own stall threshold (VMSTAT_BO_THRESHOLD, 100 blocks/s of 1 KiB):
 * what vmstat calls a writeout stall is what the host calls idle. Writing
 * starts at 1 MiB/s: above the trickle of an idle ext3/ext4 (a journal
 * commit of a few blocks every 5 s averages far below it) and well below
 * any workload's own rate (dd, FTP at a few MB/s). */
#define HOSTDISK_IDLE_BPS (100.0 * 1024.0)
#define HOSTDISK_WRITING_BPS (1024.0 * 1024.0)

enum hostdisk_verdict {
        HOSTDISK_UNKNOWN = 0,              /* the host samples do not cover the second */
        HOSTDISK_AGREE,                    /* both writing, both idle, or either in between */
        HOSTDISK_GUEST_ONLY,               /* the guest writes, the host sees nothing */
        HOSTDISK_HOST_ONLY,                /* the host writes, the guest says idle */
};

/* One vmstat second with the host's rates over the same second. A vmstat
 * row arriving at t describes the interval before it, [t - interval, t]. */
struct hostdisk_second {
        double t_host;                     /* the vmstat row's arrival, s since QEMU start */
        double guest_bo_Bps;               /* guest bo x 1024, bytes/s (NAN: no bo) */
        double host_wr_Bps;                /* host writes over the same interval, bytes/s (NAN: not covered) */
        double host_rd_Bps;                /* host reads, same */
        enum hostdisk_verdict verdict;
};

struct hostdisk_summary {
        double from, to;                   /* the window: first and last host sample, s since QEMU start */
        double written_bytes;              /* host writes over the window */
        double read_bytes;                 /* host reads over the window */
        double write_MBps;                 /* written_bytes / window, 10^6 bytes/s */
        double read_MBps;                  /* same for reads (NAN when libvirt gave no read counter) */
        size_t compared;                   /* vmstat seconds inside the window with a verdict */
        size_t disagree;                   /* of those, GUEST_ONLY or HOST_ONLY */
        double disagree_s;                 /* disagree x interval, seconds */
};

/* The host's cumulative byte counter (writes != 0: wr_bytes, else
 * rd_bytes) at time t, linearly interpolated between the samples around t. Returns NAN when t is outside the samples,
 * the counter is missing (-1) in either, or it went backwards. rows must be
 * in time order. */
double hostdisk_counter_at(const struct db_hostblk_row *rows, size_t n, int writes, double t);

/* The verdict for one second from the two rates (either NAN: UNKNOWN). */
enum hostdisk_verdict hostdisk_judge(double guest_Bps, double host_Bps);

/* Align: one hostdisk_second per vmstat row that is not the since-boot row,
 * in the rows' order. interval is the agent's sampling interval, seconds
 * (> 0). OUT: ret, room for n_vm entries; returns the number written. */
size_t hostdisk_align(const struct db_vmstat_row *vm, size_t n_vm, const struct db_hostblk_row *hb, size_t n_hb,
                      double interval, struct hostdisk_second *ret);

/* The window's figures: from the first to the last host sample, and the
 * verdicts of the vmstat seconds whose interval is at least half inside it
 * (a row at t with from + interval / 2 <= t <= to + interval / 2). Returns
 * 0, or -ENODATA when there are fewer than two host samples, no time passed
 * between them, or the write counter is missing. OUT: *ret. */
int hostdisk_summarize(const struct db_vmstat_row *vm, size_t n_vm, const struct db_hostblk_row *hb, size_t n_hb,
                       double interval, struct hostdisk_summary *ret);
