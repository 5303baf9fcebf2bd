/* libFuzzer target: the driver API on the C model, in virtual time.
 *
 * The input is a program: a header picks the geometry and the mode (exact or
 * coarse, the last epoch, slot visits spread over calls), then each
 * byte group is one call (start, stop, range start, advance, service, ticks
 * until next, pending); callbacks read further bytes to decide what they do
 * from inside service (restart themselves, start, stop or range-start others,
 * try to re-enter service). An oracle beside the driver checks the guarantees:
 * no timer fires before its deadline, and in exact mode it fires on it; none
 * fires twice, after a stop, or is lost (at the end every deadline within
 * reach is run to and must have fired); range starts land inside the range;
 * coarse slack stays within its bound; tw_pending, tw_stop's result and
 * tw_count_pending agree with the oracle; ticks_until_next never oversleeps.
 * One call is misuse: tw_timer_init on a timer that may be queued. After
 * it, the oracle only holds the driver to what docs/driver.md promises
 * then: no crash (ASan, UBSan), no call that never ends, no timer fired off
 * its own deadline nor while stopped or initialised since its start, every
 * start and stop a success, every other call's a success or TW_ECORRUPT,
 * and, with every timer stopped and the wheel visited, none counted.
 * A violation aborts with a message (libFuzzer saves the input).
 *
 *   make fuzz                          builds build/fuzz/fuzz-api and fuzz-device
 *   build/fuzz/fuzz-api tests/fuzz/corpus/api -max_total_time=600
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "tickwheel.h"

enum { NTIMERS = 16 };

typedef struct oracle {
    fuzz_input in;
    tw_wheel w;
    tw_dev dev;
    tw_timer timers[NTIMERS];
    int pending[NTIMERS];
    uint64_t deadline[NTIMERS];
    unsigned coarse_shift;
    int depth;   /* callbacks nested inside service/advance */
    int misused; /* a queued timer was initialised again: see the header */
    int idle[NTIMERS]; /* after misuse: stopped or initialised, not started since */
} oracle;

static oracle *the;

#define FAIL(...) fuzz_fail("fuzz-api: " __VA_ARGS__)

/* The FIFO holds at least 4 entries: the chip keeps room for the entries in
 * flight (docs/chip.md). */
static const tw_sim_config geometries[] = {
    {1, 4, 2, NULL}, {2, 4, 2, NULL}, {3, 3, 2, NULL}, {4, 2, 2, NULL},
    {1, 6, 2, NULL}, {2, 5, 3, NULL}, {4, 3, 2, NULL}, {2, 2, 2, NULL},
};

static uint64_t now_of(oracle *o)
{
    uint64_t now = 0;
    if (tw_now(&o->w, &now) < 0)
        FAIL("tw_now failed on the C model");
    return now;
}

/* Intervals: mostly short, some around level boundaries, a few huge. */
static uint64_t interval(oracle *o)
{
    unsigned kind = fuzz_u8(&o->in);
    switch (kind & 7) {
    case 0: return 0;
    case 1: case 2: case 3: return fuzz_u8(&o->in);
    case 4: case 5: return fuzz_u16(&o->in);
    case 6: return fuzz_u32(&o->in) >> (kind >> 3); /* up to 2^32 */
    default: return UINT64_MAX - fuzz_u8(&o->in); /* the end of time: ERANGE or parked */
    }
}

/* After misuse the oracle takes the timer's state from the driver. A start
 * or stop still succeeds: a stale entry beside the timer is mended, not
 * reported (only a past-the-end interval is refused). */
static int misuse_result(oracle *o, size_t i, int rc, const char *call)
{
    if (rc >= 0)
        o->idle[i] = !strcmp(call, "tw_stop");
    if (!o->misused)
        return 0;
    if (rc < 0 && rc != TW_ERANGE)
        FAIL("%s after misuse: %s", call, tw_strerror(rc));
    int p = tw_pending(&o->timers[i]);
    if (p >= 0) {
        o->pending[i] = p;
        o->deadline[i] = o->timers[i].deadline;
    }
    return 1;
}

static void check_start(oracle *o, size_t i, uint64_t now, uint64_t ticks, int rc)
{
    if (misuse_result(o, i, rc, "tw_start"))
        return;
    if (ticks > UINT64_MAX - now) {
        if (rc != TW_ERANGE)
            FAIL("start of %llu ticks at %llu past the end of time: rc %d",
                 (unsigned long long)ticks, (unsigned long long)now, rc);
        return; /* the timer keeps its old state */
    }
    if (rc < 0)
        FAIL("tw_start: %s", tw_strerror(rc));
    uint64_t wanted = now + ticks, d = o->timers[i].deadline;
    uint64_t slack = o->coarse_shift ? ticks / ((UINT64_C(1) << o->coarse_shift) - 1) : 0;
    /* A lazy re-arm (exact mode) keeps the timer where it is with the new deadline. */
    if (d < wanted || d - wanted > slack)
        FAIL("timer %zu started for %llu at %llu got deadline %llu", i, (unsigned long long)ticks,
             (unsigned long long)now, (unsigned long long)d);
    o->pending[i] = 1;
    o->deadline[i] = d;
}

static void do_start(oracle *o, size_t i)
{
    uint64_t ticks = interval(o), now = now_of(o);
    check_start(o, i, now, ticks, tw_start(&o->w, &o->timers[i], ticks));
}

static void do_range(oracle *o, size_t i)
{
    uint64_t a = interval(o), span = interval(o), now = now_of(o);
    uint64_t b = span > UINT64_MAX - a ? UINT64_MAX : a + span;
    int was_inside = o->pending[i] && b <= UINT64_MAX - now && o->deadline[i] >= now + a &&
                     o->deadline[i] <= now + b;
    uint64_t before = o->timers[i].deadline;
    int rc = tw_start_range(&o->w, &o->timers[i], a, b);
    if (misuse_result(o, i, rc, "tw_start_range"))
        return;
    if (b > UINT64_MAX - now) {
        if (rc != TW_ERANGE)
            FAIL("range past the end of time: rc %d", rc);
        return;
    }
    if (rc < 0)
        FAIL("tw_start_range: %s", tw_strerror(rc));
    uint64_t d = o->timers[i].deadline;
    if (d < now + a || d > now + b || (was_inside && d != before))
        FAIL("timer %zu range [%llu, %llu] at %llu: deadline %llu", i, (unsigned long long)a,
             (unsigned long long)b, (unsigned long long)now, (unsigned long long)d);
    o->pending[i] = 1;
    o->deadline[i] = d;
}

static void do_stop(oracle *o, size_t i)
{
    int rc = tw_stop(&o->w, &o->timers[i]);
    if (misuse_result(o, i, rc, "tw_stop"))
        return;
    if (rc != o->pending[i])
        FAIL("tw_stop(timer %zu) = %d, oracle pending %d", i, rc, o->pending[i]);
    o->pending[i] = 0;
}

/* tw_timer_init on timer i, queued or not; now and then only (one input
 * byte in 256 asks), so that most inputs keep the whole oracle. */
static void misuse(oracle *o, size_t i)
{
    if (fuzz_u8(&o->in) != 0xA5)
        return;
    o->misused |= o->pending[i];
    tw_timer_init(&o->timers[i], o->timers[i].callback, o->timers[i].arg);
    o->pending[i] = 0;
    o->idle[i] = 1;
}

static void on_expiry(tw_timer *t, uint64_t now, void *arg)
{
    oracle *o = the;
    size_t i = (size_t)(uintptr_t)arg;
    (void)t;
    if (o->misused) {
        /* The oracle may not know the deadline (a neighbour's damage can
         * fail tw_pending): the timer's own is the one to keep. */
        if (now != o->timers[i].deadline)
            FAIL("timer %zu fired at %llu after misuse, its deadline %llu", i, (unsigned long long)now,
                 (unsigned long long)o->timers[i].deadline);
        if (o->idle[i])
            FAIL("timer %zu fired at %llu after misuse, stopped or initialised since its start", i,
                 (unsigned long long)now);
    } else {
        if (!o->pending[i])
            FAIL("timer %zu fired at %llu but is not pending (stopped or fired already)", i,
                 (unsigned long long)now);
        /* Virtual time is exact in both modes: coarse mode moved the deadline. */
        if (now != o->deadline[i])
            FAIL("timer %zu fired at %llu, deadline %llu", i, (unsigned long long)now,
                 (unsigned long long)o->deadline[i]);
    }
    o->pending[i] = 0;
    o->idle[i] = 1;
    if (tw_pending(&o->timers[i]) != 0)
        FAIL("timer %zu pending inside its own callback", i);
    /* Re-entrant work, chosen by the input. */
    unsigned n = fuzz_u8(&o->in) & 3;
    for (unsigned k = 0; k < n && !fuzz_empty(&o->in); k++) {
        unsigned op = fuzz_u8(&o->in);
        size_t j = (op >> 3) % NTIMERS;
        switch (op & 7) {
        case 0: j = i; /* fall through: restart itself */
        case 1: do_start(o, j); break;
        case 2: do_stop(o, j); break;
        case 3: do_range(o, j); break;
        case 4:
            if (tw_service(&o->w, 4) != TW_ESTATE || tw_advance(&o->w, 1, 4) != TW_ESTATE)
                FAIL("service or advance from a callback did not refuse");
            break;
        case 5: misuse(o, j); break;
        default: break;
        }
    }
}

/* Every pending deadline at or before now must have fired. */
static void check_nothing_due(oracle *o, uint64_t now)
{
    if (o->misused)
        return; /* a timer misuse leaves unreachable is lost (reported) */
    for (size_t i = 0; i < NTIMERS; i++)
        if (o->pending[i] && o->deadline[i] <= now)
            FAIL("timer %zu due at %llu still pending at %llu", i, (unsigned long long)o->deadline[i],
                 (unsigned long long)now);
}

static void check_counts(oracle *o)
{
    size_t live = 0;
    if (o->misused)
        return;
    for (size_t i = 0; i < NTIMERS; i++) {
        live += (size_t)o->pending[i];
        if (tw_pending(&o->timers[i]) != o->pending[i])
            FAIL("tw_pending(timer %zu) = %d, oracle %d", i, tw_pending(&o->timers[i]), o->pending[i]);
    }
    if (live != tw_count_pending(&o->w))
        FAIL("tw_count_pending = %zu, oracle %zu", tw_count_pending(&o->w), live);
}

static void do_advance(oracle *o, uint64_t ticks, unsigned budget)
{
    uint64_t target = o->w.adv_target + ticks;
    int rc = tw_advance(&o->w, ticks, budget);
    if (rc == TW_ECORRUPT && o->misused)
        return;
    if (rc < 0)
        FAIL("tw_advance(%llu, %u): %s", (unsigned long long)ticks, budget, tw_strerror(rc));
    if ((unsigned)rc > budget)
        FAIL("tw_advance ran %d callbacks, budget %u", rc, budget);
    uint64_t now = now_of(o);
    if (now > target)
        FAIL("time %llu past the target %llu", (unsigned long long)now, (unsigned long long)target);
    /* Time stops early only when the budget ran out; then due timers wait. */
    if (now == target && !tw_work_pending(&o->w))
        check_nothing_due(o, now);
}

static void do_ticks_until_next(oracle *o)
{
    uint64_t cap = interval(o), ticks = 0;
    int rc = tw_ticks_until_next(&o->w, cap, &ticks);
    if (rc == TW_ECORRUPT && o->misused)
        return;
    if (rc < 0)
        FAIL("tw_ticks_until_next: %s", tw_strerror(rc));
    if (ticks > cap)
        FAIL("ticks_until_next %llu over the cap %llu", (unsigned long long)ticks, (unsigned long long)cap);
    uint64_t now = now_of(o);
    for (size_t i = 0; i < NTIMERS; i++)
        if (o->pending[i] && o->deadline[i] >= now && ticks > o->deadline[i] - now)
            FAIL("ticks_until_next %llu sleeps past timer %zu due in %llu", (unsigned long long)ticks,
                 i, (unsigned long long)(o->deadline[i] - now));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static oracle o;
    static void *mem;
    memset(&o, 0, sizeof o);
    fuzz_init(&o.in, data, size);
    the = &o;

    unsigned head = fuzz_u8(&o.in), mode = fuzz_u8(&o.in);
    const tw_sim_config *g = &geometries[head % (sizeof geometries / sizeof geometries[0])];
    tw_config cfg = {.source = TW_TIME_VIRTUAL};
    o.coarse_shift = cfg.coarse_shift = (mode & 3) == 3 ? 1 + ((mode >> 2) & 3) : 0;
    if (mode & 0x80)
        cfg.epoch = 0xFFFF; /* the last epoch: the end of 64-bit time is near */
    if (mode & 0x40)
        cfg.visit_batch = 1 + ((mode >> 4) & 3); /* visits spread over calls */
    if (tw_model_open(&o.dev, g) < 0)
        FAIL("cannot open the C model");
    tw_geometry geo;
    if (tw_probe(&o.dev, &geo) < 0)
        FAIL("probe failed");
    size_t need = tw_mem_size(&geo);
    if (!mem)
        mem = malloc(tw_mem_size(&(tw_geometry){4, 12, 1, 48}));
    int rc = tw_init(&o.w, &o.dev, mem, need, &cfg);
    if (rc < 0)
        FAIL("tw_init: %s", tw_strerror(rc));
    for (size_t i = 0; i < NTIMERS; i++)
        tw_timer_init(&o.timers[i], on_expiry, (void *)(uintptr_t)i);

    for (unsigned steps = 0; !fuzz_empty(&o.in) && steps < 400; steps++) {
        unsigned op = fuzz_u8(&o.in);
        size_t i = (op >> 4) % NTIMERS;
        switch (op & 15) {
        case 0: case 1: case 2: do_start(&o, i); break;
        case 3: case 4: do_stop(&o, i); break;
        case 5: case 6: do_range(&o, i); break;
        case 7: case 8: do_advance(&o, fuzz_u8(&o.in), 1000); break;
        case 9: do_advance(&o, fuzz_u16(&o.in), 1 + (fuzz_u8(&o.in) & 3)); break;
        case 10: do_advance(&o, 0, 1 + (fuzz_u8(&o.in) & 3)); break;
        case 11: {
            rc = tw_service(&o.w, 1 + (fuzz_u8(&o.in) & 7));
            if (rc < 0 && !(rc == TW_ECORRUPT && o.misused))
                FAIL("tw_service: %s", tw_strerror(rc));
            break;
        }
        case 12: do_ticks_until_next(&o); break;
        case 13: check_counts(&o); break;
        case 14: do_advance(&o, (uint64_t)fuzz_u16(&o.in) << (fuzz_u8(&o.in) & 3), 1000); break;
        case 15: misuse(&o, i); break;
        default: break;
        }
    }
    check_counts(&o);
    /* None lost: run every deadline within 2^16 ticks and check each fired
     * (further ones may need a visit every 2^b ticks: too slow to fuzz). */
    uint64_t now = now_of(&o), reach = now + (UINT64_C(1) << 16);
    if (reach < now)
        reach = UINT64_MAX;
    uint64_t last = now;
    for (size_t i = 0; i < NTIMERS; i++)
        if (o.pending[i] && o.deadline[i] <= reach && o.deadline[i] > last)
            last = o.deadline[i];
    /* Callbacks restart timers (reading no more input now): a few rounds settle it. */
    /* With visit_batch a call moves only a few timers, and a coarse-mode
     * timer is looked at once a revolution: allow a call per look. */
    for (long round = 0;; round++) {
        do_advance(&o, last > o.w.adv_target ? last - o.w.adv_target : 0, 100000);
        if (!tw_work_pending(&o.w))
            break;
        if (round > 8 + (1L << 16) * NTIMERS)
            FAIL("work still pending after %ld calls", round);
    }
    check_nothing_due(&o, now_of(&o));
    check_counts(&o);
    /* After misuse: with every timer stopped (each stop a success) and the
     * whole wheel visited, no timer may be counted (stale entries are
     * counted until met). Not where the end of time comes first. */
    uint64_t sweep = 2 * (UINT64_C(1) << (geo.levels * geo.slot_bits)) + 10;
    if (o.misused && o.w.adv_target <= UINT64_MAX - sweep) {
        for (size_t i = 0; i < NTIMERS; i++)
            do_stop(&o, i);
        do_advance(&o, sweep, 100000);
        for (int round = 0; tw_work_pending(&o.w) && round < 64; round++)
            do_advance(&o, 0, 100000);
        if (tw_count_pending(&o.w) != 0)
            FAIL("%zu timers counted after misuse, every timer stopped and the wheel visited",
                 tw_count_pending(&o.w));
    }
    tw_dev_close(&o.dev);
    return 0;
}
