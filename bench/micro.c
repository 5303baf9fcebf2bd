#define _POSIX_C_SOURCE 200809L
/* Micro-benchmarks of the simulation backends and of the driver's hot paths.
 * Prints medians of several runs, in CPU time; timings on a shared machine
 * are still noisy (caches), so compare ratios from one run.
 *
 *   bench-micro [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tickwheel.h"
#include "tw_regs.h"
#include "tw_vl.h"

enum { RUNS = 5 };

/* CPU time of the process, as the workload drivers use: on a shared
 * machine wall time would count whatever else ran. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

typedef int (*open_fn)(tw_dev *, const tw_sim_config *);

/* Free-running clock with no interrupt: the raw simulation rate. */
static double cycles_per_s(open_fn open, uint64_t cycles)
{
    double r[RUNS];
    tw_sim_config cfg = {4, 8, 4, NULL};
    for (int i = 0; i < RUNS; i++) {
        tw_dev dev;
        if (open(&dev, &cfg) < 0)
            return 0;
        /* Internal prescaler at one tick per clock, no busy slot. */
        tw_dev_write(&dev, TW_REG_CTRL, TW_PUT(TW_CTRL_TICK_SRC, 1));
        double t0 = now_s();
        tw_dev_wait_irq(&dev, cycles);
        r[i] = (double)cycles / (now_s() - t0);
        tw_dev_close(&dev);
    }
    return median(r, RUNS);
}

/* Register accesses per second: each is one Wishbone read on the clocked model. */
static double bus_ops_per_s(open_fn open, int n)
{
    double r[RUNS];
    tw_sim_config cfg = {4, 8, 4, NULL};
    for (int i = 0; i < RUNS; i++) {
        tw_dev dev;
        uint32_t v;
        if (open(&dev, &cfg) < 0)
            return 0;
        double t0 = now_s();
        for (int k = 0; k < n; k++)
            tw_dev_read(&dev, TW_REG_NOW_LO, &v);
        r[i] = n / (now_s() - t0);
        tw_dev_close(&dev);
    }
    return median(r, RUNS);
}

static void nop(tw_timer *t, uint64_t now, void *arg)
{
    (void)t, (void)now, (void)arg;
}

/* Driver start and stop on the C model, virtual time, n live timers. */
static void start_stop_ns(int n, double *start_ns, double *stop_ns, double *rearm_ns, double *bus_per_start)
{
    double s[RUNS], p[RUNS], a[RUNS];
    tw_timer *timers = calloc((size_t)n, sizeof *timers);
    uint64_t *iv = calloc((size_t)n, sizeof *iv);
    uint64_t rng = 42;
    for (int k = 0; k < n; k++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        iv[k] = 1 + (rng >> 33) % 1000000;
    }
    for (int i = 0; i < RUNS; i++) {
        tw_dev dev;
        tw_sim_config cfg = {4, 8, 4, NULL};
        tw_geometry g;
        tw_wheel w;
        tw_config tc = {.source = TW_TIME_VIRTUAL};
        tw_model_open(&dev, &cfg);
        tw_probe(&dev, &g);
        void *mem = malloc(tw_mem_size(&g));
        tw_init(&w, &dev, mem, tw_mem_size(&g), &tc);
        for (int k = 0; k < n; k++)
            tw_timer_init(&timers[k], nop, NULL);
        uint64_t bus0 = dev.reads + dev.writes;
        double t0 = now_s();
        for (int k = 0; k < n; k++)
            tw_start(&w, &timers[k], iv[k]);
        double t1 = now_s();
        *bus_per_start = (double)(dev.reads + dev.writes - bus0) / n;
        for (int k = 0; k < n; k++)
            tw_start(&w, &timers[k], iv[k] + 1000); /* later deadline: re-arm in place */
        double t2 = now_s();
        for (int k = 0; k < n; k++)
            tw_stop(&w, &timers[k]);
        double t3 = now_s();
        s[i] = (t1 - t0) / n * 1e9;
        a[i] = (t2 - t1) / n * 1e9;
        p[i] = (t3 - t2) / n * 1e9;
        tw_dev_close(&dev);
        free(mem);
    }
    *start_ns = median(s, RUNS);
    *rearm_ns = median(a, RUNS);
    *stop_ns = median(p, RUNS);
    free(timers);
    free(iv);
}

int main(int argc, char **argv)
{
    /* Anything else is a mistake, not a request for the full run. */
    if (argc > 2 || (argc == 2 && strcmp(argv[1], "--quick") != 0)) {
        int asked = argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
        fputs("usage: bench-micro [--quick]\n", asked ? stdout : stderr);
        return asked ? 0 : 2;
    }
    int quick = argc == 2;
    uint64_t cycles = quick ? 2000000 : 50000000;
    int n = quick ? 10000 : 100000;
    double st, sp, ra, bus;

    printf("backend,metric,median\n");
    printf("verilator,free_running_cycles_per_s,%.0f\n", cycles_per_s(tw_vl_open, cycles));
    /* A ticking chip is computed clock by clock in the model too (only a
     * stopped one runs in closed form), so this is a per-clock rate. */
    printf("model,free_running_cycles_per_s,%.0f\n", cycles_per_s(tw_model_open, cycles));
    printf("verilator,bus_reads_per_s,%.0f\n", bus_ops_per_s(tw_vl_open, n * 10));
    printf("model,bus_reads_per_s,%.0f\n", bus_ops_per_s(tw_model_open, n * 10));
    start_stop_ns(n, &st, &sp, &ra, &bus);
    printf("model,driver_start_ns,%.1f\n", st);
    printf("model,driver_rearm_later_ns,%.1f\n", ra);
    printf("model,driver_stop_ns,%.1f\n", sp);
    printf("model,bus_transactions_per_start,%.3f\n", bus);
    return 0;
}
