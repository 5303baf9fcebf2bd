/* SPI frames and the retrying device backend over a byte transport. */
#include "tw_spi.h"

#include <stdlib.h>
#include <string.h>

#include "tw_err.h"
#include "tw_regs.h"
#include "tw_spi_internal.h"

uint8_t tw_crc8(const uint8_t *bytes, size_t n)
{
    uint8_t crc = 0;
    for (size_t i = 0; i < n; i++) {
        crc ^= bytes[i];
        for (int b = 0; b < 8; b++)
            crc = (uint8_t)((crc & 0x80u) ? ((unsigned)crc << 1) ^ 0x07u : (unsigned)crc << 1);
    }
    return crc;
}

_Static_assert(TW_REG_COUNT == 64, "a frame's first byte carries six bits of word address");

void tw_spi_encode(uint8_t frame[TW_SPI_FRAME_LEN], int write, int seq, unsigned word_addr,
                   uint32_t data)
{
    memset(frame, 0, TW_SPI_FRAME_LEN);
    frame[0] = (uint8_t)((write ? 0x80u : 0) | (seq ? 0x40u : 0) | (word_addr & (TW_REG_COUNT - 1u)));
    frame[1] = (uint8_t)(data >> 24);
    frame[2] = (uint8_t)(data >> 16);
    frame[3] = (uint8_t)(data >> 8);
    frame[4] = (uint8_t)data;
    frame[5] = tw_crc8(frame, 5);
}

int tw_spi_decode(const uint8_t rx[TW_SPI_FRAME_LEN], uint32_t *data)
{
    if (tw_crc8(rx + 7, 5) != rx[12])
        return TW_EIO;
    if (rx[7] < TW_SPI_STATUS_DONE || rx[7] > TW_SPI_STATUS_REPEAT)
        return TW_EIO;
    if (data)
        *data = (uint32_t)rx[8] << 24 | (uint32_t)rx[9] << 16 | (uint32_t)rx[10] << 8 | rx[11];
    return rx[7];
}

typedef struct spi_link {
    const tw_spi_transport *t;
    void *tctx;
    unsigned max_tries;
    int seq;
    /* An access failed: its frame may or may not have reached the bridge,
     * so the bridge's saved request is that frame or the one before. */
    int unsure;
    int resync_seq;
    tw_spi_stats stats;
} spi_link;

/* Sends one request until a response checks out, unchanged each time. */
static int exchange(spi_link *l, const uint8_t tx[TW_SPI_FRAME_LEN], uint32_t *rdata)
{
    uint8_t rx[TW_SPI_FRAME_LEN];
    for (unsigned attempt = 0; attempt < l->max_tries; attempt++) {
        uint32_t value;
        if (attempt)
            l->stats.retries++;
        l->stats.frames++;
        /* A transport that writes nothing back leaves all ones, which no
         * response checks out as: never the last frame's answer again. */
        memset(rx, 0xFF, sizeof rx);
        int rc = l->t->transfer(l->tctx, tx, rx, TW_SPI_FRAME_LEN);
        if (rc != 0 && rc != (int)TW_SPI_FRAME_LEN) {
            /* Failed, or only part of the frame clocked (a count short of
             * it): the access may or may not have happened. */
            l->unsure = 1;
            return rc < 0 ? rc : TW_EIO;
        }
        rc = tw_spi_decode(rx, &value);
        if (rc == TW_SPI_STATUS_BAD_CRC) {
            l->stats.rejected_requests++;
            continue;
        }
        /* A corrupted or late response. A late access is done once, and
         * saved by the bridge: the unchanged frame gets its answer (0x03),
         * or late again while the bus is still busy; never a second access. */
        if (rc < 0) {
            l->stats.bad_responses++;
            if (rx[7] == TW_SPI_STATUS_LATE && tw_crc8(rx + 7, 5) == rx[12])
                l->stats.late_responses++;
            continue;
        }
        if (rdata)
            *rdata = value;
        l->unsure = 0;
        return 0;
    }
    l->unsure = 1;
    return TW_EIO;
}

/* Marks a resynchronising read: the link's own reads send zero data. */
#define RESYNC_MARK 0x5EC0FFEEu

static int link_access(spi_link *l, uint32_t addr, int write, uint32_t wdata, uint32_t *rdata)
{
    uint8_t tx[TW_SPI_FRAME_LEN];
    if (addr % 4 != 0 || addr / 4 >= TW_REG_COUNT)
        return TW_EINVAL;
    /* After a failure, the new access could equal the one before the failed
     * frame and get its saved answer (a popped event twice): a read of ID
     * that equals neither moves the bridge on first. */
    if (l->unsure) {
        l->resync_seq = !l->resync_seq;
        tw_spi_encode(tx, 0, l->resync_seq, TW_REG_ID / 4, RESYNC_MARK);
        int rc = exchange(l, tx, NULL);
        if (rc < 0)
            return rc;
    }
    l->seq = !l->seq; /* a new access; its retries keep this bit */
    tw_spi_encode(tx, write, l->seq, addr / 4, wdata);
    return exchange(l, tx, rdata);
}

static int link_read(void *ctx, uint32_t addr, uint32_t *value)
{
    return value ? link_access(ctx, addr, 0, 0, value) : TW_EINVAL;
}

static int link_write(void *ctx, uint32_t addr, uint32_t value)
{
    return link_access(ctx, addr, 1, value, NULL);
}

static int link_wait_irq(void *ctx, uint64_t max_cycles)
{
    spi_link *l = ctx;
    return l->t->wait_irq ? l->t->wait_irq(l->tctx, max_cycles) : 0;
}

static uint64_t link_cycles(void *ctx)
{
    spi_link *l = ctx;
    return l->t->cycles ? l->t->cycles(l->tctx) : 0;
}

static void link_set_ext_tick(void *ctx, int level)
{
    spi_link *l = ctx;
    if (l->t->set_ext_tick)
        l->t->set_ext_tick(l->tctx, level);
}

static void link_reset(void *ctx)
{
    spi_link *l = ctx;
    if (l->t->reset)
        l->t->reset(l->tctx);
}

static void link_close(void *ctx)
{
    spi_link *l = ctx;
    if (l->t->close)
        l->t->close(l->tctx);
    free(l);
}

static const tw_dev_ops link_ops = {
    .name = "spi",
    .read = link_read,
    .write = link_write,
    .wait_irq = link_wait_irq,
    .cycles = link_cycles,
    .set_ext_tick = link_set_ext_tick,
    .reset = link_reset,
    .close = link_close,
};

int tw_spi_open(tw_dev *dev, const tw_spi_transport *transport, void *transport_ctx,
                unsigned max_tries)
{
    if (!dev || !transport || !transport->transfer || max_tries == 0)
        return TW_EINVAL;
    spi_link *l = calloc(1, sizeof *l);
    if (!l)
        return TW_ENOMEM;
    l->t = transport;
    l->tctx = transport_ctx;
    l->max_tries = max_tries;
    memset(dev, 0, sizeof *dev);
    dev->ops = &link_ops;
    dev->ctx = l;
    /* The bridge may still hold a saved request from before this host
     * started; a first frame that matched it would get a stale answer. A
     * read of ID is harmless either way and moves the saved request on. */
    uint32_t id;
    int rc = link_access(l, TW_REG_ID, 0, 0, &id);
    if (rc < 0) {
        free(l);
        memset(dev, 0, sizeof *dev);
        return rc;
    }
    return 0;
}

const tw_spi_stats *tw_spi_get_stats(const tw_dev *dev)
{
    if (!dev || dev->ops != &link_ops)
        return NULL;
    return &((const spi_link *)dev->ctx)->stats;
}

void *tw_spi_transport_ctx(const tw_dev *dev, const tw_spi_transport *transport)
{
    if (!dev || dev->ops != &link_ops || !transport)
        return NULL;
    const spi_link *l = dev->ctx;
    return l->t == transport ? l->tctx : NULL;
}
