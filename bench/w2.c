/* W2 of workloads.md, the paper's Fig. 9: the cost of a start and a stop
 * against the number of outstanding timers.
 *
 *   bench-w2 --engine NAME --n N [--iters K] [--seed S] [--time-limit S]
 *
 * Fills the engine with N timers at random times far in the future
 * (uniform in [2^20, 2^20 + 2^24) ticks), then times K (default 10,000)
 * iterations of "start one more timer at a random future time in the same
 * range, stop it". Prints
 *   engine,n,iters,ns_per_iter,fill_ns_per_start,bus_per_iter,peak_rss
 * The iterations are timed in CPU time, as W1; the fill and --time-limit
 * in wall-clock seconds. A stop that finds no pending timer fails the run.
 * With --time-limit, a point whose filling takes longer than the limit, or
 * whose first 1% of iterations projects past it, prints
 * "skipped,ENGINE,N,projected_seconds,reason" (exit 3).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>

#include "bench_util.h"

#define FAR_MIN (UINT64_C(1) << 20)
#define FAR_SPAN (UINT64_C(1) << 24)

static void never(void *ctx, uint32_t timer, uint64_t now)
{
    (void)timer, (void)now;
    ++*(uint64_t *)ctx; /* nothing is due in this run: counted, checked below */
}

int main(int argc, char **argv)
{
    bench_opts o = {.seed = 1};
    uint64_t n = 0, iters = 10000, fired = 0, missed = 0; /* missed: a stop that found no timer */
    int have_n = 0;
    for (int i = 1; i < argc; i++) {
        int j = bench_common_opt(&o, argc, argv, i);
        if (j >= 0) {
            i = j;
        } else if (!strcmp(argv[i], "--n") && i + 1 < argc) {
            n = bench_count("--n", argv[++i], 0, 1u << 24);
            have_n = 1;
        } else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
            iters = bench_count("--iters", argv[++i], 1, UINT32_MAX);
        } else {
            return bench_usage(argv[i], "usage: bench-w2 --engine NAME --n N [--iters K] [--seed S] [--time-limit S]\n");
        }
    }
    if (!o.engine || !have_n) {
        fprintf(stderr, "bench-w2: --engine and --n are required\n");
        return 2;
    }
    uint64_t rng = o.seed;
    /* The intervals are drawn before the clock starts. */
    uint64_t *iv = malloc(iters * sizeof *iv);
    engine *e = o.engine->create((uint32_t)n + 1, never, &fired);
    if (!iv || !e) {
        fprintf(stderr, "bench-w2: out of memory\n");
        return 2;
    }
    for (uint64_t k = 0; k < iters; k++)
        iv[k] = FAR_MIN + bench_below(&rng, FAR_SPAN);

    int status = 0;
    double t0 = bench_now_s();
    for (uint64_t k = 0; k < n; k++) {
        o.engine->start(e, (uint32_t)k, FAR_MIN + bench_below(&rng, FAR_SPAN));
        if ((k & 1023) == 1023 && o.time_limit > 0 && bench_now_s() - t0 > o.time_limit) {
            printf("skipped,%s,%" PRIu64 ",,filling passed %.0f s after %" PRIu64 " timers\n",
                   o.engine->name, n, o.time_limit, k + 1);
            status = 3;
            goto done;
        }
    }
    double fill = bench_now_s() - t0;
    double cpu0 = bench_cpu_s();

    engine_dev_stats before = bench_dev_stats(o.engine, e);
    uint32_t extra = (uint32_t)n;
    uint64_t probe = iters / 100 ? iters / 100 : 1;
    t0 = bench_now_s();
    for (uint64_t k = 0; k < iters; k++) {
        o.engine->start(e, extra, iv[k]);
        missed += !o.engine->stop(e, extra);
        if (k + 1 == probe && o.time_limit > 0) {
            double projected = (bench_now_s() - t0) * (double)iters / (double)probe;
            if (projected > o.time_limit) {
                printf("skipped,%s,%" PRIu64 ",%.0f,projected from the first %" PRIu64 " iterations\n",
                       o.engine->name, n, projected, probe);
                status = 3;
                goto done;
            }
        }
    }
    double run = bench_cpu_s() - cpu0; /* CPU time, as W1 */
    engine_dev_stats after = bench_dev_stats(o.engine, e);
    if (fired || missed) {
        fprintf(stderr, "bench-w2: %s: %" PRIu64 " timers fired with no time passing, %" PRIu64
                        " stops found no pending timer\n", o.engine->name, fired, missed);
        status = 1;
        goto done;
    }
    printf("%s,%" PRIu64 ",%" PRIu64 ",%.1f,%.1f,%.3f,%" PRIu64 "\n", o.engine->name, n, iters,
           run / (double)iters * 1e9, n ? fill / (double)n * 1e9 : 0.0,
           (double)(after.reads + after.writes - before.reads - before.writes) / (double)iters,
           bench_peak_rss());
done:
    o.engine->destroy(e);
    free(iv);
    return status;
}
