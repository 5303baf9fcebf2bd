/* Lockstep backend: the C model and a second backend (the Verilated RTL)
 * driven side by side, every read compared, every wait compared by its
 * outcome and by the clock cycle both chips are at afterwards. The first
 * difference is recorded and every later access fails with TW_EDEVICE, so a
 * driver or test on top of it stops at the first disagreement. */
#include "tw_lockstep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tw_err.h"

typedef struct lockstep {
    tw_dev model, other;
    uint64_t compares;
    char diff[256];
} lockstep;

static int differ(lockstep *l, const char *what, uint64_t model, uint64_t other, uint32_t addr)
{
    if (!l->diff[0])
        snprintf(l->diff, sizeof l->diff,
                 "%s at 0x%02x after %llu comparisons (cycle %llu): model 0x%llx, %s 0x%llx", what,
                 (unsigned)addr, (unsigned long long)l->compares,
                 (unsigned long long)tw_dev_cycles(&l->model), (unsigned long long)model,
                 l->other.ops->name, (unsigned long long)other);
    return TW_EDEVICE;
}

static int ls_read(void *ctx, uint32_t addr, uint32_t *value)
{
    lockstep *l = ctx;
    uint32_t a = 0, b = 0;
    if (l->diff[0])
        return TW_EDEVICE;
    int ra = tw_dev_read(&l->model, addr, &a);
    int rb = tw_dev_read(&l->other, addr, &b);
    l->compares++;
    if (ra != rb)
        return differ(l, "read status", (uint64_t)ra, (uint64_t)rb, addr);
    if (ra < 0)
        return ra;
    if (a != b)
        return differ(l, "read", a, b, addr);
    *value = a;
    return 0;
}

static int ls_write(void *ctx, uint32_t addr, uint32_t value)
{
    lockstep *l = ctx;
    if (l->diff[0])
        return TW_EDEVICE;
    int ra = tw_dev_write(&l->model, addr, value);
    int rb = tw_dev_write(&l->other, addr, value);
    if (ra != rb)
        return differ(l, "write status", (uint64_t)ra, (uint64_t)rb, addr);
    return ra;
}

static int ls_wait_irq(void *ctx, uint64_t max_cycles)
{
    lockstep *l = ctx;
    if (l->diff[0])
        return TW_EDEVICE;
    int ra = tw_dev_wait_irq(&l->model, max_cycles);
    int rb = tw_dev_wait_irq(&l->other, max_cycles);
    l->compares++;
    if (ra != rb)
        return differ(l, "interrupt after wait", (uint64_t)ra, (uint64_t)rb, 0);
    uint64_t ca = tw_dev_cycles(&l->model), cb = tw_dev_cycles(&l->other);
    if (ca != cb)
        return differ(l, "cycle count after wait", ca, cb, 0);
    return ra;
}

static uint64_t ls_cycles(void *ctx)
{
    return tw_dev_cycles(&((lockstep *)ctx)->model);
}

static void ls_set_ext_tick(void *ctx, int level)
{
    lockstep *l = ctx;
    l->model.ops->set_ext_tick(l->model.ctx, level);
    if (l->other.ops->set_ext_tick)
        l->other.ops->set_ext_tick(l->other.ctx, level);
}

static void ls_reset(void *ctx)
{
    lockstep *l = ctx;
    l->model.ops->reset(l->model.ctx);
    if (l->other.ops->reset)
        l->other.ops->reset(l->other.ctx);
}

static void ls_close(void *ctx)
{
    lockstep *l = ctx;
    tw_dev_close(&l->model);
    tw_dev_close(&l->other);
    free(l);
}

static const tw_dev_ops lockstep_ops = {
    .name = "lockstep",
    .read = ls_read,
    .write = ls_write,
    .wait_irq = ls_wait_irq,
    .cycles = ls_cycles,
    .set_ext_tick = ls_set_ext_tick,
    .reset = ls_reset,
    .close = ls_close,
};

int tw_lockstep_open(tw_dev *dev, const tw_sim_config *cfg,
                     int (*open_other)(tw_dev *, const tw_sim_config *))
{
    if (!dev || !cfg || !open_other)
        return TW_EINVAL;
    lockstep *l = calloc(1, sizeof *l);
    if (!l)
        return TW_ENOMEM;
    int rc = tw_model_open(&l->model, cfg);
    if (rc == 0) {
        rc = open_other(&l->other, cfg);
        if (rc < 0)
            tw_dev_close(&l->model);
    }
    if (rc < 0) {
        free(l);
        return rc;
    }
    /* Both must start on the same clock cycle. */
    if (tw_dev_cycles(&l->model) != tw_dev_cycles(&l->other)) {
        ls_close(l);
        return TW_EDEVICE;
    }
    memset(dev, 0, sizeof *dev);
    dev->ops = &lockstep_ops;
    dev->ctx = l;
    return 0;
}

const char *tw_lockstep_difference(const tw_dev *dev)
{
    if (!dev || dev->ops != &lockstep_ops)
        return NULL;
    const lockstep *l = dev->ctx;
    return l->diff[0] ? l->diff : NULL;
}

uint64_t tw_lockstep_compares(const tw_dev *dev)
{
    if (!dev || dev->ops != &lockstep_ops)
        return 0;
    return ((const lockstep *)dev->ctx)->compares;
}
