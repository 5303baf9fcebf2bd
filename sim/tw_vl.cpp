// Verilator backend: the Verilated tw_core behind the C device interface.
// Every register access is a real Wishbone cycle on the clocked model: cyc&stb
// held until ack (at most ACK_WAIT_MAX clocks), then one idle cycle.
#include <cstdint>
#include <cstdlib>
#include <new>

#include "Vtw_core.h"
#include "verilated.h"
#include "verilated_fst_c.h"

#include "tw_dev.h"
#include "tw_err.h"
#include "tw_regs.h"
#include "tw_vl.h"

namespace {

// The chip's longest ack is well under this (docs/chip.md); a chip that
// takes longer is broken, and the access fails with TW_ETIMEDOUT.
constexpr int ACK_WAIT_MAX = 64;

struct VlChip {
    VerilatedContext ctx;
    Vtw_core *top = nullptr;
    VerilatedFstC *trace = nullptr;
    uint64_t cycles = 0;
};

// One clock cycle: inputs were set while the clock was low.
void clock_cycle(VlChip *c)
{
    c->top->i_clk = 1;
    c->top->eval();
    if (c->trace)
        c->trace->dump(c->ctx.time());
    c->ctx.timeInc(1);
    c->top->i_clk = 0;
    c->top->eval();
    if (c->trace)
        c->trace->dump(c->ctx.time());
    c->ctx.timeInc(1);
    c->cycles++;
}

int bus_access(VlChip *c, uint32_t addr, int write, uint32_t wdata, uint32_t *rdata)
{
    if (addr % 4 != 0 || addr / 4 >= TW_REG_COUNT)
        return TW_EINVAL;
    c->top->i_wb_cyc = 1;
    c->top->i_wb_stb = 1;
    c->top->i_wb_we = write ? 1 : 0;
    c->top->i_wb_adr = addr / 4;
    c->top->i_wb_dat = wdata;
    // The chip acks a few clocks later (more while a virtual-time jump or
    // an ADVANCE sum holds its bus; docs/chip.md): wait for it, boundedly.
    int acked = 0;
    for (int n = 0; n < ACK_WAIT_MAX && !acked; n++) {
        clock_cycle(c);
        acked = c->top->o_wb_ack;
    }
    if (acked && rdata)
        *rdata = c->top->o_wb_dat;
    c->top->i_wb_cyc = 0;
    c->top->i_wb_stb = 0;
    c->top->i_wb_we = 0;
    clock_cycle(c);
    return acked ? 0 : TW_ETIMEDOUT;
}

int vl_read(void *ctx, uint32_t addr, uint32_t *value)
{
    if (!value)
        return TW_EINVAL;
    return bus_access(static_cast<VlChip *>(ctx), addr, 0, 0, value);
}

int vl_write(void *ctx, uint32_t addr, uint32_t value)
{
    return bus_access(static_cast<VlChip *>(ctx), addr, 1, value, nullptr);
}

int vl_wait_irq(void *ctx, uint64_t max_cycles)
{
    VlChip *c = static_cast<VlChip *>(ctx);
    for (uint64_t n = 0; n < max_cycles && !c->top->o_irq; n++)
        clock_cycle(c);
    return c->top->o_irq ? 1 : 0;
}

uint64_t vl_cycles(void *ctx) { return static_cast<VlChip *>(ctx)->cycles; }

void vl_set_ext_tick(void *ctx, int level) { static_cast<VlChip *>(ctx)->top->i_ext_tick = level ? 1 : 0; }

void vl_reset(void *ctx)
{
    VlChip *c = static_cast<VlChip *>(ctx);
    c->top->i_rst = 1;
    clock_cycle(c);
    c->top->i_rst = 0;
}

void vl_close(void *ctx)
{
    VlChip *c = static_cast<VlChip *>(ctx);
    if (c->trace) {
        c->trace->close();
        delete c->trace;
    }
    c->top->final();
    delete c->top;
    delete c;
}

const tw_dev_ops vl_ops = {
    "verilator", vl_read, vl_write, vl_wait_irq, vl_cycles, vl_set_ext_tick, vl_reset, vl_close,
};

} // namespace

int tw_vl_open(tw_dev *dev, const tw_sim_config *cfg)
{
    if (!dev)
        return TW_EINVAL;
    VlChip *c = new (std::nothrow) VlChip;
    if (!c)
        return TW_ENOMEM;
    const char *trace = cfg ? cfg->trace : nullptr;
    if (trace)
        c->ctx.traceEverOn(true);
    c->top = new (std::nothrow) Vtw_core{&c->ctx};
    if (!c->top) {
        delete c;
        return TW_ENOMEM;
    }
    if (trace) {
        c->trace = new (std::nothrow) VerilatedFstC;
        if (!c->trace) {
            vl_close(c);
            return TW_ENOMEM;
        }
        c->top->trace(c->trace, 99);
        c->trace->open(trace);
        if (!c->trace->isOpen()) { // the file could not be created
            vl_close(c);
            return TW_EIO;
        }
    }
    c->top->i_clk = 0;
    c->top->i_ext_tick = 0;
    c->top->i_wb_cyc = c->top->i_wb_stb = c->top->i_wb_we = 0;
    c->top->eval();
    vl_reset(c);

    // The geometry is fixed when the model is Verilated: refuse a mismatch.
    uint32_t caps = 0;
    bus_access(c, TW_REG_CAPS, 0, 0, &caps);
    if (cfg && cfg->levels && (TW_GET(TW_CAPS_LEVELS, caps) != cfg->levels ||
                               TW_GET(TW_CAPS_SLOT_BITS, caps) != cfg->slot_bits ||
                               TW_GET(TW_CAPS_FIFO_LOG2, caps) != cfg->fifo_log2)) {
        vl_close(c);
        return TW_EINVAL;
    }
    dev->ops = &vl_ops;
    dev->ctx = c;
    dev->reads = dev->writes = dev->waits = dev->irqs = 0;
    return 0;
}
