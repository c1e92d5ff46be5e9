/* hostdisk.c: the guest's bo beside the host's block statistics (see
 * hostdisk.h). Everything here is arithmetic on rows read from the store,
 * which is data: counters may be missing (-1), times out of order or
 * repeated, and none of that may crash or divide by zero. */
#include <errno.h>
#include <math.h>

#include "report/hostdisk.h"

static int64_t counter(const struct db_hostblk_row *r, int writes) {
        return writes ? r->wr_bytes : r->rd_bytes;
}

double hostdisk_counter_at(const struct db_hostblk_row *rows, size_t n, int writes, double t) {
        if (n == 0 || !isfinite(t) || t < rows[0].t_host || t > rows[n - 1].t_host)
                return NAN;
        for (size_t i = 0; i + 1 < n; i++) {
                const struct db_hostblk_row *a = &rows[i], *b = &rows[i + 1];
                int64_t ca = counter(a, writes), cb = counter(b, writes);
                double span = b->t_host - a->t_host;

                if (t > b->t_host)
                        continue;
                if (t < a->t_host || ca < 0 || cb < 0 || cb < ca)
                        return NAN;
                if (!(span > 0))
                        return (double)cb;
                return (double)ca + (double)(cb - ca) * (t - a->t_host) / span;
        }
        /* One sample, and t is its time. */
        return counter(&rows[n - 1], writes) < 0 ? NAN : (double)counter(&rows[n - 1], writes);
}

enum hostdisk_verdict hostdisk_judge(double guest_Bps, double host_Bps) {
        if (isnan(guest_Bps) || isnan(host_Bps))
                return HOSTDISK_UNKNOWN;
        if (guest_Bps >= HOSTDISK_WRITING_BPS && host_Bps < HOSTDISK_IDLE_BPS)
                return HOSTDISK_GUEST_ONLY;
        if (host_Bps >= HOSTDISK_WRITING_BPS && guest_Bps < HOSTDISK_IDLE_BPS)
                return HOSTDISK_HOST_ONLY;
        return HOSTDISK_AGREE;
}

/* The host's rate of reads or writes over [from, to], bytes/s, or NAN. */
static double rate(const struct db_hostblk_row *hb, size_t n, int writes, double from, double to) {
        double a = hostdisk_counter_at(hb, n, writes, from), b = hostdisk_counter_at(hb, n, writes, to);

        if (isnan(a) || isnan(b) || !(to > from) || b < a)
                return NAN;
        return (b - a) / (to - from);
}

size_t hostdisk_align(const struct db_vmstat_row *vm, size_t n_vm, const struct db_hostblk_row *hb, size_t n_hb,
                      double interval, struct hostdisk_second *ret) {
        size_t n = 0;

        for (size_t i = 0; i < n_vm; i++) {
                const struct db_vmstat_row *row = &vm[i];
                double bo = row->v[DB_VM_bo];
                struct hostdisk_second *s = &ret[n];

                if (row->first)
                        continue;
                s->t_host = row->t_host;
                s->guest_bo_Bps = isfinite(bo) ? bo * 1024.0 : NAN;
                s->host_wr_Bps = rate(hb, n_hb, 1, row->t_host - interval, row->t_host);
                s->host_rd_Bps = rate(hb, n_hb, 0, row->t_host - interval, row->t_host);
                s->verdict = hostdisk_judge(s->guest_bo_Bps, s->host_wr_Bps);
                n++;
        }
        return n;
}

int hostdisk_summarize(const struct db_vmstat_row *vm, size_t n_vm, const struct db_hostblk_row *hb, size_t n_hb,
                       double interval, struct hostdisk_summary *ret) {
        struct hostdisk_summary s = { 0 };
        double w0, w1, r0, r1, span;

        if (n_hb < 2 || !(interval > 0))
                return -ENODATA;
        s.from = hb[0].t_host;
        s.to = hb[n_hb - 1].t_host;
        span = s.to - s.from;
        w0 = hostdisk_counter_at(hb, n_hb, 1, s.from);
        w1 = hostdisk_counter_at(hb, n_hb, 1, s.to);
        if (!(span > 0) || isnan(w0) || isnan(w1))
                return -ENODATA;
        r0 = hostdisk_counter_at(hb, n_hb, 0, s.from);
        r1 = hostdisk_counter_at(hb, n_hb, 0, s.to);
        s.written_bytes = w1 - w0;
        s.read_bytes = r1 - r0;
        s.write_MBps = s.written_bytes / span / 1e6;
        s.read_MBps = s.read_bytes / span / 1e6;
        for (size_t i = 0; i < n_vm; i++) {
                struct hostdisk_second sec;

                if (vm[i].first || !(vm[i].t_host >= s.from + interval / 2) ||
                    !(vm[i].t_host <= s.to + interval / 2))
                        continue;
                if (hostdisk_align(&vm[i], 1, hb, n_hb, interval, &sec) != 1 || sec.verdict == HOSTDISK_UNKNOWN)
                        continue;
                s.compared++;
                if (sec.verdict == HOSTDISK_GUEST_ONLY || sec.verdict == HOSTDISK_HOST_ONLY)
                        s.disagree++;
        }
        s.disagree_s = (double)s.disagree * interval;
        *ret = s;
        return 0;
}
