/* libFuzzer target: a hostile device. Every register read, write result and
 * interrupt wait of the tw_dev backend below comes from the fuzz input, so the
 * driver sees arbitrary ID, CAPS, STATUS, FIFO counts, events (out-of-range
 * levels and slots, slots never armed, ticks anywhere), overflow flags and
 * failed transactions. The driver must never crash, read or write outside its
 * memory (ASan), loop without bound, return anything but a documented code, or
 * lose track of its own timers: a callback only for a pending timer, at most
 * once per start, and tw_count_pending/tw_pending always right. Once the
 * input runs out the device is dead (every access fails), and the run ends.
 *
 *   build/fuzz/fuzz-device tests/fuzz/corpus/device -max_total_time=600
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "tickwheel.h"
#include "tw_regs.h"

enum { NTIMERS = 8, ACCESS_LIMIT = 1 << 20 };

#define FAIL(...) fuzz_fail("fuzz-device: " __VA_ARGS__)

typedef struct hostile {
    fuzz_input in;
    uint64_t accesses; /* since the last API call began */
    uint64_t now;      /* a plausible clock, for reads that want one */
} hostile;

/* Each read takes a control byte: the low bits choose a failed transaction,
 * a raw 32-bit value from the input, a plausible value for the register
 * (so the fuzzer gets past ID and CAPS checks and into the event paths), or
 * zero. Plausible is not truthful: fields still come from the input. */
static int h_read(void *ctx, uint32_t addr, uint32_t *v)
{
    hostile *h = ctx;
    if (++h->accesses > ACCESS_LIMIT)
        FAIL("more than %d device accesses in one call: the driver loops", ACCESS_LIMIT);
    if (fuzz_empty(&h->in))
        return TW_EIO;
    unsigned c = fuzz_u8(&h->in);
    switch (c & 3) {
    case 0:
        return (c & 4) ? TW_ETIMEDOUT : TW_EIO;
    case 1:
        *v = fuzz_u32(&h->in);
        return 0;
    case 3:
        *v = 0;
        return 0;
    default:
        break;
    }
    switch (addr) {
    case TW_REG_ID: *v = TW_ID_MAGIC; break;
    case TW_REG_VERSION: *v = (uint32_t)TW_VERSION_MAJOR << 16 | (c >> 4); break;
    case TW_REG_CAPS:
        *v = TW_PUT(TW_CAPS_LEVELS, 1 + ((c >> 2) & 3)) | TW_PUT(TW_CAPS_SLOT_BITS, 2 + ((c >> 4) & 7)) |
             TW_PUT(TW_CAPS_FIFO_LOG2, 1 + (c >> 7)) | TW_PUT(TW_CAPS_TICK_BITS, 48);
        break;
    case TW_REG_NOW_LO: h->now += fuzz_u8(&h->in); *v = (uint32_t)h->now; break;
    case TW_REG_NOW_HI: *v = (uint32_t)(h->now >> 32) & 0xFFFFu; break;
    case TW_REG_EVT_INFO:
        /* valid, late bit, level 0..7, slot 0..4095+, tick bits 47:32 small */
        *v = TW_EVT_INFO_VALID_MASK | (uint32_t)fuzz_u16(&h->in) << 16 | ((c >> 4) & 3);
        break;
    case TW_REG_EVT_TICK: *v = (uint32_t)h->now + (c >> 2) - 32; break;
    case TW_REG_STATUS: *v = (uint32_t)fuzz_u16(&h->in); break;
    default: *v = fuzz_u8(&h->in); break;
    }
    return 0;
}

static int h_write(void *ctx, uint32_t addr, uint32_t v)
{
    hostile *h = ctx;
    (void)addr, (void)v;
    if (++h->accesses > ACCESS_LIMIT)
        FAIL("more than %d device accesses in one call: the driver loops", ACCESS_LIMIT);
    if (fuzz_empty(&h->in))
        return TW_EIO;
    return (fuzz_u8(&h->in) & 15) == 0 ? TW_EIO : 0;
}

static int h_wait(void *ctx, uint64_t max_cycles)
{
    hostile *h = ctx;
    (void)max_cycles;
    if (++h->accesses > ACCESS_LIMIT)
        FAIL("more than %d device waits in one call: the driver loops", ACCESS_LIMIT);
    if (fuzz_empty(&h->in))
        return TW_EIO;
    unsigned c = fuzz_u8(&h->in);
    return (c & 7) == 0 ? TW_EIO : (int)(c & 1);
}

static const tw_dev_ops hostile_ops = {"hostile", h_read, h_write, h_wait, NULL, NULL, NULL, NULL};

static int known_code(int rc)
{
    return rc >= 0 || (rc <= TW_EINVAL && rc >= TW_EBUSY);
}

typedef struct state {
    tw_wheel w;
    tw_timer timers[NTIMERS];
    int pending[NTIMERS];
    hostile h;
} state;

static state *the;

static void on_expiry(tw_timer *t, uint64_t now, void *arg)
{
    size_t i = (size_t)(uintptr_t)arg;
    (void)t, (void)now;
    /* A lying device may make a timer fire early; never twice, never stopped. */
    if (!the->pending[i])
        FAIL("timer %zu called back but not pending", i);
    the->pending[i] = 0;
    /* Sometimes re-arm from the callback, as applications do. */
    if (fuzz_u8(&the->h.in) & 1) {
        int rc = tw_start(&the->w, &the->timers[i], fuzz_u8(&the->h.in));
        if (!known_code(rc))
            FAIL("tw_start from a callback returned %d", rc);
        the->pending[i] = rc == 0;
    }
}

static void check(state *s, const char *call, int rc)
{
    if (!known_code(rc))
        FAIL("%s returned %d, not a tw_err code", call, rc);
    size_t live = 0;
    for (size_t i = 0; i < NTIMERS; i++) {
        if (tw_pending(&s->timers[i]) != s->pending[i])
            FAIL("after %s: tw_pending(timer %zu) = %d, expected %d", call, i,
                 tw_pending(&s->timers[i]), s->pending[i]);
        live += (size_t)s->pending[i];
    }
    if (tw_count_pending(&s->w) != live)
        FAIL("after %s: tw_count_pending = %zu, expected %zu", call, tw_count_pending(&s->w), live);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static state s;
    static uint8_t mem[16 << 12] __attribute__((aligned(16)));
    memset(&s, 0, sizeof s);
    the = &s;
    fuzz_init(&s.h.in, data, size);
    tw_dev dev = {&hostile_ops, &s.h, 0, 0, 0, 0};
    for (size_t i = 0; i < NTIMERS; i++)
        tw_timer_init(&s.timers[i], on_expiry, (void *)(uintptr_t)i);

    unsigned mode = fuzz_u8(&s.h.in);
    tw_config cfg = {.source = (enum tw_time_source)(mode % 3), .coarse_shift = (mode >> 2) & 3,
                     .prescale = mode >> 4, .epoch = (mode & 0x80) ? 0xFFFF : 0};
    tw_geometry g;
    int rc = tw_probe(&dev, &g);
    check(&s, "tw_probe", rc);
    s.h.accesses = 0;
    /* The geometry must fit the memory the harness has; a larger one is refused. */
    rc = tw_init(&s.w, &dev, mem, sizeof mem, &cfg);
    if (!known_code(rc))
        FAIL("tw_init returned %d", rc);
    if (rc < 0)
        return 0;
    if (s.w.nslots * sizeof(tw_list) + (s.w.nslots + 63) / 64 * 8 > sizeof mem)
        FAIL("tw_init accepted a geometry larger than its memory");

    while (!fuzz_empty(&s.h.in)) {
        unsigned op = fuzz_u8(&s.h.in);
        size_t i = (op >> 4) % NTIMERS;
        uint64_t ticks = fuzz_u8(&s.h.in);
        s.h.accesses = 0;
        switch (op & 7) {
        case 0:
        case 1:
            rc = tw_start(&s.w, &s.timers[i], ticks << (op & 1 ? 8 : 0));
            /* 0: queued (a failed arm is repaired later); an error: unchanged. */
            if (rc == 0)
                s.pending[i] = 1;
            check(&s, "tw_start", rc);
            break;
        case 2:
            rc = tw_start_range(&s.w, &s.timers[i], ticks, ticks * 3);
            if (rc == 0)
                s.pending[i] = 1;
            check(&s, "tw_start_range", rc);
            break;
        case 3:
            rc = tw_stop(&s.w, &s.timers[i]);
            if (rc != s.pending[i])
                FAIL("tw_stop(timer %zu) = %d, expected %d", i, rc, s.pending[i]);
            s.pending[i] = 0;
            check(&s, "tw_stop", rc);
            break;
        case 4:
            check(&s, "tw_service", tw_service(&s.w, 1 + (unsigned)(ticks & 7)));
            break;
        case 5:
            rc = tw_advance(&s.w, ticks, 1 + (unsigned)(ticks & 3));
            if (cfg.source != TW_TIME_VIRTUAL && rc != TW_ESTATE)
                FAIL("tw_advance in real time returned %d", rc);
            check(&s, "tw_advance", rc);
            break;
        case 6: {
            uint64_t t = 0;
            rc = tw_ticks_until_next(&s.w, ticks << 4, &t);
            if (rc == 0 && t > ticks << 4)
                FAIL("ticks_until_next %llu over its cap", (unsigned long long)t);
            check(&s, "tw_ticks_until_next", rc);
            break;
        }
        default: {
            uint64_t t = 0;
            check(&s, "tw_now", tw_now(&s.w, &t));
            break;
        }
        }
    }
    return 0;
}
