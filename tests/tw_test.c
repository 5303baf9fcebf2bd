#define _POSIX_C_SOURCE 200809L /* alarm, write */
#include "tw_test.h"
#include "tw_args.h"
#include "tw_regs.h"

#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int tw_test_failed;
char tw_test_why[512];

void tw_test_fail(const char *file, int line, const char *fmt, ...)
{
    if (tw_test_failed++ == 0) {
        int n = snprintf(tw_test_why, sizeof tw_test_why, "%s:%d: ", file, line);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(tw_test_why + n, sizeof tw_test_why - (size_t)n, fmt, ap);
        va_end(ap);
    }
}

int tw_fixture_open(tw_fixture *f, const tw_backend *b, enum tw_time_source src, uint32_t prescale)
{
    tw_config cfg = {.source = src, .prescale = prescale};
    return tw_fixture_open_cfg(f, b, &cfg);
}

int tw_fixture_open_cfg(tw_fixture *f, const tw_backend *b, const tw_config *cfg)
{
    tw_geometry g;
    int rc;
    memset(f, 0, sizeof *f);
    rc = b->open(&f->dev, &b->cfg);
    if (rc < 0)
        return rc;
    rc = tw_probe(&f->dev, &g);
    if (rc < 0)
        return rc;
    f->mem = malloc(tw_mem_size(&g));
    if (!f->mem)
        return TW_ENOMEM;
    return tw_init(&f->wheel, &f->dev, f->mem, tw_mem_size(&g), cfg);
}

int tw_test_chip_advance(tw_dev *chip, uint32_t ticks)
{
    uint32_t st = TW_STATUS_ADVANCING_MASK;
    int rc = tw_dev_write(chip, TW_REG_ADVANCE, ticks);
    for (int n = 0; rc == 0 && n < 1000 && (st & TW_STATUS_ADVANCING_MASK); n++) {
        tw_dev_wait_irq(chip, 64);
        rc = tw_dev_read(chip, TW_REG_STATUS, &st);
    }
    return rc;
}

void tw_fixture_close(tw_fixture *f)
{
    if (f->dev.ops)
        tw_dev_close(&f->dev);
    free(f->mem);
    f->mem = NULL;
}

/* A test that hangs (a driver loop that never ends) fails by name instead
 * of stalling the whole run: the watchdog prints the line formed before the
 * test started and exits. TW_TEST_TIMEOUT (seconds) overrides the limit. */
enum { TEST_TIMEOUT_S = 300 };
static char watchdog_line[256];
static size_t watchdog_len;

static void on_watchdog(int sig)
{
    (void)sig;
    ssize_t n = write(STDOUT_FILENO, watchdog_line, watchdog_len);
    (void)n;
    _exit(1);
}

static unsigned test_timeout(void)
{
    const char *s = getenv("TW_TEST_TIMEOUT");
    char *end;
    unsigned long v = s ? strtoul(s, &end, 10) : 0;
    return s && *s && !*end && v > 0 && v < 86400 ? (unsigned)v : TEST_TIMEOUT_S;
}

void tw_test_refuses_other_geometries(const tw_sim_config *built,
                                      int (*open)(tw_dev *dev, const tw_sim_config *cfg))
{
    for (int k = 0; k < 3; k++)
        for (int d = -1; d <= 1; d += 2) {
            tw_sim_config wrong = *built;
            unsigned *n = k == 0 ? &wrong.levels : k == 1 ? &wrong.slot_bits : &wrong.fifo_log2;
            *n += (unsigned)d;
            if (wrong.levels == 0)
                continue;
            tw_dev dev;
            int rc = open(&dev, &wrong);
            if (rc != TW_EINVAL)
                tw_test_fail(__FILE__, __LINE__, "geometry %u,%u,%u opened on the %u,%u,%u RTL: %d", wrong.levels,
                             wrong.slot_bits, wrong.fifo_log2, built->levels, built->slot_bits, built->fifo_log2, rc);
            if (rc == 0)
                tw_dev_close(&dev);
        }
}

int tw_test_run(const char *suite, const char *name, void (*fn)(const tw_backend *), const tw_backend *b)
{
    unsigned timeout = test_timeout();
    tw_test_failed = 0;
    tw_test_why[0] = 0;
    int n = snprintf(watchdog_line, sizeof watchdog_line, "FAIL %s/%s/%s: still running after %u s (hung?)\n",
                     suite, b->name, name, timeout);
    watchdog_len = n > 0 && (size_t)n < sizeof watchdog_line ? (size_t)n : 0;
    signal(SIGALRM, on_watchdog);
    fflush(stdout);
    alarm(timeout);
    fn(b);
    alarm(0);
    if (tw_test_failed)
        printf("FAIL %s/%s/%s: %s (%d failed checks)\n", suite, b->name, name, tw_test_why,
               tw_test_failed);
    else
        printf("ok %s/%s/%s\n", suite, b->name, name);
    fflush(stdout);
    return !tw_test_failed;
}

uint64_t tw_rng_next(tw_rng *r)
{
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t tw_rng_below(tw_rng *r, uint64_t n)
{
    return n ? tw_rng_next(r) % n : 0;
}

int tw_test_seed_ops(int argc, char **argv, uint64_t *seed, long *ops)
{
    for (int i = 1; i < argc; i++) {
        if (!tw_arg_seed_ops(argc, argv, &i, seed, ops)) {
            fprintf(stderr, "usage: %s [--seed N] [--ops N]\n", argv[0]);
            return -1;
        }
    }
    return 0;
}
