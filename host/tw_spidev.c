/* Linux spidev backend: a real tickwheel board on a host's SPI pins
 * (docs/fpga.md has the wiring). The interrupt comes from a sysfs GPIO
 * configured for rising edges, or, without one, STATUS is polled. */
#define _GNU_SOURCE /* ppoll() */
#include "tw_spi.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tw_err.h"
#include "tw_regs.h"

#ifdef __linux__
#include <linux/spi/spidev.h>
#include <sys/ioctl.h>
#endif

#define POLL_US 100u

typedef struct spidev_ctx {
    int fd, irq_fd;
    int poll_seq; /* the sequence bit of the last STATUS poll */
    uint32_t speed_hz;
    uint32_t chip_hz;   /* the board's clock: cycles are counted in it */
    uint64_t start_ns;
} spidev_ctx;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds and cycles of the board's clock, each way exactly (10^9 is
 * not a multiple of it in general) and without overflow; a budget too long
 * to represent saturates, so UINT64_MAX cycles is no timeout at all. */
static uint64_t ns_to_cycles(uint64_t ns, uint32_t hz)
{
    return ns / 1000000000u * hz + ns % 1000000000u * hz / 1000000000u;
}

static uint64_t cycles_to_ns(uint64_t cycles, uint32_t hz)
{
    uint64_t s = cycles / hz;
    if (s >= UINT64_MAX / 1000000000u)
        return UINT64_MAX;
    return s * 1000000000u + cycles % hz * 1000000000u / hz;
}

static int spidev_transfer(void *ctx, const uint8_t *tx, uint8_t *rx, size_t len)
{
#ifdef __linux__
    spidev_ctx *s = ctx;
    struct spi_ioc_transfer xfer;
    memset(&xfer, 0, sizeof xfer);
    xfer.tx_buf = (uintptr_t)tx;
    xfer.rx_buf = (uintptr_t)rx;
    xfer.len = (uint32_t)len;
    xfer.speed_hz = s->speed_hz;
    xfer.bits_per_word = 8;
    return ioctl(s->fd, SPI_IOC_MESSAGE(1), &xfer) < 0 ? TW_EIO : 0;
#else
    (void)ctx, (void)tx, (void)rx, (void)len;
    return TW_EIO;
#endif
}

/* The IRQ pin's level, from the GPIO's value file. */
static int irq_level(spidev_ctx *s)
{
    char c = '0';
    if (lseek(s->irq_fd, 0, SEEK_SET) < 0 || read(s->irq_fd, &c, 1) != 1)
        return TW_EIO;
    return c == '1';
}

/* Without an IRQ pin: STATUS.IRQ over the link itself. The bridge answers a
 * frame equal to the one before it from its saved response, so a poll must
 * differ from the link's accesses and from the poll before it: its data
 * bytes are not zero (the link sends zero in a read's) and its sequence bit
 * alternates, per device. */
#define POLL_MARK 0xFFFFFFFFu
static int status_irq(spidev_ctx *s)
{
    uint8_t tx[TW_SPI_FRAME_LEN], rx[TW_SPI_FRAME_LEN];
    uint32_t status;
    s->poll_seq = !s->poll_seq;
    tw_spi_encode(tx, 0, s->poll_seq, TW_REG_STATUS / 4, POLL_MARK);
    int rc = spidev_transfer(s, tx, rx, sizeof tx);
    if (rc == 0 && tw_spi_decode(rx, &status) < 0)
        return 0; /* a corrupted answer: look again next time */
    return rc < 0 ? rc : (int)TW_GET(TW_STATUS_IRQ, status);
}

static int spidev_wait_irq(void *ctx, uint64_t max_cycles)
{
    spidev_ctx *s = ctx;
    uint64_t now = mono_ns(), budget = cycles_to_ns(max_cycles, s->chip_hz);
    uint64_t deadline = budget > UINT64_MAX - now ? UINT64_MAX : now + budget;
    for (;;) {
        int level = s->irq_fd >= 0 ? irq_level(s) : status_irq(s);
        if (level != 0)
            return level;
        now = mono_ns();
        if (now >= deadline)
            return 0;
        if (s->irq_fd >= 0) {
            /* ppoll, not poll: poll's whole milliseconds would turn a wait
             * of a few microseconds into one of 1 ms. */
            struct pollfd p = {.fd = s->irq_fd, .events = POLLPRI | POLLERR};
            uint64_t left = deadline - now;
            if (left > 1000000000u)
                left = 1000000000u;
            struct timespec timeout = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
            ppoll(&p, 1, &timeout, NULL);
        } else {
            usleep(POLL_US);
        }
    }
}

static uint64_t spidev_cycles(void *ctx)
{
    spidev_ctx *s = ctx;
    return ns_to_cycles(mono_ns() - s->start_ns, s->chip_hz);
}

static void spidev_close(void *ctx)
{
    spidev_ctx *s = ctx;
    if (s->irq_fd >= 0)
        close(s->irq_fd);
    close(s->fd);
    free(s);
}

static const tw_spi_transport spidev_transport = {
    "spidev", spidev_transfer, spidev_wait_irq, spidev_cycles, NULL, NULL, spidev_close,
};

int tw_spidev_open(tw_dev *dev, const char *path, uint32_t speed_hz, uint32_t chip_hz, int irq_gpio)
{
    /* The bridge needs four chip clocks per SCK half-period (docs/spi.md). */
    if (!dev || !path || speed_hz == 0 || chip_hz == 0 || speed_hz > chip_hz / 8)
        return TW_EINVAL;
    spidev_ctx *s = calloc(1, sizeof *s);
    if (!s)
        return TW_ENOMEM;
    s->irq_fd = -1;
    s->speed_hz = speed_hz;
    s->chip_hz = chip_hz;
    s->start_ns = mono_ns();
    /* O_CLOEXEC: a child the application forks must not hold the board. */
    s->fd = open(path, O_RDWR | O_CLOEXEC);
    if (s->fd < 0) {
        free(s);
        return errno == ENOENT ? TW_ENODEV : TW_EIO;
    }
#ifdef __linux__
    uint8_t mode = SPI_MODE_0, bits = 8;
    if (ioctl(s->fd, SPI_IOC_WR_MODE, &mode) < 0 || ioctl(s->fd, SPI_IOC_WR_BITS_PER_WORD, &bits) < 0 ||
        ioctl(s->fd, SPI_IOC_WR_MAX_SPEED_HZ, &speed_hz) < 0) {
        spidev_close(s);
        return TW_EIO;
    }
#endif
    if (irq_gpio >= 0) {
        char name[64];
        snprintf(name, sizeof name, "/sys/class/gpio/gpio%d/value", irq_gpio);
        s->irq_fd = open(name, O_RDONLY | O_CLOEXEC);
        if (s->irq_fd < 0) { /* export the pin and set it up for rising edges first */
            spidev_close(s);
            return TW_ENODEV;
        }
    }
    int rc = tw_spi_open(dev, &spidev_transport, s, 8);
    if (rc < 0)
        spidev_close(s);
    return rc;
}
