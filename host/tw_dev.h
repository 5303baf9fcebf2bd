/* tickwheel device interface: the only way the driver talks to a chip.
 *
 * A backend supplies register reads and writes (byte addresses from tw_regs.h)
 * and a way to wait for the interrupt line. Simulated backends also run the
 * chip's clock while the driver waits, so virtual and real time both work
 * against them exactly as against a board.
 */
#ifndef TW_DEV_H
#define TW_DEV_H

#include <stdint.h>

#include "tw_err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tw_dev_ops {
    const char *name;
    /* One bus transaction each. Return 0, or a negative TW_E* code. */
    int (*read)(void *ctx, uint32_t addr, uint32_t *value);
    int (*write)(void *ctx, uint32_t addr, uint32_t value);
    /* Let the chip run until its interrupt line is high or max_cycles clock
     * cycles have passed. Returns 1 if the line is high, 0 on timeout, or a
     * negative TW_E* code. */
    int (*wait_irq)(void *ctx, uint64_t max_cycles);
    /* Clock cycles the chip has run since it was opened (0 if unknown). */
    uint64_t (*cycles)(void *ctx);
    /* Optional (NULL where the backend has no such pin): drive the external
     * tick input, and pulse the chip's reset. */
    void (*set_ext_tick)(void *ctx, int level);
    void (*reset)(void *ctx);
    void (*close)(void *ctx);
} tw_dev_ops;

typedef struct tw_dev {
    const tw_dev_ops *ops;
    void *ctx;
    /* Statistics kept by tw_dev_read/tw_dev_write/tw_dev_wait_irq. */
    uint64_t reads, writes, waits, irqs;
} tw_dev;

/* A closed device (tw_dev_close) answers every call with TW_ENODEV, so a
 * wheel still attached to it gets an error, not a crash. */
static inline int tw_dev_read(tw_dev *d, uint32_t addr, uint32_t *value)
{
    d->reads++;
    return d->ops ? d->ops->read(d->ctx, addr, value) : TW_ENODEV;
}

static inline int tw_dev_write(tw_dev *d, uint32_t addr, uint32_t value)
{
    d->writes++;
    return d->ops ? d->ops->write(d->ctx, addr, value) : TW_ENODEV;
}

static inline int tw_dev_wait_irq(tw_dev *d, uint64_t max_cycles)
{
    int rc = d->ops ? d->ops->wait_irq(d->ctx, max_cycles) : TW_ENODEV;
    d->waits++;
    if (rc > 0)
        d->irqs++;
    return rc;
}

static inline uint64_t tw_dev_cycles(tw_dev *d)
{
    return d->ops && d->ops->cycles ? d->ops->cycles(d->ctx) : 0;
}

static inline void tw_dev_close(tw_dev *d)
{
    if (d->ops && d->ops->close)
        d->ops->close(d->ctx);
    d->ops = 0;
    d->ctx = 0;
}

/* Geometry of a simulated chip. */
typedef struct tw_sim_config {
    unsigned levels;     /* 1..4 */
    unsigned slot_bits;  /* 2..12, levels * slot_bits <= 44 */
    unsigned fifo_log2;  /* 2..12 */
    const char *trace;   /* Verilator backend only: waveform file (FST), or NULL */
} tw_sim_config;

/* Backends. Each returns 0 and fills *dev, or a negative TW_E* code. The
 * Verilated RTL's, tw_vl_open, is the simulator's (sim/tw_vl.h), not the
 * installed library's. */
int tw_model_open(tw_dev *dev, const tw_sim_config *cfg);  /* C model (host/tw_model.c) */
/* C model only: run its clock `cycles` cycles whether or not the interrupt
 * line is high, as a board's clock does. Returns the line (1 or 0), or a
 * negative TW_E* code for a device that is not the C model. */
int tw_model_run(tw_dev *dev, uint64_t cycles);

#ifdef __cplusplus
}
#endif

#endif
