/* tickwheel's driver as an engine: host/tickwheel.c on the C model of the
 * chip (4 levels x 2^8 slots, FIFO of 16), in virtual time. The chip keeps
 * the busy bits and steps the wheel; the driver keeps the timers.
 *
 * The engine interface has no error path: a driver call that fails here
 * means a broken driver or model, so it is reported and the process aborts.
 */
#include <stdio.h>
#include <stdlib.h>

#include "engine.h"
#include "tickwheel.h"

/* Bounded service, as a latency-minded event loop configures it: a call
 * runs at most SERVICE_BUDGET callbacks and moves at most VISIT_BATCH timers
 * out of visited slots, so no call does more than a few hundred timers'
 * work (docs/performance.md, the worst service call of W1). */
#define SERVICE_BUDGET 32u
#define VISIT_BATCH 128u

struct engine {
    engine_cb cb;
    void *ctx;
    tw_dev dev;
    tw_wheel wheel;
    void *mem;
    size_t mem_size;
    tw_timer *timers;
    uint32_t ntimers;
};

static void check(int rc, const char *what)
{
    if (rc < 0) {
        fprintf(stderr, "eng_tickwheel: %s: %s\n", what, tw_strerror(rc));
        abort();
    }
}

static void expired(tw_timer *t, uint64_t now, void *arg)
{
    engine *e = arg;
    e->cb(e->ctx, (uint32_t)(t - e->timers), now);
}

static void twe_destroy(engine *e)
{
    if (!e)
        return;
    if (e->dev.ops)
        tw_dev_close(&e->dev);
    free(e->mem);
    free(e->timers);
    free(e);
}

static engine *twe_create(uint32_t max_timers, engine_cb cb, void *ctx)
{
    tw_sim_config chip = {.levels = 4, .slot_bits = 8, .fifo_log2 = 4, .trace = NULL};
    tw_config cfg = {.source = TW_TIME_VIRTUAL, .visit_batch = VISIT_BATCH};
    tw_geometry geo;
    engine *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->cb = cb;
    e->ctx = ctx;
    e->ntimers = max_timers;
    e->timers = calloc(max_timers ? max_timers : 1, sizeof *e->timers);
    if (!e->timers || tw_model_open(&e->dev, &chip) < 0 || tw_probe(&e->dev, &geo) < 0)
        goto fail;
    e->mem_size = tw_mem_size(&geo);
    e->mem = malloc(e->mem_size);
    if (!e->mem || tw_init(&e->wheel, &e->dev, e->mem, e->mem_size, &cfg) < 0)
        goto fail;
    for (uint32_t i = 0; i < max_timers; i++)
        check(tw_timer_init(&e->timers[i], expired, e), "tw_timer_init");
    return e;
fail:
    twe_destroy(e);
    return NULL;
}

static void twe_start(engine *e, uint32_t timer, uint64_t ticks)
{
    check(tw_start(&e->wheel, &e->timers[timer], ticks), "tw_start");
}

static uint64_t twe_start_range(engine *e, uint32_t timer, uint64_t lo, uint64_t hi)
{
    check(tw_start_range(&e->wheel, &e->timers[timer], lo, hi), "tw_start_range");
    return e->timers[timer].deadline;
}

static int twe_stop(engine *e, uint32_t timer)
{
    int rc = tw_stop(&e->wheel, &e->timers[timer]);
    check(rc, "tw_stop");
    return rc;
}

static int twe_advance_step(engine *e, uint64_t ticks)
{
    check(tw_advance(&e->wheel, ticks, SERVICE_BUDGET), "tw_advance");
    return tw_work_pending(&e->wheel);
}

static void twe_advance(engine *e, uint64_t ticks)
{
    while (twe_advance_step(e, ticks))
        ticks = 0;
}

static uint64_t twe_ticks_until_next(engine *e, uint64_t cap)
{
    uint64_t n;
    check(tw_ticks_until_next(&e->wheel, cap, &n), "tw_ticks_until_next");
    return n;
}

static uint64_t twe_now(const engine *e)
{
    /* Virtual time: the driver's time is the chip's, no bus read needed.
     * tw_now takes a non-const wheel because real time reads the chip. */
    uint64_t now;
    check(tw_now((tw_wheel *)&e->wheel, &now), "tw_now");
    return now;
}

static size_t twe_memory(const engine *e)
{
    return sizeof *e + e->mem_size + (size_t)e->ntimers * sizeof *e->timers;
}

static void twe_dev_stats(const engine *e, engine_dev_stats *s)
{
    s->reads = e->dev.reads;
    s->writes = e->dev.writes;
    s->irqs = e->dev.irqs;
    s->events = e->wheel.stats.events;
    s->cycles = tw_dev_cycles((tw_dev *)&e->dev);
}

const engine_ops eng_tickwheel_ops = {
    .name = "tickwheel",
    .create = twe_create,
    .destroy = twe_destroy,
    .start = twe_start,
    .start_range = twe_start_range,
    .stop = twe_stop,
    .advance = twe_advance,
    .advance_step = twe_advance_step,
    .ticks_until_next = twe_ticks_until_next,
    .now = twe_now,
    .memory = twe_memory,
    .dev_stats = twe_dev_stats,
};
