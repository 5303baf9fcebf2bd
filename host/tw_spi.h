/* The SPI link to a standalone tickwheel board (docs/spi.md): frame coding,
 * CRC-8, and a device backend over any byte transport that retries corrupted
 * frames without doing an access twice. */
#ifndef TW_SPI_H
#define TW_SPI_H

#include <stddef.h>
#include <stdint.h>

#include "tw_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TW_SPI_FRAME_LEN 13u
/* Late (docs/spi.md): the bus had not acked in time, or was still busy with
 * an earlier access. Not an answer: the frame is repeated unchanged. */
#define TW_SPI_STATUS_LATE 0x00u
#define TW_SPI_STATUS_DONE 0x01u
#define TW_SPI_STATUS_BAD_CRC 0x02u
#define TW_SPI_STATUS_REPEAT 0x03u

/* CRC-8/SMBUS: polynomial 0x07, initial 0, no reflection, no final XOR. */
uint8_t tw_crc8(const uint8_t *bytes, size_t n);

/* Fills a request frame; word_addr is the byte address / 4. */
void tw_spi_encode(uint8_t frame[TW_SPI_FRAME_LEN], int write, int seq, unsigned word_addr,
                   uint32_t data);
/* Checks a response: returns its status (TW_SPI_STATUS_*) and the data, or
 * TW_EIO if its CRC is wrong or its status unknown or late. */
int tw_spi_decode(const uint8_t rx[TW_SPI_FRAME_LEN], uint32_t *data);

/* What carries frames: one full-duplex transfer with CS low throughout.
 * `transfer` returns 0 (or len) once all len bytes went both ways, or a
 * negative TW_E* code; a count short of len is a failed transfer. */
typedef struct tw_spi_transport {
    const char *name;
    int (*transfer)(void *ctx, const uint8_t *tx, uint8_t *rx, size_t len);
    /* The rest as in tw_dev_ops (optional ones may be NULL). */
    int (*wait_irq)(void *ctx, uint64_t max_cycles);
    uint64_t (*cycles)(void *ctx);
    void (*set_ext_tick)(void *ctx, int level);
    void (*reset)(void *ctx);
    void (*close)(void *ctx);
} tw_spi_transport;

typedef struct tw_spi_stats {
    uint64_t frames, retries, bad_responses, rejected_requests;
    uint64_t late_responses; /* of the bad responses, those with a good CRC
                              * and status late (0x00) */
} tw_spi_stats;

/* A device whose register accesses are SPI frames over `transport`.
 * A frame whose response is corrupted or rejected is sent again unchanged
 * (the bridge answers a repeat from its saved response), up to max_tries. */
int tw_spi_open(tw_dev *dev, const tw_spi_transport *transport, void *transport_ctx,
                unsigned max_tries);
/* Statistics of a device opened by tw_spi_open (NULL for any other). */
const tw_spi_stats *tw_spi_get_stats(const tw_dev *dev);

/* A board's backend over this link: Linux spidev, the board on a host's SPI
 * pins (docs/fpga.md has the wiring). The simulator's, over the Verilated
 * FPGA top, is in sim/tw_vl_spi.h. */
typedef struct tw_spidev_config {
    const char *spi_path;  /* e.g. "/dev/spidev0.0" */
    uint32_t speed_hz;     /* SCK, at most chip_hz / 8 (the bridge samples SCK
                            * in the chip's clock): faster is TW_EINVAL */
    uint32_t chip_hz;      /* the clock the bitstream runs at (make fpga's
                            * FPGA_MHZ_<board>: 48 MHz on the iCEBreaker,
                            * 120 MHz on the HX8K): the backend counts the
                            * board's cycles and wait budgets in it */
    const char *irq_chip;  /* the GPIO chip of the IRQ pin, e.g. "/dev/gpiochip0"
                            * (gpiodetect, gpioinfo); NULL: poll STATUS over SPI */
    uint32_t irq_line;     /* the IRQ pin's line offset on irq_chip (the BCM
                            * number on a Raspberry Pi's gpiochip0) */
} tw_spidev_config;
/* The IRQ line is requested through the GPIO character device (uAPI v2,
 * Linux >= 5.10) as an input with rising edges, consumer "tickwheel", and
 * held until tw_dev_close. Errors: TW_EINVAL for a NULL or bad argument or a
 * line the chip does not have, TW_ENODEV for a missing device or GPIO chip,
 * or a file that is not one (its setup ioctl answers ENOTTY; for a GPIO
 * chip, also one without the v2 uAPI), TW_EBUSY for a line another user holds,
 * TW_EIO for anything else the kernel refuses (e.g. no permission on the
 * device files); nothing stays open after an error. */
int tw_spidev_open(tw_dev *dev, const tw_spidev_config *cfg);
/* The IRQ line's request fd, for an application's own poll/epoll: readable
 * (POLLIN) once the line has risen since its edge events were last consumed.
 * On a wake, tw_dev_wait_irq(dev, 0) consumes them and returns the line's
 * level (1 high, 0 low) without waiting; then service the wheel. Only rises
 * wake the fd, and the line stays high while events wait, so sleep no longer
 * than tw_ticks_until_next says (0 while events wait). The fd stays the
 * device's: do not read, close or change it (tw_dev_close closes it).
 * Returns -1 for NULL, a device tw_spidev_open did not open, or one opened
 * without an IRQ line (irq_chip NULL: STATUS is polled, no fd to wait on). */
int tw_spidev_irq_fd(const tw_dev *dev);

#ifdef __cplusplus
}
#endif

#endif
