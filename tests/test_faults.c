/* Fault injection on the simulated chips (C model, Verilated RTL): failed bus
 * transactions, made-up and impossible events, chip resets in the middle of a
 * run, FIFO overflow storms and glitches on the external tick input. The
 * driver must recover: no timer lost, none fired twice or early, and in
 * virtual time every one still on its exact tick. Each test prints the faults
 * it injected and the driver's counters that saw them. */
#include <stdlib.h>
#include <string.h>

#include "tw_faultdev.h"
#include "tw_regs.h"
#include "tw_test.h"

enum { NT = 96 };

typedef struct fault_oracle {
    tw_fixture f;
    tw_rng rng;
    tw_timer timers[NT];
    int pending[NT];
    uint64_t deadline[NT];
    int exact;           /* virtual time: every fire on its tick */
    uint64_t max_ticks;  /* longest interval started */
    uint64_t fired, late_ticks_max, api_errors;
} fault_oracle;

static fault_oracle *the_fo;

static int fo_now(fault_oracle *o, uint64_t *now)
{
    int rc = -1;
    for (int tries = 0; tries < 20 && rc < 0; tries++)
        rc = tw_now(&o->f.wheel, now);
    return rc;
}

static void fo_start(fault_oracle *o, size_t i, uint64_t ticks)
{
    uint64_t before;
    if (fo_now(o, &before) < 0) {
        o->api_errors++;
        return;
    }
    int rc = tw_start(&o->f.wheel, &o->timers[i], ticks);
    if (rc < 0) {
        o->api_errors++; /* refused: the timer is as it was */
        CHECK_EQ(tw_pending(&o->timers[i]), o->pending[i]);
        return;
    }
    uint64_t d = o->timers[i].deadline;
    if (d < before + ticks)
        tw_test_fail(__FILE__, __LINE__, "timer %zu for %llu ticks at %llu: deadline %llu", i,
                     (unsigned long long)ticks, (unsigned long long)before, (unsigned long long)d);
    o->pending[i] = 1;
    o->deadline[i] = d;
}

static void fo_on_expiry(tw_timer *t, uint64_t now, void *arg)
{
    fault_oracle *o = the_fo;
    size_t i = (size_t)(uintptr_t)arg;
    (void)t;
    if (!o->pending[i] || now < o->deadline[i] || (o->exact && now != o->deadline[i]))
        tw_test_fail(__FILE__, __LINE__, "timer %zu fired at %llu: pending=%d deadline=%llu", i,
                     (unsigned long long)now, o->pending[i], (unsigned long long)o->deadline[i]);
    if (now > o->deadline[i] && now - o->deadline[i] > o->late_ticks_max)
        o->late_ticks_max = now - o->deadline[i];
    o->pending[i] = 0;
    o->fired++;
    if (tw_rng_below(&o->rng, 4) == 0) /* re-arm from the callback */
        fo_start(o, i, 1 + tw_rng_below(&o->rng, o->max_ticks));
}

static int fo_open(fault_oracle *o, const tw_backend *b, const tw_config *cfg, const tw_fault_plan *plan,
                   uint64_t seed)
{
    memset(o, 0, sizeof *o);
    the_fo = o;
    o->rng.s = seed;
    o->exact = cfg->source == TW_TIME_VIRTUAL;
    tw_dev inner;
    int rc = b->open(&inner, &b->cfg);
    if (rc == 0)
        rc = tw_faultdev_open(&o->f.dev, &inner, plan);
    tw_geometry g;
    if (rc == 0)
        rc = tw_probe(&o->f.dev, &g);
    if (rc == 0) {
        o->f.mem = malloc(tw_mem_size(&g));
        rc = o->f.mem ? tw_init(&o->f.wheel, &o->f.dev, o->f.mem, tw_mem_size(&g), cfg) : TW_ENOMEM;
    }
    for (size_t i = 0; i < NT; i++)
        tw_timer_init(&o->timers[i], fo_on_expiry, (void *)(uintptr_t)i);
    if (rc < 0)
        tw_test_fail(__FILE__, __LINE__, "open: %s", tw_strerror(rc));
    tw_faultdev_enable(&o->f.dev, 1);
    return rc;
}

/* Everything due by the chip's time has fired; the driver's count agrees. */
static void fo_check_end(fault_oracle *o)
{
    uint64_t now = 0;
    CHECK_OK(fo_now(o, &now));
    /* In real time the chip may just have reached a deadline: serve it. */
    for (int k = 0; k < 4; k++)
        CHECK(tw_service(&o->f.wheel, 1000) >= 0);
    size_t live = 0;
    for (size_t i = 0; i < NT; i++) {
        if (o->pending[i] && o->deadline[i] <= now)
            tw_test_fail(__FILE__, __LINE__, "timer %zu due at %llu lost (now %llu)", i,
                         (unsigned long long)o->deadline[i], (unsigned long long)now);
        CHECK_EQ(tw_pending(&o->timers[i]), o->pending[i]);
        live += (size_t)o->pending[i];
    }
    CHECK_EQ(tw_count_pending(&o->f.wheel), live);
}

static void fo_report(fault_oracle *o, const char *what, const tw_backend *b)
{
    const tw_fault_counts *c = tw_faultdev_counts(&o->f.dev);
    const tw_stats *s = &o->f.wheel.stats;
    printf("# faults/%s/%s: injected %llu dropped requests, %llu lost responses, %llu spurious events, "
           "%llu impossible events, %llu chip resets in %llu accesses; driver counted %llu bus errors, "
           "%llu bad events, %llu resyncs, %llu chip resets, %llu overflows, %llu late fires "
           "(latest by %llu ticks); %llu fired, %llu calls failed and were retried\n",
           b->name, what, (unsigned long long)c->dropped_requests, (unsigned long long)c->lost_responses,
           (unsigned long long)c->spurious_events, (unsigned long long)c->bad_events,
           (unsigned long long)c->resets, (unsigned long long)c->accesses,
           (unsigned long long)s->bus_errors, (unsigned long long)s->bad_events,
           (unsigned long long)s->resyncs, (unsigned long long)s->chip_resets,
           (unsigned long long)s->overflows, (unsigned long long)s->late_fires,
           (unsigned long long)o->late_ticks_max, (unsigned long long)o->fired,
           (unsigned long long)o->api_errors);
}

/* Every injected fault of a kind must have been seen by the driver. */
static void fo_check_counted(fault_oracle *o)
{
    const tw_fault_counts *c = tw_faultdev_counts(&o->f.dev);
    const tw_stats *s = &o->f.wheel.stats;
    CHECK(s->bus_errors >= c->dropped_requests + c->lost_responses);
    /* A reset while the driver is still rebuilding after another is, to the
     * driver, one loss of state: at least one noticed, none imagined. */
    CHECK(s->chip_resets > 0 && s->chip_resets <= c->resets);
    /* An impossible event whose EVT_TICK read failed, or that a rebuild
     * dropped as stale, is never judged; a reset chip adds some of its own. */
    CHECK(s->bad_events > 0);
    CHECK(c->dropped_requests > 0 && c->lost_responses > 0 && c->spurious_events > 0 &&
          c->bad_events > 0 && c->resets > 0);
}

static const tw_fault_plan bus_plan = {
    .drop_request_ppm = 1500, .lose_response_ppm = 1500, .spurious_ppm = 20000,
    .bad_event_ppm = 15000, .reset_every = 8000,
};

static uint64_t fault_seed;

/* Virtual time under every bus fault and resets: still exact. Failed calls
 * are retried as an application would (tw_advance(w, 0, ...) goes on). */
static void test_virtual_faults(const tw_backend *b)
{
    fault_oracle *o = malloc(sizeof *o);
    tw_config cfg = {.source = TW_TIME_VIRTUAL};
    tw_fault_plan plan = bus_plan;
    plan.seed = fault_seed;
    if (!o || fo_open(o, b, &cfg, &plan, fault_seed) < 0)
        goto out;
    tw_wheel *w = &o->f.wheel;
    unsigned reach = w->geo.levels * w->geo.slot_bits;
    o->max_ticks = UINT64_C(1) << (reach < 14 ? reach + 1 : 14);
    for (int op = 0; op < 4000 && !tw_test_failed; op++) {
        uint64_t r = tw_rng_below(&o->rng, 10);
        size_t i = tw_rng_below(&o->rng, NT);
        if (r < 4) {
            fo_start(o, i, tw_rng_below(&o->rng, o->max_ticks));
        } else if (r < 5) {
            CHECK_EQ(tw_stop(w, &o->timers[i]), o->pending[i]);
            o->pending[i] = 0;
        } else {
            int rc = tw_advance(w, 1 + tw_rng_below(&o->rng, 64), 1000);
            for (int tries = 0; rc < 0 && tries < 200; tries++) {
                o->api_errors++;
                rc = tw_advance(w, 0, 1000);
            }
            if (rc < 0)
                tw_test_fail(__FILE__, __LINE__, "tw_advance failed 200 times: %s (now %llu, issued %llu, target %llu)",
                             tw_strerror(rc), (unsigned long long)w->now, (unsigned long long)w->adv_issued,
                             (unsigned long long)w->adv_target);
            if (rc >= 0 && w->now == w->adv_target)
                for (size_t k = 0; k < NT; k++)
                    if (o->pending[k] && o->deadline[k] <= w->now)
                        tw_test_fail(__FILE__, __LINE__, "timer %zu due at %llu still pending at %llu", k,
                                     (unsigned long long)o->deadline[k], (unsigned long long)w->now);
        }
    }
    /* Clean bus: run every remaining deadline. */
    tw_faultdev_enable(&o->f.dev, 0);
    uint64_t last = w->adv_target;
    for (size_t k = 0; k < NT; k++)
        if (o->pending[k] && o->deadline[k] > last)
            last = o->deadline[k];
    CHECK_OK(tw_advance_to(w, last, 100000));
    fo_check_end(o);
    fo_check_counted(o);
    CHECK_EQ(w->stats.late_fires, 0);
    fo_report(o, "virtual_time", b);
out:
    if (o)
        tw_fixture_close(&o->f);
    free(o);
}

/* Serves the chip for `cycles` clock cycles, retrying failed services. */
static void serve(fault_oracle *o, uint64_t cycles)
{
    uint64_t end = tw_dev_cycles(&o->f.dev) + cycles;
    while (tw_dev_cycles(&o->f.dev) < end && !tw_test_failed) {
        uint64_t left = end - tw_dev_cycles(&o->f.dev);
        tw_dev_wait_irq(&o->f.dev, left < 5000 ? left : 5000);
        if (tw_service(&o->f.wheel, 64) < 0)
            o->api_errors++;
    }
}

/* Real time (the prescaler) under the same faults. A reset loses the ticks
 * the chip was down: timers due then fire late, never early, all counted. */
static void test_realtime_faults(const tw_backend *b)
{
    fault_oracle *o = malloc(sizeof *o);
    unsigned scale = b->time_scale ? b->time_scale : 1;
    tw_config cfg = {.source = TW_TIME_INTERNAL, .prescale = 64 * scale - 1};
    tw_fault_plan plan = bus_plan;
    plan.seed = fault_seed + 1;
    if (!o || fo_open(o, b, &cfg, &plan, fault_seed + 1) < 0)
        goto out;
    o->max_ticks = 300;
    for (int round = 0; round < 300 && !tw_test_failed; round++) {
        for (int k = 0; k < 3; k++)
            fo_start(o, tw_rng_below(&o->rng, NT), 1 + tw_rng_below(&o->rng, o->max_ticks));
        if (tw_rng_below(&o->rng, 8) == 0) {
            size_t i = tw_rng_below(&o->rng, NT);
            CHECK_EQ(tw_stop(&o->f.wheel, &o->timers[i]), o->pending[i]);
            o->pending[i] = 0;
        }
        serve(o, 64 * (uint64_t)scale * (1 + tw_rng_below(&o->rng, 20)));
    }
    tw_faultdev_enable(&o->f.dev, 0);
    o->max_ticks = 1; /* callbacks re-arm briefly from here */
    serve(o, 64 * (uint64_t)scale * (o->max_ticks + 400));
    fo_check_end(o);
    fo_check_counted(o);
    fo_report(o, "real_time", b);
out:
    if (o)
        tw_fixture_close(&o->f);
    free(o);
}

/* Overflow storms: a host that stalls again and again with its interrupt
 * masked while hundreds of timers come due, so the FIFO overflows many times.
 * Each time the driver rebuilds from its own lists: none lost or early; every
 * fire after its tick is counted. */
static void test_overflow_storm(const tw_backend *b)
{
    fault_oracle *o = malloc(sizeof *o);
    unsigned scale = b->time_scale ? b->time_scale : 1;
    tw_config cfg = {.source = TW_TIME_INTERNAL, .prescale = 32 * scale - 1};
    tw_fault_plan plan = {.seed = fault_seed + 2};
    if (!o || fo_open(o, b, &cfg, &plan, fault_seed + 2) < 0)
        goto out;
    uint32_t irq_on = o->f.wheel.ctrl, irq_off = irq_on & ~TW_CTRL_IRQ_EN_MASK;
    uint32_t chip_overflows = 0;
    o->max_ticks = 200;
    for (int storm = 0; storm < 12 && !tw_test_failed; storm++) {
        for (size_t i = 0; i < NT; i++)
            if (!o->pending[i])
                fo_start(o, i, 1 + tw_rng_below(&o->rng, o->max_ticks));
        /* The stall: no service while every timer comes due. */
        CHECK_OK(tw_dev_write(&o->f.dev, TW_REG_CTRL, irq_off));
        tw_dev_wait_irq(&o->f.dev, 32 * (uint64_t)scale * (o->max_ticks + 50));
        CHECK_OK(tw_dev_write(&o->f.dev, TW_REG_CTRL, irq_on));
        serve(o, 32 * (uint64_t)scale * 20);
    }
    serve(o, 32 * (uint64_t)scale * (o->max_ticks + 50));
    fo_check_end(o);
    CHECK_OK(tw_dev_read(&o->f.dev, TW_REG_CNT_OVERFLOW, &chip_overflows));
    CHECK(chip_overflows > 0);
    CHECK(o->f.wheel.stats.overflows >= 6);
    CHECK(o->f.wheel.stats.late_fires > 0);
    printf("# faults/%s/overflow_storm: chip dropped %u events in 12 stalls; driver recovered "
           "%llu overflows with %llu resyncs, %llu fired, %llu late fires (latest by %llu ticks)\n",
           b->name, (unsigned)chip_overflows, (unsigned long long)o->f.wheel.stats.overflows,
           (unsigned long long)o->f.wheel.stats.resyncs, (unsigned long long)o->fired,
           (unsigned long long)o->f.wheel.stats.late_fires, (unsigned long long)o->late_ticks_max);
out:
    if (o)
        tw_fixture_close(&o->f);
    free(o);
}

/* Drives the external tick input at `level` for at least `cycles` clocks,
 * serving interrupts meanwhile (bus cycles are clock cycles too). */
static void ext_hold(fault_oracle *o, int level, uint64_t cycles)
{
    o->f.dev.ops->set_ext_tick(o->f.dev.ctx, level);
    uint64_t end = tw_dev_cycles(&o->f.dev) + cycles;
    while (tw_dev_cycles(&o->f.dev) < end) {
        if (tw_dev_wait_irq(&o->f.dev, end - tw_dev_cycles(&o->f.dev)) > 0)
            CHECK(tw_service(&o->f.wheel, 64) >= 0);
    }
}

/* Glitches on the external tick input: one-clock pulses, bouncing edges and
 * pulses too short for any clock edge to see. The chip counts one tick per
 * rising edge its synchroniser samples, model and RTL alike; it cannot tell a
 * glitch from a tick, so the test checks it counts exactly those, and that
 * the driver, on the chip's time, loses none and fires none early. */
static void test_ext_tick_glitches(const tw_backend *b)
{
    fault_oracle *o = malloc(sizeof *o);
    tw_config cfg = {.source = TW_TIME_EXTERNAL};
    tw_fault_plan plan = {.seed = fault_seed + 3};
    uint64_t start = 0, end = 0, rises = 0, glitches = 0, bounces = 0, invisible = 0;
    if (!o || fo_open(o, b, &cfg, &plan, fault_seed + 3) < 0)
        goto out;
    unsigned scale = b->time_scale ? b->time_scale : 1;
    o->max_ticks = 100;
    ext_hold(o, 0, 4);
    CHECK_OK(fo_now(o, &start));
    for (size_t i = 0; i < NT / 2; i++)
        fo_start(o, i, 1 + tw_rng_below(&o->rng, o->max_ticks));
    for (int n = 0; n < 400 && !tw_test_failed; n++) {
        uint64_t kind = tw_rng_below(&o->rng, 4);
        if (kind == 0) { /* a clean pulse */
            ext_hold(o, 1, 2 + tw_rng_below(&o->rng, 8) * scale);
            rises++;
        } else if (kind == 1) { /* a glitch one clock wide */
            ext_hold(o, 1, 1);
            rises++;
            glitches++;
        } else if (kind == 2) { /* a bouncing edge: each bounce is seen */
            uint64_t k = 2 + tw_rng_below(&o->rng, 3);
            for (uint64_t j = 0; j < k; j++) {
                ext_hold(o, 1, 1 + tw_rng_below(&o->rng, 2));
                ext_hold(o, 0, 1 + tw_rng_below(&o->rng, 2));
            }
            ext_hold(o, 1, 3);
            rises += k + 1;
            bounces++;
        } else { /* high and low again between two clock edges: never sampled */
            o->f.dev.ops->set_ext_tick(o->f.dev.ctx, 1);
            o->f.dev.ops->set_ext_tick(o->f.dev.ctx, 0);
            invisible++;
        }
        ext_hold(o, 0, 1 + tw_rng_below(&o->rng, 6) * scale);
    }
    ext_hold(o, 0, 4); /* the synchroniser's last edge */
    CHECK_OK(fo_now(o, &end));
    CHECK_EQ(end - start, rises);
    fo_check_end(o);
    printf("# faults/%s/ext_tick_glitches: %llu rising edges driven (%llu one-clock glitches, %llu "
           "bounces) and %llu sub-clock pulses: chip counted %llu ticks; %llu fired, %llu late fires\n",
           b->name, (unsigned long long)rises, (unsigned long long)glitches, (unsigned long long)bounces,
           (unsigned long long)invisible, (unsigned long long)(end - start), (unsigned long long)o->fired,
           (unsigned long long)o->f.wheel.stats.late_fires);
out:
    if (o)
        tw_fixture_close(&o->f);
    free(o);
}

/* ------------------------------------------------ scripted device faults */

/* Faults a random plan does not make: a device that forwards to the backend
 * and rewrites chosen reads, or answers waits itself, as a test's script
 * says. The wheel lives over it. */
typedef struct script_dev {
    tw_dev inner;
    uint64_t accesses;
    /* After the backend's read: may change *v, or return an error. */
    int (*on_read)(struct script_dev *s, uint32_t addr, uint32_t *v);
    int irq_stuck; /* waits return the line high at once */
    int fail_evt_info; /* the next EVT_INFO read fails (TW_EIO) */
    int fail_writes;   /* the next writes fail (TW_EIO) without reaching the chip */
    uint32_t lose_write_addr; /* the next write there happens, but its answer is lost (TW_EIO) */
    /* A reset brings back another build (a C model of this geometry), or
     * with `restore` the backend's own again (NULL, 0: the same chip). */
    const tw_sim_config *reset_into;
    const tw_backend *restore;
    int armed;     /* a one-shot fault still to come */
    uint32_t last_addr;
    tw_wheel *wheel;
} script_dev;

static int sd_read(void *ctx, uint32_t addr, uint32_t *v)
{
    script_dev *s = ctx;
    s->accesses++;
    if (addr == TW_REG_EVT_INFO && s->fail_evt_info) {
        s->fail_evt_info = 0;
        return TW_EIO;
    }
    int rc = tw_dev_read(&s->inner, addr, v);
    if (rc == 0 && s->on_read)
        rc = s->on_read(s, addr, v);
    s->last_addr = addr;
    return rc;
}

static int sd_write(void *ctx, uint32_t addr, uint32_t v)
{
    script_dev *s = ctx;
    s->accesses++;
    s->last_addr = addr;
    if (s->fail_writes) {
        s->fail_writes--;
        return TW_EIO;
    }
    int rc = tw_dev_write(&s->inner, addr, v);
    if (rc == 0 && s->lose_write_addr && addr == s->lose_write_addr) {
        s->lose_write_addr = 0;
        return TW_EIO;
    }
    return rc;
}

static int sd_wait(void *ctx, uint64_t max_cycles)
{
    script_dev *s = ctx;
    return s->irq_stuck ? 1 : tw_dev_wait_irq(&s->inner, max_cycles);
}

static uint64_t sd_cycles(void *ctx)
{
    return tw_dev_cycles(&((script_dev *)ctx)->inner);
}

static void sd_reset(void *ctx)
{
    script_dev *s = ctx;
    if (s->reset_into || s->restore) {
        /* Another bitstream, fresh from reset. */
        tw_dev_close(&s->inner);
        int rc = s->restore ? s->restore->open(&s->inner, &s->restore->cfg) : tw_model_open(&s->inner, s->reset_into);
        if (rc < 0)
            abort();
        s->reset_into = NULL;
        s->restore = NULL;
    } else if (s->inner.ops->reset) {
        s->inner.ops->reset(s->inner.ctx);
    }
}

static void sd_close(void *ctx)
{
    tw_dev_close(&((script_dev *)ctx)->inner);
}

static const tw_dev_ops script_ops = {.name = "script", .read = sd_read, .write = sd_write, .wait_irq = sd_wait,
                                      .cycles = sd_cycles, .reset = sd_reset, .close = sd_close};

typedef struct script_run {
    script_dev sd;
    tw_dev dev;
    tw_wheel wheel;
    void *mem;
    tw_timer timers[48];
    uint64_t deadline[48], fired_at[48];
    int fired[48];
} script_run;

static void sr_expired(tw_timer *t, uint64_t now, void *arg)
{
    script_run *r = arg;
    size_t i = (size_t)(t - r->timers);
    r->fired[i]++;
    r->fired_at[i] = now;
}

/* The backend's chip under the script device; before tw_init, `before`
 * may drive the bare chip. */
static int sr_open(script_run *r, const tw_backend *b, const tw_config *cfg, void (*before)(tw_dev *chip))
{
    memset(r, 0, sizeof *r);
    int rc = b->open(&r->sd.inner, &b->cfg);
    if (rc < 0)
        return rc;
    r->dev.ops = &script_ops;
    r->dev.ctx = &r->sd;
    r->sd.wheel = &r->wheel;
    if (before)
        before(&r->sd.inner);
    tw_geometry g;
    rc = tw_probe(&r->dev, &g);
    if (rc == 0) {
        r->mem = malloc(tw_mem_size(&g));
        rc = r->mem ? tw_init(&r->wheel, &r->dev, r->mem, tw_mem_size(&g), cfg) : TW_ENOMEM;
    }
    for (size_t i = 0; i < 48; i++)
        tw_timer_init(&r->timers[i], sr_expired, r);
    return rc;
}

static void sr_close(script_run *r)
{
    tw_dev_close(&r->dev);
    free(r->mem);
}

/* A script run opened on the backend, or NULL (the failure checked). */
static script_run *sr_new(const tw_backend *b, const tw_config *cfg, void (*before)(tw_dev *chip))
{
    script_run *r = malloc(sizeof *r);
    if (r && sr_open(r, b, cfg, before) == 0)
        return r;
    CHECK(0);
    if (r)
        sr_close(r);
    free(r);
    return NULL;
}

static void sr_free(script_run *r)
{
    sr_close(r);
    free(r);
}

static void sr_start(script_run *r, size_t i, uint64_t ticks)
{
    CHECK_OK(tw_start(&r->wheel, &r->timers[i], ticks));
    r->deadline[i] = r->timers[i].deadline;
}

/* A FIFO that never empties: STATUS counts one event for ever and EVT_INFO
 * shows the same visit of the present tick. */
static int stuck_fifo(script_dev *s, uint32_t addr, uint32_t *v)
{
    uint64_t now = s->wheel->now;
    if (addr == TW_REG_STATUS)
        *v |= TW_PUT(TW_STATUS_FIFO_COUNT, 1);
    else if (addr == TW_REG_EVT_INFO)
        *v = TW_EVT_INFO_VALID_MASK | TW_PUT(TW_EVT_INFO_LEVEL, 0) |
             TW_PUT(TW_EVT_INFO_SLOT, now & s->wheel->slot_mask) | TW_PUT(TW_EVT_INFO_TICK_HI, (now >> 32) & 0xFFFFu);
    else if (addr == TW_REG_EVT_TICK)
        *v = (uint32_t)now;
    return 0;
}

/* A FIFO count the FIFO cannot hold, in every STATUS reading. */
static int impossible_count(script_dev *s, uint32_t addr, uint32_t *v)
{
    (void)s;
    if (addr == TW_REG_STATUS)
        *v |= TW_STATUS_FIFO_COUNT_MASK;
    return 0;
}

/* A chip that stopped with its interrupt line stuck high: STATUS says it is
 * still advancing, with nothing in the FIFO, for ever. */
static int frozen_advancing(script_dev *s, uint32_t addr, uint32_t *v)
{
    (void)s;
    if (addr == TW_REG_STATUS)
        *v = TW_STATUS_ADVANCING_MASK;
    return 0;
}

/* Virtual time: a device that repeats itself (the same event for ever, an
 * interrupt with nothing behind it, an impossible FIFO count in every
 * STATUS) makes tw_advance fail, in a bounded number of accesses (the first
 * two looped for ever), and the wheel goes on exactly once the device
 * behaves. */
static void test_stuck_device(const tw_backend *b)
{
    tw_config cfg = {.source = TW_TIME_VIRTUAL};
    script_run *r = sr_new(b, &cfg, NULL);
    if (!r)
        return;
    sr_start(r, 0, 100);
    sr_start(r, 1, 700);
    CHECK_OK(tw_advance(&r->wheel, 50, 100));
    static const struct {
        int (*on_read)(script_dev *, uint32_t, uint32_t *);
        int irq_stuck, expect;
    } faults[] = {{stuck_fifo, 0, TW_EDEVICE}, {frozen_advancing, 1, TW_ETIMEDOUT}, {impossible_count, 0, TW_EDEVICE}};
    for (size_t k = 0; k < 3; k++) {
        r->sd.on_read = faults[k].on_read;
        r->sd.irq_stuck = faults[k].irq_stuck;
        uint64_t before = r->sd.accesses;
        CHECK_EQ(tw_advance(&r->wheel, 10, 100), faults[k].expect);
        uint64_t used = r->sd.accesses - before;
        if (used > 20000)
            tw_test_fail(__FILE__, __LINE__, "fault %zu: %llu accesses before the call gave up", k,
                         (unsigned long long)used);
        r->sd.on_read = NULL;
        r->sd.irq_stuck = 0;
        printf("# faults/%s/stuck_device: %s after %llu accesses\n", b->name,
               tw_strerror(faults[k].expect), (unsigned long long)used);
    }
    for (int n = 0; n < 100 && r->wheel.now < 1000; n++)
        CHECK(tw_advance_to(&r->wheel, 1000, 100) >= 0);
    CHECK_EQ(r->wheel.now, 1000);
    CHECK_EQ(r->fired[0], 1);
    CHECK_EQ(r->fired[1], 1);
    CHECK_EQ(r->fired_at[0], 100);
    CHECK_EQ(r->fired_at[1], 700);
    sr_free(r);
}

/* One NOW_HI read out of range, once events have come. */
static int bad_now_hi_after_pop(script_dev *s, uint32_t addr, uint32_t *v)
{
    if (addr == TW_REG_NOW_HI && s->last_addr == TW_REG_NOW_LO && s->armed && s->wheel->stats.events > 0) {
        s->armed = 0;
        *v = 0x10000u;
    }
    return 0;
}

/* One NOW_LO read 100 ticks low, behind the driver's time: the chip looks
 * reset, but its CTRL is intact and its counter is ahead of the driver. */
static int low_now_lo(script_dev *s, uint32_t addr, uint32_t *v)
{
    if (addr == TW_REG_NOW_LO && s->armed && *v > 400) {
        s->armed = 0;
        *v -= 100;
    }
    return 0;
}

/* Real time: one impossible or low reading of the chip's time costs one
 * failed call at most. An impossible NOW_HI is counted as a bad value and
 * the wheel swept again (without the sweep, an event popped just before it
 * was lost: its timers waited a revolution of their level); a low NOW_LO
 * rebuilds the chip in a few dozen accesses (it ran the counter round 2^48
 * ticks: 327,717 accesses in one call). No timer early, late or twice. */
static void test_bad_time_reading(const tw_backend *b)
{
    unsigned scale = b->time_scale ? b->time_scale : 1;
    tw_config cfg = {.source = TW_TIME_INTERNAL, .prescale = 16 * scale - 1};
    int (*const scripts[])(script_dev *, uint32_t, uint32_t *) = {bad_now_hi_after_pop, low_now_lo};
    for (size_t k = 0; k < 2; k++) {
        script_run *r = sr_new(b, &cfg, NULL);
        if (!r)
            return;
        uint64_t now = 0, most = 0;
        CHECK_OK(tw_now(&r->wheel, &now));
        sr_start(r, 0, 300); /* level 1: its first visit moves it to level 0 */
        sr_start(r, 1, 1200);
        r->sd.on_read = scripts[k];
        r->sd.armed = 1;
        int errors = 0;
        for (int n = 0; n < 400 && !(r->fired[0] && r->fired[1]); n++) {
            tw_dev_wait_irq(&r->dev, 16 * (uint64_t)scale * 8);
            uint64_t before = r->sd.accesses;
            int rc = tw_service(&r->wheel, 100);
            errors += rc < 0;
            if (r->sd.accesses - before > most)
                most = r->sd.accesses - before;
        }
        CHECK(!r->sd.armed); /* the fault happened */
        CHECK_EQ(r->wheel.stats.bad_events + r->wheel.stats.chip_resets, 1); /* and was seen */
        CHECK(errors <= 1);
        for (size_t i = 0; i < 2; i++) {
            CHECK_EQ(r->fired[i], 1);
            CHECK(r->fired_at[i] >= r->deadline[i]);
            if (r->fired_at[i] > r->deadline[i] + 200)
                tw_test_fail(__FILE__, __LINE__, "script %zu: timer %zu due at %llu fired at %llu", k, i,
                             (unsigned long long)r->deadline[i], (unsigned long long)r->fired_at[i]);
        }
        if (most > 2000)
            tw_test_fail(__FILE__, __LINE__, "script %zu: a service call made %llu accesses", k,
                         (unsigned long long)most);
        printf("# faults/%s/bad_time_reading: script %zu: %d failed calls, at most %llu accesses a call, "
               "latest fire %llu ticks after its deadline\n",
               b->name, k, errors, (unsigned long long)most,
               (unsigned long long)(r->fired_at[0] - r->deadline[0] > r->fired_at[1] - r->deadline[1]
                                        ? r->fired_at[0] - r->deadline[0]
                                        : r->fired_at[1] - r->deadline[1]));
        sr_free(r);
    }
}

/* Virtual time: one EVT_INFO read fails while the chip holds on a tick with
 * an event, so the call fails with the driver behind the chip; the caller
 * then starts 40 short timers, whose visits the chip has passed: each is
 * reported at once, and the FIFO of 16 overflows. The driver must see the
 * overflow and lose none of them (the dropped visits' timers waited until
 * tick 65,792). */
static void test_virtual_overflow(const tw_backend *b)
{
    tw_config cfg = {.source = TW_TIME_VIRTUAL};
    script_run *r = sr_new(b, &cfg, NULL);
    if (!r)
        return;
    sr_start(r, 0, 1000);
    r->sd.fail_evt_info = 1;
    CHECK_EQ(tw_advance(&r->wheel, 2000, 1000), TW_EIO);
    for (size_t i = 1; i <= 40; i++)
        sr_start(r, i, 7 * i);
    for (int n = 0; n < 100 && r->wheel.now < 2000; n++)
        CHECK(tw_advance_to(&r->wheel, 2000, 1000) >= 0);
    CHECK_EQ(r->wheel.now, 2000);
    CHECK(r->wheel.stats.overflows >= 1);
    int late = 0;
    for (size_t i = 0; i <= 40; i++) {
        CHECK_EQ(r->fired[i], 1);
        CHECK(r->fired_at[i] >= r->deadline[i]);
        late += r->fired_at[i] > r->deadline[i];
    }
    CHECK_EQ(r->wheel.stats.late_fires, (uint64_t)late);
    printf("# faults/%s/virtual_overflow: %llu overflows seen, 41 timers fired once, %d late (started behind "
           "the chip)\n", b->name, (unsigned long long)r->wheel.stats.overflows, late);
    sr_free(r);
}

/* A chip that comes back from a reset as another build (2 levels instead of
 * the wheel's): refused, every timer kept, time held; once the same build is
 * back, everything fires on its tick. */
static void test_reset_into_other_build(const tw_backend *b)
{
    static const tw_sim_config other = {.levels = 2, .slot_bits = 8, .fifo_log2 = 4};
    static const tw_sim_config other1 = {.levels = 1, .slot_bits = 8, .fifo_log2 = 4};
    tw_config cfg = {.source = TW_TIME_VIRTUAL};
    script_run *r = sr_new(b, &cfg, NULL);
    if (!r)
        return;
    sr_start(r, 0, 100);
    sr_start(r, 1, 3000);
    sr_start(r, 2, 200000);
    CHECK_OK(tw_advance(&r->wheel, 50, 100));
    r->sd.reset_into = b->cfg.levels == 2 ? &other1 : &other;
    r->dev.ops->reset(r->dev.ctx);
    for (int n = 0; n < 3; n++)
        CHECK_EQ(tw_advance_to(&r->wheel, 300000, 100), TW_ENODEV);
    CHECK_EQ(r->wheel.now, 50);
    CHECK_EQ(tw_count_pending(&r->wheel), 3);
    r->sd.restore = b; /* the right bitstream again */
    r->dev.ops->reset(r->dev.ctx);
    for (int n = 0; n < 100 && r->wheel.now < 300000; n++)
        CHECK(tw_advance_to(&r->wheel, 300000, 100) >= 0);
    CHECK_EQ(r->wheel.now, 300000);
    for (size_t i = 0; i < 3; i++) {
        CHECK_EQ(r->fired[i], 1);
        CHECK_EQ(r->fired_at[i], r->deadline[i]);
    }
    sr_free(r);
}

/* The bare chip's time taken past 2^47 (34 days at 48 MHz), in virtual
 * time over an empty bitmap. */
static void run_chip_past_2_47(tw_dev *chip)
{
    uint64_t target = (UINT64_C(1) << 47) + 12345, t = 0;
    for (int n = 0; n < 40000 && t < target; n++) {
        uint64_t left = target - t;
        uint32_t st = 0, lo = 0, hi = 0;
        tw_dev_write(chip, TW_REG_ADVANCE, left > 0xFFFF0000u ? 0xFFFF0000u : (uint32_t)left);
        do
            tw_dev_wait_irq(chip, 64);
        while (tw_dev_read(chip, TW_REG_STATUS, &st) == 0 && (st & TW_STATUS_ADVANCING_MASK));
        tw_dev_read(chip, TW_REG_NOW_LO, &lo);
        tw_dev_read(chip, TW_REG_NOW_HI, &hi);
        t = (uint64_t)hi << 32 | lo;
    }
}

/* Real time, the chip's counter past 2^47: a reset (NOW reads 0 again) must
 * not read as the counter wrapping forward, which fired every timer at once,
 * up to their whole interval early. */
static void test_reset_past_2_47(const tw_backend *b)
{
    tw_config cfg = {.source = TW_TIME_INTERNAL, .prescale = 63};
    script_run *r = sr_new(b, &cfg, run_chip_past_2_47);
    if (!r)
        return;
    uint64_t start = 0;
    CHECK_OK(tw_now(&r->wheel, &start));
    CHECK(start > UINT64_C(1) << 47);
    for (size_t i = 0; i < 4; i++)
        sr_start(r, i, 1000 + 3000 * (uint64_t)i);
    for (int k = 0; k < 4; k++) {
        tw_dev_wait_irq(&r->dev, 64 * 50);
        CHECK(tw_service(&r->wheel, 64) >= 0);
    }
    uint64_t cycles = tw_dev_cycles(&r->dev);
    r->dev.ops->reset(r->dev.ctx); /* behind the driver's back */
    CHECK(tw_service(&r->wheel, 64) >= 0);
    /* Ticks since the start, by the chip's clock: prescale + 1 cycles each. */
    for (size_t i = 0; i < 4; i++)
        if (r->fired[i] && start + (tw_dev_cycles(&r->dev) - cycles) / 64 + 200 < r->deadline[i])
            tw_test_fail(__FILE__, __LINE__, "timer %zu due at %llu fired right after the reset", i,
                         (unsigned long long)r->deadline[i]);
    CHECK(r->wheel.now < UINT64_C(1) << 48);
    CHECK_EQ(r->wheel.stats.chip_resets, 1);
    sr_free(r);
}

/* visit_batch: a sweep while a slot's visit is spread over calls (an arm
 * that failed sets need_resync; tw_ticks_until_next sweeps before it looks
 * at the visit) must finish that visit first: every timer of the crowded
 * slot still fires once, on its tick. */
static void test_resync_mid_visit(const tw_backend *b)
{
    tw_config cfg = {.source = TW_TIME_VIRTUAL, .visit_batch = 4};
    script_run *r = sr_new(b, &cfg, NULL);
    if (!r)
        return;
    tw_wheel *w = &r->wheel;
    uint64_t edge = w->geo.levels > 1 ? UINT64_C(1) << w->geo.slot_bits : 8;
    for (size_t i = 0; i < 24; i++)
        sr_start(r, i, i % 2 ? edge + 1 : edge);
    CHECK(tw_advance(w, edge + 10, 1000) >= 0);
    CHECK_EQ(tw_work_pending(w), 1); /* the visit is half done */
    uint64_t errors = w->stats.bus_errors;
    r->sd.fail_writes = 1;
    sr_start(r, 30, 5 * edge + 3); /* its arm fails */
    CHECK_EQ(w->stats.bus_errors, errors + 1);
    uint64_t ticks = 99;
    CHECK_OK(tw_ticks_until_next(w, 1000, &ticks));
    for (int n = 0; n < 1000 && (tw_work_pending(w) || w->now < 7 * edge); n++)
        if (tw_advance_to(w, 7 * edge, 1000) < 0)
            break;
    for (size_t i = 0; i < 24; i++) {
        CHECK_EQ(r->fired[i], 1);
        CHECK_EQ(r->fired_at[i], r->deadline[i]);
    }
    CHECK_EQ(r->fired[30], 1);
    CHECK_EQ(r->fired_at[30], r->deadline[30]);
    CHECK_EQ(tw_count_pending(w), 0);
    sr_free(r);
}

/* Virtual time past 2^32: a chip reset clears ARM_HI, so the rebuild must
 * write it again before its arms (else each SET names a tick 2^32 early
 * and is reported at once as late). */
static void test_rebuild_past_2_32(const tw_backend *b)
{
    tw_config cfg = {.source = TW_TIME_VIRTUAL};
    script_run *r = sr_new(b, &cfg, NULL);
    if (!r)
        return;
    tw_wheel *w = &r->wheel;
    uint64_t base = (UINT64_C(1) << 32) + 1000;
    CHECK(tw_advance_to(w, base, 10) >= 0);
    sr_start(r, 0, 5000); /* its arm writes ARM_HI = 1 */
    sr_start(r, 1, 3);
    r->dev.ops->reset(r->dev.ctx); /* behind the driver's back */
    for (int n = 0; n < 100 && w->now < base + 6000; n++)
        if (tw_advance_to(w, base + 6000, 1000) < 0 && n > 10)
            break;
    CHECK_EQ(w->now, base + 6000);
    CHECK_EQ(w->stats.chip_resets, 1);
    for (size_t i = 0; i < 2; i++) {
        CHECK_EQ(r->fired[i], 1);
        CHECK_EQ(r->fired_at[i], r->deadline[i]);
    }
    CHECK_EQ(w->stats.late_events, 0);
    uint32_t hi = 0;
    CHECK_OK(tw_dev_read(&r->sd.inner, TW_REG_ARM_HI, &hi));
    CHECK_EQ(hi, 1);
    sr_free(r);
}

/* EVT_INFO rewritten once to show a visit of timer 0's slot at tick 150. */
static int future_visit(script_dev *s, uint32_t addr, uint32_t *v)
{
    const tw_wheel *w = s->wheel;
    if (addr == TW_REG_EVT_INFO && s->armed == 1) {
        script_run *r = (script_run *)s;
        size_t idx = (r->timers[0].where & 0xFFFFu) - 2;
        *v = TW_EVT_INFO_VALID_MASK | TW_PUT(TW_EVT_INFO_LEVEL, idx >> w->geo.slot_bits) |
             TW_PUT(TW_EVT_INFO_SLOT, idx & w->slot_mask);
        s->armed = 2;
    } else if (addr == TW_REG_EVT_TICK && s->armed == 2) {
        *v = 150;
        s->armed = 0;
    }
    return 0;
}

/* Virtual time: an ADVANCE whose answer was lost, then found done, leaves
 * nothing unsure: an event after it from beyond the chip's time (tick 150,
 * the chip at 100) is refused, not taken as time moving on. */
static void test_future_event_after_lost_advance(const tw_backend *b)
{
    tw_config cfg = {.source = TW_TIME_VIRTUAL};
    script_run *r = sr_new(b, &cfg, NULL);
    if (!r)
        return;
    tw_wheel *w = &r->wheel;
    sr_start(r, 0, 150);
    r->sd.lose_write_addr = TW_REG_ADVANCE;
    CHECK_EQ(tw_advance(w, 100, 10), TW_EIO); /* it happened; its answer was lost */
    CHECK(tw_advance(w, 0, 10) >= 0);         /* found done: the chip is at 100 */
    CHECK_EQ(w->now, 100);
    r->sd.on_read = future_visit;
    r->sd.armed = 1;
    CHECK(tw_service(w, 10) >= 0);
    CHECK_EQ(r->sd.armed, 0);
    CHECK_EQ(r->fired[0], 0); /* not before the chip reaches its tick */
    CHECK_EQ(w->stats.bad_events, 1);
    r->sd.on_read = NULL;
    for (int n = 0; n < 100 && w->now < 200; n++)
        if (tw_advance_to(w, 200, 10) < 0)
            break;
    CHECK_EQ(r->fired[0], 1);
    CHECK_EQ(r->fired_at[0], 150);
    sr_free(r);
}

/* Virtual time: a chip found past the time it was asked for (run on behind
 * the driver's back, its CTRL intact) is broken, not believed: refused with
 * TW_EDEVICE, and no timer fires for ticks the caller never asked for. */
static void test_virtual_chip_ahead(const tw_backend *b)
{
    tw_config cfg = {.source = TW_TIME_VIRTUAL};
    script_run *r = sr_new(b, &cfg, NULL);
    if (!r)
        return;
    tw_wheel *w = &r->wheel;
    sr_start(r, 0, 300);
    CHECK_OK(tw_test_chip_advance(&r->sd.inner, 500));
    int rc = 0;
    for (int n = 0; n < 5 && rc >= 0; n++)
        rc = tw_advance(w, 10, 10);
    CHECK_EQ(rc, TW_EDEVICE);
    CHECK_EQ(r->fired[0], 0);
    CHECK(w->now <= 50);
    sr_free(r);
}

/* NEXT read as a tick well past the horizon the driver gave (the cap). */
enum { HORIZON_CAP = 5000 };
static int next_past_horizon(script_dev *s, uint32_t addr, uint32_t *v)
{
    uint64_t next = s->wheel->now + HORIZON_CAP + 1000;
    if (addr == TW_REG_NEXT_LO)
        *v = (uint32_t)next;
    else if (addr == TW_REG_NEXT_HI)
        *v = (uint32_t)(next >> 32);
    return 0;
}

/* A chip answering NEXT past the horizon it was given: tw_ticks_until_next
 * still returns at most the cap, so a caller never sleeps longer than it
 * asked (waking early costs one look; sleeping late could miss a deadline
 * the chip got wrong). */
static void test_next_past_horizon(const tw_backend *b)
{
    tw_config cfg = {.source = TW_TIME_VIRTUAL};
    script_run *r = sr_new(b, &cfg, NULL);
    if (!r)
        return;
    tw_wheel *w = &r->wheel;
    sr_start(r, 0, 100000);
    CHECK(tw_advance(w, 50, 10) >= 0);
    r->sd.on_read = next_past_horizon;
    uint64_t ticks = 0;
    CHECK_OK(tw_ticks_until_next(w, HORIZON_CAP, &ticks));
    CHECK_EQ(ticks, HORIZON_CAP);
    r->sd.on_read = NULL;
    sr_free(r);
}

int tw_faults_suite(const tw_backend *b, uint64_t seed)
{
    static const struct {
        const char *name;
        void (*fn)(const tw_backend *);
    } tests[] = {
        {"virtual_time_bus_faults_resets", test_virtual_faults},
        {"real_time_bus_faults_resets", test_realtime_faults},
        {"overflow_storm", test_overflow_storm},
        {"ext_tick_glitches", test_ext_tick_glitches},
        {"stuck_device", test_stuck_device},
        {"bad_time_reading", test_bad_time_reading},
        {"reset_past_2_47", test_reset_past_2_47},
        {"virtual_overflow", test_virtual_overflow},
        {"reset_into_other_build", test_reset_into_other_build},
        {"resync_mid_visit", test_resync_mid_visit},
        {"rebuild_past_2_32", test_rebuild_past_2_32},
        {"future_event_after_lost_advance", test_future_event_after_lost_advance},
        {"virtual_chip_ahead", test_virtual_chip_ahead},
        {"next_past_horizon", test_next_past_horizon},
    };
    int failed = 0;
    printf("# faults/%s: seed=%llu\n", b->name, (unsigned long long)seed);
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        fault_seed = seed + 10 * i;
        failed += !tw_test_run("faults", tests[i].name, tests[i].fn, b);
    }
    return failed;
}
