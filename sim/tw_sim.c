#define _POSIX_C_SOURCE 200809L
/* tw-sim: runs a built-in timer scenario on a simulated tickwheel chip (the
 * Verilated RTL by default) through the C driver, in virtual time, and prints
 * what happened: every timer must fire exactly at its deadline, once. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tickwheel.h"

typedef struct sim_timer {
    tw_timer timer;
    uint64_t start_at, interval, deadline;
    uint64_t stop_at;  /* 0: never stopped */
    int periodic;
    unsigned fired;
    unsigned late;
} sim_timer;

typedef struct action {
    uint64_t at;
    uint32_t index;
    uint32_t is_stop;
} action;

static struct {
    tw_wheel *wheel;
    uint64_t end;
    uint64_t fired, late, restarted;
} run;

static void on_expiry(tw_timer *t, uint64_t now, void *arg)
{
    sim_timer *s = arg;
    s->fired++;
    run.fired++;
    if (now != s->deadline) {
        s->late++;
        run.late++;
    }
    if (s->periodic && now + s->interval <= run.end) {
        s->deadline = now + s->interval;
        if (tw_start(run.wheel, t, s->interval) == 0)
            run.restarted++;
    }
}

static int by_time(const void *a, const void *b)
{
    const action *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return (int)x->is_stop - (int)y->is_stop;
}

static uint64_t rng_state;
static uint64_t rnd(uint64_t n)
{
    uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return (z ^ (z >> 31)) % n;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tw-sim [options]\n"
            "Runs a timer scenario on a simulated tickwheel chip through the C driver.\n\n"
            "  --backend vl|model   Verilated RTL (default) or the C model of the chip\n"
            "  --geometry M,B,F     C model only: M levels of 2^B slots, FIFO of 2^F (default 4,8,4)\n"
            "  --timers N           timers in the scenario (default 10000)\n"
            "  --ticks N            length of the run in ticks (default 300000)\n"
            "  --seed N             random seed (default 1)\n"
            "  --trace FILE         write a waveform (FST; Verilated backend only)\n"
            "  --help               this text\n");
}

static int parse_u64(const char *opt, const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *s == '-' || *end || end == s) {
        fprintf(stderr, "tw-sim: %s wants a non-negative number, not '%s'\n", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    const char *backend = "vl", *trace = NULL;
    uint64_t ntimers = 10000, ticks = 300000, seed = 1;
    static const struct option opts[] = {
        {"backend", required_argument, 0, 'b'}, {"timers", required_argument, 0, 'n'},
        {"ticks", required_argument, 0, 't'},   {"seed", required_argument, 0, 's'},
        {"trace", required_argument, 0, 'w'},   {"help", no_argument, 0, 'h'},
        {"geometry", required_argument, 0, 'g'},
        {0, 0, 0, 0},
    };
    unsigned geo_m = 4, geo_b = 8, geo_f = 4;
    int geometry_given = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'g': {
            char tail;
            if (sscanf(optarg, "%u,%u,%u%c", &geo_m, &geo_b, &geo_f, &tail) != 3) {
                fprintf(stderr, "tw-sim: --geometry wants M,B,F (e.g. 2,10,4), not '%s'\n", optarg);
                return 2;
            }
            geometry_given = 1;
            break;
        }
        case 'b': backend = optarg; break;
        case 'n': if (parse_u64("--timers", optarg, &ntimers)) return 2; break;
        case 't': if (parse_u64("--ticks", optarg, &ticks)) return 2; break;
        case 's': if (parse_u64("--seed", optarg, &seed)) return 2; break;
        case 'w': trace = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "tw-sim: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    if (strcmp(backend, "vl") && strcmp(backend, "model")) {
        fprintf(stderr, "tw-sim: --backend is 'vl' or 'model', not '%s'\n", backend);
        return 2;
    }
    if (ntimers < 1 || ntimers > 10000000 || ticks < 100) {
        fprintf(stderr, "tw-sim: need 1..10000000 timers and at least 100 ticks\n");
        return 2;
    }
    if (geometry_given && strcmp(backend, "model")) {
        fprintf(stderr, "tw-sim: --geometry needs --backend model (the RTL's is fixed when it is built)\n");
        return 2;
    }
    if (trace && strcmp(backend, "vl")) {
        fprintf(stderr, "tw-sim: --trace needs --backend vl\n");
        return 2;
    }

    tw_dev dev;
    tw_sim_config cfg = {geo_m, geo_b, geo_f, trace};
    int rc = !strcmp(backend, "vl") ? tw_vl_open(&dev, trace ? &cfg : NULL) : tw_model_open(&dev, &cfg);
    if (rc == TW_EINVAL && geometry_given) {
        fprintf(stderr, "tw-sim: geometry %u,%u,%u is not buildable: 1..4 levels, 2..12 slot bits, "
                        "levels x slot bits <= 44, 1..12 FIFO bits\n", geo_m, geo_b, geo_f);
        return 2;
    }
    if (rc < 0) {
        fprintf(stderr, "tw-sim: cannot open the %s backend: %s\n", backend, tw_strerror(rc));
        return 1;
    }
    tw_geometry geo;
    tw_wheel wheel;
    tw_config tcfg = {.source = TW_TIME_VIRTUAL};
    void *mem = NULL;
    rc = tw_probe(&dev, &geo);
    if (rc == 0 && !(mem = malloc(tw_mem_size(&geo))))
        rc = TW_ENOMEM;
    if (rc == 0)
        rc = tw_init(&wheel, &dev, mem, tw_mem_size(&geo), &tcfg);
    if (rc < 0) {
        fprintf(stderr, "tw-sim: driver init failed: %s\n", tw_strerror(rc));
        return 1;
    }

    /* The scenario: starts spread over the first half of the run; intervals
     * short (one bottom revolution), medium (many) and long (a second level
     * and beyond); a fifth stopped before they fire, a tenth periodic. */
    rng_state = seed;
    sim_timer *timers = calloc(ntimers, sizeof *timers);
    action *acts = calloc(2 * ntimers, sizeof *acts);
    if (!timers || !acts) {
        fprintf(stderr, "tw-sim: out of memory\n");
        return 1;
    }
    size_t nacts = 0;
    uint64_t expected_stops = 0;
    for (uint64_t i = 0; i < ntimers; i++) {
        sim_timer *s = &timers[i];
        uint64_t kind = rnd(10);
        s->start_at = rnd(ticks / 2);
        s->interval = kind < 3 ? 1 + rnd(255) : kind < 7 ? 256 + rnd(65536) : 1 + rnd(ticks / 2);
        s->periodic = kind == 9 && s->interval >= 16;
        if (!s->periodic && rnd(5) == 0) {
            s->stop_at = s->start_at + rnd(s->interval);
            acts[nacts++] = (action){s->stop_at, (uint32_t)i, 1};
            expected_stops++;
        }
        acts[nacts++] = (action){s->start_at, (uint32_t)i, 0};
        tw_timer_init(&s->timer, on_expiry, s);
    }
    qsort(acts, nacts, sizeof *acts, by_time);
    run.wheel = &wheel;
    run.end = ticks;

    printf("tickwheel sim: %s backend, %u levels x %u slots, FIFO %u, %llu timers over %llu ticks, seed %llu\n",
           dev.ops->name, geo.levels, 1u << geo.slot_bits, 1u << geo.fifo_log2,
           (unsigned long long)ntimers, (unsigned long long)ticks, (unsigned long long)seed);
    double t0 = seconds_now();
    uint64_t now = 0, started = 0, stopped = 0, stop_misses = 0;
    for (size_t a = 0; a <= nacts && rc >= 0; a++) {
        uint64_t target = a < nacts ? acts[a].at : ticks;
        if (target > now) {
            rc = tw_advance(&wheel, target - now, UINT32_MAX);
            now = target;
        }
        if (a == nacts || rc < 0)
            break;
        sim_timer *s = &timers[acts[a].index];
        if (acts[a].is_stop) {
            int was = tw_stop(&wheel, &s->timer);
            stopped += was == 1;
            /* A stop before the deadline must find the timer pending. */
            stop_misses += was != 1 && s->stop_at < s->deadline;
        } else {
            s->deadline = now + s->interval;
            rc = tw_start(&wheel, &s->timer, s->interval);
            started++;
        }
    }
    double elapsed = seconds_now() - t0;
    if (rc < 0) {
        fprintf(stderr, "tw-sim: driver error: %s\n", tw_strerror(rc));
        return 1;
    }

    /* Lost: not stopped, due by the end, never fired (or periodic and overdue). */
    uint64_t lost = 0, pending_left = 0;
    for (uint64_t i = 0; i < ntimers; i++) {
        sim_timer *s = &timers[i];
        int pend = tw_pending(&s->timer);
        pending_left += pend == 1;
        if (pend == 1 && s->deadline <= ticks)
            lost++;
        if (!s->stop_at && !s->periodic && s->deadline <= ticks && s->fired != 1)
            lost++;
    }
    uint64_t cycles = tw_dev_cycles(&dev);
    uint64_t bus = dev.reads + dev.writes;
    printf("  timers started   %12llu  (+%llu periodic re-arms)\n", (unsigned long long)started,
           (unsigned long long)run.restarted);
    printf("  timers fired     %12llu\n", (unsigned long long)run.fired);
    printf("  timers stopped   %12llu\n", (unsigned long long)stopped);
    printf("  still pending    %12llu  (deadline after the run)\n", (unsigned long long)pending_left);
    printf("  interrupts       %12llu  (%.3f per fired timer)\n", (unsigned long long)dev.irqs,
           run.fired ? (double)dev.irqs / (double)run.fired : 0.0);
    printf("  chip events      %12llu  (%llu cascades, %llu for emptied slots)\n",
           (unsigned long long)wheel.stats.events, (unsigned long long)wheel.stats.cascades,
           (unsigned long long)wheel.stats.empty_events);
    printf("  bus transactions %12llu  (%llu reads, %llu writes; %.2f per timer operation)\n",
           (unsigned long long)bus, (unsigned long long)dev.reads, (unsigned long long)dev.writes,
           (double)bus / (double)(started + run.restarted + stopped + run.fired));
    printf("  fired late       %12llu\n", (unsigned long long)run.late);
    printf("  lost             %12llu\n", (unsigned long long)(lost + stop_misses));
    printf("  simulated cycles %12llu  in %.2f s = %.2f M cycles/s\n", (unsigned long long)cycles,
           elapsed, elapsed > 0 ? (double)cycles / elapsed / 1e6 : 0.0);
    if (trace)
        printf("  waveform         %s\n", trace);
    free(timers);
    free(acts);
    tw_dev_close(&dev);
    free(mem);
    int bad = run.late || lost || stop_misses;
    printf("%s\n", bad ? "RESULT: FAIL (late or lost timers)" : "RESULT: ok (every timer on its tick)");
    return bad ? 1 : 0;
}
