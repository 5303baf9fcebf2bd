/* A small test harness: each test prints "ok NAME" or "FAIL NAME: why",
 * which tests/run_all.sh counts. Checks record the first failure and go on. */
#ifndef TW_TEST_H
#define TW_TEST_H

#include <stdint.h>
#include <stdio.h>

#include "tickwheel.h"

extern int tw_test_failed;      /* failures in the current test */
extern char tw_test_why[512];   /* the first failure's message */

void tw_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define CHECK(cond)                                                               \
    do {                                                                          \
        if (!(cond))                                                              \
            tw_test_fail(__FILE__, __LINE__, "%s", #cond);                        \
    } while (0)
#define CHECK_EQ(a, b)                                                            \
    do {                                                                          \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);          \
        if (check_a_ != check_b_)                                                 \
            tw_test_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld",   \
                         #a, check_a_, #b, check_b_);                             \
    } while (0)
#define CHECK_OK(expr)                                                            \
    do {                                                                          \
        int check_rc_ = (expr);                                                   \
        if (check_rc_ < 0)                                                        \
            tw_test_fail(__FILE__, __LINE__, "%s failed: %s", #expr,              \
                         tw_strerror(check_rc_));                                 \
    } while (0)

/* How a test gets a device: the same suite runs on every backend. */
typedef struct tw_backend {
    const char *name;
    int (*open)(tw_dev *dev, const tw_sim_config *cfg);
    tw_sim_config cfg;
    /* Bus cycles per register access relative to 2 (the C model's access):
     * real-time tests stretch their ticks by this, so the host keeps the
     * same pace. */
    unsigned time_scale;
} tw_backend;

/* A device plus a wheel over caller memory, set up for one test. */
typedef struct tw_fixture {
    tw_dev dev;
    tw_wheel wheel;
    void *mem;
} tw_fixture;

int tw_fixture_open(tw_fixture *f, const tw_backend *b, enum tw_time_source src, uint32_t prescale);
int tw_fixture_open_cfg(tw_fixture *f, const tw_backend *b, const tw_config *cfg);
void tw_fixture_close(tw_fixture *f);

/* Writes ADVANCE `ticks` to a bare chip (no wheel over it) and waits until
 * it has taken them (STATUS.ADVANCING clear); the status of the last access. */
int tw_test_chip_advance(tw_dev *chip, uint32_t ticks);

/* Opens a device at each geometry one step off `built`, the one a backend
 * was Verilated with (each of its three numbers one up and one down; levels
 * 0, which asks for no geometry, is left out): each open must be refused
 * with TW_EINVAL. */
void tw_test_refuses_other_geometries(const tw_sim_config *built,
                                      int (*open)(tw_dev *dev, const tw_sim_config *cfg));

/* Runs one test function and prints its line; returns 1 if it passed. */
int tw_test_run(const char *suite, const char *name, void (*fn)(const tw_backend *), const tw_backend *b);

/* The options of a test program that takes only a seed and an operation
 * count: [--seed N] [--ops N], each keeping the caller's default when
 * absent. Prints the usage and returns -1 on anything else. */
int tw_test_seed_ops(int argc, char **argv, uint64_t *seed, long *ops);

/* Deterministic generator (splitmix64) so every randomised test replays by seed. */
typedef struct tw_rng {
    uint64_t s;
} tw_rng;
uint64_t tw_rng_next(tw_rng *r);
uint64_t tw_rng_below(tw_rng *r, uint64_t n);

#endif
