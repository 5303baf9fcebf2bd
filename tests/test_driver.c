/* Driver tests: the same suite runs on every device backend. */
#include <stdlib.h>
#include <string.h>

#include "tw_regs.h"
#include "tw_test.h"

/* A backend this much slower a register access than the model is a serial
 * link (SPI), where some long tests are skipped. */
#define SLOW_BUS_SCALE 64

typedef struct probe {
    tw_timer timer;
    int fired;
    uint64_t fired_at;
    uint64_t deadline; /* virtual time: exact; real time: earliest allowed */
    uint64_t latest;   /* real time: one tick of rounding plus the start's own duration */
} probe;

static void on_fire(tw_timer *t, uint64_t now, void *arg)
{
    probe *p = arg;
    (void)t;
    p->fired++;
    p->fired_at = now;
}

static uint64_t now_of(tw_fixture *f)
{
    uint64_t now = 0;
    CHECK_OK(tw_now(&f->wheel, &now));
    return now;
}

static void start_probe(tw_fixture *f, probe *p, uint64_t ticks)
{
    uint64_t before = now_of(f);
    memset(p, 0, sizeof *p);
    CHECK_OK(tw_timer_init(&p->timer, on_fire, p));
    CHECK_OK(tw_start(&f->wheel, &p->timer, ticks));
    /* In real time a start lands somewhere inside a tick, so the driver
     * rounds up by one: never less than `ticks` whole ticks. */
    int real = f->wheel.source != TW_TIME_VIRTUAL;
    p->deadline = before + ticks + (real && ticks ? 1 : 0);
    p->latest = now_of(f) + ticks + 1;
}

static int open_virtual(tw_fixture *f, const tw_backend *b)
{
    int rc = tw_fixture_open(f, b, TW_TIME_VIRTUAL, 0);
    CHECK_OK(rc);
    return rc;
}

/* Intervals around every level boundary of this geometry. */
static size_t boundary_intervals(const tw_wheel *w, uint64_t *out, size_t max)
{
    size_t n = 0;
    uint64_t base[] = {1, 2, 3, 7};
    for (size_t i = 0; i < sizeof base / sizeof base[0] && n < max; i++)
        out[n++] = base[i];
    for (unsigned k = 1; k <= w->geo.levels && k * w->geo.slot_bits < 20; k++) {
        uint64_t edge = UINT64_C(1) << (k * w->geo.slot_bits);
        uint64_t around[] = {edge - 1, edge, edge + 1, 2 * edge + 3, 3 * edge - 1};
        for (size_t i = 0; i < 5 && n < max; i++)
            out[n++] = around[i];
    }
    return n;
}

static void test_probe_geometry(const tw_backend *b)
{
    tw_fixture f;
    tw_geometry g;
    if (open_virtual(&f, b) < 0)
        goto out;
    CHECK_OK(tw_probe(&f.dev, &g));
    CHECK_EQ(g.levels, b->cfg.levels);
    CHECK_EQ(g.slot_bits, b->cfg.slot_bits);
    CHECK_EQ(g.fifo_log2, b->cfg.fifo_log2);
    CHECK_EQ(g.tick_bits, 48);
    CHECK_EQ(now_of(&f), 0);
out:
    tw_fixture_close(&f);
}

/* Every interval fires exactly once, at exactly start + interval. */
static void test_exact_tick(const tw_backend *b)
{
    tw_fixture f;
    uint64_t iv[32];
    probe p[32];
    size_t n;
    if (open_virtual(&f, b) < 0)
        goto out;
    /* Start at an awkward offset so slot fields are not all zero. */
    CHECK_OK(tw_advance(&f.wheel, 77, 1000));
    n = boundary_intervals(&f.wheel, iv, 32);
    for (size_t i = 0; i < n; i++)
        start_probe(&f, &p[i], iv[i]);
    uint64_t last = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i].deadline > last)
            last = p[i].deadline;
    /* Advance in uneven steps: firing must not depend on step size. */
    while (now_of(&f) < last + 5) {
        uint64_t now = now_of(&f);
        for (size_t i = 0; i < n; i++) {
            CHECK(p[i].fired == (p[i].deadline <= now));
            CHECK_EQ(tw_pending(&p[i].timer), p[i].deadline > now);
        }
        CHECK_OK(tw_advance(&f.wheel, 1 + now % 97, 1000));
        if (tw_test_failed)
            break;
    }
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ(p[i].fired, 1);
        CHECK_EQ(p[i].fired_at, p[i].deadline);
    }
    CHECK_EQ(tw_count_pending(&f.wheel), 0);
out:
    tw_fixture_close(&f);
}

static void test_stop(const tw_backend *b)
{
    tw_fixture f;
    probe a, c;
    if (open_virtual(&f, b) < 0)
        goto out;
    start_probe(&f, &a, 50);
    start_probe(&f, &c, 50);
    CHECK_EQ(tw_stop(&f.wheel, &a.timer), 1);
    CHECK_EQ(tw_stop(&f.wheel, &a.timer), 0);
    CHECK_EQ(tw_pending(&a.timer), 0);
    CHECK_OK(tw_advance(&f.wheel, 100, 100));
    CHECK_EQ(a.fired, 0);
    CHECK_EQ(c.fired, 1);
    CHECK_EQ(tw_stop(&f.wheel, &c.timer), 0); /* already fired */
    /* Stop the only timer of a slot: the slot's next visit finds it empty. */
    start_probe(&f, &a, 10);
    CHECK_EQ(tw_stop(&f.wheel, &a.timer), 1);
    CHECK_OK(tw_advance(&f.wheel, 20, 100));
    CHECK_EQ(a.fired, 0);
    CHECK(f.wheel.stats.empty_events >= 1);
    /* Restart a stopped timer and a fired one. */
    CHECK_OK(tw_start(&f.wheel, &a.timer, 5));
    CHECK_OK(tw_start(&f.wheel, &c.timer, 6));
    CHECK_OK(tw_advance(&f.wheel, 6, 100));
    CHECK_EQ(a.fired, 1);
    CHECK_EQ(c.fired, 2);
out:
    tw_fixture_close(&f);
}

/* Re-arming a pending timer moves its deadline; it fires once, at the new one. */
static void test_rearm(const tw_backend *b)
{
    tw_fixture f;
    probe p;
    if (open_virtual(&f, b) < 0)
        goto out;
    start_probe(&f, &p, 30);
    CHECK_OK(tw_advance(&f.wheel, 10, 100));
    CHECK_OK(tw_start(&f.wheel, &p.timer, 500)); /* later */
    CHECK_OK(tw_advance(&f.wheel, 100, 100));
    CHECK_EQ(p.fired, 0);
    CHECK_OK(tw_start(&f.wheel, &p.timer, 5)); /* earlier */
    CHECK_OK(tw_advance(&f.wheel, 1000, 100));
    CHECK_EQ(p.fired, 1);
    CHECK_EQ(p.fired_at, 115);
out:
    tw_fixture_close(&f);
}

/* Range starts pick a slot boundary so the timer fires without a cascade,
 * as late as the range allows, and leave a timer already in range alone. */
static void test_range(const tw_backend *b)
{
    tw_fixture f;
    probe p;
    if (open_virtual(&f, b) < 0)
        goto out;
    tw_wheel *w = &f.wheel;
    uint64_t unit = UINT64_C(1) << w->geo.slot_bits;
    CHECK_OK(tw_advance(w, 3, 10));
    memset(&p, 0, sizeof p);
    CHECK_OK(tw_timer_init(&p.timer, on_fire, &p));
    /* A range spanning a bottom-level revolution boundary. */
    uint64_t lo = 3 + 2 * unit + 5, hi = 3 + 3 * unit + 1;
    CHECK_OK(tw_start_range(w, &p.timer, lo - 3, hi - 3));
    uint64_t d = p.timer.deadline;
    CHECK(d >= lo && d <= hi);
    if (w->geo.levels > 1 && 3 * unit < (UINT64_C(1) << (w->geo.levels * w->geo.slot_bits)))
        CHECK_EQ(d, 3 * unit); /* the boundary, not the end of the range */
    /* Already pending inside a new range: nothing changes. */
    uint64_t kept = w->stats.range_kept;
    CHECK_OK(tw_start_range(w, &p.timer, d - 3 - 1, d - 3 + 10));
    CHECK_EQ(p.timer.deadline, d);
    CHECK_EQ(w->stats.range_kept, kept + 1);
    uint64_t cascades = w->stats.cascades;
    CHECK_OK(tw_advance_to(w, hi + 1, 10));
    CHECK_EQ(p.fired, 1);
    CHECK_EQ(p.fired_at, d);
    if (w->geo.levels > 1 && 3 * unit < (UINT64_C(1) << (w->geo.levels * w->geo.slot_bits)))
        CHECK_EQ(w->stats.cascades, cascades);
    /* A point range is an exact start; an inverted one is refused. */
    CHECK_OK(tw_start_range(w, &p.timer, 7, 7));
    CHECK_EQ(p.timer.deadline, hi + 1 + 7);
    CHECK_EQ(tw_start_range(w, &p.timer, 8, 7), TW_EINVAL);
    CHECK_EQ(tw_advance_to(w, 0, 10), TW_EINVAL);
    /* A range whose low end is itself the boundary: that boundary. */
    uint64_t now = now_of(&f), edge = ((now >> w->geo.slot_bits) + 2) << w->geo.slot_bits;
    CHECK_OK(tw_start_range(w, &p.timer, edge - now, edge - now + 1));
    if (w->geo.levels > 1)
        CHECK_EQ(p.timer.deadline, edge);
out:
    tw_fixture_close(&f);
}

/* Re-arming to a later deadline leaves the timer in place: no bus traffic. */
static void test_lazy_rearm(const tw_backend *b)
{
    tw_fixture f;
    probe p;
    if (open_virtual(&f, b) < 0)
        goto out;
    start_probe(&f, &p, 100);
    uint64_t bus = f.dev.reads + f.dev.writes;
    for (uint64_t i = 1; i <= 50; i++)
        CHECK_OK(tw_start(&f.wheel, &p.timer, 100 + i * 7));
    CHECK_EQ(f.dev.reads + f.dev.writes, bus);
    CHECK_EQ(f.wheel.stats.lazy_rearms, 50);
    CHECK_OK(tw_advance(&f.wheel, 1000, 10));
    CHECK_EQ(p.fired, 1);
    CHECK_EQ(p.fired_at, 450);
    /* A re-arm many revolutions later is placed again once, not looked at
     * every revolution: a handful of events, not one per revolution. */
    uint64_t unit = UINT64_C(1) << f.wheel.geo.slot_bits, events;
    start_probe(&f, &p, 10);
    CHECK_OK(tw_start(&f.wheel, &p.timer, 10 + unit * 1000));
    events = f.wheel.stats.events;
    CHECK_OK(tw_advance(&f.wheel, 20 + unit * 1000, 10));
    CHECK_EQ(p.fired, 1);
    if (f.wheel.geo.levels > 1 && f.wheel.geo.levels * f.wheel.geo.slot_bits > 12)
        CHECK(f.wheel.stats.events - events <= 2 * f.wheel.geo.levels + 2);
out:
    tw_fixture_close(&f);
}

/* The chip's search answers "how long may I sleep": never past an expiry,
 * capped, 0 when callbacks wait; sleeping by it lands on every expiry. */
static void test_ticks_until_next(const tw_backend *b)
{
    tw_fixture f;
    probe p[4];
    uint64_t t = 0;
    if (open_virtual(&f, b) < 0)
        goto out;
    tw_wheel *w = &f.wheel;
    CHECK_OK(tw_ticks_until_next(w, 5000, &t));
    CHECK_EQ(t, 5000); /* nothing armed: the cap */
    CHECK_OK(tw_ticks_until_next(w, UINT64_MAX, &t));
    CHECK_EQ(t, UINT32_MAX); /* the chip's horizon register holds 32 bits */
    CHECK_OK(tw_advance(w, 5, 10));
    uint64_t iv[4] = {1, 40, 700, 70000};
    for (int i = 0; i < 4; i++)
        start_probe(&f, &p[i], iv[i]);
    CHECK_OK(tw_ticks_until_next(w, 5000, &t));
    CHECK_EQ(t, 1);
    CHECK_OK(tw_ticks_until_next(w, 0, &t));
    CHECK_EQ(t, 0);
    int fired = 0, steps = 0;
    while (fired < 4 && steps < 20000) {
        CHECK_OK(tw_ticks_until_next(w, 100000, &t));
        uint64_t now = now_of(&f);
        for (int i = 0; i < 4; i++)
            if (!p[i].fired)
                CHECK(now + t <= p[i].deadline); /* never sleeps past an expiry */
        CHECK(t > 0);
        if (t == 0)
            break;
        fired += tw_advance(w, t, 10);
        steps++;
    }
    CHECK_EQ(fired, 4);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(p[i].fired_at, p[i].deadline);
    /* A hierarchy wakes at most once per level per timer, not per slot
     * (timers past the top level's reach are looked at once a revolution). */
    unsigned reach_bits = w->geo.levels * w->geo.slot_bits;
    if (w->geo.levels > 1 && reach_bits < 64 && (UINT64_C(1) << reach_bits) > 70000)
        CHECK(steps <= 4 * (int)w->geo.levels + 4);
    /* Callbacks pending: 0. */
    for (int i = 0; i < 2; i++)
        start_probe(&f, &p[i], 3);
    CHECK_EQ(tw_advance(w, 3, 1), 1);
    CHECK_OK(tw_ticks_until_next(w, 100, &t));
    CHECK_EQ(t, 0);
    CHECK_EQ(tw_ticks_until_next(w, 100, NULL), TW_EINVAL);
out:
    tw_fixture_close(&f);
}

/* Virtual time from one next-busy answer to the next, until no timer is
 * pending (at most max_steps steps). */
static void run_until_idle(tw_wheel *w, int max_steps)
{
    uint64_t t;
    for (int step = 0; tw_count_pending(w) > 0 && step < max_steps; step++) {
        CHECK_OK(tw_ticks_until_next(w, UINT32_MAX, &t));
        CHECK(tw_advance(w, t ? t : 1, 1000) >= 0);
    }
}

/* Coarse mode: no cascades at all, every timer late by at most its stated
 * slack, and a bounded number of looks per timer. */
static void coarse_run(const tw_backend *b, unsigned shift)
{
    enum { N = 400 };
    tw_fixture f;
    probe *p = calloc(N, sizeof *p);
    uint64_t *want = calloc(N, sizeof *want);
    tw_config cfg = {.source = TW_TIME_VIRTUAL, .coarse_shift = shift};
    tw_rng rng = {42};
    if (!p || !want || tw_fixture_open_cfg(&f, b, &cfg) < 0) {
        CHECK(0);
        goto out;
    }
    tw_wheel *w = &f.wheel;
    unsigned reach = w->geo.levels * w->geo.slot_bits;
    uint64_t max_iv = reach < 22 ? (UINT64_C(1) << reach) - 1 : UINT64_C(1) << 22;
    CHECK_OK(tw_advance(w, 12345, 10));
    for (int i = 0; i < N; i++) {
        uint64_t iv = 1 + tw_rng_below(&rng, max_iv);
        uint64_t before = now_of(&f);
        memset(&p[i], 0, sizeof p[i]);
        CHECK_OK(tw_timer_init(&p[i].timer, on_fire, &p[i]));
        CHECK_OK(tw_start(w, &p[i].timer, iv));
        want[i] = before + iv;
        p[i].latest = iv / ((1u << shift) - 1); /* the stated slack */
        CHECK_OK(tw_advance(w, tw_rng_below(&rng, 50), 1000));
    }
    run_until_idle(w, 200000);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(p[i].fired, 1);
        CHECK(p[i].fired_at >= want[i]);
        CHECK(p[i].fired_at - want[i] <= p[i].latest);
    }
    CHECK_EQ(w->stats.cascades, 0);
    if (reach < 64 && max_iv < (UINT64_C(1) << reach)) /* nothing parked at the top */
        CHECK(w->stats.events <= (uint64_t)N * ((1u << shift) + 1));
out:
    tw_fixture_close(&f);
    free(p);
    free(want);
}

static void test_coarse(const tw_backend *b)
{
    coarse_run(b, 3);
}

/* A slack wider than a revolution of the level a timer goes to (shift >
 * slot bits): the timer is visited on earlier revolutions and must stay in
 * its slot (no cascade) until the visit at its deadline. */
static void test_coarse_wide(const tw_backend *b)
{
    unsigned bits = b->cfg.slot_bits ? b->cfg.slot_bits : 8;
    unsigned shift = bits + 3 > 16 ? 16 : bits + 3;
    coarse_run(b, shift);
}

/* Coarse mode, timers started again with later deadlines: each is placed
 * afresh for its new rounded deadline (no lazy re-arm, which would leave it
 * in a slot whose visit then moves it: a cascade), and fires within the slack. */
static void test_coarse_restart(const tw_backend *b)
{
    enum { N = 64, SHIFT = 3 };
    tw_fixture f;
    probe p[N];
    uint64_t want[N];
    tw_config cfg = {.source = TW_TIME_VIRTUAL, .coarse_shift = SHIFT};
    if (tw_fixture_open_cfg(&f, b, &cfg) < 0) {
        CHECK(0);
        return;
    }
    tw_wheel *w = &f.wheel;
    unsigned reach = w->geo.levels * w->geo.slot_bits;
    uint64_t span = reach < 16 ? (UINT64_C(1) << reach) / 4 : 1 << 14;
    uint64_t iv[N];
    CHECK_OK(tw_advance(w, 777, 10));
    for (int i = 0; i < N; i++)
        start_probe(&f, &p[i], span / 2 + 6 + (uint64_t)i * 7); /* none due before the restart */
    CHECK_OK(tw_advance(w, 5, 10));
    for (int i = 0; i < N; i++) {
        iv[i] = span + (uint64_t)i * 13;
        want[i] = now_of(&f) + iv[i];
        CHECK_OK(tw_start(w, &p[i].timer, iv[i]));
    }
    run_until_idle(w, 100000);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(p[i].fired, 1);
        CHECK(p[i].fired_at >= want[i]);
        CHECK(p[i].fired_at - want[i] <= iv[i] / ((1u << SHIFT) - 1)); /* the stated slack */
    }
    CHECK_EQ(w->stats.cascades, 0);
    tw_fixture_close(&f);
}

/* NOW_HI is bits 47:32 as latched by the last NOW_LO read (registers.md),
 * not the counter's present high half: LO read just below 2^32, the counter
 * run past it, HI still reads 0; LO and HI again read 1. */
static void test_now_hi_latched(const tw_backend *b)
{
    tw_fixture f;
    uint32_t lo = 0, hi = 0;
    if (open_virtual(&f, b) < 0)
        goto out;
    CHECK(tw_advance_to(&f.wheel, (UINT64_C(1) << 32) - 10, 10) >= 0);
    CHECK_OK(tw_dev_read(&f.dev, TW_REG_NOW_LO, &lo));
    CHECK_EQ(lo, 0xFFFFFFF6u);
    CHECK_OK(tw_test_chip_advance(&f.dev, 20));
    CHECK_OK(tw_dev_read(&f.dev, TW_REG_NOW_HI, &hi));
    CHECK_EQ(hi, 0);
    CHECK_OK(tw_dev_read(&f.dev, TW_REG_NOW_LO, &lo));
    CHECK_OK(tw_dev_read(&f.dev, TW_REG_NOW_HI, &hi));
    CHECK_EQ(((uint64_t)hi << 32) | lo, (UINT64_C(1) << 32) + 10);
out:
    tw_fixture_close(&f);
}

/* The far end of 64-bit time: with the wheel's epoch near the top, timers
 * whose deadlines are the last ticks there are fire exactly, and one more
 * tick is refused. */
static void test_end_of_time(const tw_backend *b)
{
    tw_fixture f;
    probe p[3];
    tw_config cfg = {.source = TW_TIME_VIRTUAL, .epoch = 0xFFFF};
    if (tw_fixture_open_cfg(&f, b, &cfg) < 0) {
        CHECK(0);
        goto out;
    }
    tw_wheel *w = &f.wheel;
    CHECK_EQ(now_of(&f), UINT64_C(0xFFFF) << 48);
    /* Virtual time skips the empty stretch: 2^48 ticks in few chip clocks. */
    CHECK_OK(tw_advance_to(w, UINT64_MAX - 5000, 10));
    CHECK_EQ(now_of(&f), UINT64_MAX - 5000);
    start_probe(&f, &p[0], 5000);        /* the very last tick */
    start_probe(&f, &p[1], 4999);
    start_probe(&f, &p[2], 300);
    CHECK_EQ(p[0].deadline, UINT64_MAX);
    probe q;
    memset(&q, 0, sizeof q);
    CHECK_OK(tw_timer_init(&q.timer, on_fire, &q));
    CHECK_EQ(tw_start(w, &q.timer, 5001), TW_ERANGE);
    CHECK_EQ(tw_advance(w, 5001, 10), TW_ERANGE);
    CHECK_OK(tw_advance_to(w, UINT64_MAX, 10));
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(p[i].fired, 1);
        CHECK(p[i].fired_at == p[i].deadline);
    }
    /* Real time held at the very end: a start of any length runs past it
     * (the tick's partial rounding must not wrap the check). */
    tw_config real = {.source = TW_TIME_INTERNAL, .prescale = 100, .epoch = 0xFFFF};
    tw_geometry geo;
    CHECK_OK(tw_probe(&f.dev, &geo));
    CHECK_OK(tw_init(w, &f.dev, f.mem, tw_mem_size(&geo), &real));
    tw_dev_wait_irq(&f.dev, 2000);
    CHECK_EQ(now_of(&f), UINT64_MAX);
    CHECK_EQ(tw_start(w, &q.timer, 1000), TW_ERANGE);
    CHECK_EQ(tw_start(w, &q.timer, 1), TW_ERANGE);
    CHECK_EQ(tw_pending(&q.timer), 0);
    CHECK_OK(tw_start(w, &q.timer, 0)); /* due now: runs at the next service */
    CHECK_EQ(tw_service(w, 10), 1);
    CHECK_EQ(q.fired, 1);
out:
    tw_fixture_close(&f);
}

/* Callbacks on a tick where a higher level cascades: they see the moved
 * timers as ordinary pending timers and may stop, re-arm or join them. */
typedef struct cascade_ctx {
    tw_fixture *f;
    probe b, c, d;
    int a_runs;
    uint64_t unit;
} cascade_ctx;

static void on_cascade_a(tw_timer *t, uint64_t now, void *arg)
{
    cascade_ctx *x = arg;
    tw_wheel *w = &x->f->wheel;
    (void)t;
    x->a_runs++;
    if (tw_stop(w, &x->b.timer) != 1)          /* just moved down a level */
        x->a_runs += 100;
    tw_start(w, &x->d.timer, 1);               /* re-armed earlier than planned */
    tw_start(w, &x->c.timer, x->unit * 2 + 3); /* into the slot just visited */
    x->c.deadline = now + x->unit * 2 + 3;
    x->d.deadline = now + 1;
}

static void test_cascade_reentry(const tw_backend *b)
{
    tw_fixture f;
    cascade_ctx x;
    tw_timer a;
    memset(&x, 0, sizeof x);
    x.f = &f;
    if (open_virtual(&f, b) < 0)
        goto out;
    tw_wheel *w = &f.wheel;
    if (w->geo.levels < 2) /* no cascades in a hashed wheel */
        goto out;
    x.unit = UINT64_C(1) << w->geo.slot_bits;
    uint64_t T = 3 * x.unit; /* a level-1 visit */
    CHECK_OK(tw_timer_init(&a, on_cascade_a, &x));
    CHECK_OK(tw_timer_init(&x.b.timer, on_fire, &x.b));
    CHECK_OK(tw_timer_init(&x.c.timer, on_fire, &x.c));
    CHECK_OK(tw_timer_init(&x.d.timer, on_fire, &x.d));
    CHECK_OK(tw_advance(w, 1, 10));
    CHECK_OK(tw_start(w, &a, T - 1));          /* fires at T */
    CHECK_OK(tw_start(w, &x.b.timer, T + 4));  /* level 1 until T, then level 0 */
    CHECK_OK(tw_start(w, &x.d.timer, T + 9));
    uint64_t cascades = w->stats.cascades;
    CHECK_OK(tw_advance_to(w, T, 10));
    CHECK_EQ(x.a_runs, 1);
    CHECK(w->stats.cascades >= cascades + 2);
    CHECK_OK(tw_advance_to(w, T + 3 * x.unit, 10));
    CHECK_EQ(x.b.fired, 0);
    CHECK_EQ(x.d.fired, 1);
    CHECK_EQ(x.d.fired_at, x.d.deadline);
    CHECK_EQ(x.c.fired, 1);
    CHECK_EQ(x.c.fired_at, x.c.deadline);
out:
    tw_fixture_close(&f);
}

/* Callbacks that start and stop timers, themselves included. */
typedef struct reentry {
    tw_fixture *f;
    tw_timer self, victim, child, zero;
    int self_runs, victim_runs, child_runs, zero_runs;
    uint64_t child_at, zero_at, last_self_at;
    int period_ok;
    int nested_rc[3]; /* tw_advance, tw_service and tw_advance_to called from a callback */
} reentry;

static void on_victim(tw_timer *t, uint64_t now, void *arg)
{
    (void)t;
    (void)now;
    ((reentry *)arg)->victim_runs++;
}

static void on_child(tw_timer *t, uint64_t now, void *arg)
{
    (void)t;
    reentry *r = arg;
    r->child_runs++;
    r->child_at = now;
}

static void on_zero(tw_timer *t, uint64_t now, void *arg)
{
    (void)t;
    reentry *r = arg;
    r->zero_runs++;
    r->zero_at = now;
}

static void on_self(tw_timer *t, uint64_t now, void *arg)
{
    reentry *r = arg;
    tw_wheel *w = &r->f->wheel;
    if (r->self_runs && now != r->last_self_at + 37)
        r->period_ok = 0;
    r->last_self_at = now;
    r->self_runs++;
    if (r->self_runs < 20)
        tw_start(w, t, 37); /* periodic: re-arm itself */
    if (r->self_runs == 2)
        tw_start(w, &r->victim, 37); /* queued behind self for the next run */
    if (r->self_runs == 3) {
        /* The victim is due in this very tick and not yet run: stopping it wins. */
        if (tw_stop(w, &r->victim) != 1)
            r->period_ok = 0;
        tw_start(w, &r->child, 1000);
        tw_start(w, &r->zero, 0); /* due now: runs in this same service */
    }
    if (r->self_runs == 4)
        tw_stop(w, t), tw_start(w, t, 37); /* stop then start itself */
    if (r->self_runs == 5) {
        /* Service from inside service is refused, and changes nothing. */
        r->nested_rc[0] = tw_advance(w, 1, 10);
        r->nested_rc[1] = tw_service(w, 10);
        r->nested_rc[2] = tw_advance_to(w, 0, 10); /* a tick gone by, too */
    }
}

static void test_reentrant(const tw_backend *b)
{
    tw_fixture f;
    reentry r;
    memset(&r, 0, sizeof r);
    r.f = &f;
    r.period_ok = 1;
    if (open_virtual(&f, b) < 0)
        goto out;
    CHECK_OK(tw_timer_init(&r.self, on_self, &r));
    CHECK_OK(tw_timer_init(&r.victim, on_victim, &r));
    CHECK_OK(tw_timer_init(&r.child, on_child, &r));
    CHECK_OK(tw_timer_init(&r.zero, on_zero, &r));
    CHECK_OK(tw_start(&f.wheel, &r.self, 37));
    CHECK_OK(tw_advance(&f.wheel, 3000, 1000));
    CHECK_EQ(r.self_runs, 20);
    CHECK(r.period_ok);
    CHECK_EQ(r.last_self_at, 20 * 37);
    CHECK_EQ(r.victim_runs, 0);
    CHECK_EQ(r.zero_runs, 1);
    CHECK_EQ(r.zero_at, 3 * 37);
    CHECK_EQ(r.child_runs, 1);
    CHECK_EQ(r.child_at, 3 * 37 + 1000);
    CHECK_EQ(r.nested_rc[0], TW_ESTATE);
    CHECK_EQ(r.nested_rc[1], TW_ESTATE);
    CHECK_EQ(r.nested_rc[2], TW_ESTATE);
    CHECK_EQ(tw_count_pending(&f.wheel), 0);
out:
    tw_fixture_close(&f);
}

/* A budget caps callbacks per call; time holds until the rest have run. */
static void test_budget(const tw_backend *b)
{
    tw_fixture f;
    probe p[10];
    int total = 0, rc;
    if (open_virtual(&f, b) < 0)
        goto out;
    for (int i = 0; i < 10; i++)
        start_probe(&f, &p[i], 40);
    probe later;
    start_probe(&f, &later, 41);
    rc = tw_advance(&f.wheel, 100, 3);
    CHECK_EQ(rc, 3);
    CHECK_EQ(now_of(&f), 40); /* held at the tick whose callbacks are pending */
    CHECK_EQ(later.fired, 0);
    total += rc;
    while (total < 11) {
        rc = tw_advance(&f.wheel, 0, 3);
        CHECK(rc > 0 && rc <= 3);
        if (rc <= 0)
            break;
        total += rc;
        CHECK(now_of(&f) == 40 || total == 11);
    }
    CHECK_EQ(total, 11);
    CHECK_EQ(later.fired_at, 41);
    CHECK_EQ(now_of(&f), 100);
    for (int i = 0; i < 10; i++)
        CHECK_EQ(p[i].fired_at, 40);
    /* tw_service has the same budget rule. */
    for (int i = 0; i < 5; i++)
        start_probe(&f, &p[i], 0);
    CHECK_EQ(tw_service(&f.wheel, 2), 2);
    CHECK_EQ(tw_service(&f.wheel, 2), 2);
    CHECK_EQ(tw_service(&f.wheel, 2), 1);
    CHECK_EQ(tw_service(&f.wheel, 2), 0);
out:
    tw_fixture_close(&f);
}

/* visit_batch spreads a crowded slot's visit over calls: each call moves at
 * most that many timers, time holds until the visit is done, and timers
 * started or stopped meanwhile are treated as at any other time. */
static void test_visit_batch(const tw_backend *b)
{
    enum { BATCH = 4, CROWD = 24 };
    tw_fixture f;
    tw_config cfg = {.source = TW_TIME_VIRTUAL, .visit_batch = BATCH};
    probe direct[CROWD], cascading[CROWD], victim, newcomer;
    if (tw_fixture_open_cfg(&f, b, &cfg) < 0) {
        CHECK(0);
        return;
    }
    tw_wheel *w = &f.wheel;
    /* Deadline `edge` sits on a level-1 boundary (fires from its slot);
     * edge + 1 shares that slot and moves down a level at the visit. */
    uint64_t edge = w->geo.levels > 1 ? UINT64_C(1) << w->geo.slot_bits : 8;
    for (int i = 0; i < CROWD; i++) {
        start_probe(&f, &direct[i], edge);
        start_probe(&f, &cascading[i], edge + 1);
    }
    start_probe(&f, &victim, edge + 1);
    uint64_t splits0 = w->stats.visit_splits;
    int rc = tw_advance(w, edge + 10, 1000);
    CHECK(rc >= 0);
    CHECK_EQ(tw_work_pending(w), 1);
    CHECK(now_of(&f) < edge + 10); /* held where the visit stopped */
    CHECK(w->stats.visit_splits > splits0);
    uint64_t ticks = 99;
    CHECK_OK(tw_ticks_until_next(w, 1000, &ticks));
    CHECK_EQ(ticks, 0);
    /* Stop one of the crowd and start another while the visit is half done. */
    uint64_t stopped = w->stats.stopped;
    size_t queued = tw_count_pending(w);
    CHECK_EQ(tw_stop(w, &victim.timer), 1);
    CHECK_EQ(w->stats.stopped, stopped + 1);
    CHECK_EQ(tw_count_pending(w), queued - 1);
    CHECK_EQ(tw_stop(w, &victim.timer), 0); /* idle now: not counted again */
    CHECK_EQ(w->stats.stopped, stopped + 1);
    start_probe(&f, &newcomer, edge + 1 - now_of(&f));
    int calls = 1;
    for (; tw_work_pending(w) && calls < 10 * CROWD; calls++) {
        uint64_t moved0 = w->stats.cascades + w->stats.fired;
        rc = tw_advance(w, 0, 1000);
        CHECK(rc >= 0);
        if (rc < 0)
            break;
        /* fired counts callbacks, which a call runs only after its moves */
        CHECK(w->stats.cascades + w->stats.fired - moved0 <= BATCH + (uint64_t)rc);
    }
    CHECK(calls >= (2 * CROWD) / BATCH / 2);
    CHECK_EQ(tw_work_pending(w), 0);
    CHECK_EQ(now_of(&f), edge + 10);
    for (int i = 0; i < CROWD; i++) {
        CHECK_EQ(direct[i].fired, 1);
        CHECK_EQ(direct[i].fired_at, edge);
        CHECK_EQ(cascading[i].fired, 1);
        CHECK_EQ(cascading[i].fired_at, edge + 1);
    }
    CHECK_EQ(victim.fired, 0);
    CHECK_EQ(newcomer.fired, 1);
    CHECK_EQ(newcomer.fired_at, edge + 1);
    CHECK_EQ(tw_count_pending(w), 0);
    tw_fixture_close(&f);
}

/* Intervals many revolutions of the bottom level (and of the top, where cheap). */
static void test_long_intervals(const tw_backend *b)
{
    tw_fixture f;
    probe p[6];
    if (open_virtual(&f, b) < 0)
        goto out;
    uint64_t rev0 = UINT64_C(1) << f.wheel.geo.slot_bits;
    unsigned top_bits = f.wheel.geo.levels * f.wheel.geo.slot_bits;
    uint64_t top = top_bits < 20 ? UINT64_C(1) << top_bits : 0;
    uint64_t iv[6] = {5 * rev0 + 3, 17 * rev0 - 1, 40 * rev0, 3, top ? 3 * top + 11 : 64 * rev0 + 1,
                      top ? 7 * top - 1 : 2};
    uint64_t last = 0;
    CHECK_OK(tw_advance(&f.wheel, 123, 100));
    for (int i = 0; i < 6; i++) {
        start_probe(&f, &p[i], iv[i]);
        if (p[i].deadline > last)
            last = p[i].deadline;
    }
    CHECK_OK(tw_advance(&f.wheel, last + 10 - now_of(&f), 100));
    for (int i = 0; i < 6; i++) {
        CHECK_EQ(p[i].fired, 1);
        CHECK_EQ(p[i].fired_at, p[i].deadline);
    }
    /* Hierarchy: at most m events per timer (no parked timers here). */
    if (f.wheel.geo.levels > 1 && !top)
        CHECK(f.wheel.stats.events <= 6 * f.wheel.geo.levels);
out:
    tw_fixture_close(&f);
}

/* Real time with a host too slow for the chip: the FIFO overflows, the driver
 * rebuilds from its own lists, and nothing is lost or early. */
static void test_overflow_recovery(const tw_backend *b)
{
    tw_fixture f;
    enum { N = 300, FIRST = 200 };
    probe *p = calloc(N, sizeof *p);
    uint32_t v;
    /* 100 cycles a tick, times the bus's slowness, while starting: the starts
     * (a few bus accesses each) finish before the first deadline. */
    unsigned scale = b->time_scale ? b->time_scale : 1;
    if (!p || tw_fixture_open(&f, b, TW_TIME_INTERNAL, 100 * scale - 1) < 0) {
        CHECK(0);
        goto out;
    }
    /* Mask the interrupt while the "slow host" sleeps, as a stalled CPU would. */
    CHECK_OK(tw_dev_write(&f.dev, TW_REG_CTRL, TW_PUT(TW_CTRL_TICK_SRC, 1)));
    for (int i = 0; i < N; i++)
        start_probe(&f, &p[i], FIRST + 3 * (uint64_t)i);
    CHECK(now_of(&f) < FIRST); /* no deadline passed while starting */
    /* The sleep needs no slow ticks: 100 cycles a tick from the next one
     * (the tick under way ends at the old rate), or a slow bus's run would
     * spend most of its time simulating it. */
    CHECK_OK(tw_dev_write(&f.dev, TW_REG_PRESCALE, 99));
    tw_dev_wait_irq(&f.dev, 100 * (uint64_t)scale + 100 * (uint64_t)(FIRST + 3 * N + 10));
    CHECK_OK(tw_dev_read(&f.dev, TW_REG_STATUS, &v));
    CHECK(TW_GET(TW_STATUS_OVERFLOW, v));
    CHECK_OK(tw_dev_write(&f.dev, TW_REG_CTRL, TW_PUT(TW_CTRL_TICK_SRC, 1) | TW_CTRL_IRQ_EN_MASK));
    int ran = 0;
    for (int round = 0; round < 100 && ran < N; round++) {
        int rc = tw_service(&f.wheel, 64);
        CHECK(rc >= 0);
        if (rc < 0)
            break;
        ran += rc;
        /* Work the last call left (its budget spent) raises no interrupt. */
        if (ran < N && !tw_work_pending(&f.wheel))
            tw_dev_wait_irq(&f.dev, 20000 * (uint64_t)scale);
    }
    CHECK_EQ(ran, N);
    CHECK(f.wheel.stats.overflows >= 1);
    CHECK_OK(tw_dev_read(&f.dev, TW_REG_CNT_OVERFLOW, &v));
    CHECK(v > 0);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(p[i].fired, 1);
        CHECK(p[i].fired_at >= p[i].deadline);
    }
out:
    tw_fixture_close(&f);
    free(p);
}

/* A callback that starts its own timer again with 0 ticks (due at once),
 * four times. */
static tw_wheel *again_wheel;
static void on_again(tw_timer *t, uint64_t now, void *arg)
{
    probe *p = arg;
    p->fired++;
    p->fired_at = now;
    if (p->fired < 5)
        tw_start(again_wheel, t, 0);
}

/* Real time through the prescaler: fires never early, late by at most the
 * host's service latency. */
static void test_realtime(const tw_backend *b)
{
    tw_fixture f;
    probe p[20];
    unsigned scale = b->time_scale ? b->time_scale : 1;
    if (tw_fixture_open(&f, b, TW_TIME_INTERNAL, 10 * scale - 1) < 0) {
        CHECK(0);
        goto out;
    }
    for (int i = 0; i < 20; i++)
        start_probe(&f, &p[i], 100 + 13 * (uint64_t)i); /* after the last start returns */
    int ran = 0;
    for (int round = 0; round < 1000 && ran < 20; round++) {
        tw_dev_wait_irq(&f.dev, 100000 * (uint64_t)scale);
        int rc = tw_service(&f.wheel, 100);
        CHECK(rc >= 0);
        if (rc < 0)
            break;
        ran += rc;
    }
    CHECK_EQ(ran, 20);
    for (int i = 0; i < 20; i++) {
        CHECK_EQ(p[i].fired, 1);
        if (p[i].fired_at > p[i].latest + 10)
            printf("# %d: deadline %llu latest %llu fired %llu\n", i, (unsigned long long)p[i].deadline,
                   (unsigned long long)p[i].latest, (unsigned long long)p[i].fired_at);
        CHECK(p[i].fired_at >= p[i].deadline);
        /* Late only by the host's own latency: one wake drains every event
         * waiting, a few bus cycles each (a small hashed wheel visits a busy
         * slot nearly every tick), at ten cycles a tick. */
        CHECK(p[i].fired_at <= p[i].latest + 10);
    }
    /* A timer a callback starts again with 0 ticks runs at the next
     * service, not again in the call running it: each call runs it once, so
     * a loop that services while the budget is spent ends. */
    probe again;
    memset(&again, 0, sizeof again);
    again_wheel = &f.wheel;
    CHECK_OK(tw_timer_init(&again.timer, on_again, &again));
    CHECK_OK(tw_start(&f.wheel, &again.timer, 0));
    for (int call = 1; call <= 5; call++) {
        CHECK_EQ(tw_service(&f.wheel, 64), 1);
        CHECK_EQ(again.fired, call);
    }
    CHECK_EQ(tw_service(&f.wheel, 64), 0);
    CHECK_EQ(tw_pending(&again.timer), 0);
    CHECK_EQ(tw_advance(&f.wheel, 1, 1), TW_ESTATE);
out:
    tw_fixture_close(&f);
}

/* A device that answers with something else than a tickwheel. */
static uint32_t fake_id;
static uint32_t fake_caps; /* nonzero: VERSION is this map's and CAPS reads this */
static int fake_read(void *ctx, uint32_t addr, uint32_t *v)
{
    (void)ctx;
    *v = addr == TW_REG_ID ? fake_id
       : !fake_caps ? 0
       : addr == TW_REG_VERSION ? TW_PUT(TW_VERSION_MAJOR, TW_VERSION_MAJOR)
       : addr == TW_REG_CAPS ? fake_caps : 0;
    return 0;
}

/* CAPS as a chip would report it: levels, slot bits, FIFO log2, tick bits. */
static uint32_t caps_of(unsigned levels, unsigned slot_bits, unsigned fifo_log2, unsigned tick_bits)
{
    return TW_PUT(TW_CAPS_LEVELS, levels) | TW_PUT(TW_CAPS_SLOT_BITS, slot_bits) |
           TW_PUT(TW_CAPS_FIFO_LOG2, fifo_log2) | TW_PUT(TW_CAPS_TICK_BITS, tick_bits);
}
static int fake_write(void *ctx, uint32_t addr, uint32_t v)
{
    (void)ctx, (void)addr, (void)v;
    return 0;
}
static int dead_read(void *ctx, uint32_t addr, uint32_t *v)
{
    (void)ctx, (void)addr, (void)v;
    return TW_EIO;
}
static int forward_read(void *ctx, uint32_t addr, uint32_t *v)
{
    return tw_dev_read(ctx, addr, v);
}
static int dead_write(void *ctx, uint32_t addr, uint32_t v)
{
    (void)ctx, (void)addr, (void)v;
    return TW_EIO;
}
static int fake_wait(void *ctx, uint64_t n)
{
    (void)ctx, (void)n;
    return 0;
}

/* Two callbacks on one tick: the first restarts `victim` with 0 ticks (it
 * waits after the run's mark), the second initialises it again there. */
typedef struct mark_ctx {
    tw_wheel *w;
    probe victim;
    int runs;
} mark_ctx;

static void on_restart_victim(tw_timer *t, uint64_t now, void *arg)
{
    mark_ctx *m = arg;
    (void)t;
    (void)now;
    m->runs++;
    if (tw_start(m->w, &m->victim.timer, 0) != 0)
        m->runs += 100;
}

static void on_reinit_victim(tw_timer *t, uint64_t now, void *arg)
{
    mark_ctx *m = arg;
    (void)t;
    (void)now;
    m->runs++;
    tw_timer_init(&m->victim.timer, on_fire, &m->victim);
}

/* Stale entries where the lists are written, not only where a visit
 * reads them: a queued timer initialised again at the front or the end of a
 * slot, or left on the expired list; and a damaged link that skips healthy
 * timers. Each is taken out (one TW_ECORRUPT from the call that finds it
 * on a visit or a run of callbacks), the timer itself is not touched, and
 * every other timer fires once, on its tick. */
/* Advances `ticks`, then on with 0 ticks while a call reports damage or
 * work is left (bounded): how many calls reported damage. */
static int advance_through(tw_wheel *w, uint64_t ticks)
{
    int reports = 0;
    int rc = tw_advance(w, ticks, 10);
    for (int calls = 0; calls < 100 && (rc < 0 || tw_work_pending(w)); calls++) {
        reports += rc == TW_ECORRUPT;
        rc = tw_advance(w, 0, 10);
    }
    CHECK(rc >= 0);
    return reports;
}

/* A callback that, with the expired list C, S1, X and the mark, starts Y
 * and S2 with 0 ticks, initialises S1 and S2 again and starts Z with 0:
 * Z's append salvages, and X, the mark and Y are in a run no list reaches. */
typedef struct lost_mark_ctx {
    tw_wheel *w;
    probe s1, x, y, s2, z;
    int start_z;
} lost_mark_ctx;

static void on_lose_mark(tw_timer *t, uint64_t now, void *arg)
{
    lost_mark_ctx *c = arg;
    (void)t;
    (void)now;
    CHECK_OK(tw_start(c->w, &c->y.timer, 0));
    CHECK_OK(tw_start(c->w, &c->s2.timer, 0));
    CHECK_OK(tw_timer_init(&c->s1.timer, on_fire, &c->s1));
    CHECK_OK(tw_timer_init(&c->s2.timer, on_fire, &c->s2));
    c->start_z = tw_start(c->w, &c->z.timer, 0);
}

/* Misuse upon misuse: stale entries of stale entries, timers linked twice
 * and initialised again, timers no list reaches stopped or started. The
 * healthy timers fire on their ticks, stopped ones never, and the count
 * ends right. */
static void stale_upon_stale(tw_fixture *f)
{
    tw_wheel *w = &f->wheel;
    size_t base = tw_count_pending(w);

    /* T, N2 in a slot; T initialised and started with 0 (expired: T, X,
     * S), initialised again; S initialised and started into T's old slot,
     * after N2. A walk back from the expired list's front must not cross
     * into the slot: N2 fires on its tick, not at once. */
    probe t, n2, x, s;
    start_probe(f, &t, 100);
    start_probe(f, &n2, 100);
    CHECK_OK(tw_timer_init(&t.timer, on_fire, &t));
    CHECK_OK(tw_start(w, &t.timer, 0));
    start_probe(f, &x, 0);
    start_probe(f, &s, 0);
    CHECK_OK(tw_timer_init(&t.timer, on_fire, &t));
    CHECK_OK(tw_timer_init(&s.timer, on_fire, &s));
    CHECK_OK(tw_start(w, &s.timer, 100));
    s.deadline = s.timer.deadline;
    (void)advance_through(w, 0);
    CHECK_EQ(n2.fired, 0);
    (void)advance_through(w, 200);
    CHECK(n2.fired == 1 && n2.fired_at == n2.deadline && s.fired == 1 && s.fired_at == s.deadline);
    CHECK(t.fired == 0 && x.fired == 0); /* x: between two stale entries, lost */
    CHECK_EQ(tw_count_pending(w), base);
    CHECK_EQ(tw_stop(w, &x.timer), 1);
    CHECK_EQ(tw_pending(&x.timer), 0);

    /* Both timers of a slot started again, in turn, into another slot; then
     * a start into the first slot: the take-out of its stale last entry
     * must not write into the other slot's timers. */
    probe s1, s2, z, n;
    start_probe(f, &s1, 100);
    start_probe(f, &s2, 100);
    start_probe(f, &z, 200);
    CHECK_OK(tw_timer_init(&s1.timer, on_fire, &s1));
    CHECK_OK(tw_start(w, &s1.timer, 200));
    CHECK_OK(tw_timer_init(&s2.timer, on_fire, &s2));
    CHECK_OK(tw_start(w, &s2.timer, 200));
    s1.deadline = s2.deadline = z.deadline;
    start_probe(f, &n, 100);
    CHECK(s1.timer.link.next == &s2.timer.link);
    CHECK_EQ(tw_stop(w, &s1.timer), 1);
    (void)advance_through(w, 300);
    CHECK(n.fired == 1 && n.fired_at == n.deadline && z.fired == 1 && z.fired_at == z.deadline);
    CHECK(s2.fired == 1 && s2.fired_at == s2.deadline && s1.fired == 0);
    CHECK_EQ(tw_count_pending(w), base);

    /* Linked twice (started again into its own slot), then initialised
     * again: the timers between its two entries are lost, and so counted. */
    probe a, s3, b, c;
    start_probe(f, &a, 100);
    start_probe(f, &s3, 100);
    start_probe(f, &b, 100);
    start_probe(f, &c, 100);
    CHECK_OK(tw_timer_init(&s3.timer, on_fire, &s3));
    CHECK_OK(tw_start(w, &s3.timer, s3.deadline - now_of(f)));
    CHECK_OK(tw_timer_init(&s3.timer, on_fire, &s3));
    (void)advance_through(w, 200);
    CHECK(a.fired == 1 && a.fired_at == a.deadline && s3.fired == 0);
    CHECK_EQ(tw_count_pending(w), base);
    CHECK_EQ(tw_stop(w, &b.timer), 1); /* lost: now idle */
    CHECK_EQ(tw_pending(&b.timer), 0);
    start_probe(f, &c, 10);            /* lost: placed anew */
    (void)advance_through(w, 10);
    CHECK(c.fired == 1 && c.fired_at == c.deadline);
    CHECK_EQ(tw_count_pending(w), base);

    /* A run of four timers lost between two stale entries, linked to one
     * another: stopping two of them must not count out timers still
     * queued elsewhere; a lazy re-arm of a lost one places it anew. */
    probe h, r1, l[4], r2, q[3];
    start_probe(f, &h, 100);
    start_probe(f, &r1, 100);
    for (int i = 0; i < 4; i++)
        start_probe(f, &l[i], 100);
    start_probe(f, &r2, 100);
    for (int i = 0; i < 3; i++)
        start_probe(f, &q[i], 200);
    CHECK_OK(tw_timer_init(&r1.timer, on_fire, &r1));
    CHECK_OK(tw_timer_init(&r2.timer, on_fire, &r2));
    CHECK_EQ(tw_stop(w, &h.timer), 1);
    CHECK_EQ(tw_count_pending(w), base + 3);
    CHECK_EQ(tw_stop(w, &l[1].timer), 1);
    CHECK_EQ(tw_stop(w, &l[2].timer), 1);
    CHECK_EQ(tw_count_pending(w), base + 3);
    CHECK_OK(tw_start(w, &l[3].timer, 150)); /* later than 100: would be lazy */
    l[3].deadline = l[3].timer.deadline;
    CHECK_EQ(tw_count_pending(w), base + 4);
    (void)advance_through(w, 300);
    for (int i = 0; i < 3; i++)
        CHECK(q[i].fired == 1 && q[i].fired_at == q[i].deadline);
    CHECK(l[3].fired == 1 && l[3].fired_at == l[3].deadline);
    CHECK(l[0].fired == 0 && l[1].fired == 0 && l[2].fired == 0 && h.fired == 0);
    CHECK_EQ(tw_count_pending(w), base);
    CHECK_EQ(tw_stop(w, &l[0].timer), 1);
    CHECK_EQ(tw_count_pending(w), base);

    /* A salvage inside a callback that leaves the run's mark in a run no
     * list reaches: the mark goes back to the expired list (the run must
     * end at it, not walk into the wheel's own fields), the call succeeds
     * and Z, started after the salvage, fires. */
    lost_mark_ctx lm = {.w = w};
    tw_timer first;
    probe *all[] = {&lm.s1, &lm.x, &lm.y, &lm.s2, &lm.z};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        memset(all[i], 0, sizeof *all[i]);
        CHECK_OK(tw_timer_init(&all[i]->timer, on_fire, all[i]));
    }
    CHECK_OK(tw_timer_init(&first, on_lose_mark, &lm));
    CHECK_OK(tw_start(w, &first, 0));
    CHECK_OK(tw_start(w, &lm.s1.timer, 0));
    CHECK_OK(tw_start(w, &lm.x.timer, 0));
    int ran = tw_advance(w, 10, 100);
    CHECK(ran >= 1);
    CHECK_OK(lm.start_z);
    (void)advance_through(w, 0);
    CHECK_EQ(lm.z.fired, 1);
    CHECK(lm.s1.fired == 0 && lm.s2.fired == 0);
    CHECK_EQ(tw_stop(w, &lm.x.timer), lm.x.fired ? 0 : 1);
    CHECK_EQ(tw_stop(w, &lm.y.timer), lm.y.fired ? 0 : 1);
    CHECK_EQ(tw_count_pending(w), base);
}

static void bad_list_entries(tw_fixture *f)
{
    tw_wheel *w = &f->wheel;
    size_t base = tw_count_pending(w);

    /* At the front of its slot, started again elsewhere. */
    probe s, a, b;
    start_probe(f, &s, 100);
    start_probe(f, &a, 100);
    start_probe(f, &b, 100);
    CHECK_OK(tw_timer_init(&s.timer, on_fire, &s));
    CHECK_OK(tw_start(w, &s.timer, 5000));
    s.deadline = s.timer.deadline;
    CHECK_EQ(tw_advance(w, 200, 10), TW_ECORRUPT);
    CHECK_EQ(tw_advance(w, 0, 10), 2);
    CHECK(a.fired == 1 && a.fired_at == a.deadline && b.fired == 1 && b.fired_at == b.deadline);
    CHECK_EQ(tw_count_pending(w), base + 1);
    CHECK_OK(tw_advance(w, 5000, 10));
    CHECK(s.fired == 1 && s.fired_at == s.deadline);
    CHECK_EQ(tw_count_pending(w), base);

    /* Left on the expired list (a budget of one), then started again
     * elsewhere, or left idle: the run of callbacks takes the entry out;
     * the timer fires on its new deadline, or is idle and can start. */
    for (int idle = 0; idle < 2; idle++) {
        probe e0, e1;
        start_probe(f, &e0, 10);
        start_probe(f, &e1, 10);
        CHECK_EQ(tw_advance(w, 10, 1), 1);
        CHECK_EQ(tw_pending(&e1.timer), 1);
        CHECK_OK(tw_timer_init(&e1.timer, on_fire, &e1));
        if (!idle) {
            CHECK_OK(tw_start(w, &e1.timer, 1000));
            e1.deadline = e1.timer.deadline;
        }
        CHECK_EQ(tw_advance(w, 0, 10), TW_ECORRUPT);
        CHECK_EQ(e1.fired, 0);
        CHECK_EQ(tw_pending(&e1.timer), !idle);
        if (idle) {
            start_probe(f, &e1, 5);
            CHECK_EQ(tw_count_pending(w), base + 1);
        }
        CHECK_OK(tw_advance(w, 1000, 10));
        CHECK(e0.fired == 1 && e0.fired_at == e0.deadline);
        CHECK(e1.fired == 1 && e1.fired_at == e1.deadline);
        CHECK_EQ(tw_count_pending(w), base);
    }

    /* Left on the expired list, then started again at once, into the same
     * list: linked twice, in front and at the end. The run of callbacks
     * reports it and mends the list; both timers fire, once. */
    probe g0, g1, g2;
    start_probe(f, &g0, 10);
    start_probe(f, &g1, 10);
    start_probe(f, &g2, 10);
    CHECK_EQ(tw_advance(w, 10, 1), 1);
    CHECK_OK(tw_timer_init(&g1.timer, on_fire, &g1));
    CHECK_OK(tw_start(w, &g1.timer, 0));
    CHECK_EQ(tw_advance(w, 0, 10), TW_ECORRUPT);
    CHECK_EQ(tw_advance(w, 0, 10), 2);
    CHECK(g0.fired == 1 && g1.fired == 1 && g2.fired == 1);
    CHECK(g1.fired_at == g1.deadline && g2.fired_at == g2.deadline);
    CHECK_EQ(tw_count_pending(w), base);

    /* At the end of its slot, started again into another slot: a start
     * into the old slot appends after it, which takes it out first (the
     * append would write into the timer, now another slot's); the timer can
     * still be stopped where it is. */
    probe a2, s2, c2, x, y;
    start_probe(f, &a2, 100);
    start_probe(f, &s2, 100);
    CHECK_OK(tw_timer_init(&s2.timer, on_fire, &s2));
    start_probe(f, &x, 3000);
    CHECK_OK(tw_start(w, &s2.timer, 3000));
    start_probe(f, &y, 3000);
    start_probe(f, &c2, 100);
    CHECK_EQ(tw_count_pending(w), base + 6 - 1); /* s2 counted twice, its stale entry taken out */
    CHECK_EQ(tw_stop(w, &s2.timer), 1);
    CHECK_OK(tw_advance(w, 3100, 10));
    CHECK(a2.fired == 1 && a2.fired_at == a2.deadline && c2.fired == 1 && c2.fired_at == c2.deadline);
    CHECK(x.fired == 1 && x.fired_at == x.deadline && y.fired == 1 && y.fired_at == y.deadline);
    CHECK_EQ(s2.fired, 0);
    CHECK_EQ(tw_count_pending(w), base);

    /* The first timer's next overwritten to skip the second: the damaged
     * timer is taken out, not the two healthy ones after it. */
    probe d0, d1, d2;
    start_probe(f, &d0, 100);
    start_probe(f, &d1, 100);
    start_probe(f, &d2, 100);
    d0.timer.link.next = &d2.timer.link;
    CHECK_EQ(tw_advance(w, 200, 10), TW_ECORRUPT);
    CHECK_EQ(tw_advance(w, 0, 10), 2);
    CHECK(d1.fired == 1 && d1.fired_at == d1.deadline && d2.fired == 1 && d2.fired_at == d2.deadline);
    CHECK_EQ(d0.fired, 0);
    CHECK_EQ(tw_count_pending(w), base);

    /* Two stale entries in a row, then every timer of a slot, then every
     * queued timer of the wheel initialised again (a table of connections
     * reset without stopping their timers): no one entry can be taken out
     * alone, so the list keeps what it can reach and the wheel counts its
     * timers again. The healthy ones fire on their ticks, the others are
     * idle and can start, and the wheel goes on. */
    probe h0, r1, r2, h3;
    start_probe(f, &h0, 100);
    start_probe(f, &r1, 100);
    start_probe(f, &r2, 100);
    start_probe(f, &h3, 100);
    CHECK_OK(tw_timer_init(&r1.timer, on_fire, &r1));
    CHECK_OK(tw_timer_init(&r2.timer, on_fire, &r2));
    CHECK_EQ(tw_advance(w, 200, 10), TW_ECORRUPT);
    CHECK_EQ(tw_advance(w, 0, 10), 2);
    CHECK(h0.fired == 1 && h0.fired_at == h0.deadline && h3.fired == 1 && h3.fired_at == h3.deadline);
    CHECK(r1.fired == 0 && r2.fired == 0);
    CHECK_EQ(tw_count_pending(w), base);

    enum { MANY = 40 };
    probe many[MANY], fresh[4];
    for (int round = 0; round < 2; round++) {
        /* Round 0: one slot; round 1: spread over levels. */
        for (int i = 0; i < MANY; i++)
            start_probe(f, &many[i], round ? 1 + (uint64_t)i * 997 : 300);
        start_probe(f, &fresh[0], 299);
        for (int i = 0; i < MANY; i++)
            CHECK_OK(tw_timer_init(&many[i].timer, on_fire, &many[i]));
        for (int i = 1; i < 4; i++)
            start_probe(f, &fresh[i], 298 + (uint64_t)i * 20000);
        /* Each call that meets a stale entry reports it and returns (a
         * start that meets one mends the lists and goes on). */
        for (int calls = 0; calls < 4 * MANY && tw_work_pending(w) + tw_count_pending(w) > base; calls++) {
            int rc = tw_advance(w, calls ? 0 : 70000, 100);
            CHECK(rc >= 0 || rc == TW_ECORRUPT);
        }
        for (int i = 0; i < MANY; i++)
            CHECK_EQ(many[i].fired, 0);
        for (int i = 0; i < 4; i++)
            CHECK(fresh[i].fired == 1 && fresh[i].fired_at == fresh[i].deadline);
        CHECK_EQ(tw_count_pending(w), base);
        start_probe(f, &many[0], 7);
        CHECK_OK(tw_advance(w, 7, 10));
        CHECK(many[0].fired == 1 && many[0].fired_at == many[0].deadline);
    }

    /* Healthy timers beside a stale entry (left idle, or started again
     * into the same slot) are stopped or moved at once: the call mends the
     * lists first. One between two stale entries, which no list reaches
     * any more, is stopped as well (made idle). Nothing else is lost. */
    for (int kind = 0; kind < 2; kind++) {
        probe k[6];
        for (int i = 0; i < 6; i++)
            start_probe(f, &k[i], 100);
        CHECK_OK(tw_timer_init(&k[1].timer, on_fire, &k[1]));
        CHECK_OK(tw_timer_init(&k[3].timer, on_fire, &k[3]));
        if (kind) {
            CHECK_OK(tw_start(w, &k[1].timer, k[1].deadline - now_of(f)));
            CHECK_OK(tw_start(w, &k[3].timer, k[3].deadline - now_of(f)));
        }
        CHECK_EQ(tw_stop(w, &k[0].timer), 1);
        CHECK_EQ(tw_stop(w, &k[2].timer), 1);
        CHECK_EQ(tw_pending(&k[2].timer), 0);
        CHECK_OK(tw_start(w, &k[4].timer, 50));
        k[4].deadline = k[4].timer.deadline;
        CHECK_EQ(tw_count_pending(w), base + (kind ? 4u : 2u));
        CHECK_EQ(tw_advance(w, 200, 10), kind ? 4 : 2);
        CHECK(k[0].fired == 0 && k[2].fired == 0);
        CHECK(k[4].fired == 1 && k[4].fired_at == k[4].deadline);
        CHECK(k[5].fired == 1 && k[5].fired_at == k[5].deadline);
        for (int i = 1; i < 4; i += 2)
            CHECK(k[i].fired == kind && (!kind || k[i].fired_at == k[i].deadline));
        CHECK_EQ(tw_count_pending(w), base);
    }

    /* A timer initialised again by a callback while it waits after the run
     * of callbacks' mark: the mark is taken out around it, not written into
     * it, and the timer is idle and can start. */
    mark_ctx m = {.w = w};
    tw_timer first, second;
    memset(&m.victim, 0, sizeof m.victim);
    CHECK_OK(tw_timer_init(&m.victim.timer, on_fire, &m.victim));
    CHECK_OK(tw_timer_init(&first, on_restart_victim, &m));
    CHECK_OK(tw_timer_init(&second, on_reinit_victim, &m));
    CHECK_OK(tw_start(w, &first, 10));
    CHECK_OK(tw_start(w, &second, 10));
    CHECK_EQ(tw_advance(w, 10, 10), TW_ECORRUPT);
    CHECK_EQ(m.runs, 2);
    CHECK_EQ(m.victim.fired, 0);
    CHECK_EQ(tw_pending(&m.victim.timer), 0);
    CHECK_EQ(tw_count_pending(w), base);
    start_probe(f, &m.victim, 5);
    CHECK_OK(tw_advance(w, 10, 10));
    CHECK(m.victim.fired == 1 && m.victim.fired_at == m.victim.deadline);
}

static void test_bad_input(const tw_backend *b)
{
    tw_fixture f;
    tw_timer t, garbage;
    probe p;
    char small[16];
    if (open_virtual(&f, b) < 0)
        goto out;
    tw_wheel *w = &f.wheel;
    CHECK_EQ(tw_timer_init(NULL, on_fire, NULL), TW_EINVAL);
    CHECK_EQ(tw_timer_init(&t, NULL, NULL), TW_EINVAL);
    CHECK_EQ(tw_start(NULL, &t, 1), TW_EINVAL);
    CHECK_EQ(tw_start(w, NULL, 1), TW_EINVAL);
    CHECK_EQ(tw_stop(w, NULL), TW_EINVAL);
    CHECK_EQ(tw_pending(NULL), TW_EINVAL);
    /* A wheel never initialised (zeroed) is refused by every call. */
    tw_wheel zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    CHECK_OK(tw_timer_init(&t, on_fire, NULL));
    CHECK_EQ(tw_start(&zeroed, &t, 1), TW_EINVAL);
    CHECK_EQ(tw_stop(&zeroed, &t), TW_EINVAL);
    CHECK_EQ(tw_advance(&zeroed, 1, 10), TW_EINVAL);
    memset(&garbage, 0xA5, sizeof garbage);
    CHECK_EQ(tw_start(w, &garbage, 1), TW_ECORRUPT);
    CHECK_EQ(tw_stop(w, &garbage), TW_ECORRUPT);
    CHECK_EQ(tw_pending(&garbage), TW_ECORRUPT);
    CHECK_EQ(tw_service(w, 0), TW_EINVAL);
    CHECK_EQ(tw_advance(w, 1, 0), TW_EINVAL);
    CHECK_EQ(tw_now(w, NULL), TW_EINVAL);

    /* An impossible interval is refused and the timer keeps its old deadline. */
    CHECK_OK(tw_advance(w, 1, 10));
    start_probe(&f, &p, 9);
    CHECK_EQ(tw_start(w, &p.timer, UINT64_MAX), TW_ERANGE);
    CHECK_EQ(tw_pending(&p.timer), 1);
    /* The longest possible interval is not an error. */
    probe far;
    start_probe(&f, &far, UINT64_MAX - 1);
    CHECK_EQ(far.timer.deadline, UINT64_MAX);
    CHECK_EQ(tw_stop(w, &far.timer), 1);
    /* A timer whose links were overwritten is refused, not followed. */
    probe q;
    start_probe(&f, &q, 20);
    tw_list *saved = q.timer.link.next;
    q.timer.link.next = (tw_list *)&garbage;
    CHECK_EQ(tw_stop(w, &q.timer), TW_ECORRUPT);
    CHECK_EQ(tw_start(w, &q.timer, 5), TW_ECORRUPT);
    /* ... also when it points nowhere (not even aligned): not dereferenced. */
    q.timer.link.next = (tw_list *)(uintptr_t)UINT64_C(0x4141414141414141);
    CHECK_EQ(tw_stop(w, &q.timer), TW_ECORRUPT);
    CHECK_EQ(tw_pending(&q.timer), TW_ECORRUPT);
    q.timer.link.next = saved;
    /* A `where` written over with a plausible value: an idle timer that
     * claims a slot (a start was accepted and lost, a stop counted a timer
     * that was never queued), a queued one that claims to be idle (a start
     * linked it twice and the next visit never ended). */
    probe idle, queued;
    tw_timer_init(&idle.timer, on_fire, &idle);
    idle.timer.where = 5;
    CHECK_EQ(tw_pending(&idle.timer), TW_ECORRUPT);
    CHECK_EQ(tw_start(w, &idle.timer, 5), TW_ECORRUPT);
    CHECK_EQ(tw_stop(w, &idle.timer), TW_ECORRUPT);
    start_probe(&f, &queued, 25);
    size_t count = tw_count_pending(w);
    uint32_t where = queued.timer.where;
    queued.timer.where = 0;
    CHECK_EQ(tw_stop(w, &queued.timer), TW_ECORRUPT);
    CHECK_EQ(tw_start(w, &queued.timer, 5), TW_ECORRUPT);
    CHECK_EQ(tw_count_pending(w), count);
    queued.timer.where = where;
    CHECK_OK(tw_advance(w, 30, 10));
    CHECK_EQ(p.fired, 1);
    CHECK_EQ(p.fired_at, 10);
    CHECK_EQ(q.fired, 1);
    CHECK_EQ(q.fired_at, q.deadline);
    CHECK_EQ(queued.fired, 1);
    CHECK_EQ(queued.fired_at, queued.deadline);

    /* A re-arm that leaves a queued timer in its slot checks that its links
     * are set and aligned, not its neighbours; links that point back wrong
     * are found by the slot's visit, which reports TW_ECORRUPT, takes that
     * timer out and goes on with the others. */
    probe s0, s1, s2;
    start_probe(&f, &s0, 40);
    start_probe(&f, &s1, 40);
    start_probe(&f, &s2, 40);
    size_t queued_before = tw_count_pending(w);
    s1.timer.link.next = NULL;
    CHECK_EQ(tw_start(w, &s1.timer, 60), TW_ECORRUPT);
    CHECK_EQ(tw_start_range(w, &s1.timer, 30, 50), TW_ECORRUPT);
    s1.timer.link.next = s1.timer.link.prev; /* aligned, pointing at s0 */
    CHECK_OK(tw_start(w, &s1.timer, 60));
    CHECK_EQ(tw_advance(w, 50, 10), TW_ECORRUPT);
    CHECK_EQ(tw_advance(w, 0, 10), 2);
    CHECK_EQ(s0.fired, 1);
    CHECK_EQ(s0.fired_at, s0.deadline);
    CHECK_EQ(s2.fired, 1);
    CHECK_EQ(s2.fired_at, s2.deadline);
    CHECK_EQ(s1.fired, 0);
    CHECK_EQ(tw_count_pending(w), queued_before - 3);
    /* A queued timer alone in its slot, initialised again: the slot still
     * lists it, and its visit finds it marked idle, takes it out and does
     * not fire it. */
    probe lone;
    start_probe(&f, &lone, 40);
    size_t with_lone = tw_count_pending(w);
    CHECK_OK(tw_timer_init(&lone.timer, on_fire, &lone));
    CHECK_EQ(tw_advance(w, 50, 10), TW_ECORRUPT);
    CHECK_EQ(tw_advance(w, 0, 10), 0);
    CHECK_EQ(lone.fired, 0);
    CHECK_EQ(tw_count_pending(w), with_lone - 1);

    /* A queued timer initialised again among others leaves its slot's
     * list pointing at it, and its neighbours' checks fail: the slot's
     * visit reports TW_ECORRUPT, takes the stale entry out without
     * touching the timer, and the others fire on their tick. */
    probe q0, q1, q2;
    size_t before_q = tw_count_pending(w);
    start_probe(&f, &q0, 100);
    start_probe(&f, &q1, 100);
    start_probe(&f, &q2, 100);
    CHECK_OK(tw_timer_init(&q1.timer, on_fire, &q1));
    CHECK_EQ(tw_advance(w, 200, 10), TW_ECORRUPT);
    CHECK_EQ(tw_advance(w, 0, 10), 2);
    CHECK_EQ(q0.fired, 1);
    CHECK_EQ(q0.fired_at, q0.deadline);
    CHECK_EQ(q2.fired, 1);
    CHECK_EQ(q2.fired_at, q2.deadline);
    CHECK_EQ(q1.fired, 0);
    CHECK_EQ(tw_pending(&q1.timer), 0);
    CHECK_EQ(tw_count_pending(w), before_q);
    /* ... and started again elsewhere: the timer stays where it now is
     * and fires there, once, on its new deadline. */
    probe r0, r1, r2;
    size_t before_r = tw_count_pending(w);
    start_probe(&f, &r0, 100);
    start_probe(&f, &r1, 100);
    start_probe(&f, &r2, 100);
    CHECK_OK(tw_timer_init(&r1.timer, on_fire, &r1));
    CHECK_OK(tw_start(w, &r1.timer, 5000));
    r1.deadline = r1.timer.deadline;
    CHECK_EQ(tw_advance(w, 200, 10), TW_ECORRUPT);
    CHECK_EQ(tw_advance(w, 0, 10), 2);
    CHECK_EQ(r0.fired, 1);
    CHECK_EQ(r0.fired_at, r0.deadline);
    CHECK_EQ(r2.fired, 1);
    CHECK_EQ(r2.fired_at, r2.deadline);
    CHECK_EQ(r1.fired, 0);
    CHECK_EQ(tw_pending(&r1.timer), 1);
    CHECK_EQ(tw_count_pending(w), before_r + 1);
    CHECK_OK(tw_advance(w, 6000, 10));
    CHECK_EQ(r1.fired, 1);
    CHECK_EQ(r1.fired_at, r1.deadline);
    CHECK_EQ(tw_count_pending(w), before_r);
    bad_list_entries(&f);
    stale_upon_stale(&f);
    /* ... and started again into the same slot, at its end (from the middle
     * of the list, or from its front): the timer is linked twice, and the
     * timers between cannot be reached one way. The visit reports it once,
     * the list is mended whole, and every timer fires once, on time. */
    for (int first = 0; first < 2; first++) {
        probe a[3], later;
        probe *again = first ? &a[0] : &a[1];
        size_t before_a = tw_count_pending(w);
        for (int i = 0; i < 3; i++)
            start_probe(&f, &a[i], 100);
        CHECK_OK(tw_timer_init(&again->timer, on_fire, again));
        CHECK_OK(tw_start(w, &again->timer, again->deadline - f.wheel.now));
        CHECK_EQ(tw_advance(w, 200, 10), TW_ECORRUPT);
        CHECK_EQ(tw_advance(w, 0, 10), 3);
        for (int i = 0; i < 3; i++) {
            CHECK_EQ(a[i].fired, 1);
            CHECK_EQ(a[i].fired_at, a[i].deadline);
            CHECK_EQ(tw_pending(&a[i].timer), 0);
        }
        CHECK_EQ(tw_count_pending(w), before_a);
        start_probe(&f, &later, 50);
        CHECK_EQ(tw_advance(w, 100, 10), 1);
        CHECK_EQ(later.fired, 1);
        CHECK_EQ(later.fired_at, later.deadline);
    }

    /* Too little memory, memory not aligned for the list heads, a coarse
     * shift past 16, wrong device, dead device. */
    tw_wheel w2;
    tw_config cfg = {.source = TW_TIME_VIRTUAL};
    CHECK_EQ(tw_init(&w2, &f.dev, small, sizeof small, &cfg), TW_ENOMEM);
    CHECK_EQ(tw_init(&w2, &f.dev, (char *)f.mem + 1, 1 << 20, &cfg), TW_EINVAL);
    cfg.coarse_shift = 17;
    CHECK_EQ(tw_init(&w2, &f.dev, f.mem, 1 << 20, &cfg), TW_EINVAL);
    cfg.coarse_shift = 0;
    cfg.source = (enum tw_time_source)7;
    CHECK_EQ(tw_init(&w2, &f.dev, f.mem, 1 << 20, &cfg), TW_EINVAL);
    CHECK_EQ(tw_start(&w2, &t, 1), TW_EINVAL); /* a failed tw_init: not a wheel */
    cfg.source = TW_TIME_VIRTUAL;
    tw_dev_ops fake_ops = {"fake", fake_read, fake_write, fake_wait, NULL, NULL, NULL, NULL};
    tw_dev fake = {&fake_ops, NULL, 0, 0, 0, 0};
    tw_geometry g;
    fake_id = 0x12345678;
    CHECK_EQ(tw_probe(&fake, &g), TW_ENODEV);
    fake_id = TW_ID_MAGIC; /* right ID, but CAPS reads 0 and VERSION 0 */
    CHECK_EQ(tw_probe(&fake, &g), TW_ENODEV);
    /* The right ID and version, and a geometry no chip can have: each
     * limit just past, and just inside (levels 1-4, slot bits 2-12, at most
     * 44 bits of wheel, FIFO 2^1-2^12, 48-bit ticks). */
    static const struct { unsigned l, b, f, t; int rc; } caps[] = {
        {0, 8, 4, 48, TW_EDEVICE}, {5, 8, 4, 48, TW_EDEVICE}, {2, 1, 4, 48, TW_EDEVICE},
        {1, 13, 4, 48, TW_EDEVICE}, {4, 12, 4, 48, TW_EDEVICE}, {2, 8, 0, 48, TW_EDEVICE},
        {2, 8, 13, 48, TW_EDEVICE}, {2, 8, 4, 32, TW_EDEVICE}, {1, 2, 1, 48, 0},
        {4, 11, 12, 48, 0},
    };
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        fake_caps = caps_of(caps[i].l, caps[i].b, caps[i].f, caps[i].t);
        int rc = tw_probe(&fake, &g);
        if (rc != caps[i].rc)
            tw_test_fail(__FILE__, __LINE__, "CAPS %u levels, %u slot bits, FIFO 2^%u, %u-bit ticks: %d, not %d",
                         caps[i].l, caps[i].b, caps[i].f, caps[i].t, rc, caps[i].rc);
    }
    fake_caps = 0;
    fake_ops.read = dead_read;
    CHECK_EQ(tw_probe(&fake, &g), TW_EIO);
    /* A closed device is not there. */
    tw_dev closed;
    memset(&closed, 0, sizeof closed);
    CHECK_EQ(tw_probe(&closed, &g), TW_ENODEV);
    memset(&w2, 0xA5, sizeof w2); /* what a failed tw_init leaves is refused, not read */
    CHECK_EQ(tw_init(&w2, &closed, f.mem, 1 << 20, &cfg), TW_ENODEV);
    CHECK_EQ(tw_count_pending(&w2), 0);
    CHECK_EQ(tw_work_pending(&w2), 0);
    /* A chip that answers the probe and then fails: the wheel tw_init
     * leaves behind is refused by every call, not half set up. */
    tw_dev_ops mute_ops = {"mute", forward_read, dead_write, fake_wait, NULL, NULL, NULL, NULL};
    tw_dev mute = {&mute_ops, &f.dev, 0, 0, 0, 0};
    void *mem2 = malloc(1 << 20);
    CHECK(mem2 != NULL);
    tw_timer u;
    CHECK_OK(tw_timer_init(&u, on_fire, NULL));
    CHECK_EQ(tw_init(&w2, &mute, mem2, 1 << 20, &cfg), TW_EIO);
    CHECK_EQ(tw_start(&w2, &u, 10), TW_EINVAL);
    CHECK_EQ(tw_advance(&w2, 10, 10), TW_EINVAL);
    CHECK_EQ(tw_count_pending(&w2), 0);
    CHECK_EQ(tw_pending(&u), 0);
    free(mem2);
    CHECK(strcmp(tw_strerror(TW_ECORRUPT), tw_strerror(TW_ERANGE)) != 0);
    /* The wheel initialised again over its own memory forgets its queued
     * timers: they are refused as another wheel's, not re-armed in lists
     * that no longer hold them (and lost), nor stopped (the count wrapped). */
    probe old;
    start_probe(&f, &old, 100);
    tw_geometry geo;
    CHECK_OK(tw_probe(&f.dev, &geo));
    CHECK_OK(tw_init(w, &f.dev, f.mem, tw_mem_size(&geo), &cfg));
    CHECK_EQ(tw_count_pending(w), 0);
    CHECK_EQ(tw_start(w, &old.timer, 500), TW_EINVAL);
    CHECK_EQ(tw_stop(w, &old.timer), TW_EINVAL);
    CHECK_EQ(tw_count_pending(w), 0);
    start_probe(&f, &old, 50);
    CHECK_OK(tw_advance(w, 60, 10));
    CHECK(old.fired == 1 && old.fired_at == old.deadline);
out:
    tw_fixture_close(&f);
}

/* A timer queued on one wheel and handed to another (of the same
 * geometry) is refused: neither wheel's count nor lists change, and it
 * fires from its own wheel, once, on its tick. */
static void test_other_wheel(const tw_backend *b)
{
    tw_fixture f, g;
    probe p, idle;
    int g_open = 0;
    if (open_virtual(&f, b) < 0)
        goto out;
    if (open_virtual(&g, b) < 0)
        goto out;
    g_open = 1;
    if (f.wheel.timer_tag == g.wheel.timer_tag) {
        /* A hash of the two wheels' addresses: one pair in 65,536 share it. */
        printf("  (the two wheels' tags collide here: not checked)\n");
        goto out;
    }
    /* A neighbour initialised again and started on the other wheel is a
     * stale entry like any: the timer beside it still stops. */
    probe near, moved;
    start_probe(&f, &near, 40);
    start_probe(&f, &moved, 40);
    CHECK_OK(tw_timer_init(&moved.timer, on_fire, &moved));
    CHECK_OK(tw_start(&g.wheel, &moved.timer, 20));
    CHECK_EQ(tw_stop(&f.wheel, &near.timer), 1);
    CHECK_EQ(tw_count_pending(&f.wheel), 0);
    CHECK_EQ(tw_count_pending(&g.wheel), 1);
    CHECK_OK(tw_stop(&g.wheel, &moved.timer));
    start_probe(&f, &p, 50);
    CHECK_EQ(tw_stop(&g.wheel, &p.timer), TW_EINVAL);
    CHECK_EQ(tw_start(&g.wheel, &p.timer, 10), TW_EINVAL);
    CHECK_EQ(tw_start_range(&g.wheel, &p.timer, 10, 20), TW_EINVAL);
    CHECK_EQ(tw_count_pending(&f.wheel), 1);
    CHECK_EQ(tw_count_pending(&g.wheel), 0);
    /* An idle timer belongs to no wheel: either may start it. */
    CHECK_OK(tw_timer_init(&idle.timer, on_fire, &idle));
    idle.fired = 0;
    CHECK_OK(tw_start(&g.wheel, &idle.timer, 30));
    CHECK_EQ(tw_stop(&f.wheel, &idle.timer), TW_EINVAL);
    CHECK_OK(tw_advance(&f.wheel, 60, 10));
    CHECK_OK(tw_advance(&g.wheel, 60, 10));
    CHECK_EQ(p.fired, 1);
    CHECK_EQ(p.fired_at, 50);
    CHECK_EQ(idle.fired, 1);
    CHECK_EQ(idle.fired_at, 30);
    CHECK_EQ(tw_count_pending(&f.wheel), 0);
    CHECK_EQ(tw_count_pending(&g.wheel), 0);
    /* Fired, it is idle again, and the other wheel may take it. */
    CHECK_OK(tw_start(&g.wheel, &p.timer, 5));
    CHECK_EQ(tw_stop(&g.wheel, &p.timer), 1);
out:
    if (g_open)
        tw_fixture_close(&g);
    tw_fixture_close(&f);
}

/* A host that stopped inside tw_advance leaves the chip in the middle of
 * an ADVANCE, held at an event. tw_init on that chip takes it over: the
 * old ticks run out on the cleared wheel and the new wheel starts there,
 * exact from its first timer. */
static void test_stale_advance(const tw_backend *b)
{
    tw_fixture f;
    probe old, fresh;
    if (open_virtual(&f, b) < 0)
        goto out;
    start_probe(&f, &old, 100);
    uint64_t t0 = now_of(&f);
    /* What tw_advance does, left unfinished: the chip steps to the
     * timer's visit and holds there, with most of the ticks still to go. */
    CHECK_OK(tw_dev_write(&f.dev, TW_REG_ADVANCE, 50000));
    uint32_t st = 0, left = 0;
    for (int polls = 0; polls < 100000; polls++) {
        CHECK_OK(tw_dev_read(&f.dev, TW_REG_STATUS, &st));
        if (TW_GET(TW_STATUS_HOLD, st))
            break;
    }
    CHECK(TW_GET(TW_STATUS_HOLD, st));
    CHECK_OK(tw_dev_read(&f.dev, TW_REG_ADVANCE, &left));
    CHECK(left > 0 && left < 50000);

    tw_config cfg = {.source = TW_TIME_VIRTUAL};
    CHECK_OK(tw_init(&f.wheel, &f.dev, f.mem, tw_mem_size(&f.wheel.geo), &cfg));
    uint64_t start = now_of(&f);
    CHECK_EQ(start, t0 + 50000);
    CHECK_OK(tw_dev_read(&f.dev, TW_REG_ADVANCE, &left));
    CHECK_EQ(left, 0);
    start_probe(&f, &fresh, 10);
    CHECK_OK(tw_advance(&f.wheel, 20, 10));
    CHECK_EQ(fresh.fired, 1);
    CHECK_EQ(fresh.fired_at, start + 10);
    CHECK_EQ(now_of(&f), start + 20);
    CHECK_EQ(old.fired, 0); /* the old wheel's: gone with it */
out:
    tw_fixture_close(&f);
}

/* A wheel whose device was closed under it: every call that needs the
 * chip says so (TW_ENODEV), none crashes, and the timers stay the
 * caller's to stop. */
static void test_closed_device(const tw_backend *b)
{
    tw_fixture f;
    probe near, far, late;
    uint64_t ticks = 0;
    if (open_virtual(&f, b) < 0)
        goto out;
    tw_wheel *w = &f.wheel;
    start_probe(&f, &near, 10);
    start_probe(&f, &far, 5000);
    tw_dev_close(&f.dev);
    CHECK_EQ(tw_advance(w, 20, 10), TW_ENODEV);
    CHECK_EQ(tw_advance(w, 20, 10), TW_ENODEV);
    CHECK_EQ(tw_ticks_until_next(w, 100, &ticks), TW_ENODEV);
    CHECK_EQ(tw_dev_cycles(&f.dev), 0);
    CHECK_EQ(near.fired, 0);
    CHECK_EQ(tw_pending(&near.timer), 1);
    /* A start in virtual time needs no answer from the chip; its arm fails
     * and is counted, and the timer is queued like the others. */
    uint64_t bus_errors = w->stats.bus_errors;
    CHECK_OK(tw_timer_init(&late.timer, on_fire, &late));
    CHECK_OK(tw_start(w, &late.timer, 300000));
    CHECK(w->stats.bus_errors > bus_errors);
    CHECK_EQ(tw_count_pending(w), 3);
    CHECK_EQ(tw_stop(w, &near.timer), 1);
    CHECK_EQ(tw_stop(w, &far.timer), 1);
    CHECK_EQ(tw_stop(w, &late.timer), 1);
    CHECK_EQ(tw_count_pending(w), 0);
out:
    tw_fixture_close(&f);
}

/* Straight out of reset, every register of the chip with a fixed reset
 * value (rtl/tw_regs.toml, TW_REGS_RESET) reads it, once the first search is
 * done. The bridge's SPI_ERRORS is tb_tw_spi's to check. */
static void test_reset_values(const tw_backend *b)
{
    tw_dev dev;
    uint32_t status = TW_STATUS_SEARCHING_MASK, value;
    if (b->open(&dev, &b->cfg) < 0) {
        CHECK(!"backend open");
        return;
    }
    for (int reads = 0; reads < 1000 && (status & TW_STATUS_SEARCHING_MASK); reads++)
        CHECK_OK(tw_dev_read(&dev, TW_REG_STATUS, &status));
#define CHECK_RESET(name, reset)                                                              \
    do {                                                                                      \
        if (TW_REG_##name == TW_REG_SPI_ERRORS)                                               \
            break; /* the link's count, which a noisy link's flipped bits move at once */   \
        value = ~(uint32_t)(reset);                                                           \
        CHECK_OK(tw_dev_read(&dev, TW_REG_##name, &value));                                   \
        if (value != (reset))                                                                 \
            tw_test_fail(__FILE__, __LINE__, "%s reads 0x%08X after reset, not 0x%08X", #name, \
                         (unsigned)value, (unsigned)(reset));                                 \
    } while (0);
    TW_REGS_RESET(CHECK_RESET)
#undef CHECK_RESET
    tw_dev_close(&dev);
}

/* An access the chip cannot take (an address off the word grid or past the
 * register map, a read with nowhere to put its value) is refused before it
 * reaches the bus: TW_EINVAL, no clock run, nothing read or written. */
static void test_bad_access(const tw_backend *b)
{
    static const uint32_t bad[] = {TW_REG_ID + 1, TW_REG_STATUS + 2, TW_REG_CMD + 3, 4 * TW_REG_COUNT,
                                   4 * TW_REG_COUNT + 4, UINT32_MAX - 3, UINT32_MAX};
    tw_dev dev;
    uint32_t value = 0x5A5A5A5Au;
    if (b->open(&dev, &b->cfg) < 0) {
        CHECK(!"backend open");
        return;
    }
    uint64_t cycles = tw_dev_cycles(&dev);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (tw_dev_read(&dev, bad[i], &value) != TW_EINVAL || tw_dev_write(&dev, bad[i], 0) != TW_EINVAL)
            tw_test_fail(__FILE__, __LINE__, "an access at 0x%08X was not refused", (unsigned)bad[i]);
    }
    CHECK_EQ(value, 0x5A5A5A5Au);
    CHECK_EQ(tw_dev_read(&dev, TW_REG_ID, NULL), TW_EINVAL);
    CHECK_EQ(tw_dev_cycles(&dev), cycles);
    /* ... and the device answers as before. */
    CHECK_OK(tw_dev_read(&dev, TW_REG_ID, &value));
    CHECK_EQ(value, TW_ID_MAGIC);
    tw_dev_close(&dev);
}

/* The external tick input, where a backend has one: a tick on each rising
 * edge, counted while the input is still high, and none on the fall. */
static void test_ext_tick_edges(const tw_backend *b)
{
    tw_fixture f;
    if (tw_fixture_open(&f, b, TW_TIME_EXTERNAL, 0) < 0) {
        CHECK(!"open with the external tick");
        goto out;
    }
    if (!f.dev.ops->set_ext_tick)
        goto out; /* no such pin */
    uint64_t start = now_of(&f);
    for (uint64_t n = 1; n <= 3; n++) {
        f.dev.ops->set_ext_tick(f.dev.ctx, 1);
        CHECK(tw_dev_wait_irq(&f.dev, 16) >= 0); /* the synchroniser's clocks */
        CHECK_EQ(now_of(&f), start + n);
        f.dev.ops->set_ext_tick(f.dev.ctx, 0);
        CHECK(tw_dev_wait_irq(&f.dev, 16) >= 0);
        CHECK_EQ(now_of(&f), start + n);
    }
out:
    tw_fixture_close(&f);
}

/* A wait that nothing ends runs the chip its whole budget, not a clock
 * more or less, on every backend that counts its clock. */
static void test_wait_runs_its_budget(const tw_backend *b)
{
    tw_dev dev;
    if (b->open(&dev, &b->cfg) < 0) {
        CHECK(!"backend open");
        return;
    }
    for (uint64_t budget = 1; budget <= 1000 && !tw_test_failed; budget *= 10) {
        uint64_t before = tw_dev_cycles(&dev);
        CHECK_EQ(tw_dev_wait_irq(&dev, budget), 0);
        if (before || tw_dev_cycles(&dev))
            CHECK_EQ(tw_dev_cycles(&dev) - before, budget);
    }
    tw_dev_close(&dev);
}

/* The tests named in `only` (NULL-terminated), or all of them if it is NULL. */
int tw_driver_suite_only(const tw_backend *b, const char *const *only)
{
    static const struct {
        const char *name;
        void (*fn)(const tw_backend *);
    } tests[] = {
        {"reset_values", test_reset_values},
        {"probe_geometry", test_probe_geometry},
        {"exact_tick", test_exact_tick},
        {"stop", test_stop},
        {"rearm", test_rearm},
        {"lazy_rearm", test_lazy_rearm},
        {"range_start", test_range},
        {"ticks_until_next", test_ticks_until_next},
        {"coarse_mode", test_coarse},
        {"coarse_mode_wide_shift", test_coarse_wide},
        {"coarse_mode_restart", test_coarse_restart},
        {"now_hi_latched", test_now_hi_latched},
        {"end_of_64bit_time", test_end_of_time},
        {"reentrant_callbacks", test_reentrant},
        {"reentry_during_cascade", test_cascade_reentry},
        {"budget_resumes", test_budget},
        {"visit_batch", test_visit_batch},
        {"long_intervals", test_long_intervals},
        {"overflow_recovery", test_overflow_recovery},
        {"realtime_prescaler", test_realtime},
        {"ext_tick_edges", test_ext_tick_edges},
        {"bad_input", test_bad_input},
        {"bad_access", test_bad_access},
        {"wait_runs_its_budget", test_wait_runs_its_budget},
        {"closed_device", test_closed_device},
        {"other_wheel", test_other_wheel},
        {"stale_advance", test_stale_advance},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        int wanted = !only;
        for (const char *const *n = only; n && *n && !wanted; n++)
            wanted = !strcmp(*n, tests[i].name);
        if (!wanted)
            continue;
        /* 2^48 ticks of virtual time are 65536 ADVANCE commands, and a
         * coarse shift of b + 3 looks at each timer up to 2^(b+3) times: on
         * SPI, minutes of simulation that test no more than Wishbone does. */
        if (b->time_scale >= SLOW_BUS_SCALE && (tests[i].fn == test_end_of_time || tests[i].fn == test_coarse_wide)) {
            printf("# driver/%s/%s: skipped on a slow bus\n", b->name, tests[i].name);
            continue;
        }
        failed += !tw_test_run("driver", tests[i].name, tests[i].fn, b);
    }
    return failed;
}

int tw_driver_suite(const tw_backend *b)
{
    return tw_driver_suite_only(b, NULL);
}
