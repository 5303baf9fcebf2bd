/* W3 of workloads.md (the paper's Appendix A): host interrupts and chip
 * events per timer, against mean interval T over slots per level M and the
 * number of levels m, on the C model of the chip.
 *
 *   bench-w3 --t T [--levels m] [--slot-bits b] [--dist fixed|exp]
 *            [--timers K] [--fires F] [--seed S] [--time-limit S]
 *
 * Defaults: m = 1, b = 8 (M = 256 slots a level), fixed intervals, K = 1,
 * F = 20,000. A hashed wheel needs about T/M events per timer, so a long T
 * on few levels runs for hours: --time-limit S stops a run whose CPU time
 * passes S seconds and prints "skipped,m,b,dist,T,projected seconds,reason"
 * (exit 3).
 *
 * K timers run at once (default 1); each, when it fires, starts again with
 * a new interval (fixed: T; exp: exponential with mean T, at least 1 tick),
 * until F have fired. Time is virtual and moves by tw_advance. With one
 * timer no two share a slot visit, so events per timer are the visits each
 * timer needs; interrupts are the waits that ended on the chip's interrupt
 * line. (With many timers, visits are shared and both fall.) The paper predicts about T/M events per
 * timer for the hashed wheel (m = 1: a timer of interval T is passed over
 * every M ticks until it is due; at least the one visit that fires it) and
 * at most m for the hierarchy (one visit per level on the way down), for
 * T within the hierarchy's reach M^m; beyond it a timer parks in the top
 * level and is looked at once per top revolution.
 *
 * Prints
 *   levels,slot_bits,dist,t,t_over_m,fired,events_per_timer,irqs_per_timer,predicted,late
 * `predicted` is T/M for m = 1 and the bound m otherwise. Exit 1 if a timer
 * fired at any tick but its deadline.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>

#include "bench_util.h"
#include "tickwheel.h"

typedef struct w3 {
    tw_wheel wheel;
    tw_timer *timers;
    uint64_t *deadline;
    uint64_t rng, t, fired, late, fires_wanted;
    int exp;
} w3;

static uint64_t interval(w3 *w)
{
    if (!w->exp)
        return w->t;
    /* Inverse transform of a uniform in (0, 1]. */
    double u = ((double)(bench_rand(&w->rng) >> 11) + 1.0) / 9007199254740992.0;
    double x = -log(u) * (double)w->t;
    return x < 1.0 ? 1 : (uint64_t)x;
}

static void arm(w3 *w, tw_timer *t, uint64_t now)
{
    uint64_t iv = interval(w);
    w->deadline[t - w->timers] = now + iv;
    if (tw_start(&w->wheel, t, iv) < 0) {
        fprintf(stderr, "bench-w3: tw_start failed\n");
        exit(2);
    }
}

static void expired(tw_timer *t, uint64_t now, void *arg)
{
    w3 *w = arg;
    if (now != w->deadline[t - w->timers])
        w->late++;
    if (++w->fired < w->fires_wanted)
        arm(w, t, now);
}

int main(int argc, char **argv)
{
    tw_sim_config chip = {.levels = 1, .slot_bits = 8, .fifo_log2 = 4, .trace = NULL};
    uint64_t k = 1, fires = 20000, seed = 1, t = 0;
    double time_limit = 0;
    const char *dist = "fixed";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--levels"))
            chip.levels = (unsigned)bench_count(argv[i], argv[i + 1], 1, 4);
        else if (!strcmp(argv[i], "--slot-bits"))
            chip.slot_bits = (unsigned)bench_count(argv[i], argv[i + 1], 2, 12);
        else if (!strcmp(argv[i], "--t"))
            t = bench_count(argv[i], argv[i + 1], 1, UINT64_C(1) << 40);
        else if (!strcmp(argv[i], "--timers"))
            k = bench_count(argv[i], argv[i + 1], 1, 1u << 20);
        else if (!strcmp(argv[i], "--fires"))
            fires = bench_count(argv[i], argv[i + 1], 1, UINT64_C(1) << 32);
        else if (!strcmp(argv[i], "--seed"))
            seed = bench_count(argv[i], argv[i + 1], 0, UINT64_MAX);
        else if (!strcmp(argv[i], "--time-limit"))
            time_limit = bench_seconds(argv[i], argv[i + 1]);
        else if (!strcmp(argv[i], "--dist") && (!strcmp(argv[i + 1], "fixed") || !strcmp(argv[i + 1], "exp")))
            dist = argv[i + 1];
        else
            t = 0, i = argc; /* usage below */
    }
    if (!t || argc % 2 == 0) {
        return bench_usage(argc == 2 ? argv[1] : NULL,
                           "usage: bench-w3 --t T [--levels m] [--slot-bits b] [--dist fixed|exp] "
                           "[--timers K] [--fires F] [--seed S] [--time-limit S]\n");
    }
    if (chip.levels * chip.slot_bits > 44) {
        fprintf(stderr, "bench-w3: --levels x --slot-bits must be at most 44 (the chip's levels "
                        "all fit its 48-bit tick), not %u x %u\n", chip.levels, chip.slot_bits);
        return 2;
    }

    w3 w = {.rng = seed, .t = t, .fires_wanted = fires, .exp = !strcmp(dist, "exp")};
    tw_dev dev = {0};
    tw_geometry geo;
    tw_config cfg = {.source = TW_TIME_VIRTUAL};
    int rc = tw_model_open(&dev, &chip);
    if (rc == 0)
        rc = tw_probe(&dev, &geo);
    void *mem = rc == 0 ? malloc(tw_mem_size(&geo)) : NULL;
    w.timers = calloc(k, sizeof *w.timers);
    w.deadline = calloc(k, sizeof *w.deadline);
    if (rc == 0 && (!mem || !w.timers || !w.deadline))
        rc = TW_ENOMEM;
    if (rc == 0)
        rc = tw_init(&w.wheel, &dev, mem, tw_mem_size(&geo), &cfg);
    int status = 2;
    if (rc < 0) {
        fprintf(stderr, "bench-w3: %s\n", tw_strerror(rc));
        goto done;
    }
    for (uint64_t i = 0; i < k; i++) {
        tw_timer_init(&w.timers[i], expired, &w);
        arm(&w, &w.timers[i], 0);
    }
    uint64_t irqs0 = dev.irqs, events0 = w.wheel.stats.events;
    double cpu0 = bench_cpu_s();
    while (w.fired < fires) {
        rc = tw_advance(&w.wheel, UINT64_C(1) << 24, UINT32_MAX);
        if (rc < 0) {
            fprintf(stderr, "bench-w3: tw_advance: %s\n", tw_strerror(rc));
            goto done;
        }
        double spent = bench_cpu_s() - cpu0;
        if (time_limit > 0 && spent > time_limit && w.fired < fires) {
            if (w.fired)
                printf("skipped,%u,%u,%s,%" PRIu64 ",%.0f,projected from %" PRIu64 " of %" PRIu64
                       " fires in %.0f s\n", chip.levels, chip.slot_bits, dist, t,
                       spent * (double)fires / (double)w.fired, w.fired, fires, spent);
            else
                printf("skipped,%u,%u,%s,%" PRIu64 ",,no timer fired in %.0f s\n", chip.levels,
                       chip.slot_bits, dist, t, spent);
            status = 3;
            goto done;
        }
    }
    double m_slots = (double)(1u << chip.slot_bits);
    double predicted = chip.levels == 1 ? (double)t / m_slots : (double)chip.levels;
    printf("%u,%u,%s,%" PRIu64 ",%.4g,%" PRIu64 ",%.4f,%.4f,%.4g,%" PRIu64 "\n", chip.levels,
           chip.slot_bits, dist, t, (double)t / m_slots, w.fired,
           (double)(w.wheel.stats.events - events0) / (double)w.fired,
           (double)(dev.irqs - irqs0) / (double)w.fired, predicted, w.late);
    status = w.late ? 1 : 0;
done:
    if (dev.ops)
        tw_dev_close(&dev);
    free(mem);
    free(w.timers);
    free(w.deadline);
    return status;
}
