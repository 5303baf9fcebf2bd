/* W1 of workloads.md: connection pairs, after the Ratas benchmark.
 *
 *   bench-w1 --engine NAME --pairs P [--seed N] [--time-limit S]
 *            [--service-clock wall|cpu] [--repeat K] [--quiet]
 *
 * One tick is 20 us; the run ends at tick 15,000,000. Over the first 50,000
 * ticks P pairs arrive at a steady random rate (each pair's arrival tick is
 * uniform in that phase); each tick of the phase, time then advances one
 * tick. A pair is a server unit and a client unit, each with five timers:
 * idle (re-armed on every touch to [3,000,000, 3,050,000] ticks, range
 * scheduling where the engine has it, else 3,000,000), close, pace, request
 * and deadline. Clients request 128 messages every 50,000 + 0..99 ticks;
 * the server sends one message per 10-tick pace; close fires at 9,000,000
 * ticks (closing) and 500,000 later (stop every timer, add rx to the
 * checksum). After arrival, time advances by ticks_until_next capped at
 * 5,000 until tick 15,000,000.
 *
 * An operation is one start, range start, stop or callback execution;
 * `seconds` is the process's CPU time (the wall time is in the detail row),
 * so that other work on a shared machine does not count. The
 * worst service call (wall clock by default, so it includes any preemption;
 * --service-clock cpu times each call in thread CPU time instead, at the
 * price of two system calls a call, which slows the run) is the longest single advance of the arrival phase, or
 * ticks_until_next plus advance of the main loop, callbacks included. An
 * engine with bounded service (advance_step) gets there in several calls,
 * each timed on its own.
 * Idle and deadline must never fire: a fire is counted and fails the run, as
 * does a stop() whose answer (pending or not) differs from the workload's
 * own record. The detail row's fire_digest sums a hash of (timer, tick) over
 * every callback, so engines that agree on it fired the same timers at the
 * same ticks; the checksum alone (every unit's messages) does not show
 * that.
 *
 * --repeat K runs the same workload K times (the runs are identical: same
 * seed, same calls in the same order, which is checked) and prints the rows
 * of the run with the median CPU time. Its detail row adds each call's time
 * as the least of its K timings, the worst of those over all calls and how
 * many are over 100 us: preemption on a shared machine rarely hits the same
 * call in every run, so what remains is what the call itself costs.
 *
 * Prints one CSV row on stdout,
 *   engine,pairs,ops,seconds,ops_per_s,max_service_us,checksum
 * and a detail row on stderr (prefixed "detail,"): op mix, live timers,
 * bus transactions per op, interrupts and events per fired timer, peak RSS.
 * With --time-limit (CPU seconds), a run that would pass it stops and prints
 *   skipped,ENGINE,PAIRS,projected_seconds,reason
 * instead (exit 3) once 5% of the limit is spent: the projection scales the
 * time so far by the ticks left (a low estimate in the arrival phase, whose
 * ticks carry fewer pairs).
 * Exit 1: a timer that must never fire fired, or a stop() answered wrong.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>

#include "bench_util.h"

#define ARRIVAL_TICKS 50000u
#define END_TICK 15000000u
_Static_assert(END_TICK < (1u << 24), "the fire digest keys a callback by timer << 24 | tick");
#define IDLE_LO 3000000u
#define IDLE_HI 3050000u
#define CLOSE_TICKS 9000000u
#define CLOSE_AGAIN_TICKS 500000u
#define PACE_TICKS 10u
#define REQUEST_TICKS 50000u
#define REQUEST_JITTER 100u
#define REQUEST_MSGS 128u
#define DEADLINE_FIRST 5120u
#define DEADLINE_NEXT 2560u
#define SLEEP_CAP 5000u

enum { T_IDLE, T_CLOSE, T_PACE, T_REQUEST, T_DEADLINE, TIMERS_PER_UNIT };

typedef struct unit {
    uint64_t tx, rx, quota;
    uint32_t request_ticks;
    uint32_t peer; /* unit index */
    uint8_t closing, closes, waiting, client;
} unit;

typedef struct w1 {
    const engine_ops *ops;
    engine *e;
    unit *units;
    uint64_t ops_done;
    uint64_t idle_starts, other_starts, stops, fires;
    uint64_t bad_fires; /* idle or deadline */
    uint64_t bad_stops; /* stop() said pending where the workload's record did not, or not where it did */
    uint64_t checksum;
    /* The sum of a hash of (timer, tick) over every callback: equal only if
     * the same timers fired at the same ticks, in any order within a tick
     * (the rx checksum is the same for any timing that delivers every
     * message). */
    uint64_t fire_digest;
    uint8_t *pending; /* per timer, the workload's own record */
    uint64_t live, live_sum, live_samples;
} w1;

static void armed(w1 *w, uint32_t t)
{
    w->live += !w->pending[t];
    w->pending[t] = 1;
}

/* Service times in power-of-two buckets of nanoseconds, for percentiles. */
static uint64_t service_hist[64];
static uint64_t service_calls, service_over_100us;

/* --repeat: each call's least time so far over the runs, by call number. */
static uint32_t *call_ns;
static uint64_t call_n, call_cap;
static unsigned run_no;
static int record_calls, record_failed;

/* The clock service calls are timed with: wall (default) or thread CPU time. */
static double (*service_clock)(void) = bench_now_s;

static void note_service(double seconds, double *max)
{
    uint64_t ns = (uint64_t)(seconds * 1e9);
    if (record_calls) {
        uint32_t ns32 = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
        if (run_no == 0) {
            if (call_n == call_cap) {
                uint64_t cap = call_cap ? 2 * call_cap : 1u << 20;
                uint32_t *grown = realloc(call_ns, cap * sizeof *call_ns);
                if (!grown) {
                    record_failed = 1;
                    record_calls = 0;
                } else {
                    call_ns = grown;
                    call_cap = cap;
                }
            }
            if (record_calls)
                call_ns[call_n++] = ns32;
        } else if (service_calls < call_n && ns32 < call_ns[service_calls]) {
            call_ns[service_calls] = ns32;
        }
    }
    service_hist[ns ? 64 - __builtin_clzll(ns) : 0]++;
    service_calls++;
    service_over_100us += ns > 100000;
    if (seconds > *max)
        *max = seconds;
}

/* One service call of the run: advance `ticks` (arrival phase), or, if
 * ticks is 0, the time ticks_until_next answers, at most `limit`. An engine
 * with bounded service takes several calls to get there, each timed on its
 * own; the first includes ticks_until_next. Returns the ticks advanced. */
static uint64_t service(const bench_opts *o, w1 *w, uint64_t ticks, uint64_t limit, double *max,
                        uint64_t *max_call_ops)
{
    const engine_ops *ops = o->engine;
    int more;
    double t0 = service_clock();
    uint64_t ops0 = w->ops_done;
    if (!ticks) {
        ticks = ops->ticks_until_next(w->e, SLEEP_CAP);
        if (ticks > limit)
            ticks = limit;
    }
    uint64_t step = ticks;
    do {
        if (ops->advance_step) {
            more = ops->advance_step(w->e, step);
        } else {
            ops->advance(w->e, step);
            more = 0;
        }
        step = 0;
        note_service(service_clock() - t0, max);
        if (w->ops_done - ops0 > *max_call_ops)
            *max_call_ops = w->ops_done - ops0;
        t0 = service_clock();
        ops0 = w->ops_done;
    } while (more);
    return ticks;
}

/* The upper bound (us) of the bucket holding the given fraction of calls. */
static double service_quantile(double q)
{
    uint64_t total = 0, seen = 0;
    for (int b = 0; b < 64; b++)
        total += service_hist[b];
    for (int b = 0; b < 64; b++) {
        seen += service_hist[b];
        if ((double)seen >= q * (double)total)
            return (double)(UINT64_C(1) << b) / 1e3;
    }
    return 0;
}

static void start(w1 *w, uint32_t u, unsigned kind, uint64_t ticks)
{
    w->ops->start(w->e, u * TIMERS_PER_UNIT + kind, ticks);
    armed(w, u * TIMERS_PER_UNIT + kind);
    w->ops_done++;
    w->other_starts++;
}

static void stop(w1 *w, uint32_t u, unsigned kind)
{
    uint32_t t = u * TIMERS_PER_UNIT + kind;
    w->bad_stops += w->ops->stop(w->e, t) != w->pending[t];
    w->live -= w->pending[t];
    w->pending[t] = 0;
    w->ops_done++;
    w->stops++;
}

static void touch(w1 *w, uint32_t u)
{
    uint32_t t = u * TIMERS_PER_UNIT + T_IDLE;
    if (w->ops->start_range)
        w->ops->start_range(w->e, t, IDLE_LO, IDLE_HI);
    else
        w->ops->start(w->e, t, IDLE_LO);
    armed(w, t);
    w->ops_done++;
    w->idle_starts++;
}

static void deliver(w1 *w, uint32_t u);

static void receive(w1 *w, uint32_t u)
{
    unit *x = &w->units[u];
    touch(w, u);
    if (x->waiting) {
        start(w, u, T_DEADLINE, DEADLINE_NEXT);
        x->waiting = 0;
    }
    x->rx++;
    if (x->rx % REQUEST_MSGS == 0) {
        stop(w, u, T_DEADLINE);
        start(w, u, T_REQUEST, x->request_ticks);
    }
}

static void transmit(w1 *w, uint32_t u, uint64_t n)
{
    w->units[u].tx += n;
    deliver(w, u);
}

static void deliver(w1 *w, uint32_t u)
{
    unit *x = &w->units[u];
    touch(w, u);
    uint64_t n = x->quota < x->tx ? x->quota : x->tx;
    x->quota -= n;
    x->tx -= n;
    for (uint64_t i = 0; i < n; i++)
        receive(w, x->peer);
    if (x->quota == 0)
        start(w, u, T_PACE, PACE_TICKS);
}

static void request(w1 *w, uint32_t u)
{
    unit *x = &w->units[u];
    if (x->closing)
        return;
    start(w, u, T_DEADLINE, DEADLINE_FIRST);
    x->waiting = 1;
    transmit(w, x->peer, REQUEST_MSGS);
}

static void expired(void *ctx, uint32_t timer, uint64_t now)
{
    w1 *w = ctx;
    uint32_t u = timer / TIMERS_PER_UNIT;
    unit *x = &w->units[u];
    uint64_t key = (uint64_t)timer << 24 ^ now; /* exact: now < 2^24 (END_TICK) */
    w->fire_digest += bench_rand(&key);
    w->pending[timer] = 0;
    w->live--;
    w->ops_done++;
    w->fires++;
    switch (timer % TIMERS_PER_UNIT) {
    case T_IDLE:
    case T_DEADLINE:
        w->bad_fires++;
        break;
    case T_PACE:
        if (x->tx > 0) {
            x->quota = 1;
            deliver(w, u);
        }
        break;
    case T_REQUEST:
        request(w, u);
        break;
    case T_CLOSE:
        if (x->closes++ == 0) {
            x->closing = 1;
            start(w, u, T_CLOSE, CLOSE_AGAIN_TICKS);
        } else {
            for (unsigned k = 0; k < TIMERS_PER_UNIT; k++)
                stop(w, u, k);
            w->checksum += x->rx;
        }
        break;
    }
}

static void start_unit(w1 *w, uint32_t u)
{
    touch(w, u);
    start(w, u, T_CLOSE, CLOSE_TICKS);
    if (w->units[u].client)
        request(w, u);
}

/* One run's printed rows (without their newlines) and its CPU time. */
typedef struct run_rows {
    char row[256], detail[1024];
    double seconds, max_service;
    uint64_t fire_digest;
} run_rows;

/* Runs W1 once. Returns 0, 1 if a timer that must never fire fired or a
 * stop() answered wrong, 2 on a setup failure, 3 if --time-limit skipped it
 * (row then holds the reason). */
static int run_once(const bench_opts *opts, uint64_t pairs, run_rows *out)
{
    const bench_opts o = *opts;
    memset(service_hist, 0, sizeof service_hist);
    service_calls = service_over_100us = 0;
    w1 w = {.ops = o.engine};
    uint32_t nunits = (uint32_t)pairs * 2;
    uint32_t *arrivals = calloc(ARRIVAL_TICKS, sizeof *arrivals);
    w.units = calloc(nunits, sizeof *w.units);
    w.pending = calloc((size_t)nunits * TIMERS_PER_UNIT, 1);
    if (!arrivals || !w.units || !w.pending) {
        fprintf(stderr, "bench-w1: out of memory\n");
        free(arrivals);
        free(w.units);
        free(w.pending);
        return 2;
    }
    uint64_t rng = o.seed;
    for (uint32_t p = 0; p < pairs; p++) {
        unit *server = &w.units[2 * p], *client = &w.units[2 * p + 1];
        server->quota = client->quota = 1;
        server->request_ticks = REQUEST_TICKS;
        client->request_ticks = REQUEST_TICKS + (uint32_t)bench_below(&rng, REQUEST_JITTER);
        server->peer = 2 * p + 1;
        client->peer = 2 * p;
        client->client = 1;
        arrivals[bench_below(&rng, ARRIVAL_TICKS)]++;
    }
    w.e = o.engine->create(nunits * TIMERS_PER_UNIT, expired, &w);
    if (!w.e) {
        fprintf(stderr, "bench-w1: %s: create failed\n", o.engine->name);
        return 2;
    }

    double max_service = 0, t_start = bench_now_s(), cpu_start = bench_cpu_s(), next_progress = 0.1;
    uint64_t now = 0, max_call_ops = 0; /* the most operations one service call ran */
    uint32_t created = 0;
    int skipped = 0;
    for (uint32_t tick = 0; tick < ARRIVAL_TICKS; tick++) {
        for (uint32_t k = 0; k < arrivals[tick]; k++, created++) {
            start_unit(&w, 2 * created);
            start_unit(&w, 2 * created + 1);
        }
        service(&o, &w, 1, 0, &max_service, &max_call_ops);
        now++;
        double cpu = (tick & 1023) == 0 ? bench_cpu_s() - cpu_start : 0;
        if (o.time_limit > 0 && cpu > o.time_limit / 20 && cpu * END_TICK / (double)now > o.time_limit) {
            snprintf(out->row, sizeof out->row,
                     "skipped,%s,%" PRIu64 ",%.0f,projected from the first %" PRIu64 " ticks in %.1f s",
                   o.engine->name, pairs, cpu * END_TICK / (double)now, now, cpu);
            skipped = 1;
            break;
        }
    }
    for (uint64_t iter = 0; !skipped && now < END_TICK; iter++) {
        uint64_t n = service(&o, &w, 0, END_TICK - now, &max_service, &max_call_ops);
        now += n;
        if ((iter & 1023) == 0) {
            w.live_sum += w.live;
            w.live_samples++;
        }
        if ((iter & 4095) == 0) {
            double frac = (double)now / END_TICK, spent = bench_cpu_s() - cpu_start;
            if (o.time_limit > 0 && spent > o.time_limit / 20 && spent / frac > o.time_limit) {
                snprintf(out->row, sizeof out->row,
                         "skipped,%s,%" PRIu64 ",%.0f,projected from %.2f%% of the run in %.1f s",
                       o.engine->name, pairs, spent / frac, frac * 100, spent);
                skipped = 1;
                break;
            }
            if (!o.quiet && frac >= next_progress) {
                fprintf(stderr, "w1 %s %" PRIu64 " pairs: %.0f%% (%.0f s)\n", o.engine->name, pairs,
                        frac * 100, spent);
                next_progress += 0.1;
            }
        }
    }
    double seconds = bench_cpu_s() - cpu_start, wall = bench_now_s() - t_start;
    if (skipped) {
        o.engine->destroy(w.e);
        free(w.units);
        free(w.pending);
        free(arrivals);
        return 3;
    }

    engine_dev_stats ds = bench_dev_stats(o.engine, w.e);
    size_t mem = o.engine->memory(w.e);
    out->seconds = seconds;
    out->max_service = max_service;
    out->fire_digest = w.fire_digest;
    snprintf(out->row, sizeof out->row, "%s,%" PRIu64 ",%" PRIu64 ",%.3f,%.0f,%.1f,%" PRIu64, o.engine->name, pairs,
           w.ops_done, seconds, (double)w.ops_done / seconds, max_service * 1e6, w.checksum);
    snprintf(out->detail, sizeof out->detail,
            "detail,%s,%" PRIu64 ",idle_starts=%" PRIu64 ",other_starts=%" PRIu64 ",stops=%" PRIu64
            ",fires=%" PRIu64 ",bad_fires=%" PRIu64 ",live_per_pair=%.2f,bus_per_op=%.4f,irqs_per_fire=%.4f"
            ",events_per_fire=%.4f,cycles_per_op=%.2f,service_p9999_us_le=%.1f,wall_seconds=%.3f,engine_bytes=%zu,peak_rss=%" PRIu64 ",max_ops_per_call=%" PRIu64
            ",service_calls=%" PRIu64 ",service_over_100us=%" PRIu64 ",fire_digest=%016" PRIx64
            ",bad_stops=%" PRIu64,
            o.engine->name, pairs, w.idle_starts, w.other_starts, w.stops, w.fires, w.bad_fires,
            w.live_samples ? (double)w.live_sum / (double)w.live_samples / (double)pairs : 0.0,
            (double)(ds.reads + ds.writes) / (double)w.ops_done,
            w.fires ? (double)ds.irqs / (double)w.fires : 0.0,
            w.fires ? (double)ds.events / (double)w.fires : 0.0, (double)ds.cycles / (double)w.ops_done,
            service_quantile(0.9999), wall, mem, bench_peak_rss(), max_call_ops, service_calls,
            service_over_100us, w.fire_digest, w.bad_stops);
    o.engine->destroy(w.e);
    free(w.units);
    free(w.pending);
    free(arrivals);
    if (w.bad_fires || w.bad_stops) {
        fprintf(stderr, "bench-w1: %s: %" PRIu64 " idle or deadline timers fired, %" PRIu64 " stops answered wrong\n",
                o.engine->name, w.bad_fires, w.bad_stops);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    bench_opts o = {.seed = 1};
    uint64_t pairs = 0;
    unsigned repeat = 1;
    for (int i = 1; i < argc; i++) {
        int j = bench_common_opt(&o, argc, argv, i);
        if (j >= 0) {
            i = j;
        } else if (!strcmp(argv[i], "--service-clock") && i + 1 < argc &&
                   (!strcmp(argv[i + 1], "cpu") || !strcmp(argv[i + 1], "wall"))) {
            service_clock = !strcmp(argv[++i], "cpu") ? bench_thread_cpu_s : bench_now_s;
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            repeat = (unsigned)bench_count("--repeat", argv[++i], 1, 99);
        } else if (!strcmp(argv[i], "--pairs") && i + 1 < argc) {
            pairs = bench_count("--pairs", argv[++i], 1, 1u << 22);
        } else {
            return bench_usage(argv[i], "usage: bench-w1 --engine NAME --pairs P [--seed N] [--time-limit S] "
                                        "[--service-clock wall|cpu] [--repeat K] [--quiet]\n");
        }
    }
    if (!o.engine || !pairs) {
        fprintf(stderr, "bench-w1: --engine and --pairs are required\n");
        return 2;
    }

    run_rows *runs = calloc(repeat, sizeof *runs);
    if (!runs) {
        fprintf(stderr, "bench-w1: out of memory\n");
        return 2;
    }
    record_calls = repeat > 1;
    for (run_no = 0; run_no < repeat; run_no++) {
        int rc = run_once(&o, pairs, &runs[run_no]);
        if (rc == 3) {
            printf("%s\n", runs[run_no].row);
            return 3;
        }
        if (rc != 0)
            return rc;
        if (record_calls && run_no > 0 &&
            (service_calls != call_n || runs[run_no].fire_digest != runs[0].fire_digest)) {
            fprintf(stderr, "bench-w1: run %u made %" PRIu64 " service calls (fire digest %016" PRIx64
                            "), run 1 made %" PRIu64 " (%016" PRIx64 "): the runs are not identical\n",
                    run_no + 1, service_calls, runs[run_no].fire_digest, call_n, runs[0].fire_digest);
            return 2;
        }
    }
    if (record_failed) {
        fprintf(stderr, "bench-w1: out of memory for --repeat's call times\n");
        return 2;
    }

    /* The run with the median CPU time stands for all of them. */
    unsigned median = 0;
    for (unsigned r = 0; r < repeat; r++) {
        unsigned below = 0, same = 0;
        for (unsigned q = 0; q < repeat; q++) {
            below += runs[q].seconds < runs[r].seconds;
            same += runs[q].seconds == runs[r].seconds;
        }
        if (below <= repeat / 2 && below + same > repeat / 2) {
            median = r;
            break;
        }
    }
    printf("%s\n", runs[median].row);
    fprintf(stderr, "%s", runs[median].detail);
    if (repeat > 1) {
        uint64_t worst = 0, over = 0;
        for (uint64_t i = 0; i < call_n; i++) {
            worst = call_ns[i] > worst ? call_ns[i] : worst;
            over += call_ns[i] > 100000;
        }
        fprintf(stderr, ",runs=%u,service_max_us_by_run=", repeat);
        for (unsigned r = 0; r < repeat; r++)
            fprintf(stderr, "%s%.1f", r ? ":" : "", runs[r].max_service * 1e6);
        fprintf(stderr, ",service_least_of_runs_max_us=%.1f,service_least_of_runs_over_100us=%" PRIu64,
                (double)worst / 1e3, over);
    }
    fputc('\n', stderr);
    free(call_ns);
    free(runs);
    return 0;
}
