/* The stand-in kernel of fake_spidev.h: a spidev device and a GPIO chip
 * over Verilated boards. */
#undef _FORTIFY_SOURCE /* open() and read() are defined below */
#define _GNU_SOURCE
#include "fake_spidev.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/spi/spidev.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tw_test.h"

/* Waits in a row that queued events answer at once, without a read: past
 * this the backend is spinning, and the stand-in lets time pass. */
#define SPIN_LIMIT 1000
#define REQUEST_LEN 6 /* a frame's request: command, four data bytes, CRC */

fake_kernel fake = {.last_board = -1, .line = {.fd = -1}, .hz = BOARD_HZ, .ns_at_hz = 1000000000000u};

/* ------------------------------------------------------------ the boards */

/* CLOCK_MONOTONIC in ns: counts on from where it was when the rate changed,
 * so it never goes back. The start is arbitrary, so nothing depends on the
 * clock reading zero. */
static uint64_t fake_ns(void)
{
    uint64_t c = fake.now - fake.hz_since;
    return fake.ns_at_hz + c / fake.hz * 1000000000u + c % fake.hz * 1000000000u / fake.hz;
}

void set_board_hz(uint32_t hz)
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

uint64_t fake_random(void)
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

int chip_fds_open(void)
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
    if (b->chip) {
        fake.cycles_at_close = tw_vl_spi_chip_cycles(b->chip);
        tw_vl_spi_chip_free(b->chip);
    }
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
        fake.speed_set = b->speed;
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
    if (!strcmp(path, FAKE_SPIDEV))
        path = fake.spidev_path;
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

int boards_open(void)
{
    int n = 0;
    for (int i = 0; i < MAX_BOARDS; i++)
        n += fake.boards[i].fd >= 0;
    return n;
}

int fake_spidev_init(uint64_t seed)
{
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
        int err = errno;
        if (fd >= 0) {
            close(fd);
            unlink(fake.spidev_path);
        }
        errno = err;
        return -1;
    }
    close(fd);
    fake.spidev_dev = st.st_dev;
    fake.spidev_ino = st.st_ino;
    return 0;
}

void fake_spidev_remove(void)
{
    unlink(fake.spidev_path);
}
