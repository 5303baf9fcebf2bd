/* The Linux spidev backend (host/tw_spidev.c) end to end, without a board.
 *
 * This program defines ioctl, open, close, read, ppoll, poll, usleep and
 * clock_gettime, so the backend's calls to them land here (the linker binds
 * the library's references to the executable's definitions; nothing in the
 * backend changes). A regular file stands in for /dev/spidevB.C: each
 * SPI_IOC_MESSAGE on it is clocked bit by bit through the Verilated FPGA top
 * (sim/tw_vl_spi.h: bridge + core). FAKE_CHIP stands in for a GPIO chip
 * (/dev/gpiochipN, uAPI v2) whose line FAKE_LINE is the chip's interrupt
 * pin: GPIO_V2_GET_LINE_IOCTL on it hands out a request fd (a /dev/null
 * descriptor underneath), GPIO_V2_LINE_GET_VALUES_IOCTL on that reads the
 * pin, each rising edge queues a gpio_v2_line_event that read() hands out,
 * and a ppoll() (or poll()) for POLLIN returns at once while events are
 * queued, or runs the chip until the pin rises. Time is the boards' own: CLOCK_MONOTONIC
 * reads their clock (48 MHz; 120 MHz in clock_120mhz), and sleeping or
 * polling runs it, so a run takes no real time waiting and replays from its
 * seed.
 *
 *   test-spidev [--seed N] [--ops N]
 */
#undef _FORTIFY_SOURCE /* open() and read() are defined below */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/gpio.h>
#include <linux/spi/spidev.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tw_regs.h"
#include "tw_spi.h"
#include "tw_test.h"
#include "tw_vl_spi.h"

int tw_driver_suite_only(const tw_backend *b, const char *const *only);
int tw_random_run(const tw_backend *b, uint64_t seed, long ops, uint64_t summary[6], unsigned coarse_shift,
                  unsigned visit_batch);

#define BOARD_HZ 48000000u /* the iCEBreaker's clock; test_clock_hx8k runs at 120 MHz */
#define SPEED_HZ 6000000u  /* the bridge's limit at 48 MHz: f_sys / 8 */
#define FAKE_CHIP "/dev/tw-stand-in-gpiochip" /* opened here, never by the kernel */
#define FAKE_CHIP_LINES 58 /* as a Raspberry Pi 4's gpiochip0 */
#define FAKE_LINE 25       /* the IRQ pin: GPIO25, as docs/fpga.md wires it */
/* The kernel's event queue for a one-line request that leaves
 * event_buffer_size at 0; when it is full the oldest event is dropped. */
#define LINE_EVENTS_MAX 16
/* Waits in a row that queued events answer at once, without a read: past
 * this the backend is spinning, and the stand-in lets time pass. */
#define SPIN_LIMIT 1000
#define REQUEST_LEN 6 /* a frame's request: command, four data bytes, CRC */
#define MAX_BOARDS 4
/* The fewest operations a random run gets: with fewer, too few timers start
 * for the oracle to be sure to see any fire (at 50, some seeds fire one). */
#define MIN_RANDOM_OPS 100

/* ------------------------------------------------------------ the boards */

typedef struct board {
    int fd;              /* the spidev file descriptor the backend holds; -1: free */
    int irq_seen;        /* the IRQ pin's level when last looked at, for its edges */
    unsigned setup;      /* which setup ioctls came: 1 mode, 2 bits, 4 speed */
    uint8_t mode, bits;
    uint32_t speed;
    tw_vl_spi_chip *chip;
    uint64_t born;       /* the shared clock when the chip started */
    /* A request the bridge took whose response was corrupted here: a retry
     * of it may be answered as a repeat, until the bridge takes another. */
    int retry_owed;
    uint8_t retry_of[TW_SPI_FRAME_LEN];
} board;

static struct {
    char spidev_path[64];
    dev_t spidev_dev;
    ino_t spidev_ino;
    board boards[MAX_BOARDS];
    int last_board;          /* the last one set up: a line request wires its IRQ pin to FAKE_LINE */
    int chip_fds[MAX_BOARDS]; /* the backend's descriptors of FAKE_CHIP; -1: free */
    struct {
        int fd;              /* the backend's line request, or -1: the line is free */
        board *board;        /* whose IRQ pin the line is */
        struct gpio_v2_line_event queue[LINE_EVENTS_MAX];
        unsigned head, unread;
        uint32_t seqno;
        unsigned immediate_wakes; /* waits in a row answered at once by unread events */
        uint64_t last_edge;  /* the shared clock at the last rising edge */
        int gone;            /* the GPIO chip was removed: every call on the request fails */
    } line;
    struct gpio_v2_line_request request; /* the last line request, as the backend asked */
    int refuse_line;         /* an errno to refuse line requests with (0: none) */
    uint64_t look_cycles;    /* how long reading the line may take: until it rises, at most this */
    uint64_t now;            /* the shared board clock, in cycles */
    uint32_t hz;             /* its rate, for sleeps, polls and CLOCK_MONOTONIC */
    uint64_t hz_since, ns_at_hz; /* now and the monotonic time when hz was set */
    unsigned long fail_request; /* an ioctl request to refuse (0: none) */
    unsigned corrupt_ppm;    /* frames with one bit flipped, per million */
    uint64_t rng;
    /* What happened, for the checks. */
    uint64_t frames, flipped_requests, flipped_responses, stale_repeats, gpio_polls, sleeps;
    uint64_t longest_wait_ns; /* the longest timeout asked of a wait on the line */
    uint64_t edges, edges_read, edges_dropped; /* rising edges queued, read, lost to a full queue */
    uint64_t looks, looks_with_unread; /* reads of the line's level; those with events unread */
    unsigned long violations;
    char violation[200];
} fake = {.last_board = -1, .line = {.fd = -1}, .hz = BOARD_HZ, .ns_at_hz = 1000000000000u};

/* CLOCK_MONOTONIC in ns: counts on from where it was when the rate changed,
 * so it never goes back. The start is arbitrary, so nothing depends on the
 * clock reading zero. */
static uint64_t fake_ns(void)
{
    uint64_t c = fake.now - fake.hz_since;
    return fake.ns_at_hz + c / fake.hz * 1000000000u + c % fake.hz * 1000000000u / fake.hz;
}

/* Boards clocked at hz from now on (none may be open). */
static void set_board_hz(uint32_t hz)
{
    fake.ns_at_hz = fake_ns();
    fake.hz_since = fake.now;
    fake.hz = hz;
}

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void violation(const char *fmt, ...)
{
    if (fake.violations++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(fake.violation, sizeof fake.violation, fmt, ap);
        va_end(ap);
    }
}

static uint64_t fake_random(void)
{
    tw_rng r = {fake.rng};
    uint64_t v = tw_rng_next(&r);
    fake.rng = r.s;
    return v;
}

static board *board_of_fd(int fd)
{
    for (int i = 0; i < MAX_BOARDS; i++)
        if (fake.boards[i].fd == fd && fd >= 0)
            return &fake.boards[i];
    return NULL;
}

static int *chip_fd_slot(int fd)
{
    for (int i = 0; i < MAX_BOARDS; i++)
        if (fake.chip_fds[i] == fd)
            return &fake.chip_fds[i];
    return NULL;
}

static int chip_fds_open(void)
{
    int n = 0;
    for (int i = 0; i < MAX_BOARDS; i++)
        n += fake.chip_fds[i] >= 0;
    return n;
}

static int is_line_fd(int fd)
{
    return fd >= 0 && fd == fake.line.fd;
}

static int is_spidev_fd(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && st.st_dev == fake.spidev_dev && st.st_ino == fake.spidev_ino;
}

static void queue_edge(void)
{
    if (fake.line.unread == LINE_EVENTS_MAX) {
        fake.line.head = (fake.line.head + 1) % LINE_EVENTS_MAX;
        fake.line.unread--;
        fake.edges_dropped++;
    }
    struct gpio_v2_line_event *e = &fake.line.queue[(fake.line.head + fake.line.unread) % LINE_EVENTS_MAX];
    memset(e, 0, sizeof *e);
    e->timestamp_ns = fake_ns();
    e->id = GPIO_V2_LINE_EVENT_RISING_EDGE;
    e->offset = FAKE_LINE;
    e->seqno = e->line_seqno = ++fake.line.seqno;
    fake.line.unread++;
    fake.line.last_edge = fake.now;
    fake.edges++;
}

/* A rise of the requested line's pin queues an event. Edges are seen where
 * the stand-in looks: after each transfer, sleep, wait or read of the line.
 * A rise and fall within one transfer goes unseen; its event would only
 * have woken a wait that then finds the line low. */
static void watch_irq(board *b)
{
    int level = tw_vl_spi_chip_irq(b->chip);
    if (level && !b->irq_seen && fake.line.fd >= 0 && fake.line.board == b)
        queue_edge();
    b->irq_seen = level;
}

/* Every board's clock runs on to the shared clock. */
static void run_boards(uint64_t to)
{
    if (to > fake.now)
        fake.now = to;
    for (int i = 0; i < MAX_BOARDS; i++) {
        board *b = &fake.boards[i];
        if (b->chip) {
            tw_vl_spi_chip_run(b->chip, fake.now - b->born, 0);
            watch_irq(b);
        }
    }
}

static void board_free(board *b)
{
    if (b->chip)
        tw_vl_spi_chip_free(b->chip);
    if (fake.line.board == b)
        fake.line.board = NULL; /* a request left open reads a dead pin */
    memset(b, 0, sizeof *b);
    b->fd = -1;
}

static board *board_new(int fd)
{
    for (int i = 0; i < MAX_BOARDS; i++) {
        board *b = &fake.boards[i];
        if (b->fd < 0) {
            board_free(b);
            b->fd = fd;
            fake.last_board = i;
            return b;
        }
    }
    violation("more than %d boards open at once", MAX_BOARDS);
    return NULL;
}

/* The chip comes up once the backend has set the clock rate it will use. */
static int board_start(board *b)
{
    unsigned half = (fake.hz + 2 * b->speed - 1) / (2 * b->speed);
    if (half < 4)
        violation("SCK %u Hz is above the bridge's limit of f_sys / 8", (unsigned)b->speed);
    tw_vl_spi_config cfg = {.half_period = half < 4 ? 4 : half, .seed = fake_random()};
    b->chip = tw_vl_spi_chip_new(&cfg);
    if (!b->chip)
        return -1;
    b->born = fake.now;
    b->irq_seen = tw_vl_spi_chip_irq(b->chip);
    return 0;
}

static int transfer(board *b, struct spi_ioc_transfer *x)
{
    if (b->setup != 7 || b->mode != SPI_MODE_0 || b->bits != 8)
        violation("a transfer before the setup (mode %u, %u bits, setup 0x%x)", b->mode, b->bits, b->setup);
    if (x->len != TW_SPI_FRAME_LEN || !x->tx_buf || !x->rx_buf)
        violation("a transfer of %u bytes, tx %s, rx %s", (unsigned)x->len, x->tx_buf ? "set" : "NULL",
                  x->rx_buf ? "set" : "NULL");
    if ((x->speed_hz && x->speed_hz != b->speed) || (x->bits_per_word && x->bits_per_word != 8) ||
        x->cs_change || x->delay_usecs)
        violation("a transfer at %u Hz (set %u), %u bits, cs_change %u, delay %u", (unsigned)x->speed_hz,
                  (unsigned)b->speed, x->bits_per_word, x->cs_change, x->delay_usecs);
    if (!b->chip || x->len != TW_SPI_FRAME_LEN || !x->tx_buf || !x->rx_buf) {
        errno = EINVAL;
        return -1;
    }
    uint8_t tx[TW_SPI_FRAME_LEN], sent[TW_SPI_FRAME_LEN], *rx = (uint8_t *)(uintptr_t)x->rx_buf;
    memcpy(tx, (const void *)(uintptr_t)x->tx_buf, sizeof tx);
    memcpy(sent, tx, sizeof sent);
    /* A flipped bit on MOSI lands in the request (bytes 0-5, which the
     * bridge checks), on MISO in the response (bytes 7-12). */
    int flip = fake.corrupt_ppm && fake_random() % 1000000 < fake.corrupt_ppm;
    int in_request = flip && (fake_random() & 1);
    unsigned bit = (unsigned)(fake_random() % 48);
    if (in_request) {
        tx[bit / 8] ^= (uint8_t)(0x80u >> (bit % 8));
        fake.flipped_requests++;
    }
    int rc = tw_vl_spi_chip_transfer(b->chip, tx, rx, TW_SPI_FRAME_LEN);
    fake.frames++;
    /* A repeat is answered from the saved response, so only a retry of a
     * request the bridge took and whose response was lost may get one, even
     * with rejected (corrupted) requests in between: any other is a new
     * access that the bridge took for an old one. */
    if (rx[7] == TW_SPI_STATUS_REPEAT && !(b->retry_owed && !memcmp(sent, b->retry_of, REQUEST_LEN)))
        fake.stale_repeats++;
    int response_hit = flip && !in_request;
    if (!in_request) { /* the bridge took this request (a flipped one it rejects) */
        b->retry_owed = response_hit;
        memcpy(b->retry_of, sent, sizeof sent);
    }
    if (response_hit) {
        rx[7 + bit / 8] ^= (uint8_t)(0x80u >> (bit % 8));
        fake.flipped_responses++;
    }
    run_boards(b->born + tw_vl_spi_chip_cycles(b->chip));
    if (rc < 0) {
        errno = EIO;
        return -1;
    }
    return 0;
}

/* GPIO_V2_GET_LINE_IOCTL on FAKE_CHIP: checks that the backend asks for
 * exactly its IRQ pin, and answers as the kernel would. */
static int request_line(struct gpio_v2_line_request *r)
{
    fake.request = *r;
    int consumer_named = memchr(r->consumer, 0, sizeof r->consumer) && r->consumer[0];
    if (r->num_lines != 1 || r->config.flags != (GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_RISING) ||
        r->config.num_attrs != 0 || !consumer_named)
        violation("a line request for %u lines, flags 0x%llx, %u attributes, consumer %s", (unsigned)r->num_lines,
                  (unsigned long long)r->config.flags, (unsigned)r->config.num_attrs,
                  consumer_named ? "named" : "unnamed");
    static const uint32_t zero[5];
    if (memcmp(r->padding, zero, sizeof r->padding) || memcmp(r->config.padding, zero, sizeof r->config.padding)) {
        violation("a line request with its padding not zeroed");
        errno = EINVAL; /* the kernel refuses it */
        return -1;
    }
    if (fake.refuse_line) {
        errno = fake.refuse_line;
        return -1;
    }
    if (r->num_lines < 1 || r->num_lines > GPIO_V2_LINES_MAX || r->offsets[0] >= FAKE_CHIP_LINES) {
        errno = EINVAL;
        return -1;
    }
    if (r->offsets[0] != FAKE_LINE) {
        violation("line %u requested; the IRQ pin is line %u", (unsigned)r->offsets[0], FAKE_LINE);
        errno = EINVAL;
        return -1;
    }
    if (fake.line.fd >= 0) {
        errno = EBUSY;
        return -1;
    }
    board *b = fake.last_board >= 0 ? &fake.boards[fake.last_board] : NULL;
    if (!b || !b->chip) {
        violation("a line request with no board set up");
        errno = ENODEV;
        return -1;
    }
    /* The kernel's request fd has close-on-exec set. */
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    memset(&fake.line, 0, sizeof fake.line);
    fake.line.fd = fd;
    fake.line.board = b;
    b->irq_seen = tw_vl_spi_chip_irq(b->chip); /* edges from the request on */
    r->fd = fd;
    return 0;
}

/* GPIO_V2_LINE_GET_VALUES_IOCTL on the request: the IRQ pin's level. With
 * look_cycles set, the call returns late, when the pin has risen (as a
 * call preempted on its way back would): the rise falls between the
 * backend's look and its wait. */
static int read_line(struct gpio_v2_line_values *v)
{
    if (v->mask != 1)
        violation("the line's value read with mask 0x%llx", (unsigned long long)v->mask);
    if (fake.line.gone) {
        errno = ENODEV;
        return -1;
    }
    fake.looks++;
    fake.looks_with_unread += fake.line.unread > 0;
    board *b = fake.line.board;
    int level = b && b->chip ? tw_vl_spi_chip_irq(b->chip) : 0;
    v->bits = (uint64_t)level & v->mask;
    if (b && b->chip && !level && fake.look_cycles) {
        tw_vl_spi_chip_run(b->chip, fake.now + fake.look_cycles - b->born, 1);
        run_boards(b->born + tw_vl_spi_chip_cycles(b->chip));
    }
    return 0;
}

/* ------------------------------------------- the calls the backend makes */

int ioctl(int fd, unsigned long req, ...)
{
    va_list ap;
    va_start(ap, req);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    if (fd >= 0 && chip_fd_slot(fd)) {
        if (req == GPIO_V2_GET_LINE_IOCTL)
            return request_line(arg);
        violation("ioctl 0x%lx on the GPIO chip", req);
        errno = ENOTTY;
        return -1;
    }
    if (is_line_fd(fd)) {
        if (req == GPIO_V2_LINE_GET_VALUES_IOCTL)
            return read_line(arg);
        violation("ioctl 0x%lx on the line request", req);
        errno = ENOTTY;
        return -1;
    }
    board *b = board_of_fd(fd);
    if (!b && is_spidev_fd(fd))
        b = board_new(fd);
    if (!b)
        return (int)syscall(SYS_ioctl, fd, req, arg);
    if (fake.fail_request == req) {
        errno = EIO;
        return -1;
    }
    switch (req) {
    case SPI_IOC_WR_MODE:
        b->mode = *(const uint8_t *)arg;
        b->setup |= 1;
        return 0;
    case SPI_IOC_WR_BITS_PER_WORD:
        b->bits = *(const uint8_t *)arg;
        b->setup |= 2;
        return 0;
    case SPI_IOC_WR_MAX_SPEED_HZ:
        b->speed = *(const uint32_t *)arg;
        b->setup |= 4;
        if (b->speed == 0 || b->chip) {
            violation("speed %u Hz, chip %s", (unsigned)b->speed, b->chip ? "already up" : "down");
            errno = EINVAL;
            return -1;
        }
        return board_start(b) < 0 ? (errno = ENOMEM, -1) : 0;
    case SPI_IOC_MESSAGE(1):
        return transfer(b, arg);
    default:
        violation("ioctl 0x%lx on the spidev", req);
        errno = ENOTTY;
        return -1;
    }
}

int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (!strcmp(path, FAKE_CHIP)) {
        if (!(flags & O_CLOEXEC))
            violation("the GPIO chip opened without O_CLOEXEC");
        int *slot = chip_fd_slot(-1);
        if (!slot) {
            violation("the GPIO chip open %d times at once", MAX_BOARDS);
            errno = EMFILE;
            return -1;
        }
        *slot = (int)syscall(SYS_openat, AT_FDCWD, "/dev/null", flags & (O_ACCMODE | O_CLOEXEC));
        return *slot;
    }
    if (!strcmp(path, fake.spidev_path) && !(flags & O_CLOEXEC))
        violation("the device opened without O_CLOEXEC");
    return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

int close(int fd)
{
    board *b = board_of_fd(fd);
    int *chip = fd >= 0 ? chip_fd_slot(fd) : NULL;
    if (b)
        board_free(b);
    else if (chip)
        *chip = -1;
    else if (is_line_fd(fd))
        memset(&fake.line, 0, sizeof fake.line), fake.line.fd = -1;
    return (int)syscall(SYS_close, fd);
}

/* On the line request: the queued edge events, as many whole ones as fit. */
ssize_t read(int fd, void *buf, size_t n)
{
    if (!is_line_fd(fd))
        return (ssize_t)syscall(SYS_read, fd, buf, n);
    const size_t size = sizeof(struct gpio_v2_line_event);
    if (fake.line.gone) {
        errno = ENODEV;
        return -1;
    }
    if (n < size) {
        violation("a read of %zu bytes from the line request", n);
        errno = EINVAL;
        return -1;
    }
    if (!fake.line.unread) {
        int flags = fcntl(fd, F_GETFL);
        if (flags < 0 || !(flags & O_NONBLOCK))
            violation("a blocking read of the line request with no event queued");
        errno = EAGAIN;
        return -1;
    }
    size_t k = 0;
    for (; fake.line.unread && (k + 1) * size <= n; k++) {
        memcpy((char *)buf + k * size, &fake.line.queue[fake.line.head], size);
        fake.line.head = (fake.line.head + 1) % LINE_EVENTS_MAX;
        fake.line.unread--;
    }
    fake.edges_read += k;
    fake.line.immediate_wakes = 0;
    return (ssize_t)(k * size);
}

int usleep(useconds_t us)
{
    fake.sleeps++;
    run_boards(fake.now + (uint64_t)us * fake.hz / 1000000u);
    return 0;
}

/* A poll for descriptors other than the line request: the kernel's. */
static int kernel_ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout, const sigset_t *mask)
{
    struct timespec left; /* the system call writes back the time left */
    if (timeout)
        left = *timeout;
    return (int)syscall(SYS_ppoll, fds, n, timeout ? &left : NULL, mask, 8 /* the kernel's sigset: 64 bits */);
}

/* A wait on the line request: at once while events are queued (the
 * kernel's POLLIN), else the chip runs until its pin rises or the timeout
 * passes, rounded up to a whole clock so that the backend's clock reaches
 * its deadline. A pin already high must fall before it can rise. */
static int wait_line(struct pollfd *fd, const struct timespec *timeout)
{
    fake.gpio_polls++;
    if (!(fd->events & POLLIN))
        violation("a wait on the line request without POLLIN");
    uint64_t ns = 1000000000u;
    if (!timeout)
        violation("a wait on the line request without a timeout");
    else if (timeout->tv_sec < 0 || timeout->tv_nsec < 0 || timeout->tv_nsec >= 1000000000) {
        violation("a wait on the line request for %lld s + %ld ns", (long long)timeout->tv_sec, timeout->tv_nsec);
        errno = EINVAL;
        return -1;
    } else if (timeout->tv_sec >= 3600) {
        ns = UINT64_MAX; /* recorded as such; the chip runs an hour at most */
    } else {
        ns = (uint64_t)timeout->tv_sec * 1000000000u + (uint64_t)timeout->tv_nsec;
    }
    if (ns > fake.longest_wait_ns)
        fake.longest_wait_ns = ns;
    fd->revents = 0;
    if (fake.line.gone || fake.line.unread) {
        if (fake.line.immediate_wakes++ < SPIN_LIMIT) {
            fd->revents = fake.line.gone ? POLLHUP | POLLERR : POLLIN;
            return 1;
        }
        if (fake.line.immediate_wakes == SPIN_LIMIT + 1)
            violation("%d waits in a row woken at once (%s)", SPIN_LIMIT,
                      fake.line.gone ? "the chip is gone" : "edge events never read");
    }
    if (ns > 3600000000000u)
        ns = 3600000000000u;
    uint64_t cycles = ns / 1000000000u * fake.hz + (ns % 1000000000u * fake.hz + 999999999u) / 1000000000u;
    board *b = fake.line.board;
    if (b && b->chip) {
        tw_vl_spi_chip_run(b->chip, fake.now + cycles - b->born, !tw_vl_spi_chip_irq(b->chip));
        run_boards(b->born + tw_vl_spi_chip_cycles(b->chip));
    } else {
        run_boards(fake.now + cycles);
    }
    fd->revents = fake.line.gone ? POLLHUP | POLLERR : fake.line.unread ? POLLIN : 0;
    return fd->revents != 0;
}

/* glibc declares the poll array write-only, which it is not: GCC would warn
 * at reading fds[0].fd (Clang has no such warning). */
#pragma GCC diagnostic push
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout, const sigset_t *mask)
{
    if (n != 1 || !is_line_fd(fds[0].fd))
        return kernel_ppoll(fds, n, timeout, mask);
    if (mask)
        violation("a wait on the line request with a signal mask");
    return wait_line(&fds[0], timeout);
}

/* The backend waits with ppoll; a poll, which counts in whole milliseconds,
 * runs too (and fails the check on how long the backend asks to wait). */
int poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
    struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000};
    if (n != 1 || !is_line_fd(fds[0].fd))
        return kernel_ppoll(fds, n, timeout_ms < 0 ? NULL : &ts, NULL);
    return wait_line(&fds[0], timeout_ms < 0 ? NULL : &ts);
}
#pragma GCC diagnostic pop

int clock_gettime(clockid_t id, struct timespec *ts)
{
    if (id != CLOCK_MONOTONIC)
        return (int)syscall(SYS_clock_gettime, id, ts);
    uint64_t ns = fake_ns();
    ts->tv_sec = (time_t)(ns / 1000000000u);
    ts->tv_nsec = (long)(ns % 1000000000u);
    return 0;
}

/* ------------------------------------------------------------- the tests */

/* The board polled over the link, and with its IRQ pin on FAKE_LINE. */
static tw_spidev_config polled_cfg(void)
{
    tw_spidev_config c = {.spi_path = fake.spidev_path, .speed_hz = SPEED_HZ, .chip_hz = BOARD_HZ};
    return c;
}

static tw_spidev_config gpio_cfg(void)
{
    tw_spidev_config c = polled_cfg();
    c.irq_chip = FAKE_CHIP;
    c.irq_line = FAKE_LINE;
    return c;
}

static int open_polled(tw_dev *dev, const tw_sim_config *cfg)
{
    (void)cfg; /* the board is what it is: tw_probe reads its geometry */
    tw_spidev_config c = polled_cfg();
    return tw_spidev_open(dev, &c);
}

static int open_gpio(tw_dev *dev, const tw_sim_config *cfg)
{
    (void)cfg;
    tw_spidev_config c = gpio_cfg();
    return tw_spidev_open(dev, &c);
}

static int boards_open(void)
{
    int n = 0;
    for (int i = 0; i < MAX_BOARDS; i++)
        n += fake.boards[i].fd >= 0;
    return n;
}

static int fd_is_open(int fd)
{
    return fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

typedef struct probe_timer {
    tw_timer timer;
    int fired;
} probe_timer;

static void on_probe(tw_timer *t, uint64_t now, void *arg)
{
    (void)t, (void)now;
    ((probe_timer *)arg)->fired++;
}

/* The setup the backend asks the kernel for, and the device it leaves. */
static void test_setup(const tw_backend *unused)
{
    (void)unused;
    tw_dev dev;
    CHECK_OK(open_polled(&dev, NULL));
    board *b = &fake.boards[fake.last_board];
    CHECK_EQ(b->setup, 7);
    CHECK_EQ(b->mode, SPI_MODE_0);
    CHECK_EQ(b->bits, 8);
    CHECK_EQ(b->speed, SPEED_HZ);
    CHECK(tw_spi_get_stats(&dev) != NULL);
    uint32_t id = 0;
    CHECK_OK(tw_dev_read(&dev, TW_REG_ID, &id));
    CHECK_EQ(id, TW_ID_MAGIC);
    int fd = b->fd;
    CHECK(fd_is_open(fd));
    tw_dev_close(&dev);
    CHECK(!fd_is_open(fd));
    CHECK_EQ(boards_open(), 0);
}

/* Every way to fail opening returns its error and leaves no descriptor. */
static void test_open_errors(const tw_backend *unused)
{
    (void)unused;
    tw_dev dev;
    int probe_fd = open("/dev/null", O_RDONLY); /* the lowest free descriptor: a leak would take it */
    CHECK(probe_fd >= 0);
    close(probe_fd);
    tw_spidev_config c = polled_cfg();
    CHECK_EQ(tw_spidev_open(NULL, &c), TW_EINVAL);
    CHECK_EQ(tw_spidev_open(&dev, NULL), TW_EINVAL);
    c.spi_path = NULL;
    CHECK_EQ(tw_spidev_open(&dev, &c), TW_EINVAL);
    c = polled_cfg();
    c.speed_hz = 0;
    CHECK_EQ(tw_spidev_open(&dev, &c), TW_EINVAL);
    c = polled_cfg();
    c.chip_hz = 0;
    CHECK_EQ(tw_spidev_open(&dev, &c), TW_EINVAL);
    /* SCK above the bridge's limit of the chip's clock / 8. */
    c = polled_cfg();
    c.speed_hz = SPEED_HZ + 1;
    CHECK_EQ(tw_spidev_open(&dev, &c), TW_EINVAL);
    c = polled_cfg();
    c.spi_path = "/nonexistent/spidev0.0";
    CHECK_EQ(tw_spidev_open(&dev, &c), TW_ENODEV);
    c.spi_path = "/"; /* a directory: EISDIR */
    CHECK_EQ(tw_spidev_open(&dev, &c), TW_EIO);
    static const unsigned long setup[] = {SPI_IOC_WR_MODE, SPI_IOC_WR_BITS_PER_WORD, SPI_IOC_WR_MAX_SPEED_HZ,
                                          SPI_IOC_MESSAGE(1)};
    for (size_t i = 0; i < sizeof setup / sizeof setup[0]; i++) {
        fake.fail_request = setup[i];
        /* The last: the board never answers the first frame (reading ID). */
        c = gpio_cfg();
        CHECK_EQ(tw_spidev_open(&dev, &c), TW_EIO);
        fake.fail_request = 0;
        CHECK_EQ(boards_open(), 0);
        CHECK(!fd_is_open(probe_fd));
    }
    /* The IRQ pin's chip and line: a chip that is not there, a file that is
     * not a GPIO chip (the real /dev/null answers ENOTTY), a line the chip
     * does not have, a line another user holds, a line that cannot
     * interrupt. */
    static const struct {
        const char *chip;
        uint32_t line;
        int refuse, rc;
    } irq[] = {
        {"/nonexistent/gpiochip0", FAKE_LINE, 0, TW_ENODEV}, {"/dev/null", FAKE_LINE, 0, TW_ENODEV},
        {FAKE_CHIP, FAKE_CHIP_LINES, 0, TW_EINVAL},          {FAKE_CHIP, UINT32_MAX, 0, TW_EINVAL},
        {FAKE_CHIP, FAKE_LINE, EBUSY, TW_EBUSY},             {FAKE_CHIP, FAKE_LINE, ENXIO, TW_EIO},
    };
    for (size_t i = 0; i < sizeof irq / sizeof irq[0]; i++) {
        c = gpio_cfg();
        c.irq_chip = irq[i].chip;
        c.irq_line = irq[i].line;
        fake.refuse_line = irq[i].refuse;
        int rc = tw_spidev_open(&dev, &c);
        fake.refuse_line = 0;
        if (rc != irq[i].rc)
            tw_test_fail(__FILE__, __LINE__, "IRQ on %s line %u: %d, not %d", irq[i].chip, (unsigned)irq[i].line, rc,
                         irq[i].rc);
        CHECK_EQ(boards_open(), 0);
        CHECK_EQ(chip_fds_open(), 0);
        CHECK_EQ(fake.line.fd, -1);
        CHECK(!fd_is_open(probe_fd));
    }
    /* A transfer that fails once the device is open is an error, not a retry. */
    CHECK_OK(open_polled(&dev, NULL));
    uint32_t v;
    fake.fail_request = SPI_IOC_MESSAGE(1);
    CHECK_EQ(tw_dev_read(&dev, TW_REG_ID, &v), TW_EIO);
    CHECK_EQ(tw_dev_wait_irq(&dev, 1000), TW_EIO);
    fake.fail_request = 0;
    /* The same access as the one before the failures is a new one, not a
     * repeat to answer from the bridge's saved response. */
    uint64_t stale = fake.stale_repeats;
    CHECK_OK(tw_dev_read(&dev, TW_REG_ID, &v));
    CHECK_EQ(fake.stale_repeats, stale);
    tw_dev_close(&dev);
    CHECK_EQ(boards_open(), 0);
    CHECK(!fd_is_open(probe_fd));
}

/* The line the backend asks for: its IRQ pin alone, an input with rising
 * edges, under a consumer name; the chip closed once the line is held, the
 * line released at close. */
static void test_line_request(const tw_backend *unused)
{
    (void)unused;
    tw_dev dev;
    memset(&fake.request, 0xa5, sizeof fake.request);
    int rc = open_gpio(&dev, NULL);
    CHECK_OK(rc);
    const struct gpio_v2_line_request *r = &fake.request;
    CHECK_EQ(r->num_lines, 1);
    CHECK_EQ(r->offsets[0], FAKE_LINE);
    CHECK_EQ(r->config.flags, GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_RISING);
    CHECK_EQ(r->config.num_attrs, 0);
    CHECK(memchr(r->consumer, 0, sizeof r->consumer) && !strcmp(r->consumer, "tickwheel"));
    CHECK_EQ(chip_fds_open(), 0);
    int line = fake.line.fd;
    CHECK(line >= 0 && fd_is_open(line));
    CHECK(fcntl(line, F_GETFD) & FD_CLOEXEC); /* as the kernel made it: not cleared */
    CHECK(fake.line.board == &fake.boards[fake.last_board]);
    if (rc < 0)
        return;
    tw_dev_close(&dev);
    CHECK(!fd_is_open(line));
    CHECK_EQ(fake.line.fd, -1);
    CHECK_EQ(boards_open(), 0);
}

/* A line held by another board: the second open is refused (TW_EBUSY) and
 * leaves nothing open; the first keeps the line and its wake-ups. */
static void test_line_busy(const tw_backend *unused)
{
    (void)unused;
    tw_dev first, second;
    if (open_gpio(&first, NULL) < 0) {
        CHECK(0);
        return;
    }
    int line = fake.line.fd;
    board *holder = fake.line.board;
    CHECK_EQ(open_gpio(&second, NULL), TW_EBUSY);
    CHECK_EQ(boards_open(), 1);
    CHECK_EQ(chip_fds_open(), 0);
    CHECK_EQ(fake.line.fd, line);
    CHECK(fake.line.board == holder);
    uint64_t polls = fake.gpio_polls;
    CHECK_EQ(tw_dev_wait_irq(&first, 1000), 0);
    CHECK(fake.gpio_polls > polls);
    tw_dev_close(&first);
    if (open_gpio(&second, NULL) < 0) {
        CHECK(0);
        return;
    }
    tw_dev_close(&second);
    CHECK_EQ(boards_open(), 0);
    CHECK_EQ(fake.line.fd, -1);
}

/* After each group: the fake saw nothing a real spidev would refuse, every
 * descriptor was closed, and no new access got an old one's answer. */
static int fake_clean(const char *name)
{
    int ok = fake.violations == 0 && boards_open() == 0 && chip_fds_open() == 0 && fake.line.fd < 0;
    if (ok)
        printf("ok spidev/%s/link_clean\n", name);
    else
        printf("FAIL spidev/%s/link_clean: %lu violations (%s), %d boards, %d GPIO chips and %d lines left open\n",
               name, fake.violations, fake.violation, boards_open(), chip_fds_open(), fake.line.fd >= 0);
    int fresh = fake.stale_repeats == 0;
    if (fresh)
        printf("ok spidev/%s/no_access_answered_as_a_repeat\n", name);
    else
        printf("FAIL spidev/%s/no_access_answered_as_a_repeat: %llu new frames equal to the one before\n", name,
               (unsigned long long)fake.stale_repeats);
    fake.violations = 0;
    fake.stale_repeats = 0;
    return ok && fresh;
}

/* The backend's clock is the board's: a wait with nothing to wake it runs
 * the whole budget, no less, and cycles() counts what ran. */
static void test_clock(const tw_backend *b)
{
    tw_dev dev;
    if (b->open(&dev, &b->cfg) < 0) {
        CHECK(0);
        return;
    }
    board *board = &fake.boards[fake.last_board];
    tw_vl_spi_chip *chip = board->chip;
    uint64_t ran = tw_vl_spi_chip_cycles(chip), counted = tw_dev_cycles(&dev);
    const uint64_t budget = fake.hz / 100; /* 10 ms */
    CHECK_EQ(tw_dev_wait_irq(&dev, budget), 0);
    ran = tw_vl_spi_chip_cycles(chip) - ran;
    counted = tw_dev_cycles(&dev) - counted;
    /* Over by at most one look at the line: a STATUS frame (~1000 clocks)
     * and a 100 us sleep; on the GPIO line, a clock. */
    CHECK(ran >= budget);
    CHECK(ran <= budget + (fake.line.board == board ? 1 : fake.hz / 10000 + 2000));
    CHECK(counted + 1 >= ran && counted <= ran + 1);
    tw_dev_close(&dev);
}

/* Waits shorter than a millisecond on the GPIO line: the backend asks the
 * kernel to wait for the time left, not a whole millisecond as poll()'s
 * timeout would, and the wait lasts its budget. */
static void test_short_waits(const tw_backend *b)
{
    tw_dev dev;
    if (b->open(&dev, &b->cfg) < 0) {
        CHECK(0);
        return;
    }
    tw_vl_spi_chip *chip = fake.boards[fake.last_board].chip;
    for (int i = 0; i < 24; i++) {
        /* One clock, then up to 100 us. */
        uint64_t budget = i == 0 ? 1 : 1 + fake_random() % (fake.hz / 10000);
        uint64_t budget_ns = budget * 1000000000u / fake.hz, polls = fake.gpio_polls;
        uint64_t ran = tw_vl_spi_chip_cycles(chip);
        fake.longest_wait_ns = 0;
        CHECK_EQ(tw_dev_wait_irq(&dev, budget), 0);
        ran = tw_vl_spi_chip_cycles(chip) - ran;
        CHECK(fake.gpio_polls > polls);
        if (fake.longest_wait_ns > budget_ns + 1000 || ran < budget || ran > budget + fake.hz / 1000000) {
            tw_test_fail(__FILE__, __LINE__, "a wait of %llu clocks (%llu ns) asked for %llu ns and ran %llu clocks",
                         (unsigned long long)budget, (unsigned long long)budget_ns,
                         (unsigned long long)fake.longest_wait_ns, (unsigned long long)ran);
            break;
        }
    }
    tw_dev_close(&dev);
}

/* A board clocked at 120 MHz (the HX8K's target), opened as such: the
 * backend's cycles and wait budgets are the board's, not 48 MHz ones. */
static int open_hx8k(tw_dev *dev, const tw_sim_config *cfg)
{
    (void)cfg;
    tw_spidev_config c = polled_cfg();
    c.speed_hz = 15000000u;
    c.chip_hz = 120000000u;
    return tw_spidev_open(dev, &c);
}

static void test_clock_hx8k(const tw_backend *b)
{
    set_board_hz(120000000u);
    test_clock(b);
    set_board_hz(BOARD_HZ);
}

/* A budget of UINT64_MAX cycles means no timeout: the wait ends when the
 * line rises. */
static void test_wait_unbounded(const tw_backend *b)
{
    tw_fixture f;
    probe_timer t;
    if (tw_fixture_open(&f, b, TW_TIME_INTERNAL, 999) < 0) { /* 1000 clocks a tick */
        CHECK(0);
        goto out;
    }
    memset(&t, 0, sizeof t);
    CHECK_OK(tw_timer_init(&t.timer, on_probe, &t));
    CHECK_OK(tw_start(&f.wheel, &t.timer, 50));
    fake.longest_wait_ns = 0;
    CHECK_EQ(tw_dev_wait_irq(&f.dev, UINT64_MAX), 1);
    CHECK(fake.longest_wait_ns <= 1000000000u); /* the line is waited on a second at most at a time */
    CHECK_OK(tw_service(&f.wheel, 10));
    CHECK_EQ(t.fired, 1);
out:
    tw_fixture_close(&f);
}

/* A GPIO chip removed under an open device (the kernel then fails every
 * call on the request, and a wait on it reports POLLHUP | POLLERR): a wait
 * is an error at once, not a spin until its budget runs out. */
static void test_chip_removed(const tw_backend *b)
{
    tw_dev dev;
    if (b->open(&dev, &b->cfg) < 0) {
        CHECK(0);
        return;
    }
    CHECK_EQ(tw_dev_wait_irq(&dev, 1000), 0);
    fake.line.gone = 1;
    uint64_t now = fake.now, polls = fake.gpio_polls;
    CHECK_EQ(tw_dev_wait_irq(&dev, fake.hz), TW_EIO);
    CHECK(fake.now - now < fake.hz / 1000);
    CHECK(fake.gpio_polls - polls <= 1);
    tw_dev_close(&dev);
    CHECK_EQ(fake.line.fd, -1);
}

/* A rise between the backend's look at the line and its wait stays queued
 * and wakes the wait at once. The look here lasts until the pin rises, so
 * the edge always falls in that gap; a backend that drained the events
 * after looking would sleep through it until its budget ran out. */
static void test_rise_after_look(const tw_backend *b)
{
    tw_fixture f;
    probe_timer t;
    if (tw_fixture_open(&f, b, TW_TIME_INTERNAL, 999) < 0) { /* 1000 clocks a tick */
        CHECK(0);
        goto out;
    }
    memset(&t, 0, sizeof t);
    CHECK_OK(tw_timer_init(&t.timer, on_probe, &t));
    CHECK_OK(tw_start(&f.wheel, &t.timer, 50));
    uint64_t edges = fake.edges;
    fake.look_cycles = fake.hz; /* up to a second */
    CHECK_EQ(tw_dev_wait_irq(&f.dev, fake.hz / 10), 1);
    fake.look_cycles = 0;
    CHECK_EQ(fake.edges, edges + 1);
    if (fake.now - fake.line.last_edge > 1)
        tw_test_fail(__FILE__, __LINE__, "the wait ended %llu clocks after the line rose",
                     (unsigned long long)(fake.now - fake.line.last_edge));
    CHECK_OK(tw_service(&f.wheel, 10));
    CHECK_EQ(t.fired, 1);
out:
    tw_fixture_close(&f);
}

/* Two boards, each polled in turn: each board's polls must still differ
 * from one another, whatever the other board's did. */
static void test_two_boards(const tw_backend *unused)
{
    (void)unused;
    tw_dev a, b;
    uint64_t stale = fake.stale_repeats;
    CHECK_OK(open_polled(&a, NULL));
    CHECK_OK(open_polled(&b, NULL));
    for (int i = 0; i < 20; i++) {
        CHECK_EQ(tw_dev_wait_irq(&a, 0), 0);
        CHECK_EQ(tw_dev_wait_irq(&b, 0), 0);
    }
    CHECK_EQ(fake.stale_repeats, stale);
    tw_dev_close(&a);
    tw_dev_close(&b);
}

/* The driver's tests that use every part of the backend: register accesses,
 * waits for the interrupt with time passing (realtime_prescaler), cycles
 * and close. The others add simulation time, not backend coverage (test-spi
 * runs all of them over the same chip). */
static const char *const suite_part[] = {
    "probe_geometry", "stop", "rearm", "range_start", "reentrant_callbacks", "budget_resumes",
    "realtime_prescaler", "bad_input", NULL,
};

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL);
    long ops = 400;
    if (tw_test_seed_ops(argc, argv, &seed, &ops) < 0)
        return 2;
    if (ops < MIN_RANDOM_OPS) {
        fprintf(stderr, "%s: --ops %ld: at least %d, or too few timers start for a random run to mean anything\n",
                argv[0], ops, MIN_RANDOM_OPS);
        return 2;
    }
    printf("# spidev: seed=%llu\n", (unsigned long long)seed);
    fake.rng = seed;
    for (int i = 0; i < MAX_BOARDS; i++) {
        board_free(&fake.boards[i]);
        fake.chip_fds[i] = -1;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(fake.spidev_path, sizeof fake.spidev_path, "%s/tw-spidev-XXXXXX",
             tmp && strlen(tmp) < 40 ? tmp : "/tmp");
    int fd = mkstemp(fake.spidev_path);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        printf("FAIL spidev/setup: no temporary file for the device: %s\n", strerror(errno));
        return 1;
    }
    close(fd);
    fake.spidev_dev = st.st_dev;
    fake.spidev_ino = st.st_ino;

    int failed = 0;
    tw_backend none = {.name = "spidev"};
    failed += !tw_test_run("spidev", "setup", test_setup, &none);
    failed += !tw_test_run("spidev", "open_errors", test_open_errors, &none);
    failed += !tw_test_run("spidev", "line_request", test_line_request, &none);
    failed += !tw_test_run("spidev", "line_busy", test_line_busy, &none);
    failed += !tw_test_run("spidev", "two_boards_polled_in_turn", test_two_boards, &none);
    failed += !fake_clean("open");

    /* The board's geometry, for probe_geometry to compare with. */
    tw_dev d;
    tw_geometry g;
    if (open_polled(&d, NULL) < 0 || tw_probe(&d, &g) < 0) {
        printf("FAIL spidev/probe: cannot open the stand-in device\n");
        unlink(fake.spidev_path);
        return 1;
    }
    tw_dev_close(&d);
    tw_sim_config geo = {.levels = g.levels, .slot_bits = g.slot_bits, .fifo_log2 = g.fifo_log2};
    /* An access is a 13-byte frame at 6 MHz, ~900 chip clocks: ~512x
     * Wishbone's 2, as for test-spi. */
    tw_backend polled = {.name = "spidev", .open = open_polled, .cfg = geo, .time_scale = 512};
    tw_backend gpio = {.name = "spidev-gpio", .open = open_gpio, .cfg = geo, .time_scale = 512};
    tw_backend noisy = {.name = "spidev-noisy", .open = open_polled, .cfg = geo, .time_scale = 640};

    failed += tw_driver_suite_only(&polled, suite_part);
    failed += !tw_test_run("spidev", "clock", test_clock, &polled);
    failed += !tw_test_run("spidev", "wait_unbounded", test_wait_unbounded, &polled);
    tw_backend hx8k = {.name = "spidev-120mhz", .open = open_hx8k, .cfg = geo, .time_scale = 512};
    failed += !tw_test_run("spidev", "clock_120mhz", test_clock_hx8k, &hx8k);
    failed += !tw_test_run("spidev", "clock_48mhz_after_120mhz", test_clock, &polled);
    failed += !tw_random_run(&polled, seed, ops, NULL, 0, 0);
    uint64_t sleeps = fake.sleeps;
    failed += !fake_clean(polled.name);

    uint64_t polls = fake.gpio_polls;
    static const char *const gpio_part[] = {"probe_geometry", "realtime_prescaler", NULL};
    failed += tw_driver_suite_only(&gpio, gpio_part);
    failed += !tw_test_run("spidev", "clock", test_clock, &gpio);
    failed += !tw_test_run("spidev", "wait_unbounded", test_wait_unbounded, &gpio);
    failed += !tw_test_run("spidev", "short_waits", test_short_waits, &gpio);
    failed += !tw_test_run("spidev", "rise_after_look", test_rise_after_look, &gpio);
    failed += !tw_test_run("spidev", "chip_removed", test_chip_removed, &gpio);
    /* Half the polled run's operations, each costing about as much there,
     * to keep the test's time. */
    failed += !tw_random_run(&gpio, seed, ops / 2 < MIN_RANDOM_OPS ? MIN_RANDOM_OPS : ops / 2, NULL, 0, 0);
    int ok = fake.gpio_polls > polls;
    printf("%s spidev/gpio/waits_poll_the_line: %llu polls\n", ok ? "ok" : "FAIL",
           (unsigned long long)(fake.gpio_polls - polls));
    failed += !ok;
    /* Every edge event is read before the next look at the line, so none
     * piles up in the kernel's queue or wakes a wait for a rise already seen. */
    ok = fake.edges > 0 && fake.looks_with_unread == 0 && fake.edges_dropped == 0;
    printf("%s spidev/gpio/edges_read_before_each_look: %llu edges, %llu read, %llu of %llu looks with events "
           "unread, %llu dropped by a full queue\n",
           ok ? "ok" : "FAIL", (unsigned long long)fake.edges, (unsigned long long)fake.edges_read,
           (unsigned long long)fake.looks_with_unread, (unsigned long long)fake.looks,
           (unsigned long long)fake.edges_dropped);
    failed += !ok;
    failed += !fake_clean(gpio.name);
    ok = sleeps > 0;
    printf("%s spidev/polled/waits_sleep_between_reads: %llu sleeps\n", ok ? "ok" : "FAIL",
           (unsigned long long)sleeps);
    failed += !ok;

    /* One frame in 25 with a bit flipped, in the request or the response. */
    fake.corrupt_ppm = 40000;
    uint64_t frames = fake.frames;
    static const char *const noisy_part[] = {"stop", NULL};
    failed += tw_driver_suite_only(&noisy, noisy_part);
    failed += !tw_random_run(&noisy, seed, ops / 4 < MIN_RANDOM_OPS ? MIN_RANDOM_OPS : ops / 4, NULL, 0, 0);
    /* Many reads on one device, to compare its link's counts with the bridge's. */
    tw_dev dev;
    tw_spi_stats stats = {0};
    uint32_t rejected = 0;
    ok = open_polled(&dev, NULL) == 0;
    for (int i = 0; ok && i < 500; i++) {
        uint32_t v = 0;
        ok = tw_dev_read(&dev, TW_REG_ID, &v) == 0 && v == TW_ID_MAGIC;
    }
    if (ok) {
        /* The count read last: its own rejected attempts are in both. */
        ok = tw_dev_read(&dev, TW_REG_SPI_ERRORS, &rejected) == 0;
        stats = *tw_spi_get_stats(&dev);
        tw_dev_close(&dev);
    }
    fake.corrupt_ppm = 0;
    printf("# spidev-noisy: %llu frames, %llu requests and %llu responses flipped; "
           "on the last device %llu retries (%llu rejected, %llu bad responses)\n",
           (unsigned long long)(fake.frames - frames), (unsigned long long)fake.flipped_requests,
           (unsigned long long)fake.flipped_responses, (unsigned long long)stats.retries,
           (unsigned long long)stats.rejected_requests, (unsigned long long)stats.bad_responses);
    ok = ok && stats.rejected_requests > 0 && stats.bad_responses > 0 &&
         stats.retries == stats.rejected_requests + stats.bad_responses &&
         TW_GET(TW_SPI_ERRORS_COUNT, rejected) == stats.rejected_requests;
    printf("%s spidev/noisy/every_flip_retried\n", ok ? "ok" : "FAIL");
    failed += !ok;
    failed += !fake_clean(noisy.name);

    unlink(fake.spidev_path);
    return failed ? 1 : 0;
}
