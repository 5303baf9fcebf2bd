/* Lockstep: random register traffic on the C model and the Verilated RTL side
 * by side; every read and every wait must agree, to the clock cycle. */
#include <stdlib.h>
#include <string.h>

#include "tw_lockstep.h"
#include "tw_regs.h"
#include "tw_test.h"

static uint32_t random_cmd(tw_rng *r, const tw_geometry *g)
{
    uint32_t op = 1 + (uint32_t)tw_rng_below(r, 100) % 3; /* mostly SET/CLEAR */
    if (tw_rng_below(r, 200) == 0)
        op = (uint32_t)tw_rng_below(r, 16);              /* any op, bad ones too */
    uint32_t level = (uint32_t)tw_rng_below(r, g->levels + (tw_rng_below(r, 50) == 0));
    uint32_t slot = (uint32_t)tw_rng_below(r, (1u << g->slot_bits) + (tw_rng_below(r, 50) == 0));
    return TW_PUT(TW_CMD_OP, op) | TW_PUT(TW_CMD_LEVEL, level) | TW_PUT(TW_CMD_SLOT, slot);
}

int tw_lockstep_run(const tw_backend *other, uint64_t seed, long ops)
{
    tw_dev dev;
    tw_geometry g;
    tw_rng r = {seed};
    char name[96];
    snprintf(name, sizeof name, "lockstep/%s/register_ops", other->name);
    printf("# %s: seed=%llu ops=%ld\n", name, (unsigned long long)seed, ops);
    int rc = tw_lockstep_open(&dev, &other->cfg, other->open);
    if (rc == 0)
        rc = tw_probe(&dev, &g);
    if (rc < 0) {
        printf("FAIL %s: open: %s\n", name, tw_strerror(rc));
        return 0;
    }
    uint32_t v, now_lo = 0;
    long op;
    for (op = 0; op < ops && rc >= 0; op++) {
        uint64_t k = tw_rng_below(&r, 1000);
        if (k < 300) { /* reads of every address, side effects included */
            uint32_t addr = 4 * (uint32_t)tw_rng_below(&r, TW_REG_COUNT);
            if (tw_rng_below(&r, 3) == 0)
                addr = tw_rng_below(&r, 2) ? TW_REG_EVT_INFO : TW_REG_EVT_TICK;
            rc = tw_dev_read(&dev, addr, &v);
            if (addr == TW_REG_NOW_LO)
                now_lo = v;
        } else if (k < 550) {
            uint32_t arm = now_lo + (uint32_t)tw_rng_below(&r, 4u << g.slot_bits) - 8;
            rc = tw_dev_write(&dev, TW_REG_ARM_LO, arm);
            if (rc == 0)
                rc = tw_dev_write(&dev, TW_REG_CMD, random_cmd(&r, &g));
        } else if (k < 700) {
            rc = tw_dev_write(&dev, TW_REG_ADVANCE, (uint32_t)tw_rng_below(&r, tw_rng_below(&r, 4) ? 64 : 100000));
        } else if (k < 820) {
            rc = tw_dev_wait_irq(&dev, tw_rng_below(&r, tw_rng_below(&r, 4) ? 64 : 5000));
        } else if (k < 900) {
            rc = tw_dev_write(&dev, TW_REG_STATUS, (uint32_t)tw_rng_below(&r, 8));
        } else if (k < 940) {
            uint32_t ctrl = TW_PUT(TW_CTRL_TICK_SRC, tw_rng_below(&r, 4)) |
                            TW_PUT(TW_CTRL_IRQ_EN, tw_rng_below(&r, 4) != 0) |
                            TW_PUT(TW_CTRL_VHOLD, tw_rng_below(&r, 2));
            rc = tw_dev_write(&dev, TW_REG_CTRL, ctrl);
        } else if (k < 955) {
            rc = tw_dev_write(&dev, TW_REG_PRESCALE, (uint32_t)tw_rng_below(&r, 8));
        } else if (k < 970) {
            rc = tw_dev_write(&dev, TW_REG_COALESCE, (uint32_t)tw_rng_below(&r, 1u << 20) & 0x000F00FFu);
        } else if (k < 985) {
            rc = tw_dev_write(&dev, TW_REG_SEARCH, (uint32_t)tw_rng_below(&r, 1u << 12));
        } else if (k < 995) {
            dev.ops->set_ext_tick(dev.ctx, (int)tw_rng_below(&r, 2));
        } else if (k < 998) { /* any write to any address */
            rc = tw_dev_write(&dev, 4 * (uint32_t)tw_rng_below(&r, TW_REG_COUNT), (uint32_t)tw_rng_next(&r));
        } else {
            dev.ops->reset(dev.ctx);
        }
    }
    const char *diff = tw_lockstep_difference(&dev);
    uint64_t compares = tw_lockstep_compares(&dev);
    uint64_t cycles = tw_dev_cycles(&dev);
    tw_dev_close(&dev);
    if (diff || rc < 0) {
        printf("FAIL %s: seed=%llu op %ld: %s\n", name, (unsigned long long)seed, op,
               diff ? diff : tw_strerror(rc));
        return 0;
    }
    printf("ok %s (%llu comparisons, %llu cycles)\n", name, (unsigned long long)compares,
           (unsigned long long)cycles);
    return 1;
}

/* ------------------------------------------------------------ divergence
 * The run above has two backends that agree, so it cannot tell a lockstep
 * that compares nothing from one that compares everything. Here the second
 * backend is the C model but for one difference planted at a random access:
 * the lockstep must fail that very access with TW_EDEVICE, name the
 * difference, and fail every access after it; every access before it must
 * pass. */

enum skew_kind {
    SKEW_READ_VALUE,   /* a read answers one bit off */
    SKEW_READ_STATUS,  /* a read fails where the model's succeeds */
    SKEW_WRITE_STATUS, /* a write fails where the model's succeeds */
    SKEW_WAIT_RESULT,  /* a wait reports the interrupt line the other way */
    SKEW_WAIT_CYCLES,  /* after a wait, the chip is a clock ahead */
    SKEW_KINDS
};

static const char *const skew_names[SKEW_KINDS] = {"read_value", "read_status", "write_status", "wait_result",
                                                   "wait_cycles"};
/* What tw_lockstep_difference must say for each. */
static const char *const skew_says[SKEW_KINDS] = {"read at", "read status", "write status",
                                                  "interrupt after wait", "cycle count after wait"};

/* The open callback takes no context: the plan is here (one test at a time). */
static struct skew_plan {
    enum skew_kind kind;
    long at;       /* plant at this access of the kind's type (reads, writes or waits) */
    int planted;   /* set by the access that planted it */
    int open_skew; /* the skewed chip claims one more clock from the start */
} skew_plan;

typedef struct skew {
    tw_dev inner;
    long reads, writes, waits;
    int ahead; /* clocks added to the inner chip's count */
} skew;

static int plant(long *count, enum skew_kind a, enum skew_kind b)
{
    long n = (*count)++;
    if ((skew_plan.kind == a || skew_plan.kind == b) && n == skew_plan.at && !skew_plan.planted) {
        skew_plan.planted = 1;
        return 1;
    }
    return 0;
}

static int skew_read(void *ctx, uint32_t addr, uint32_t *value)
{
    skew *s = ctx;
    int rc = tw_dev_read(&s->inner, addr, value);
    if (rc == 0 && plant(&s->reads, SKEW_READ_VALUE, SKEW_READ_STATUS)) {
        if (skew_plan.kind == SKEW_READ_VALUE)
            *value ^= 1u << (s->reads % 32);
        else
            rc = TW_EIO;
    }
    return rc;
}

static int skew_write(void *ctx, uint32_t addr, uint32_t value)
{
    skew *s = ctx;
    int rc = tw_dev_write(&s->inner, addr, value);
    if (rc == 0 && plant(&s->writes, SKEW_WRITE_STATUS, SKEW_WRITE_STATUS))
        rc = TW_EIO;
    return rc;
}

static int skew_wait_irq(void *ctx, uint64_t max_cycles)
{
    skew *s = ctx;
    int rc = tw_dev_wait_irq(&s->inner, max_cycles);
    if (rc >= 0 && plant(&s->waits, SKEW_WAIT_RESULT, SKEW_WAIT_CYCLES)) {
        if (skew_plan.kind == SKEW_WAIT_RESULT)
            rc = !rc;
        else
            s->ahead++;
    }
    return rc;
}

static uint64_t skew_cycles(void *ctx)
{
    skew *s = ctx;
    return tw_dev_cycles(&s->inner) + (uint64_t)s->ahead;
}

static void skew_set_ext_tick(void *ctx, int level)
{
    skew *s = ctx;
    s->inner.ops->set_ext_tick(s->inner.ctx, level);
}

static void skew_reset(void *ctx)
{
    skew *s = ctx;
    s->inner.ops->reset(s->inner.ctx);
}

static void skew_close(void *ctx)
{
    skew *s = ctx;
    tw_dev_close(&s->inner);
    free(s);
}

static const tw_dev_ops skew_ops = {
    .name = "skewed",
    .read = skew_read,
    .write = skew_write,
    .wait_irq = skew_wait_irq,
    .cycles = skew_cycles,
    .set_ext_tick = skew_set_ext_tick,
    .reset = skew_reset,
    .close = skew_close,
};

static int skew_open(tw_dev *dev, const tw_sim_config *cfg)
{
    skew *s = calloc(1, sizeof *s);
    if (!s)
        return TW_ENOMEM;
    int rc = tw_model_open(&s->inner, cfg);
    if (rc < 0) {
        free(s);
        return rc;
    }
    s->ahead = skew_plan.open_skew;
    memset(dev, 0, sizeof *dev);
    dev->ops = &skew_ops;
    dev->ctx = s;
    return 0;
}

/* One access of a fixed mix (reads of registers with and without side
 * effects, advances, waits of both outcomes); its status. */
static int some_access(tw_dev *dev, tw_rng *r)
{
    static const uint32_t reads[] = {TW_REG_ID, TW_REG_STATUS, TW_REG_NOW_LO, TW_REG_EVT_INFO, TW_REG_CNT_BUSERR};
    uint32_t v;
    switch (tw_rng_below(r, 3)) {
    case 0:
        return tw_dev_read(dev, reads[tw_rng_below(r, sizeof reads / sizeof *reads)], &v);
    case 1:
        return tw_dev_write(dev, TW_REG_ADVANCE, (uint32_t)tw_rng_below(r, 300));
    default:
        return tw_dev_wait_irq(dev, tw_rng_below(r, 2) ? 1 + tw_rng_below(r, 20) : 2000);
    }
}

int tw_lockstep_divergence_run(const char *geo_name, const tw_sim_config *cfg, uint64_t seed)
{
    int ok = 1;
    tw_rng r = {seed};
    printf("# lockstep/divergence/%s: seed=%llu\n", geo_name, (unsigned long long)seed);
    for (int kind = 0; kind < SKEW_KINDS; kind++) {
        tw_test_failed = 0;
        tw_dev dev;
        skew_plan = (struct skew_plan){(enum skew_kind)kind, (long)tw_rng_below(&r, 40), 0, 0};
        int rc = tw_lockstep_open(&dev, cfg, skew_open);
        CHECK_OK(rc);
        if (rc == 0) {
            /* An access both refuse alike is no difference: its status passes through. */
            uint32_t v;
            CHECK_EQ(tw_dev_read(&dev, 4 * TW_REG_COUNT, &v), TW_EINVAL);
            CHECK(tw_lockstep_difference(&dev) == NULL);
            long planted_at = -1;
            for (long op = 0; op < 400 && !tw_test_failed; op++) {
                int was = skew_plan.planted;
                uint64_t compares = tw_lockstep_compares(&dev);
                rc = some_access(&dev, &r);
                const char *diff = tw_lockstep_difference(&dev);
                if (!skew_plan.planted) {
                    CHECK(rc >= 0);
                    CHECK(diff == NULL);
                } else if (!was) { /* this access planted it */
                    planted_at = op;
                    CHECK_EQ(rc, TW_EDEVICE);
                    CHECK(diff != NULL && strstr(diff, skew_says[kind]) == diff);
                } else { /* every later access fails, nothing more is compared */
                    CHECK_EQ(rc, TW_EDEVICE);
                    CHECK(diff != NULL && strstr(diff, skew_says[kind]) == diff);
                    CHECK_EQ(tw_lockstep_compares(&dev), compares);
                }
            }
            CHECK(planted_at >= 0); /* the plan must have been reached */
            tw_dev_close(&dev);
        }
        char name[96];
        snprintf(name, sizeof name, "lockstep/divergence/%s/%s", geo_name, skew_names[kind]);
        if (tw_test_failed) {
            printf("FAIL %s: %s (seed %llu)\n", name, tw_test_why, (unsigned long long)seed);
            ok = 0;
        } else {
            printf("ok %s\n", name);
        }
    }
    /* Two chips that do not start on the same clock are refused at open. */
    tw_test_failed = 0;
    tw_dev dev;
    skew_plan = (struct skew_plan){SKEW_READ_VALUE, -1, 0, 1};
    int rc = tw_lockstep_open(&dev, cfg, skew_open);
    CHECK_EQ(rc, TW_EDEVICE);
    if (rc == 0)
        tw_dev_close(&dev);
    if (tw_test_failed) {
        printf("FAIL lockstep/divergence/%s/open_cycles: %s\n", geo_name, tw_test_why);
        ok = 0;
    } else {
        printf("ok lockstep/divergence/%s/open_cycles\n", geo_name);
    }
    return ok;
}
