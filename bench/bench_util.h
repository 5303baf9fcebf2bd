/* What the workload drivers (bench/w1.c .. w4.c) share: a clock, a seeded
 * generator, peak memory, the engine's device counters, and the few command
 * line options every driver takes. Header-only; every function is static. */
#ifndef TW_BENCH_UTIL_H
#define TW_BENCH_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "engine.h"
#include "tw_args.h"

static inline double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process: the throughput figures use it, so that other
 * work on a shared machine does not count against an engine. */
static inline double bench_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this thread: a service call timed with it leaves out the time
 * the scheduler gave to other processes (it is a system call, not free). */
static inline double bench_thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* splitmix64: small, fast, and the same sequence on every machine. */
static inline uint64_t bench_rand(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static inline uint64_t bench_below(uint64_t *s, uint64_t n) { return n ? bench_rand(s) % n : 0; }

/* Peak resident set of this process, in bytes (one process per run, so it
 * is the run's own). */
static inline uint64_t bench_peak_rss(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (uint64_t)ru.ru_maxrss * 1024u;
}

/* The device counters of an engine that has a device, all zero otherwise. */
static inline engine_dev_stats bench_dev_stats(const engine_ops *ops, const engine *e)
{
    engine_dev_stats s;
    memset(&s, 0, sizeof s);
    if (ops->dev_stats)
        ops->dev_stats(e, &s);
    return s;
}

/* The usage line: to stdout and 0 when it was asked for (--help, -h), else
 * to stderr and 2 (the exit status a mistake gets). */
static inline int bench_usage(const char *arg, const char *usage)
{
    int asked = arg && (!strcmp(arg, "--help") || !strcmp(arg, "-h"));
    fputs(usage, asked ? stdout : stderr);
    return asked ? 0 : 2;
}

/* A whole number option value, decimal or 0x hex, or exit with a clear
 * message (a sign, a space or trailing text is refused). */
static inline uint64_t bench_count(const char *opt, const char *v, uint64_t min, uint64_t max)
{
    uint64_t n;
    if (tw_arg_u64(v, min, max, &n) < 0) {
        fprintf(stderr, "%s: expected a whole number in %llu..%llu, got '%s'\n", opt,
                (unsigned long long)min, (unsigned long long)max, v);
        exit(2);
    }
    return n;
}

/* A number of seconds, 0 or more, or exit with a clear message. */
static inline double bench_seconds(const char *opt, const char *v)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (*v < '0' || *v > '9' || *end || errno == ERANGE || !(d >= 0) || d > 1e9) {
        fprintf(stderr, "%s: expected a number of seconds in 0..1e9, got '%s'\n", opt, v);
        exit(2);
    }
    return d;
}

/* The options every driver takes: --engine NAME, --seed N, --time-limit S,
 * --quiet; anything else is the caller's (returned index, or -1 when it is
 * not one of these). */
typedef struct bench_opts {
    const engine_ops *engine;
    uint64_t seed;
    double time_limit; /* seconds; 0: none */
    int quiet;
} bench_opts;

static inline int bench_common_opt(bench_opts *o, int argc, char **argv, int i)
{
    if (!strcmp(argv[i], "--quiet")) {
        o->quiet = 1;
        return i;
    }
    if (i + 1 >= argc)
        return -1;
    if (!strcmp(argv[i], "--engine")) {
        o->engine = engine_by_name(argv[i + 1]);
        if (!o->engine) {
            fprintf(stderr, "unknown engine '%s'; engines:", argv[i + 1]);
            for (const engine_ops *const *e = all_engines; *e; e++)
                fprintf(stderr, " %s", (*e)->name);
            fprintf(stderr, "\n");
            exit(2);
        }
        return i + 1;
    }
    if (!strcmp(argv[i], "--seed")) {
        o->seed = bench_count(argv[i], argv[i + 1], 0, UINT64_MAX);
        return i + 1;
    }
    if (!strcmp(argv[i], "--time-limit")) {
        o->time_limit = bench_seconds(argv[i], argv[i + 1]);
        return i + 1;
    }
    return -1;
}

#endif
