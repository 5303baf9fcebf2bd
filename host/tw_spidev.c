/* Linux spidev backend: a real tickwheel board on a host's SPI pins
 * (docs/fpga.md has the wiring). The interrupt comes from a GPIO line
 * requested through the GPIO character device (uAPI v2, Linux >= 5.10) as
 * an input with rising-edge events, or, without one, STATUS is polled.
 *
 * The uAPI is used raw, through ioctl, rather than through libgpiod: it is a
 * handful of calls, it adds no dependency, and libgpiod's 1.x and 2.x APIs
 * differ, so code written for one does not build against the other. */
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
#include "tw_spi_internal.h"

#ifdef __linux__
#include <linux/gpio.h>
#include <linux/spi/spidev.h>
#include <sys/ioctl.h>
#endif

#define POLL_US 100u
/* The line's consumer label, as gpioinfo shows it. */
#define IRQ_CONSUMER "tickwheel"

typedef struct spidev_ctx {
    int fd;
    int irq_fd; /* the IRQ line's request (GPIO_V2_GET_LINE_IOCTL), or -1 */
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

#ifdef __linux__
/* The IRQ pin's level: the level is the truth; edge events only wake a wait. */
static int irq_level(spidev_ctx *s)
{
    struct gpio_v2_line_values values = {.bits = 0, .mask = 1};
    if (ioctl(s->irq_fd, GPIO_V2_LINE_GET_VALUES_IOCTL, &values) < 0)
        return TW_EIO;
    return (int)(values.bits & 1);
}

/* Reads every queued edge event (the request fd is non-blocking). The
 * kernel hands out as many whole events as fit in a read and stops when its
 * queue is empty, so a read that does not fill the buffer emptied it. */
static int drain_edges(spidev_ctx *s)
{
    struct gpio_v2_line_event events[16];
    for (;;) {
        ssize_t n = read(s->irq_fd, events, sizeof events);
        if (n < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : TW_EIO;
        if ((size_t)n < sizeof events)
            return 0;
    }
}

/* Requests the IRQ line on a GPIO chip: one line, an input, rising edges
 * queued as events. Returns the request's fd or a TW_E* code. */
static int irq_line_request(const char *chip_path, uint32_t offset)
{
    int chip = open(chip_path, O_RDONLY | O_CLOEXEC);
    if (chip < 0)
        return errno == ENOENT ? TW_ENODEV : TW_EIO;
    struct gpio_v2_line_request req;
    memset(&req, 0, sizeof req);
    req.offsets[0] = offset;
    req.num_lines = 1;
    req.config.flags = GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_RISING;
    snprintf(req.consumer, sizeof req.consumer, "%s", IRQ_CONSUMER);
    int rc = ioctl(chip, GPIO_V2_GET_LINE_IOCTL, &req);
    int err = errno;
    /* The request lives on in its own fd, which the kernel creates with
     * close-on-exec set (gpiolib-cdev.c: get_unused_fd_flags(O_RDONLY |
     * O_CLOEXEC)); the chip is no longer needed. */
    close(chip);
    if (rc < 0) {
        switch (err) {
        case EBUSY: return TW_EBUSY;   /* another consumer, or exported through sysfs */
        case EINVAL: return TW_EINVAL; /* no such line on this chip */
        case ENOTTY: return TW_ENODEV; /* not a GPIO chip, or a kernel before 5.10 */
        default: return TW_EIO;        /* e.g. ENXIO: the line cannot interrupt */
        }
    }
    /* Non-blocking, so that draining the events stops when none are left. */
    if (fcntl(req.fd, F_SETFL, O_NONBLOCK) < 0) {
        close(req.fd);
        return TW_EIO;
    }
    return req.fd;
}
#endif

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

/* One look at the interrupt: the IRQ line's queued edge events drained,
 * then its level; or, without the line, STATUS.IRQ over the link. */
static int look_at_irq(spidev_ctx *s)
{
#ifdef __linux__
    if (s->irq_fd >= 0) {
        int rc = drain_edges(s);
        return rc < 0 ? rc : irq_level(s);
    }
#endif
    return status_irq(s);
}

/* Waits on the IRQ line's request fd, for the time left, or sleeps between
 * STATUS polls. The line's events are drained before every look at its
 * level, never between a look and the wait: an edge after the look stays
 * queued in the kernel until it is read, so the ppoll below returns at once
 * and no rise is lost between the look and the wait. Draining then reading
 * the level also means events from before the look never wake a wait.
 * A budget of 0 is one look and no wait: the events drained, the level
 * returned (what an event loop on tw_spidev_irq_fd calls on a wake). */
static int spidev_wait_irq(void *ctx, uint64_t max_cycles)
{
    spidev_ctx *s = ctx;
    uint64_t now = mono_ns(), budget = cycles_to_ns(max_cycles, s->chip_hz);
    uint64_t deadline = budget > UINT64_MAX - now ? UINT64_MAX : now + budget;
    for (;;) {
        int level = look_at_irq(s);
        if (level != 0)
            return level;
        now = mono_ns();
        if (now >= deadline)
            return 0;
        if (s->irq_fd >= 0) {
            /* ppoll, not poll: poll's whole milliseconds would turn a wait
             * of a few microseconds into one of 1 ms. */
            struct pollfd p = {.fd = s->irq_fd, .events = POLLIN};
            uint64_t left = deadline - now;
            if (left > 1000000000u)
                left = 1000000000u;
            struct timespec timeout = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
            int n = ppoll(&p, 1, &timeout, NULL);
            if (n < 0 && errno != EINTR)
                return TW_EIO;
            /* The chip went away (the GPIO device was removed). */
            if (n > 0 && (p.revents & (POLLERR | POLLHUP | POLLNVAL)))
                return TW_EIO;
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

int tw_spidev_open(tw_dev *dev, const tw_spidev_config *cfg)
{
    /* The bridge needs four chip clocks per SCK half-period (docs/spi.md). */
    if (!dev || !cfg || !cfg->spi_path || cfg->speed_hz == 0 || cfg->chip_hz == 0 ||
        cfg->speed_hz > cfg->chip_hz / 8)
        return TW_EINVAL;
    spidev_ctx *s = calloc(1, sizeof *s);
    if (!s)
        return TW_ENOMEM;
    s->irq_fd = -1;
    s->speed_hz = cfg->speed_hz;
    s->chip_hz = cfg->chip_hz;
    s->start_ns = mono_ns();
    /* O_CLOEXEC: a child the application forks must not hold the board. */
    s->fd = open(cfg->spi_path, O_RDWR | O_CLOEXEC);
    if (s->fd < 0) {
        int err = errno; /* free may change it */
        free(s);
        return err == ENOENT ? TW_ENODEV : TW_EIO;
    }
#ifdef __linux__
    uint8_t mode = SPI_MODE_0, bits = 8;
    uint32_t speed_hz = cfg->speed_hz;
    if (ioctl(s->fd, SPI_IOC_WR_MODE, &mode) < 0 || ioctl(s->fd, SPI_IOC_WR_BITS_PER_WORD, &bits) < 0 ||
        ioctl(s->fd, SPI_IOC_WR_MAX_SPEED_HZ, &speed_hz) < 0) {
        int err = errno; /* close may change it */
        spidev_close(s);
        /* ENOTTY: the file is there but is not a spidev (as for the GPIO chip). */
        return err == ENOTTY ? TW_ENODEV : TW_EIO;
    }
    if (cfg->irq_chip) {
        int fd = irq_line_request(cfg->irq_chip, cfg->irq_line);
        if (fd < 0) {
            spidev_close(s);
            return fd;
        }
        s->irq_fd = fd;
    }
#else
    if (cfg->irq_chip) {
        spidev_close(s);
        return TW_ENODEV;
    }
#endif
    int rc = tw_spi_open(dev, &spidev_transport, s, 8);
    if (rc < 0)
        spidev_close(s);
    return rc;
}

int tw_spidev_irq_fd(const tw_dev *dev)
{
    const spidev_ctx *s = tw_spi_transport_ctx(dev, &spidev_transport);
    return s ? s->irq_fd : -1;
}
