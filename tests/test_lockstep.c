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
