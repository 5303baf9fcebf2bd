/* Differential test of every engine behind bench/engine.h: tickwheel's
 * driver on the C model and the software reference schemes.
 *
 *   test-engines [--seed N] [--ops N] [--engine NAME]
 *
 * One seeded random workload of starts, stops, re-arms (earlier and later),
 * range starts, advances of every length (to the next deadline, onto wheel
 * boundaries, far jumps, W1-style "ticks until next") and callbacks that
 * start, stop and re-arm timers re-entrantly, with intervals from 0 to past
 * 2^20 and a few far ones (2^28 to 2^34 + 2^28, past the 2^32 reach of the
 * tickwheel engine's top level). Each engine runs it twice:
 *
 *  - Deterministic: every engine must produce exactly the log of a sorted
 *    array (the oracle, below): the same expiries at the same ticks and the
 *    same stop() results. Within one tick engines fire in different orders,
 *    so a callback only touches timers whose fate this tick cannot depend
 *    on that order: its own, and those of its group (timer % GROUP == 0 owns
 *    the next GROUP - 1) that are not due at this tick; its choices come from
 *    a hash of (seed, timer, tick, nth expiry this tick), not from the run's
 *    generator. Range starts take the driver's documented choice
 *    (docs/driver.md), which the tickwheel engine must match exactly;
 *    an engine with no start_range would get that deadline through start().
 *    An engine with its own range rule (Scheme 7's slot boundaries, the
 *    other references' keep-else-end) must stay inside the range, and the
 *    oracle is then run again replaying its choices; the keep-else-end
 *    references must also make exactly that rule's choice. Schemes 5 and 6 are
 *    created for 2^20 timers, so their wheels are as big as in W1 and W4.
 *  - Racy: callbacks touch any timer, those due at this tick included (a
 *    stop of a timer that is due but has not run yet, a 0-tick restart of
 *    one that just ran). Orders differ, so there is no common log; the
 *    shadow checks below are the oracle.
 *
 * Both runs keep a shadow of every timer and check each event as it
 * happens: a callback fires a pending timer exactly at its deadline, inside
 * advance(), in tick order, with now() equal to that tick; stop() returns
 * whether the timer was pending; after advance(n) nothing due by then is
 * left; ticks_until_next(cap) is at most cap and never past the next expiry.
 * At the end time runs to every remaining deadline in turn: all must fire.
 *
 * Prints "ok engines/NAME/differential" or "FAIL engines/NAME/differential:
 * why", one line per engine; each engine runs in its own process, so a crash
 * or an abort (the tickwheel engine aborts when a driver call fails) fails
 * that engine alone. Schemes 1 and 2 (O(n) per expiry or per start) run
 * with fewer timers and operations.
 */
#define _POSIX_C_SOURCE 200809L /* fork, waitpid, alarm: one process per engine */
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "tw_args.h"

#define GROUP 8 /* deterministic mode: timer g*GROUP owns g*GROUP+1 .. +GROUP-1 */

/* ------------------------------------------------------------------ random */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t below(uint64_t *s, uint64_t n) { return n ? splitmix(s) % n : 0; }

static uint64_t hash4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t s = a;
    s ^= splitmix(&s) + b;
    s ^= splitmix(&s) + c;
    s ^= splitmix(&s) + d;
    return splitmix(&s);
}

/* --------------------------------------------------------- the oracle
 * A sorted array of (deadline, timer), latest first, so the next expiry is
 * popped from the end. Obviously right, O(n) per start and stop. */

typedef struct oentry {
    uint64_t deadline;
    uint32_t timer;
} oentry;

struct engine {
    engine_cb cb;
    void *ctx;
    uint64_t now;
    oentry *q;
    uint32_t n;
    uint64_t *deadline;
    uint8_t *pending;
    uint32_t ntimers;
};

static int after(const oentry *a, uint64_t d, uint32_t t) /* a sorts before (d, t) */
{
    return a->deadline != d ? a->deadline > d : a->timer > t;
}

static uint32_t o_find(const engine *e, uint64_t d, uint32_t t) /* first index not before (d, t) */
{
    uint32_t lo = 0, hi = e->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (after(&e->q[mid], d, t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void o_destroy(engine *e)
{
    if (!e)
        return;
    free(e->q);
    free(e->deadline);
    free(e->pending);
    free(e);
}

static engine *o_create(uint32_t max_timers, engine_cb cb, void *ctx)
{
    engine *e = calloc(1, sizeof *e);
    size_t n = max_timers ? max_timers : 1;
    if (!e)
        return NULL;
    e->cb = cb;
    e->ctx = ctx;
    e->ntimers = max_timers;
    e->q = calloc(n, sizeof *e->q);
    e->deadline = calloc(n, sizeof *e->deadline);
    e->pending = calloc(n, sizeof *e->pending);
    if (!e->q || !e->deadline || !e->pending) {
        o_destroy(e);
        return NULL;
    }
    return e;
}

static int o_stop(engine *e, uint32_t timer)
{
    if (!e->pending[timer])
        return 0;
    uint32_t i = o_find(e, e->deadline[timer], timer);
    memmove(&e->q[i], &e->q[i + 1], (e->n - i - 1) * sizeof *e->q);
    e->n--;
    e->pending[timer] = 0;
    return 1;
}

static void o_start(engine *e, uint32_t timer, uint64_t ticks)
{
    o_stop(e, timer);
    uint64_t d = e->now + ticks;
    uint32_t i = o_find(e, d, timer);
    memmove(&e->q[i + 1], &e->q[i], (e->n - i) * sizeof *e->q);
    e->q[i] = (oentry){d, timer};
    e->n++;
    e->deadline[timer] = d;
    e->pending[timer] = 1;
}

static void o_advance(engine *e, uint64_t ticks)
{
    uint64_t target = e->now + ticks;
    while (e->n && e->q[e->n - 1].deadline <= target) {
        oentry x = e->q[--e->n];
        e->pending[x.timer] = 0;
        e->now = x.deadline;
        e->cb(e->ctx, x.timer, e->now);
    }
    e->now = target;
}

static uint64_t o_ticks_until_next(engine *e, uint64_t cap)
{
    if (!e->n)
        return cap;
    uint64_t d = e->q[e->n - 1].deadline - e->now;
    return d < cap ? d : cap;
}

static uint64_t o_now(const engine *e) { return e->now; }
static size_t o_memory(const engine *e) { return sizeof *e + e->ntimers * (sizeof *e->q + 9); }

static const engine_ops oracle_ops = {
    .name = "oracle",
    .create = o_create,
    .destroy = o_destroy,
    .start = o_start,
    .start_range = NULL,
    .stop = o_stop,
    .advance = o_advance,
    .ticks_until_next = o_ticks_until_next,
    .now = o_now,
    .memory = o_memory,
};

/* ---------------------------------------------- the driver's range rule
 * docs/driver.md: keep a pending timer already inside [lo, hi]; else the end
 * of the range rounded down to ever coarser slot widths, the first that
 * fires without a cascade (on a slot boundary of the level it goes to), else
 * the end of the range. Geometry of the tickwheel engine: 4 x 8 bits. */

#define DRV_LEVELS 4
#define DRV_BITS 8

static unsigned drv_level(uint64_t d, uint64_t now)
{
    unsigned l = (63u - (unsigned)__builtin_clzll(d ^ now)) / DRV_BITS;
    return l < DRV_LEVELS ? l : DRV_LEVELS - 1;
}

static uint64_t drv_range(uint64_t now, int pending, uint64_t cur, uint64_t lo_t, uint64_t hi_t)
{
    uint64_t lo = now + lo_t, hi = now + hi_t;
    if (pending && cur >= lo && cur <= hi)
        return cur;
    for (unsigned k = 0; k < DRV_LEVELS; k++) {
        uint64_t d = hi & ~((UINT64_C(1) << (k * DRV_BITS)) - 1);
        if (d < lo || d <= now)
            break;
        if ((d & ((UINT64_C(1) << (drv_level(d, now) * DRV_BITS)) - 1)) == 0)
            return d;
    }
    return hi;
}

/* ----------------------------------------------------------------- a run */

enum { EV_FIRE, EV_STOP, EV_RANGE };

typedef struct entry {
    uint64_t tick;
    uint32_t kind, timer;
    uint64_t value;
} entry;

enum range_mode {
    RANGE_DRIVER, /* the harness picks the driver's deadline; start() */
    RANGE_ENGINE, /* the engine's start_range(), choices recorded */
    RANGE_REPLAY, /* the recorded choices of another run; start() */
};

typedef struct choice {
    uint64_t now, lo, hi, cur;
    uint32_t timer, pending;
    uint64_t chosen;
} choice;

typedef struct choices {
    choice *v;
    size_t n, cap;
} choices;

typedef struct run {
    const engine_ops *ops;
    engine *e;
    uint64_t seed, rng;
    uint32_t n;
    int racy, exact_range, draining;
    int keep_else_end; /* the references' range rule: keep a pending timer inside, else the end */
    enum range_mode range_mode;
    choices *record; /* RANGE_ENGINE: appended; RANGE_REPLAY: sorted, looked up */
    /* shadow */
    uint64_t now;
    uint8_t *pending;
    uint64_t *deadline;
    uint64_t *last_fire; /* tick + 1 of the last expiry, 0 if none */
    uint32_t *fires_at;  /* expiries at that tick */
    int in_advance;
    uint64_t adv_target, last_cb;
    /* log */
    entry *log;
    size_t nlog, caplog;
    uint64_t fired, stops, ranges, advances, far_fired;
    int failed;
    char why[512];
} run;

static void fail(run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(run *r, const char *fmt, ...)
{
    if (r->failed++)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
}

static void log_add(run *r, uint32_t kind, uint32_t timer, uint64_t value)
{
    if (r->nlog == r->caplog) {
        size_t cap = r->caplog ? 2 * r->caplog : 4096;
        entry *v = realloc(r->log, cap * sizeof *v);
        if (!v) {
            fail(r, "out of memory for the log");
            return;
        }
        r->log = v;
        r->caplog = cap;
    }
    r->log[r->nlog++] = (entry){r->now, kind, timer, value};
}

static int due_now(const run *r, uint32_t t)
{
    return (r->pending[t] && r->deadline[t] <= r->now) || r->last_fire[t] == r->now + 1;
}

/* The earliest pending deadline, UINT64_MAX if none. */
static uint64_t shadow_next(const run *r)
{
    uint64_t m = UINT64_MAX;
    for (uint32_t i = 0; i < r->n; i++)
        if (r->pending[i] && r->deadline[i] < m)
            m = r->deadline[i];
    return m;
}

/* ------------------------------------------------------------ operations */

/* A far start (FAR_INTERVAL or more) is always made from idle: a pending
 * timer is stopped first. The driver leaves a timer re-armed to a later
 * deadline in its slot, and when the new deadline has the same low bits at
 * that slot's level the timer stays there, visited every revolution of the
 * level (every 256 ticks at level 0) until it is due. That costs time, not
 * correctness, but over 2^34 ticks it would take minutes. */
#define FAR_INTERVAL (UINT64_C(1) << 27)

static void op_stop(run *r, uint32_t t);

static void op_start(run *r, uint32_t t, uint64_t ticks)
{
    if (ticks >= FAR_INTERVAL && r->pending[t])
        op_stop(r, t); /* see FAR_INTERVAL */
    r->ops->start(r->e, t, ticks);
    r->pending[t] = 1;
    r->deadline[t] = r->now + ticks;
}

static void op_stop(run *r, uint32_t t)
{
    int got = r->ops->stop(r->e, t);
    if (got != r->pending[t])
        fail(r, "stop(%" PRIu32 ") at tick %" PRIu64 " returned %d, expected %d (deadline %" PRIu64 ")", t,
             r->now, got, r->pending[t], r->deadline[t]);
    r->pending[t] = 0;
    r->stops++;
    log_add(r, EV_STOP, t, (uint64_t)got);
}

static int cmp_choice(const void *a, const void *b)
{
    const choice *x = a, *y = b;
#define CMP(f)                                                                                     \
    if (x->f != y->f)                                                                              \
        return x->f < y->f ? -1 : 1;
    CMP(now) CMP(timer) CMP(lo) CMP(hi) CMP(pending) CMP(cur)
#undef CMP
    return 0;
}

static void op_range(run *r, uint32_t t, uint64_t lo, uint64_t hi)
{
    uint64_t now = r->now, d = 0, cur = r->pending[t] ? r->deadline[t] : 0;
    if (lo >= FAR_INTERVAL && r->pending[t])
        op_stop(r, t); /* see FAR_INTERVAL */
    cur = r->pending[t] ? r->deadline[t] : 0;
    choice key = {now, lo, hi, cur, t, r->pending[t], 0};
    if (r->range_mode == RANGE_ENGINE) {
        d = r->ops->start_range(r->e, t, lo, hi);
        uint64_t want = drv_range(now, r->pending[t], cur, lo, hi);
        if (d < now + lo || d > now + hi)
            fail(r, "start_range(%" PRIu32 ", %" PRIu64 ", %" PRIu64 ") at tick %" PRIu64 " chose %" PRIu64
                    ", outside [%" PRIu64 ", %" PRIu64 "]",
                 t, lo, hi, now, d, now + lo, now + hi);
        else if (r->exact_range && d != want)
            fail(r, "start_range(%" PRIu32 ", %" PRIu64 ", %" PRIu64 ") at tick %" PRIu64 " chose %" PRIu64
                    ", the driver's rule gives %" PRIu64 " (pending %d, deadline %" PRIu64 ")",
                 t, lo, hi, now, d, want, r->pending[t], cur);
        else if (r->keep_else_end && d != (r->pending[t] && cur >= now + lo && cur <= now + hi ? cur : now + hi))
            /* The references' own rule (eng_range_keeps): any choice inside
             * the range replays, so only this catches one that takes another
             * point of it, which would skew W1's idle re-arms. */
            fail(r, "start_range(%" PRIu32 ", %" PRIu64 ", %" PRIu64 ") at tick %" PRIu64 " chose %" PRIu64
                    ", not the kept deadline or the range's end (pending %d, deadline %" PRIu64 ")",
                 t, lo, hi, now, d, r->pending[t], cur);
        if (r->record) {
            choices *c = r->record;
            if (c->n == c->cap) {
                size_t cap = c->cap ? 2 * c->cap : 1024;
                choice *v = realloc(c->v, cap * sizeof *v);
                if (!v) {
                    fail(r, "out of memory for range choices");
                    return;
                }
                c->v = v;
                c->cap = cap;
            }
            key.chosen = d;
            c->v[c->n++] = key;
        }
    } else {
        if (r->range_mode == RANGE_REPLAY) {
            choice *c = bsearch(&key, r->record->v, r->record->n, sizeof key, cmp_choice);
            if (!c) {
                fail(r, "replay: no recorded range choice for timer %" PRIu32 " at tick %" PRIu64, t, now);
                return;
            }
            d = c->chosen;
        } else {
            d = drv_range(now, r->pending[t], cur, lo, hi);
        }
        r->ops->start(r->e, t, d - now);
    }
    r->pending[t] = 1;
    r->deadline[t] = d;
    r->ranges++;
    log_add(r, EV_RANGE, t, d);
}

/* Intervals: 0, short, to 2^12, to 2^20, a few fixed TTLs (as protocols
 * use: Lawn's case), onto wheel boundaries (2^2 .. 2^26), to 2^26, and
 * rarely far (2^28 .. 2^34: past the tickwheel engine's top level, 2^32). */
static const uint64_t std_ttls[] = {1, 10, 100, 255, 256, 1000, 2560, 5120, 50000, 65536, 200000, 1u << 20, 3000000};

static uint64_t to_boundary(uint64_t now, uint64_t *s)
{
    unsigned j = 2 + (unsigned)below(s, 25);
    uint64_t target = ((now >> j) + 1 + below(s, 3)) << j;
    target += below(s, 3);
    return target - 1 - now; /* lands on a multiple of 2^j, or one either side */
}

static uint64_t pick_interval(const run *r, uint64_t *s)
{
    uint64_t c = below(s, 1000);
    if (c < 40)
        return 0;
    if (c < 250)
        return 1 + below(s, 64);
    if (c < 450)
        return 1 + below(s, 1u << 12);
    if (c < 650)
        return 1 + below(s, 1u << 20);
    if (c < 750)
        return std_ttls[below(s, sizeof std_ttls / sizeof *std_ttls)];
    if (c < 850)
        return to_boundary(r->now, s);
    if (c < 950)
        return 1 + below(s, 1u << 24);
    if (c < 997)
        return (1u << 20) + below(s, 1u << 26);
    return (UINT64_C(1) << 28) + below(s, UINT64_C(1) << 34);
}

static void pick_range(const run *r, uint64_t *s, uint64_t *lo, uint64_t *hi)
{
    static const uint64_t widths[] = {0, 1, 7, 255, 256, 4096, 50000, 65536, 1u << 20};
    *lo = pick_interval(r, s);
    uint64_t w = below(s, 4) ? widths[below(s, sizeof widths / sizeof *widths)] : below(s, *lo / 4 + 1);
    *hi = *lo + w;
}

/* A re-arm of a pending timer to a later or an earlier deadline, at least
 * min_ticks from now. */
static void op_rearm(run *r, uint32_t t, uint64_t *s, uint64_t min_ticks)
{
    if (!r->pending[t] || r->deadline[t] < r->now + min_ticks)
        return;
    uint64_t d = r->deadline[t];
    if (below(s, 2))
        d += 1 + pick_interval(r, s) / 4;
    else
        d = r->now + min_ticks + below(s, d - r->now - min_ticks + 1);
    op_start(r, t, d - r->now);
}

/* What a callback does: its choices from a hash, not from the run's generator. */
static void callback_actions(run *r, uint32_t t, uint32_t k)
{
    uint64_t s = hash4(r->seed ^ (r->racy ? 0x7261637900ull : 0), t, r->now, k);
    unsigned nact = (unsigned)below(&s, 4);
    int owner = r->racy || t % GROUP == 0;
    for (unsigned a = 0; a < nact && !r->failed; a++) {
        unsigned what = (unsigned)below(&s, owner ? 10 : 4);
        uint64_t iv = pick_interval(r, &s), lo, hi;
        if (iv == 0 && k >= 2)
            iv = 1; /* a timer restarts itself or others at this tick at most twice */
        if (what < 4) {                    /* itself */
            if (what < 2)
                op_start(r, t, iv);
            else if (what == 2) {
                pick_range(r, &s, &lo, &hi);
                if (lo == 0 && k >= 2)
                    lo = hi = 1;
                op_range(r, t, lo, hi);
            } else
                op_stop(r, t); /* not pending unless restarted above */
            continue;
        }
        uint32_t u = r->racy ? (uint32_t)below(&s, r->n) : t + (uint32_t)below(&s, GROUP);
        if (u >= r->n || (!r->racy && due_now(r, u)))
            continue;
        switch (what) {
        case 4:
        case 5:
            op_start(r, u, iv);
            break;
        case 6:
        case 7:
            op_stop(r, u);
            break;
        case 8:
            pick_range(r, &s, &lo, &hi);
            if (lo == 0 && k >= 2)
                lo = hi = 1;
            op_range(r, u, lo, hi);
            break;
        default:
            op_rearm(r, u, &s, k >= 2);
        }
    }
}

static void on_expiry(void *ctx, uint32_t t, uint64_t now)
{
    run *r = ctx;
    if (r->failed)
        return;
    if (t >= r->n) {
        fail(r, "callback for timer %" PRIu32 " of %" PRIu32, t, r->n);
        return;
    }
    if (!r->in_advance) {
        fail(r, "timer %" PRIu32 " fired at tick %" PRIu64 " outside advance()", t, now);
        return;
    }
    if (now < r->last_cb || now > r->adv_target) {
        fail(r, "timer %" PRIu32 " fired at tick %" PRIu64 ": out of order (previous %" PRIu64
                ", advancing to %" PRIu64 ")",
             t, now, r->last_cb, r->adv_target);
        return;
    }
    if (!r->pending[t]) {
        fail(r, "timer %" PRIu32 " fired at tick %" PRIu64 " but was not pending", t, now);
        return;
    }
    if (r->deadline[t] != now) {
        fail(r, "timer %" PRIu32 " fired at tick %" PRIu64 ", due at %" PRIu64 " (%s)", t, now, r->deadline[t],
             now < r->deadline[t] ? "early" : "late");
        return;
    }
    uint64_t en = r->ops->now(r->e);
    if (en != now) {
        fail(r, "callback at tick %" PRIu64 " but now() says %" PRIu64, now, en);
        return;
    }
    r->now = r->last_cb = now;
    uint32_t k = r->last_fire[t] == now + 1 ? r->fires_at[t] + 1 : 0;
    r->last_fire[t] = now + 1;
    r->fires_at[t] = k;
    r->pending[t] = 0;
    r->fired++;
    log_add(r, EV_FIRE, t, 0);
    if (!r->draining)
        callback_actions(r, t, k);
}

static void op_advance(run *r, uint64_t ticks)
{
    uint64_t start = r->now;
    r->in_advance = 1;
    r->adv_target = start + ticks;
    r->last_cb = start;
    r->ops->advance(r->e, ticks);
    r->in_advance = 0;
    r->now = r->adv_target;
    r->advances++;
    if (r->failed)
        return;
    uint64_t en = r->ops->now(r->e);
    if (en != r->now)
        fail(r, "advance(%" PRIu64 ") from tick %" PRIu64 " left now() at %" PRIu64, ticks, start, en);
    /* Nothing due by now may be left: a full look every 32 advances (a miss
     * stays visible until then, or fires late and is caught then). */
    if (r->advances % 32 == 0 || ticks > (1u << 20))
        for (uint32_t i = 0; i < r->n; i++)
            if (r->pending[i] && r->deadline[i] <= r->now) {
                fail(r, "timer %" PRIu32 " due at tick %" PRIu64 " did not fire by tick %" PRIu64
                        " (advance(%" PRIu64 ") from %" PRIu64 ")",
                     i, r->deadline[i], r->now, ticks, start);
                break;
            }
}

/* ticks_until_next(cap) is at most cap and never past the next expiry. */
static uint64_t op_ticks_until_next(run *r, uint64_t cap)
{
    uint64_t got = r->ops->ticks_until_next(r->e, cap);
    uint64_t next = shadow_next(r);
    uint64_t limit = next == UINT64_MAX ? cap : (next <= r->now ? 0 : next - r->now);
    if (limit > cap)
        limit = cap;
    if (got > limit)
        fail(r, "ticks_until_next(%" PRIu64 ") at tick %" PRIu64 " = %" PRIu64 ", next expiry in %" PRIu64, cap,
             r->now, got, next == UINT64_MAX ? cap : limit);
    return got;
}

static uint64_t pick_advance(run *r, uint64_t *s)
{
    uint64_t c = below(s, 1000);
    if (c < 150)
        return below(s, 3);
    if (c < 400)
        return 1 + below(s, 64);
    if (c < 600)
        return 1 + below(s, 1u << 12);
    if (c < 700)
        return 1 + below(s, 1u << 16);
    if (c < 760)
        return 1 + below(s, 1u << 20);
    if (c < 790)
        return below(s, 1u << 24);
    if (c < 880) { /* onto the next deadline, or one either side */
        uint64_t next = shadow_next(r);
        if (next == UINT64_MAX || next <= r->now)
            return 0;
        uint64_t d = next - r->now + below(s, 3);
        return d > 1 ? d - 1 : d;
    }
    if (c < 940)
        return to_boundary(r->now, s) + 1;
    if (c < 999)
        return UINT64_MAX; /* op_sleep: W1's main loop */
    return below(s, UINT64_C(1) << 32); /* a far jump */
}

/* W1's main loop: advance by ticks_until_next(cap) until the next expiry
 * (or cap) is reached. Engines answer with different lower bounds, so the
 * steps differ, but the end is the same tick for all; after 64 steps the
 * rest is one advance. */
static void op_sleep(run *r, uint64_t *s)
{
    static const uint64_t caps[] = {1, 100, 5000, 1u << 20, UINT64_MAX};
    uint64_t cap = caps[below(s, sizeof caps / sizeof *caps)];
    uint64_t next = shadow_next(r), target;
    unsigned zeros = 0;
    if (next == UINT64_MAX)
        target = cap == UINT64_MAX ? r->now + (1u << 20) : r->now + cap;
    else
        target = next <= r->now ? r->now : (next - r->now < cap ? next : r->now + cap);
    for (unsigned steps = 0; steps < 64 && r->now < target && !r->failed; steps++) {
        uint64_t d = op_ticks_until_next(r, cap);
        if (d == 0 && shadow_next(r) > r->now && ++zeros > 3) {
            fail(r, "ticks_until_next(%" PRIu64 ") stays 0 at tick %" PRIu64 " with nothing due", cap, r->now);
            return;
        }
        op_advance(r, d < target - r->now ? d : target - r->now);
    }
    if (r->now < target || next == r->now)
        op_advance(r, target - r->now);
}

/* ------------------------------------------------------------- a workload */

typedef struct profile {
    uint32_t timers;
    long ops;
    uint32_t capacity; /* the engine is created for this many timers (>= timers) */
} profile;

static int run_init(run *r, const engine_ops *ops, uint64_t seed, uint32_t n, uint32_t capacity, int racy)
{
    memset(r, 0, sizeof *r);
    r->ops = ops;
    r->seed = seed;
    r->rng = seed ^ (racy ? UINT64_C(0x5eed) : 0);
    r->n = n;
    r->racy = racy;
    r->pending = calloc(n, 1);
    r->deadline = calloc(n, sizeof *r->deadline);
    r->last_fire = calloc(n, sizeof *r->last_fire);
    r->fires_at = calloc(n, sizeof *r->fires_at);
    r->e = ops->create(capacity, on_expiry, r);
    return r->pending && r->deadline && r->last_fire && r->fires_at && r->e ? 0 : -1;
}

static void run_free(run *r)
{
    if (r->e)
        r->ops->destroy(r->e);
    free(r->pending);
    free(r->deadline);
    free(r->last_fire);
    free(r->fires_at);
    free(r->log);
}

static void run_workload(run *r, long nops)
{
    uint64_t *s = &r->rng;
    if (r->ops->now(r->e) != 0)
        fail(r, "a new engine starts at tick %" PRIu64, r->ops->now(r->e));
    if (r->ops->memory(r->e) == 0)
        fail(r, "memory() is 0");
    for (long i = 0; i < nops && !r->failed; i++) {
        uint64_t c = below(s, 100), lo, hi;
        uint32_t t = (uint32_t)below(s, r->n);
        if (c < 28) {
            op_start(r, t, pick_interval(r, s));
        } else if (c < 36) {
            op_rearm(r, t, s, 0);
        } else if (c < 46) {
            pick_range(r, s, &lo, &hi);
            op_range(r, t, lo, hi);
        } else if (c < 55) {
            op_stop(r, t);
        } else if (c < 58) { /* a burst of one fixed TTL */
            uint64_t ttl = std_ttls[below(s, sizeof std_ttls / sizeof *std_ttls)];
            for (unsigned j = 1 + (unsigned)below(s, 8); j > 0; j--)
                op_start(r, (uint32_t)below(s, r->n), ttl);
        } else if (c < 60) {
            op_ticks_until_next(r, below(s, 2) ? UINT64_MAX : below(s, 1u << 16));
        } else {
            uint64_t ticks = pick_advance(r, s);
            if (ticks == UINT64_MAX)
                op_sleep(r, s);
            else
                op_advance(r, ticks);
        }
    }
    /* Drain: callbacks stop acting, time goes to each remaining deadline in
     * turn (the far ones too), and everything must fire on its tick. */
    r->draining = 1;
    for (unsigned guard = 0; !r->failed && guard < 4 * r->n + 16; guard++) {
        uint64_t next = shadow_next(r);
        if (next == UINT64_MAX)
            break;
        if (next - r->now > (UINT64_C(1) << 28))
            r->far_fired++;
        op_advance(r, next - r->now);
    }
    if (!r->failed && shadow_next(r) != UINT64_MAX)
        fail(r, "timers still pending after the drain");
    if (!r->failed)
        op_ticks_until_next(r, 12345); /* nothing pending: any value up to the cap */
}

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
#define CMP(f)                                                                                     \
    if (x->f != y->f)                                                                              \
        return x->f < y->f ? -1 : 1;
    CMP(tick) CMP(kind) CMP(timer) CMP(value)
#undef CMP
    return 0;
}

static const char *kind_name(uint32_t k) { return k == EV_FIRE ? "fire" : k == EV_STOP ? "stop" : "range"; }

/* Logs compared with each tick's entries in one canonical order. */
static int compare_logs(run *r, entry *want, size_t nwant)
{
    qsort(r->log, r->nlog, sizeof *r->log, cmp_entry);
    size_t n = r->nlog < nwant ? r->nlog : nwant;
    for (size_t i = 0; i < n; i++) {
        const entry *a = &r->log[i], *b = &want[i];
        if (cmp_entry(a, b)) {
            fail(r, "log differs from the oracle's at entry %zu: %s timer %" PRIu32 " tick %" PRIu64 " = %" PRIu64
                    ", oracle: %s timer %" PRIu32 " tick %" PRIu64 " = %" PRIu64,
                 i, kind_name(a->kind), a->timer, a->tick, a->value, kind_name(b->kind), b->timer, b->tick,
                 b->value);
            return 0;
        }
    }
    if (r->nlog != nwant) {
        fail(r, "log has %zu entries, the oracle's %zu", r->nlog, nwant);
        return 0;
    }
    return 1;
}

/* The oracle's log for a profile, run once and kept. */
typedef struct oracle_log {
    profile p;
    entry *log;
    size_t n;
} oracle_log;

static int oracle_run(uint64_t seed, profile p, choices *replay, entry **log, size_t *n, char *why, size_t whylen)
{
    run r;
    int ok = run_init(&r, &oracle_ops, seed, p.timers, p.timers, 0) == 0;
    if (ok) {
        r.range_mode = replay ? RANGE_REPLAY : RANGE_DRIVER;
        r.record = replay;
        run_workload(&r, p.ops);
        ok = !r.failed;
        snprintf(why, whylen, "oracle: %s", r.why);
    } else {
        snprintf(why, whylen, "oracle: cannot create");
    }
    if (ok) {
        qsort(r.log, r.nlog, sizeof *r.log, cmp_entry);
        *log = r.log;
        *n = r.nlog;
        r.log = NULL;
    }
    run_free(&r);
    return ok;
}

static double now_s(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static profile profile_for(const engine_ops *ops, long ops_full)
{
    /* O(n) per expiry tick (scheme1) or per start (scheme2): fewer timers. */
    if (!strcmp(ops->name, "scheme1") || !strcmp(ops->name, "scheme2"))
        return (profile){512, ops_full / 2, 512};
    /* The hashed wheels size themselves by capacity: created for 2^20
     * timers they have 2^20 slots, as in W1 and W4, where the busy bitmap's
     * top level is several words long (the intervals reach past 2^20). */
    if (!strcmp(ops->name, "scheme5") || !strcmp(ops->name, "scheme6"))
        return (profile){2048, ops_full, UINT32_C(1) << 20};
    return (profile){2048, ops_full, 2048};
}

static int test_engine(const engine_ops *ops, uint64_t seed, long ops_full, oracle_log *cache, size_t *ncache)
{
    profile p = profile_for(ops, ops_full);
    double t0 = now_s();
    char why[600] = "";
    int ok = 1;
    uint64_t fired = 0, far = 0, ranges = 0;

    /* Deterministic run against the oracle's log. */
    run r;
    choices rec = {0};
    if (run_init(&r, ops, seed, p.timers, p.capacity, 0) < 0) {
        snprintf(why, sizeof why, "cannot create the engine (%" PRIu32 " timers)", p.timers);
        ok = 0;
    } else {
        r.range_mode = ops->start_range ? RANGE_ENGINE : RANGE_DRIVER;
        r.exact_range = !strcmp(ops->name, "tickwheel");
        r.keep_else_end = ops->start_range && !r.exact_range && strcmp(ops->name, "scheme7");
        r.record = ops->start_range && !r.exact_range ? &rec : NULL;
        run_workload(&r, p.ops);
        fired += r.fired;
        far += r.far_fired;
        ranges += r.ranges;
        if (!r.failed) {
            entry *want = NULL;
            size_t nwant = 0;
            char owhy[560];
            if (r.record) { /* its own range rule: the oracle replays its choices */
                qsort(rec.v, rec.n, sizeof *rec.v, cmp_choice);
                if (oracle_run(seed, p, &rec, &want, &nwant, owhy, sizeof owhy)) {
                    compare_logs(&r, want, nwant);
                    free(want);
                } else {
                    fail(&r, "%s", owhy);
                }
            } else {
                size_t i;
                for (i = 0; i < *ncache; i++)
                    if (cache[i].p.timers == p.timers && cache[i].p.ops == p.ops)
                        break;
                if (i == *ncache) {
                    cache[i].p = p;
                    if (!oracle_run(seed, p, NULL, &cache[i].log, &cache[i].n, owhy, sizeof owhy)) {
                        fail(&r, "%s", owhy);
                        i = SIZE_MAX;
                    } else {
                        ++*ncache;
                    }
                }
                if (i != SIZE_MAX)
                    compare_logs(&r, cache[i].log, cache[i].n);
            }
        }
        if (r.failed) {
            snprintf(why, sizeof why, "deterministic run: %s", r.why);
            ok = 0;
        }
    }
    run_free(&r);
    free(rec.v);

    /* Racy run: the shadow checks alone. */
    if (ok) {
        if (run_init(&r, ops, seed, p.timers, p.capacity, 1) < 0) {
            snprintf(why, sizeof why, "cannot create the engine (%" PRIu32 " timers)", p.timers);
            ok = 0;
        } else {
            r.range_mode = ops->start_range ? RANGE_ENGINE : RANGE_DRIVER;
            r.exact_range = !strcmp(ops->name, "tickwheel");
            r.keep_else_end = ops->start_range && !r.exact_range && strcmp(ops->name, "scheme7");
            run_workload(&r, p.ops / 2);
            fired += r.fired;
            far += r.far_fired;
            ranges += r.ranges;
            if (r.failed) {
                snprintf(why, sizeof why, "racy run: %s", r.why);
                ok = 0;
            }
        }
        run_free(&r);
    }

    printf("# engines/%s: %" PRIu32 " timers, %ld + %ld operations, %" PRIu64 " expiries (%" PRIu64
           " far), %" PRIu64 " range starts, %.2f s\n",
           ops->name, p.timers, p.ops, p.ops / 2, fired, far, ranges, now_s() - t0);
    if (ok)
        printf("ok engines/%s/differential\n", ops->name);
    else
        printf("FAIL engines/%s/differential: %s (seed %" PRIu64 ")\n", ops->name, why, seed);
    fflush(stdout);
    return ok;
}

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s [--seed N] [--ops N] [--engine NAME]\n  replay a failure with the seed it printed\n",
            prog);
    exit(2);
}

/* Each engine runs in a child process, so an abort or a crash (the
 * tickwheel engine aborts when a driver call fails) fails that engine alone.
 * The oracle's logs are computed first and shared. */
int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL);
    long ops = 200000;
    unsigned limit_s = 120; /* per engine: a hang fails, it does not stall make test */
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (tw_arg_seed_ops(argc, argv, &i, &seed, &ops))
            continue;
        if (!strcmp(argv[i], "--engine") && i + 1 < argc)
            only = argv[++i];
        else
            usage(argv[0]);
    }
    if (ops < 1 || (only && !engine_by_name(only)))
        usage(argv[0]);
    printf("# engines: seed %" PRIu64 " (replay: %s --seed %" PRIu64 ")\n", seed, argv[0], seed);

    oracle_log cache[4];
    size_t ncache = 0;
    int failed = 0;
    for (const engine_ops *const *e = all_engines; *e; e++) {
        if (only && strcmp((*e)->name, only))
            continue;
        profile p = profile_for(*e, ops);
        size_t i;
        for (i = 0; i < ncache; i++)
            if (cache[i].p.timers == p.timers && cache[i].p.ops == p.ops)
                break;
        if (i < ncache || ncache == sizeof cache / sizeof *cache)
            continue;
        char why[600];
        cache[ncache].p = p;
        if (!oracle_run(seed, p, NULL, &cache[ncache].log, &cache[ncache].n, why, sizeof why)) {
            printf("FAIL engines/oracle: %s (seed %" PRIu64 ")\n", why, seed);
            return 1;
        }
        ncache++;
    }
    fflush(stdout);

    for (const engine_ops *const *e = all_engines; *e; e++) {
        if (only && strcmp((*e)->name, only))
            continue;
        pid_t pid = fork();
        if (pid == 0) {
            alarm(limit_s);
            _exit(test_engine(*e, seed, ops, cache, &ncache) ? 0 : 3);
        }
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) < 0) {
            printf("FAIL engines/%s/differential: cannot run a child process\n", (*e)->name);
            failed++;
            continue;
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
            continue;
        failed++;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
            continue; /* the child printed its FAIL line */
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
            printf("FAIL engines/%s/differential: no result within %u s (seed %" PRIu64 ")\n", (*e)->name,
                   limit_s, seed);
        else if (WIFSIGNALED(status))
            printf("FAIL engines/%s/differential: died of signal %d, see stderr (seed %" PRIu64 ")\n",
                   (*e)->name, WTERMSIG(status), seed);
        else
            printf("FAIL engines/%s/differential: exit status %d, see stderr (seed %" PRIu64 ")\n", (*e)->name,
                   WEXITSTATUS(status), seed);
        fflush(stdout);
    }
    for (size_t i = 0; i < ncache; i++)
        free(cache[i].log);
    return failed ? 1 : 0;
}
