// Verilated SPI backend: the board-independent FPGA top (rtl/tw_spi_top.v:
// SPI bridge + core) with every frame clocked through it bit by bit, SPI
// mode 0, so the driver's SPI path runs end to end. Optional fault
// injection flips one bit of a frame, in the request or in the response,
// cuts a request short (CS_N rises before its CRC byte is in), loses a
// response (MISO floating high for the whole frame), or answers it late
// (all zeros: status 0x00 with a good CRC, what the bridge sends when its
// bus slave acks after the deadline; the access happened and is saved).
#include <cstdint>
#include <cstdlib>
#include <new>

#include "Vtw_spi_top.h"
#include "verilated.h"

#include "tw_err.h"
#include "tw_regs.h"
#include "tw_spi.h"
#include "tw_vl_spi.h"

// The chip and its clock; sim/tw_vl_spi.h names it for tests that use it bare.
struct tw_vl_spi_chip {
    VerilatedContext ctx;
    Vtw_spi_top *top = nullptr;
    uint64_t cycles = 0;
    unsigned half_period = 4;
    double corrupt_rate = 0;
    double drop_rate = 0;
    uint64_t rng = 1;
    tw_vl_spi_faults *faults = nullptr;
};

namespace {

using SpiChip = tw_vl_spi_chip;

bool happens(SpiChip *c, double rate);

uint64_t next_random(SpiChip *c)
{
    uint64_t z = (c->rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void clock_cycles(SpiChip *c, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        c->top->i_clk = 1;
        c->top->eval();
        c->top->i_clk = 0;
        c->top->eval();
        c->cycles++;
    }
}

// Half an SCK period, one clock longer now and then: SCK edges land at every
// phase of the system clock over a run.
unsigned half(SpiChip *c)
{
    return c->half_period + (unsigned)(next_random(c) & 1);
}

int spi_transfer(void *ctx, const uint8_t *tx, uint8_t *rx, size_t len)
{
    SpiChip *c = static_cast<SpiChip *>(ctx);
    uint8_t out[TW_SPI_FRAME_LEN];
    if (len > sizeof out)
        return TW_EINVAL;
    for (size_t i = 0; i < len; i++)
        out[i] = tx[i];
    // A flip lands on one of the 48 bits its receiver reads: request bytes
    // 0-5 for the bridge, response bytes 7-12 for the host, so every flip
    // counted is one the link must catch.
    bool corrupt = happens(c, c->corrupt_rate) && len == TW_SPI_FRAME_LEN;
    bool in_request = corrupt && (next_random(c) & 1);
    size_t flip_bit = (size_t)(next_random(c) % 48) + (in_request ? 0 : 56);
    if (in_request)
        out[flip_bit / 8] ^= (uint8_t)(0x80u >> (flip_bit % 8));
    bool drop = happens(c, c->drop_rate);
    unsigned drop_kind = drop ? (unsigned)(next_random(c) % 4) : 0;
    bool cut = drop && drop_kind < 2;
    bool late = drop && drop_kind == 3 && !corrupt;
    // A cut frame ends before the last bit of byte 5: the bridge does nothing.
    size_t cut_at_bit = cut ? (size_t)(next_random(c) % 47) : len * 8;
    if (c->faults) {
        c->faults->flipped_bits += corrupt;
        c->faults->cut_requests += cut;
        c->faults->lost_responses += drop && !cut && !late;
        c->faults->late_responses += late;
    }

    c->top->i_cs_n = 0;
    clock_cycles(c, half(c));
    for (size_t i = 0; i < len; i++) {
        uint8_t in = 0;
        for (int b = 7; b >= 0; b--) {
            if (i * 8 + (size_t)(7 - b) >= cut_at_bit) { // CS_N is up: the rest floats high
                in = (uint8_t)(in << 1 | 1u);
                continue;
            }
            c->top->i_mosi = (out[i] >> b) & 1u;
            clock_cycles(c, half(c));
            in = (uint8_t)(in << 1 | (c->top->o_miso & 1u)); // sampled at the rising edge
            c->top->i_sck = 1;
            clock_cycles(c, half(c));
            c->top->i_sck = 0;
        }
        rx[i] = in;
    }
    clock_cycles(c, half(c));
    c->top->i_cs_n = 1;
    c->top->i_mosi = 0;
    clock_cycles(c, 2 * c->half_period);
    if (corrupt && !in_request)
        rx[flip_bit / 8] ^= (uint8_t)(0x80u >> (flip_bit % 8));
    if (drop && !cut)
        for (size_t i = 0; i < len; i++)
            rx[i] = late ? 0x00 : 0xFF;
    return 0;
}

bool happens(SpiChip *c, double rate)
{
    return rate > 0 && (double)(next_random(c) % 1000000) < rate * 1e6;
}

int spi_wait_irq(void *ctx, uint64_t max_cycles)
{
    SpiChip *c = static_cast<SpiChip *>(ctx);
    for (uint64_t n = 0; n < max_cycles && !c->top->o_irq; n++)
        clock_cycles(c, 1);
    return c->top->o_irq ? 1 : 0;
}

uint64_t spi_cycles(void *ctx) { return static_cast<SpiChip *>(ctx)->cycles; }

void spi_set_ext_tick(void *ctx, int level) { static_cast<SpiChip *>(ctx)->top->i_ext_tick = level ? 1 : 0; }

void spi_reset(void *ctx)
{
    SpiChip *c = static_cast<SpiChip *>(ctx);
    c->top->i_rst = 1;
    clock_cycles(c, 2);
    c->top->i_rst = 0;
    // Out of reset the bridge takes a frame only once it has seen CS_N high
    // (docs/spi.md): keep it high the 4 clocks a frame's gap asks for.
    c->top->i_cs_n = 1;
    clock_cycles(c, 4);
}

void spi_close(void *ctx)
{
    SpiChip *c = static_cast<SpiChip *>(ctx);
    c->top->final();
    delete c->top;
    delete c;
}

const tw_spi_transport vl_spi_transport = {
    "verilator-spi", spi_transfer, spi_wait_irq, spi_cycles, spi_set_ext_tick, spi_reset, spi_close,
};

// A chip out of reset, with cfg's clocking and faults (cfg checked by the caller).
SpiChip *new_chip(const tw_vl_spi_config *cfg)
{
    SpiChip *c = new (std::nothrow) SpiChip;
    if (!c)
        return nullptr;
    c->top = new (std::nothrow) Vtw_spi_top{&c->ctx};
    if (!c->top) {
        delete c;
        return nullptr;
    }
    c->half_period = cfg->half_period;
    c->corrupt_rate = cfg->corrupt_rate;
    c->drop_rate = cfg->drop_rate;
    c->faults = cfg->faults;
    c->rng = cfg->seed;
    c->top->i_clk = 0;
    c->top->i_cs_n = 1;
    c->top->i_sck = 0;
    c->top->i_mosi = 0;
    c->top->i_ext_tick = 0;
    c->top->eval();
    spi_reset(c);
    return c;
}

bool config_ok(const tw_vl_spi_config *cfg)
{
    return cfg && cfg->half_period >= 4 && cfg->corrupt_rate >= 0 && cfg->corrupt_rate <= 1 &&
           cfg->drop_rate >= 0 && cfg->drop_rate <= 1;
}

} // namespace

int tw_vl_spi_open(tw_dev *dev, const tw_vl_spi_config *cfg)
{
    if (!dev || !config_ok(cfg))
        return TW_EINVAL;
    SpiChip *c = new_chip(cfg);
    if (!c)
        return TW_ENOMEM;

    int rc = tw_spi_open(dev, &vl_spi_transport, c, 16);
    if (rc < 0) {
        spi_close(c);
        return rc;
    }
    // The geometry is fixed when the model is Verilated: refuse a mismatch.
    uint32_t caps = 0;
    rc = tw_dev_read(dev, TW_REG_CAPS, &caps);
    if (rc == 0 && cfg->sim.levels &&
        (TW_GET(TW_CAPS_LEVELS, caps) != cfg->sim.levels ||
         TW_GET(TW_CAPS_SLOT_BITS, caps) != cfg->sim.slot_bits ||
         TW_GET(TW_CAPS_FIFO_LOG2, caps) != cfg->sim.fifo_log2))
        rc = TW_EINVAL;
    if (rc < 0) {
        tw_dev_close(dev);
        return rc;
    }
    dev->reads = dev->writes = 0;
    return 0;
}

// The bare chip (sim/tw_vl_spi.h): the same model for tests that carry the
// frames themselves instead of through tw_spi_open's link.
tw_vl_spi_chip *tw_vl_spi_chip_new(const tw_vl_spi_config *cfg)
{
    if (!config_ok(cfg))
        return nullptr;
    return new_chip(cfg);
}

void tw_vl_spi_chip_free(tw_vl_spi_chip *chip)
{
    if (chip)
        spi_close(chip);
}

int tw_vl_spi_chip_transfer(tw_vl_spi_chip *chip, const uint8_t *tx, uint8_t *rx, size_t len)
{
    return spi_transfer(chip, tx, rx, len);
}

int tw_vl_spi_chip_run(tw_vl_spi_chip *chip, uint64_t to_cycle, int stop_on_irq)
{
    while (chip->cycles < to_cycle && !(stop_on_irq && chip->top->o_irq))
        clock_cycles(chip, 1);
    return chip->top->o_irq ? 1 : 0;
}

int tw_vl_spi_chip_irq(const tw_vl_spi_chip *chip) { return chip->top->o_irq ? 1 : 0; }

uint64_t tw_vl_spi_chip_cycles(const tw_vl_spi_chip *chip) { return chip->cycles; }
