/* The Linux spidev backend (host/tw_spidev.c) end to end, without a board:
 * the backend's system calls land in the stand-in kernel of
 * tests/fake_spidev.h, a spidev device and a GPIO chip over the Verilated
 * FPGA top, whose clock is the boards' own (48 MHz; 120 MHz in
 * clock_120mhz), so a run takes no real time waiting and replays from its
 * seed.
 *
 *   test-spidev [--seed N] [--ops N]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/gpio.h>
#include <linux/spi/spidev.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_spidev.h"
#include "tw_regs.h"
#include "tw_spi.h"
#include "tw_test.h"
#include "tw_vl_spi.h"

int tw_driver_suite_only(const tw_backend *b, const char *const *only);
int tw_random_run(const tw_backend *b, uint64_t seed, long ops, uint64_t summary[6], unsigned coarse_shift,
                  unsigned visit_batch);

#define SPEED_HZ 6000000u  /* the bridge's limit at 48 MHz: f_sys / 8 */
/* The fewest operations a random run gets: with fewer, too few timers start
 * for the oracle to be sure to see any fire (at 50, some seeds fire one). */
#define MIN_RANDOM_OPS 100

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

/* A wheel on the chip's prescaler at 1000 clocks a tick, and a probe timer
 * ready to start; -1 (a failed check) if the device does not open. */
static int open_probe(tw_fixture *f, const tw_backend *b, probe_timer *t)
{
    memset(t, 0, sizeof *t);
    if (tw_fixture_open(f, b, TW_TIME_INTERNAL, 999) < 0) {
        CHECK(0);
        return -1;
    }
    CHECK_OK(tw_timer_init(&t->timer, on_probe, t));
    return 0;
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
    c.spi_path = "/dev/null"; /* there, but not a spidev: the real ENOTTY */
    CHECK_EQ(tw_spidev_open(&dev, &c), TW_ENODEV);
    CHECK(!fd_is_open(probe_fd));
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
    if (open_probe(&f, b, &t) < 0)
        goto out;
    CHECK_OK(tw_start(&f.wheel, &t.timer, 50));
    fake.longest_wait_ns = 0;
    CHECK_EQ(tw_dev_wait_irq(&f.dev, UINT64_MAX), 1);
    CHECK(fake.longest_wait_ns <= 1000000000u); /* the line is waited on a second at most at a time */
    CHECK_OK(tw_service(&f.wheel, 10));
    CHECK_EQ(t.fired, 1);
    /* So does a finite budget whose nanoseconds overflow 64 bits: at 48 MHz,
     * 6198106008768000000 cycles are some 4,000 years, which wrapped would be
     * a wait of 33 ms; the line first rises after some 1800 ticks (38 ms:
     * the timer's move down a level), then at 2000. */
    _Static_assert(BOARD_HZ == 48000000u, "the budget below wraps to 33 ms at 48 MHz");
    CHECK_OK(tw_start(&f.wheel, &t.timer, 2000));
    for (int wakes = 0; wakes < 10 && t.fired == 1 && !tw_test_failed; wakes++) {
        CHECK_EQ(tw_dev_wait_irq(&f.dev, UINT64_C(6198106008768000000)), 1);
        CHECK_OK(tw_service(&f.wheel, 10));
    }
    CHECK_EQ(t.fired, 2);
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
    if (open_probe(&f, b, &t) < 0)
        goto out;
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

/* A transport of tw_spi_open's link that answers every frame itself, each
 * answer a new value, until told to clock only part of the next frames
 * (returning the count, as a byte-counting SPI API would) and write nothing
 * back. Such a read must fail: the bytes it left are the last answer's. */
typedef struct short_transport {
    uint32_t next_value;
    int partial; /* clock 7 of 13 bytes from now on */
    int full_count; /* answer a whole frame with its length instead of 0 */
    unsigned transfers;
} short_transport;

static int short_transfer(void *ctx, const uint8_t *tx, uint8_t *rx, size_t len)
{
    short_transport *s = ctx;
    (void)tx;
    s->transfers++;
    if (s->partial)
        return 7;
    uint32_t v = s->next_value++;
    rx[7] = TW_SPI_STATUS_DONE;
    rx[8] = (uint8_t)(v >> 24);
    rx[9] = (uint8_t)(v >> 16);
    rx[10] = (uint8_t)(v >> 8);
    rx[11] = (uint8_t)v;
    rx[12] = tw_crc8(rx + 7, 5);
    return s->full_count ? (int)len : 0;
}

static const tw_spi_transport short_transport_ops = {.name = "short", .transfer = short_transfer};

static void test_transport_short_transfer(const tw_backend *unused)
{
    (void)unused;
    short_transport st = {.next_value = 100};
    tw_dev dev;
    uint32_t v = 0;
    if (tw_spi_open(&dev, &short_transport_ops, &st, 4) < 0) {
        CHECK(0);
        return;
    }
    CHECK_OK(tw_dev_read(&dev, TW_REG_STATUS, &v));
    CHECK_EQ(v, 101); /* the open's ID read had 100 */
    st.full_count = 1; /* a whole frame, counted in bytes: as good as 0 */
    CHECK_OK(tw_dev_read(&dev, TW_REG_STATUS, &v));
    CHECK_EQ(v, 102);
    st.partial = 1;
    unsigned before = st.transfers;
    v = 0;
    CHECK_EQ(tw_dev_read(&dev, TW_REG_STATUS, &v), TW_EIO);
    CHECK_EQ(v, 0);
    CHECK_EQ(tw_dev_write(&dev, TW_REG_SEARCH, 5), TW_EIO);
    CHECK(st.transfers > before);
    /* Once whole frames pass again, the link goes on (its resynchronising
     * read first). */
    st.partial = 0;
    CHECK_OK(tw_dev_read(&dev, TW_REG_STATUS, &v));
    CHECK_EQ(v, 104);
    tw_dev_close(&dev);
}

/* A transport of tw_spi_open's link that acts as the bridge does towards
 * it: it keeps the last executed request (bytes 0-5) and answers a frame
 * equal to it from the saved response (0x03), any other good frame with a
 * new value (0x01). Told to, it rejects every request (0x02: never
 * executed), or answers with 0 and writes nothing back at all. */
typedef struct bridge_transport {
    uint32_t next_value, saved_value;
    uint8_t saved[6];
    int have_saved, reject, mute;
    unsigned transfers;
} bridge_transport;

static void bridge_answer(uint8_t *rx, uint8_t status, uint32_t v)
{
    memset(rx, 0, 7);
    rx[7] = status;
    rx[8] = (uint8_t)(v >> 24);
    rx[9] = (uint8_t)(v >> 16);
    rx[10] = (uint8_t)(v >> 8);
    rx[11] = (uint8_t)v;
    rx[12] = tw_crc8(rx + 7, 5);
}

static int bridge_transfer(void *ctx, const uint8_t *tx, uint8_t *rx, size_t len)
{
    bridge_transport *s = ctx;
    s->transfers++;
    if (len != TW_SPI_FRAME_LEN)
        return TW_EINVAL;
    if (s->mute)
        return 0;
    if (s->reject || tw_crc8(tx, 5) != tx[5]) {
        bridge_answer(rx, TW_SPI_STATUS_BAD_CRC, 0);
    } else if (s->have_saved && !memcmp(tx, s->saved, sizeof s->saved)) {
        bridge_answer(rx, TW_SPI_STATUS_REPEAT, s->saved_value);
    } else {
        memcpy(s->saved, tx, sizeof s->saved);
        s->have_saved = 1;
        s->saved_value = s->next_value++;
        bridge_answer(rx, TW_SPI_STATUS_DONE, s->saved_value);
    }
    return 0;
}

static const tw_spi_transport bridge_transport_ops = {.name = "bridge", .transfer = bridge_transfer};

/* The link refuses an address outside the register map without a frame;
 * after an access whose every try the bridge rejected, the next access is
 * a new one even where it equals the access before (its resynchronising
 * read first), never that access's saved answer; a transport that writes
 * nothing back is a failed access, not the last frame's answer again. */
static void test_link_bridge(const tw_backend *unused)
{
    (void)unused;
    bridge_transport bt = {.next_value = 100};
    tw_dev dev;
    uint32_t v = 0;
    if (tw_spi_open(&dev, &bridge_transport_ops, &bt, 4) < 0) {
        CHECK(0);
        return;
    }
    unsigned before = bt.transfers;
    CHECK_EQ(tw_dev_read(&dev, 4 * TW_REG_COUNT, &v), TW_EINVAL);
    CHECK_EQ(tw_dev_write(&dev, 4 * TW_REG_COUNT, 1), TW_EINVAL);
    CHECK_EQ(tw_dev_read(&dev, TW_REG_STATUS + 2, &v), TW_EINVAL);
    CHECK_EQ(tw_dev_write(&dev, TW_REG_STATUS + 1, 1), TW_EINVAL);
    CHECK_EQ(bt.transfers, before);
    CHECK_OK(tw_dev_read(&dev, TW_REG_STATUS, &v));
    CHECK_EQ(v, 101); /* the open's ID read had 100 */
    /* Every try of a write rejected: it fails, and was never executed. */
    bt.reject = 1;
    before = bt.transfers;
    CHECK_EQ(tw_dev_write(&dev, TW_REG_SEARCH, 5), TW_EIO);
    CHECK_EQ(bt.transfers, before + 4);
    bt.reject = 0;
    /* The same read as before the failure, sequence bit and all: fresh. */
    CHECK_OK(tw_dev_read(&dev, TW_REG_STATUS, &v));
    CHECK_EQ(v, 103); /* 102: the resynchronising read of ID */
    /* Nothing written back, each try: a failure, never the answer above. */
    bt.mute = 1;
    v = 0;
    CHECK_EQ(tw_dev_read(&dev, TW_REG_STATUS, &v), TW_EIO);
    CHECK_EQ(v, 0);
    bt.mute = 0;
    CHECK_OK(tw_dev_read(&dev, TW_REG_STATUS, &v));
    CHECK(v > 103);
    tw_dev_close(&dev);
}

/* Without an IRQ line, a STATUS poll whose answer arrives corrupted is
 * looked at again (the line is low here), not a failed wait. */
static void test_poll_corrupted(const tw_backend *unused)
{
    (void)unused;
    tw_dev dev;
    if (open_polled(&dev, NULL) < 0) {
        CHECK(0);
        return;
    }
    uint64_t flipped = fake.flipped_responses;
    fake.corrupt_ppm = 1000000; /* every frame, in its request or its response */
    for (int i = 0; i < 20; i++)
        CHECK_EQ(tw_dev_wait_irq(&dev, 0), 0);
    fake.corrupt_ppm = 0;
    CHECK(fake.flipped_responses > flipped);
    tw_dev_close(&dev);
}

/* tw_spidev_irq_fd: the line request's fd for a spidev device opened with an
 * IRQ line, -1 for anything else (a C model, a device over another SPI
 * transport, a spidev device polling STATUS, a closed one); closed with the
 * device. */
static void test_irq_fd_owner(const tw_backend *unused)
{
    (void)unused;
    tw_dev dev;
    CHECK_EQ(tw_spidev_irq_fd(NULL), -1);
    tw_sim_config model_cfg = {.levels = 4, .slot_bits = 8, .fifo_log2 = 4};
    if (tw_model_open(&dev, &model_cfg) == 0) {
        CHECK_EQ(tw_spidev_irq_fd(&dev), -1);
        tw_dev_close(&dev);
    } else {
        CHECK(0);
    }
    /* The SPI link over the Verilated bridge: the same link, not spidev's. */
    tw_vl_spi_config vl_cfg = {.half_period = 4, .seed = 1};
    if (tw_vl_spi_open(&dev, &vl_cfg) == 0) {
        CHECK(tw_spi_get_stats(&dev) != NULL);
        CHECK_EQ(tw_spidev_irq_fd(&dev), -1);
        tw_dev_close(&dev);
    } else {
        CHECK(0);
    }
    if (open_polled(&dev, NULL) == 0) {
        CHECK_EQ(tw_spidev_irq_fd(&dev), -1);
        tw_dev_close(&dev);
    } else {
        CHECK(0);
    }
    if (open_gpio(&dev, NULL) < 0) {
        CHECK(0);
        return;
    }
    int fd = tw_spidev_irq_fd(&dev);
    CHECK(fd >= 0);
    CHECK_EQ(fd, fake.line.fd);
    CHECK(fd_is_open(fd));
    CHECK_EQ(tw_spidev_irq_fd(&dev), fd); /* the same fd each time, not a new one */
    /* A device of the application's own that forwards to this one's context
     * (a wrapper, e.g. taking a lock around each access) is not it. */
    tw_dev_ops forward = *dev.ops;
    tw_dev wrapper = {.ops = &forward, .ctx = dev.ctx};
    CHECK_EQ(tw_spidev_irq_fd(&wrapper), -1);
    tw_dev_close(&dev);
    CHECK_EQ(tw_spidev_irq_fd(&dev), -1);
    CHECK(!fd_is_open(fd));
    CHECK_EQ(fake.line.fd, -1);
}

/* Whether a poll of the IRQ fd that does not wait finds it readable. */
static int irq_fd_readable_now(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

/* An application's own event loop on the IRQ fd, as examples/event_loop.c
 * describes for a board: the timer's interrupt makes the fd readable;
 * tw_dev_wait_irq(dev, 0) then consumes the edge and reports the line's
 * level without waiting; the fd is not readable again until the next rise;
 * the service runs the timer. Twice, so the second rise is seen too. */
static void test_irq_fd_event_loop(const tw_backend *b)
{
    tw_fixture f;
    probe_timer t;
    int fd = -1;
    if (open_probe(&f, b, &t) < 0)
        goto out;
    fd = tw_spidev_irq_fd(&f.dev);
    CHECK(fd >= 0);
    for (int round = 0; round < 2 && fd >= 0; round++) {
        /* Whatever came before is consumed first: the line is low. */
        CHECK_EQ(tw_dev_wait_irq(&f.dev, 0), 0);
        CHECK_OK(tw_start(&f.wheel, &t.timer, 50));
        CHECK(!irq_fd_readable_now(fd)); /* 50 ticks are 50,000 clocks away */
        struct pollfd p = {.fd = fd, .events = POLLIN};
        struct timespec second = {1, 0};
        CHECK(ppoll(&p, 1, &second, NULL) == 1 && p.revents == POLLIN);
        CHECK(fake.now - fake.line.last_edge <= 1); /* woken by the rise, not the timeout */
        uint64_t now = fake.now, polls = fake.gpio_polls, read = fake.edges_read;
        CHECK_EQ(tw_dev_wait_irq(&f.dev, 0), 1);
        CHECK_EQ(fake.now, now);          /* no time passed: it did not wait */
        CHECK_EQ(fake.gpio_polls, polls); /* nor poll the line */
        CHECK_EQ(fake.edges_read, read + 1);
        CHECK(!irq_fd_readable_now(fd));
        /* The level, not the edge: high until the events are read. */
        CHECK_EQ(tw_dev_wait_irq(&f.dev, 0), 1);
        CHECK_OK(tw_service(&f.wheel, 10));
        CHECK_EQ(t.fired, round + 1);
    }
out:
    tw_fixture_close(&f);
    if (fd >= 0)
        CHECK(!fd_is_open(fd));
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
    if (fake_spidev_init(seed) < 0) {
        printf("FAIL spidev/setup: no temporary file for the device: %s\n", strerror(errno));
        return 1;
    }

    int failed = 0;
    tw_backend none = {.name = "spidev"};
    failed += !tw_test_run("spidev", "setup", test_setup, &none);
    failed += !tw_test_run("spidev", "open_errors", test_open_errors, &none);
    failed += !tw_test_run("spidev", "line_request", test_line_request, &none);
    failed += !tw_test_run("spidev", "line_busy", test_line_busy, &none);
    failed += !tw_test_run("spidev", "two_boards_polled_in_turn", test_two_boards, &none);
    failed += !tw_test_run("spidev", "irq_fd_owner", test_irq_fd_owner, &none);
    failed += !tw_test_run("spidev", "transport_short_transfer", test_transport_short_transfer, &none);
    failed += !tw_test_run("spidev", "link_over_a_bridge", test_link_bridge, &none);
    failed += !tw_test_run("spidev", "poll_corrupted_answer", test_poll_corrupted, &none);
    failed += !fake_clean("open");

    /* The board's geometry, for probe_geometry to compare with. */
    tw_dev d;
    tw_geometry g;
    if (open_polled(&d, NULL) < 0 || tw_probe(&d, &g) < 0) {
        printf("FAIL spidev/probe: cannot open the stand-in device\n");
        fake_spidev_remove();
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
    failed += !tw_test_run("spidev", "irq_fd_event_loop", test_irq_fd_event_loop, &gpio);
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
    uint64_t rejected_before = 0;
    ok = open_polled(&dev, NULL) == 0;
    for (int i = 0; ok && i < 500; i++) {
        uint32_t v = 0;
        ok = tw_dev_read(&dev, TW_REG_ID, &v) == 0 && v == TW_ID_MAGIC;
    }
    if (ok) {
        /* The count read last. The bridge answers it as it was when the read
         * was executed: attempts rejected before that are in both counts,
         * but one rejected after it (the answer flipped, then the retried
         * request) only in the host's, since the next retry gets the saved
         * answer. Every rejection's answer reaches the host here (a frame
         * has one flip at most), so the bridge's count lies between the
         * host's before and after the read. */
        rejected_before = tw_spi_get_stats(&dev)->rejected_requests;
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
         TW_GET(TW_SPI_ERRORS_COUNT, rejected) >= rejected_before &&
         TW_GET(TW_SPI_ERRORS_COUNT, rejected) <= stats.rejected_requests;
    printf("%s spidev/noisy/every_flip_retried\n", ok ? "ok" : "FAIL");
    failed += !ok;
    failed += !fake_clean(noisy.name);

    fake_spidev_remove();
    return failed ? 1 : 0;
}
