/* W4 of workloads.md: retransmission timers.
 *
 *   bench-w4 --engine NAME --conns N [--seconds S] [--seed N] [--time-limit S] [--quiet]
 *
 * Ticks are 1 us. Each of N connections has a retransmission timer of
 * 200 ms, re-armed on every acknowledgement, and an acknowledgement arrival
 * (a second engine timer) every 1-5 ms, uniform at random. One
 * acknowledgement in 1,000 is lost: the connection then hears nothing more
 * until its retransmission timer fires, which retransmits and starts the
 * acknowledgements again. Virtual time runs S seconds (default 1), advancing
 * by ticks_until_next capped at 1,000.
 *
 * An operation is one start, stop or callback execution. Every
 * retransmission must fire exactly 200 ms after the last acknowledgement:
 * one that fires at any other tick is counted late (exit 1).
 *
 * Each connection draws from its own generator, so every engine runs the
 * same workload and reports the same operations and retransmissions.
 *
 * Prints engine,conns,ops,seconds,ops_per_s,retransmits,late,bus_per_op,peak_rss
 * or, past --time-limit (CPU seconds), "skipped,ENGINE,N,projected_seconds,reason" (exit 3).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>

#include "bench_util.h"

#define RTO_TICKS 200000u
#define ACK_MIN 1000u
#define ACK_SPAN 4001u /* 1,000 .. 5,000 ticks */
#define LOSS_ONE_IN 1000u
#define SLEEP_CAP 1000u

typedef struct w4 {
    const engine_ops *ops;
    engine *e;
    uint64_t *rto_deadline; /* per connection */
    uint64_t *rng;          /* per connection, so every engine draws alike */
    uint64_t ops_done, retransmits, late;
} w4;

/* Timer 2c: connection c's retransmission; 2c + 1: its next acknowledgement. */
static void next_ack(w4 *w, uint32_t c)
{
    w->ops->start(w->e, 2 * c + 1, ACK_MIN + bench_below(&w->rng[c], ACK_SPAN));
    w->ops_done++;
}

static void rearm_rto(w4 *w, uint32_t c, uint64_t now)
{
    w->ops->start(w->e, 2 * c, RTO_TICKS);
    w->rto_deadline[c] = now + RTO_TICKS;
    w->ops_done++;
}

static void expired(void *ctx, uint32_t timer, uint64_t now)
{
    w4 *w = ctx;
    uint32_t c = timer / 2;
    w->ops_done++;
    if (timer % 2) { /* an acknowledgement arrives, or is lost */
        if (bench_below(&w->rng[c], LOSS_ONE_IN) == 0)
            return;
        rearm_rto(w, c, now);
        next_ack(w, c);
        return;
    }
    if (now != w->rto_deadline[c])
        w->late++;
    w->retransmits++;
    rearm_rto(w, c, now);
    next_ack(w, c);
}

int main(int argc, char **argv)
{
    bench_opts o = {.seed = 1};
    uint64_t conns = 0, seconds_virtual = 1;
    for (int i = 1; i < argc; i++) {
        int j = bench_common_opt(&o, argc, argv, i);
        if (j >= 0) {
            i = j;
        } else if (!strcmp(argv[i], "--conns") && i + 1 < argc) {
            conns = bench_count("--conns", argv[++i], 1, 1u << 24);
        } else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            seconds_virtual = bench_count("--seconds", argv[++i], 1, 3600);
        } else {
            return bench_usage(argv[i], "usage: bench-w4 --engine NAME --conns N [--seconds S] [--seed N] "
                                        "[--time-limit S] [--quiet]\n");
        }
    }
    if (!o.engine || !conns) {
        fprintf(stderr, "bench-w4: --engine and --conns are required\n");
        return 2;
    }
    w4 w = {.ops = o.engine};
    w.rto_deadline = calloc(conns, sizeof *w.rto_deadline);
    w.rng = calloc(conns, sizeof *w.rng);
    w.e = o.engine->create((uint32_t)(2 * conns), expired, &w);
    if (!w.rto_deadline || !w.rng || !w.e) {
        fprintf(stderr, "bench-w4: out of memory\n");
        return 2;
    }
    uint64_t end = seconds_virtual * 1000000u, now = 0;
    double cpu0 = bench_cpu_s(), next_progress = 0.1;
    /* Every connection opens at tick 0 with a retransmission timer running
     * and its first acknowledgement on the way. */
    for (uint32_t c = 0; c < conns; c++) {
        w.rng[c] = o.seed * UINT64_C(0x100000001B3) + c;
        rearm_rto(&w, c, 0);
        next_ack(&w, c);
    }
    for (uint64_t iter = 0; now < end; iter++) {
        uint64_t n = o.engine->ticks_until_next(w.e, SLEEP_CAP);
        if (n > end - now)
            n = end - now;
        o.engine->advance(w.e, n);
        now += n;
        if ((iter & 1023) == 0) {
            double frac = (double)now / (double)end, spent = bench_cpu_s() - cpu0;
            if (o.time_limit > 0 && spent > o.time_limit / 20 && spent / frac > o.time_limit) {
                printf("skipped,%s,%" PRIu64 ",%.0f,projected from %.2f%% of the run in %.1f s\n",
                       o.engine->name, conns, spent / frac, frac * 100, spent);
                o.engine->destroy(w.e);
                free(w.rto_deadline);
                free(w.rng);
                return 3;
            }
            if (!o.quiet && frac >= next_progress) {
                fprintf(stderr, "w4 %s %" PRIu64 " conns: %.0f%% (%.0f s)\n", o.engine->name, conns,
                        frac * 100, spent);
                next_progress += 0.1;
            }
        }
    }
    double seconds = bench_cpu_s() - cpu0; /* CPU time, as W1 */
    engine_dev_stats ds = bench_dev_stats(o.engine, w.e);
    printf("%s,%" PRIu64 ",%" PRIu64 ",%.3f,%.0f,%" PRIu64 ",%" PRIu64 ",%.4f,%" PRIu64 "\n",
           o.engine->name, conns, w.ops_done, seconds, (double)w.ops_done / seconds, w.retransmits,
           w.late, (double)(ds.reads + ds.writes) / (double)w.ops_done, bench_peak_rss());
    o.engine->destroy(w.e);
    free(w.rto_deadline);
    free(w.rng);
    if (w.late) {
        fprintf(stderr, "bench-w4: %s: %" PRIu64 " retransmission timers fired late\n", o.engine->name,
                w.late);
        return 1;
    }
    return 0;
}
