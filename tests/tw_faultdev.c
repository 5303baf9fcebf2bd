/* Fault injection around a simulated chip: failed bus transactions (before or
 * after the access), made-up and impossible events, and chip resets in the
 * middle of a run. The chip itself is untouched: a fault is what the driver
 * sees on the bus, or the chip's reset pin. */
#include "tw_faultdev.h"

#include <stdlib.h>
#include <string.h>

#include "tw_err.h"
#include "tw_regs.h"
#include "tw_test.h"

typedef struct faultdev {
    tw_dev inner;
    tw_fault_plan plan;
    tw_fault_counts counts;
    tw_rng rng;
    uint64_t next_reset;
    unsigned levels, slot_bits;
    int enabled;
    int fake_pending; /* EVT_INFO showed a fake event: the next EVT_TICK read is its tick */
    uint32_t fake_tick_lo;
} faultdev;

static uint64_t next_random(faultdev *f)
{
    return tw_rng_next(&f->rng);
}

static int chance(faultdev *f, unsigned ppm)
{
    return ppm && next_random(f) % 1000000u < ppm;
}

static void schedule_reset(faultdev *f)
{
    uint64_t every = f->plan.reset_every;
    f->next_reset = every ? f->counts.accesses + every / 2 + next_random(f) % every : UINT64_MAX;
}

/* The chip's time, read behind the driver's back (NOW_HI is latched by the
 * NOW_LO read, and the driver never reads events between those two). */
static uint64_t chip_now(faultdev *f)
{
    uint32_t lo = 0, hi = 0;
    tw_dev_read(&f->inner, TW_REG_NOW_LO, &lo);
    tw_dev_read(&f->inner, TW_REG_NOW_HI, &hi);
    return (uint64_t)hi << 32 | lo;
}

/* A made-up event in EVT_INFO's format; its tick's low word waits for EVT_TICK. */
static uint32_t fake_event(faultdev *f, int impossible)
{
    uint64_t tick = chip_now(f);
    unsigned level = (unsigned)(next_random(f) % f->levels);
    unsigned slot = (unsigned)(next_random(f) % (1u << f->slot_bits));
    if (!impossible) {
        uint64_t back = next_random(f) % 4; /* now or just passed */
        tick -= back <= tick ? back : 0;
        f->counts.spurious_events++;
    } else {
        unsigned kind = (unsigned)(next_random(f) % 3);
        if (kind == 0 && f->levels < 4)
            level = f->levels + (unsigned)(next_random(f) % (4 - f->levels));
        else if (kind == 1 && f->slot_bits < 12)
            slot = (1u << f->slot_bits) + (unsigned)(next_random(f) % ((1u << 12) - (1u << f->slot_bits)));
        else
            tick += UINT64_C(1) << 40; /* from the future */
        f->counts.bad_events++;
    }
    tick &= (UINT64_C(1) << 48) - 1;
    f->fake_pending = 1;
    f->fake_tick_lo = (uint32_t)tick;
    return TW_EVT_INFO_VALID_MASK | TW_PUT(TW_EVT_INFO_LATE, (next_random(f) & 7) == 0) |
           TW_PUT(TW_EVT_INFO_LEVEL, level) | TW_PUT(TW_EVT_INFO_SLOT, slot) |
           TW_PUT(TW_EVT_INFO_TICK_HI, (uint32_t)(tick >> 32));
}

/* Before an access: maybe reset the chip, maybe drop the request. */
static int before(faultdev *f)
{
    f->counts.accesses++;
    if (!f->enabled)
        return 0;
    if (f->counts.accesses >= f->next_reset && f->inner.ops->reset) {
        f->inner.ops->reset(f->inner.ctx);
        f->counts.resets++;
        f->fake_pending = 0;
        schedule_reset(f);
    }
    if (chance(f, f->plan.drop_request_ppm)) {
        f->counts.dropped_requests++;
        return TW_EIO;
    }
    return 0;
}

/* After an access that happened: maybe lose its answer. */
static int after(faultdev *f, int rc)
{
    if (rc == 0 && f->enabled && chance(f, f->plan.lose_response_ppm)) {
        f->counts.lost_responses++;
        return TW_EIO;
    }
    return rc;
}

static int fd_read(void *ctx, uint32_t addr, uint32_t *value)
{
    faultdev *f = ctx;
    int rc = before(f);
    int fake = f->fake_pending;
    f->fake_pending = 0;
    if (rc < 0)
        return rc;
    if (addr == TW_REG_EVT_TICK && fake) {
        *value = f->fake_tick_lo; /* the real FIFO is not popped */
        return 0;
    }
    if (addr == TW_REG_EVT_INFO && f->enabled) {
        if (chance(f, f->plan.spurious_ppm)) {
            *value = fake_event(f, 0);
            return 0;
        }
        if (chance(f, f->plan.bad_event_ppm)) {
            *value = fake_event(f, 1);
            return 0;
        }
    }
    return after(f, tw_dev_read(&f->inner, addr, value));
}

static int fd_write(void *ctx, uint32_t addr, uint32_t value)
{
    faultdev *f = ctx;
    int rc = before(f);
    f->fake_pending = 0;
    if (rc < 0)
        return rc;
    return after(f, tw_dev_write(&f->inner, addr, value));
}

static int fd_wait_irq(void *ctx, uint64_t max_cycles)
{
    faultdev *f = ctx;
    return tw_dev_wait_irq(&f->inner, max_cycles);
}

static uint64_t fd_cycles(void *ctx)
{
    return tw_dev_cycles(&((faultdev *)ctx)->inner);
}

static void fd_set_ext_tick(void *ctx, int level)
{
    faultdev *f = ctx;
    if (f->inner.ops->set_ext_tick)
        f->inner.ops->set_ext_tick(f->inner.ctx, level);
}

static void fd_reset(void *ctx)
{
    faultdev *f = ctx;
    if (f->inner.ops->reset)
        f->inner.ops->reset(f->inner.ctx);
}

static void fd_close(void *ctx)
{
    faultdev *f = ctx;
    tw_dev_close(&f->inner);
    free(f);
}

static const tw_dev_ops faultdev_ops = {
    .name = "faults",
    .read = fd_read,
    .write = fd_write,
    .wait_irq = fd_wait_irq,
    .cycles = fd_cycles,
    .set_ext_tick = fd_set_ext_tick,
    .reset = fd_reset,
    .close = fd_close,
};

int tw_faultdev_open(tw_dev *dev, tw_dev *inner, const tw_fault_plan *plan)
{
    if (!dev || !inner || !inner->ops || !plan)
        return TW_EINVAL;
    uint32_t caps = 0;
    int rc = tw_dev_read(inner, TW_REG_CAPS, &caps);
    if (rc < 0)
        return rc;
    faultdev *f = calloc(1, sizeof *f);
    if (!f)
        return TW_ENOMEM;
    f->inner = *inner;
    f->plan = *plan;
    f->rng.s = plan->seed;
    f->levels = TW_GET(TW_CAPS_LEVELS, caps);
    f->slot_bits = TW_GET(TW_CAPS_SLOT_BITS, caps);
    schedule_reset(f);
    memset(dev, 0, sizeof *dev);
    dev->ops = &faultdev_ops;
    dev->ctx = f;
    memset(inner, 0, sizeof *inner);
    return 0;
}

const tw_fault_counts *tw_faultdev_counts(const tw_dev *dev)
{
    if (!dev || dev->ops != &faultdev_ops)
        return NULL;
    return &((const faultdev *)dev->ctx)->counts;
}

void tw_faultdev_enable(tw_dev *dev, int on)
{
    if (dev && dev->ops == &faultdev_ops)
        ((faultdev *)dev->ctx)->enabled = on;
}
