/* The driver suite over SPI: the Verilated FPGA top (SPI bridge + core) with
 * the driver's frames clocked through it bit by bit, once on a clean link and
 * once on a noisy one that flips bits, cuts requests short, loses responses
 * and answers late (status 0x00, the access done). Nothing may be lost or
 * done twice.
 *
 *   test-spi [--link clean|noisy] [--seed N] [--ops N]
 *
 * --link runs one link's half (both by default), so that make test can run
 * the two halves on two cores.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tw_regs.h"
#include "tw_spi.h"
#include "tw_test.h"
#include "tw_vl_spi.h"

int tw_driver_suite(const tw_backend *b);
int tw_random_run(const tw_backend *b, uint64_t seed, long ops, uint64_t summary[6], unsigned coarse_shift,
                  unsigned visit_batch);

/* Each link has its own seeds, so that a half run alone replays as in a
 * whole run. */
static uint64_t clean_link_seed, noisy_link_seed;
static tw_spi_stats noisy_total;
static tw_vl_spi_faults noisy_faults; /* injected over every noisy link opened */

static int open_clean(tw_dev *dev, const tw_sim_config *cfg)
{
    tw_vl_spi_config c = {.sim = *cfg, .half_period = 4, .corrupt_rate = 0, .seed = clean_link_seed++};
    return tw_vl_spi_open(dev, &c);
}

/* One frame in 25 has a bit flipped, in the request or in the response; one
 * in 50 is cut short or loses its response. */
static int open_noisy(tw_dev *dev, const tw_sim_config *cfg)
{
    tw_vl_spi_config c = {.sim = *cfg, .half_period = 5, .corrupt_rate = 0.04, .drop_rate = 0.02,
                          .seed = noisy_link_seed++, .faults = &noisy_faults};
    return tw_vl_spi_open(dev, &c);
}

/* Counts the noisy link's retries as each fixture closes. */
static int noisy_frames_checked(void)
{
    tw_dev dev;
    tw_sim_config cfg = {0};
    uint64_t late_before = noisy_faults.late_responses;
    if (open_noisy(&dev, &cfg) < 0)
        return 0;
    uint32_t v;
    int ok = 1;
    /* Many reads of a fixed register through the noisy link: every one right. */
    for (int i = 0; i < 2000 && ok; i++)
        ok = tw_dev_read(&dev, TW_REG_ID, &v) == 0 && v == TW_ID_MAGIC;
    /* Pops through the noisy link: the FIFO must empty exactly once each. */
    const tw_spi_stats *st = tw_spi_get_stats(&dev);
    /* The bridge answers its count as it was when it executed the read; a
     * retry of that read can still be rejected after it (its answer lost,
     * then a flipped request), which the host counts and the answer, a
     * repeat of the saved one, does not. So compare with the host's count
     * from before the read: the bridge has seen at least those. */
    uint64_t rejected_before = st->rejected_requests;
    uint32_t errs = 0;
    ok = ok && tw_dev_read(&dev, TW_REG_SPI_ERRORS, &errs) == 0;
    noisy_total = *st;
    printf("# spi-noisy: %llu frames, %llu retries (%llu requests rejected by the bridge, %llu bad responses), bridge counted %u "
           "(the host %llu before reading it)\n",
           (unsigned long long)st->frames, (unsigned long long)st->retries,
           (unsigned long long)st->rejected_requests, (unsigned long long)st->bad_responses,
           (unsigned)TW_GET(TW_SPI_ERRORS_COUNT, errs), (unsigned long long)rejected_before);
    printf("# spi-noisy: the whole noisy run survived %llu flipped bits, %llu cut requests, %llu lost responses, "
           "%llu late responses (%llu on this link, the host counted %llu)\n",
           (unsigned long long)noisy_faults.flipped_bits, (unsigned long long)noisy_faults.cut_requests,
           (unsigned long long)noisy_faults.lost_responses, (unsigned long long)noisy_faults.late_responses,
           (unsigned long long)(noisy_faults.late_responses - late_before),
           (unsigned long long)st->late_responses);
    /* Every late answer injected on this link is one the host saw as late
     * (a flipped bit is never injected into the same frame). */
    ok = ok && st->retries > 0 && st->rejected_requests > 0 && st->bad_responses > 0 &&
         noisy_faults.cut_requests > 0 && noisy_faults.lost_responses > 0 && st->late_responses > 0 &&
         st->late_responses == noisy_faults.late_responses - late_before &&
         TW_GET(TW_SPI_ERRORS_COUNT, errs) >= rejected_before;
    tw_dev_close(&dev);
    return ok;
}

/* The geometry the FPGA top was Verilated with. */
static tw_sim_config spi_geo;

/* A clean link at the fastest SCK, at the geometry asked for. */
static int open_spi_at(tw_dev *dev, const tw_sim_config *geometry)
{
    const tw_vl_spi_config cfg = {.sim = *geometry, .half_period = 4, .seed = 1};
    return tw_vl_spi_open(dev, &cfg);
}

/* The Verilated top refuses a link it cannot give: SCK half-periods under
 * the bridge's 4 clocks, fault probabilities outside 0..1 (or not numbers),
 * and (tw_vl_spi_open) no device, no configuration or a geometry other than
 * the Verilated one. The limits themselves are taken. */
static void test_open_refusals(const tw_backend *b)
{
    tw_dev dev;
    (void)b;
    const tw_vl_spi_config good = {.sim = spi_geo, .half_period = 4, .seed = 1};
    tw_vl_spi_config bad[9];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        bad[i] = good;
    bad[0].half_period = 3;
    bad[1].half_period = 0;
    bad[2].corrupt_rate = -0.001;
    bad[3].corrupt_rate = 1.001;
    bad[4].corrupt_rate = NAN;
    bad[5].drop_rate = -0.001;
    bad[6].drop_rate = 1.001;
    bad[7].drop_rate = NAN;
    bad[8].sim.fifo_log2++;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = tw_vl_spi_open(&dev, &bad[i]);
        if (rc != TW_EINVAL)
            tw_test_fail(__FILE__, __LINE__, "configuration %zu opened: %d", i, rc);
        if (rc == 0)
            tw_dev_close(&dev);
        tw_vl_spi_chip *chip = i < 8 ? tw_vl_spi_chip_new(&bad[i]) : NULL;
        if (chip)
            tw_test_fail(__FILE__, __LINE__, "configuration %zu made a chip", i);
        tw_vl_spi_chip_free(chip);
    }
    tw_test_refuses_other_geometries(&spi_geo, open_spi_at);
    CHECK_EQ(tw_vl_spi_open(NULL, &good), TW_EINVAL);
    CHECK_EQ(tw_vl_spi_open(&dev, NULL), TW_EINVAL);
    CHECK(tw_vl_spi_chip_new(NULL) == NULL);
    /* The limits: 4 clocks a half-period, certain faults (the chip is made;
     * a link on it could not open), and a clean link at 4. */
    tw_vl_spi_config edge = good;
    edge.corrupt_rate = edge.drop_rate = 1;
    tw_vl_spi_chip *chip = tw_vl_spi_chip_new(&edge);
    CHECK(chip != NULL);
    tw_vl_spi_chip_free(chip);
    memset(&dev, 0xA5, sizeof dev);
    CHECK_OK(tw_vl_spi_open(&dev, &good));
    CHECK(dev.reads == 0 && dev.writes == 0); /* the open's own reads are not counted */
    uint32_t id = 0;
    CHECK_OK(tw_dev_read(&dev, TW_REG_ID, &id));
    CHECK_EQ(id, TW_ID_MAGIC);
    tw_dev_close(&dev);
}

/* Every bit the noisy link counts as flipped is one a receiver must catch,
 * and so is every frame it drops: on a bare chip that flips a bit in every
 * frame, drops every frame, or both, no frame gets through as an answer (the
 * bridge rejects a flipped request; the host's CRC catches a flipped or lost
 * response, and a late one is no answer), and no frame with a flipped bit is
 * made a late answer, which would hide the flip. Each request is new (its
 * sequence bit alternates), so none is answered from the bridge's saved
 * response. */
static void test_faults_never_pass(const tw_backend *b)
{
    static const char *const what[3] = {"flips a bit in", "drops", "flips a bit in and drops"};
    (void)b;
    for (int mode = 0; mode < 3; mode++) {
        tw_vl_spi_faults faults = {0};
        tw_vl_spi_config cfg = {.half_period = 4, .corrupt_rate = mode != 1, .drop_rate = mode != 0,
                                .seed = noisy_link_seed + (uint64_t)mode, .faults = &faults};
        tw_vl_spi_chip *chip = tw_vl_spi_chip_new(&cfg);
        if (!chip) {
            CHECK(!"chip");
            return;
        }
        enum { FRAMES = 300 };
        for (int i = 0; i < FRAMES && !tw_test_failed; i++) {
            uint8_t tx[TW_SPI_FRAME_LEN], rx[TW_SPI_FRAME_LEN];
            uint32_t v = 0;
            tw_spi_encode(tx, 0, i & 1, TW_REG_ID / 4, 0);
            CHECK_OK(tw_vl_spi_chip_transfer(chip, tx, rx, sizeof tx));
            int st = tw_spi_decode(rx, &v);
            if (st == TW_SPI_STATUS_DONE || st == TW_SPI_STATUS_REPEAT)
                tw_test_fail(__FILE__, __LINE__, "frame %d of a link that %s every frame was answered (0x%02X, %08X)",
                             i, what[mode], (unsigned)st, (unsigned)v);
        }
        uint64_t dropped = faults.cut_requests + faults.lost_responses + faults.late_responses;
        CHECK_EQ(faults.flipped_bits, mode != 1 ? FRAMES : 0);
        CHECK_EQ(dropped, mode != 0 ? FRAMES : 0);
        if (mode == 2)
            CHECK_EQ(faults.late_responses, 0);
        tw_vl_spi_chip_free(chip);
    }
}

/* The bare chip's clock runs to the cycle asked for, not one more, and not
 * back: tests that stand in for a board's clock count on it. */
static void test_bare_chip_clock(const tw_backend *b)
{
    (void)b;
    tw_vl_spi_config cfg = {.half_period = 4, .seed = clean_link_seed};
    tw_vl_spi_chip *chip = tw_vl_spi_chip_new(&cfg);
    if (!chip) {
        CHECK(!"chip");
        return;
    }
    uint64_t start = tw_vl_spi_chip_cycles(chip);
    CHECK(start > 0); /* the reset's clocks */
    CHECK_EQ(tw_vl_spi_chip_run(chip, start + 1000, 0), 0);
    CHECK_EQ(tw_vl_spi_chip_cycles(chip), start + 1000);
    CHECK_EQ(tw_vl_spi_chip_run(chip, start + 1001, 1), 0);
    CHECK_EQ(tw_vl_spi_chip_cycles(chip), start + 1001);
    CHECK_EQ(tw_vl_spi_chip_run(chip, start, 0), 0);
    CHECK_EQ(tw_vl_spi_chip_cycles(chip), start + 1001);
    CHECK_EQ(tw_vl_spi_chip_irq(chip), 0);
    tw_vl_spi_chip_free(chip);
}

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL);
    long ops = 3000;
    int run_clean = 1, run_noisy = 1;
    if (argc >= 3 && !strcmp(argv[1], "--link")) {
        run_clean = !strcmp(argv[2], "clean");
        run_noisy = !strcmp(argv[2], "noisy");
        if (!run_clean && !run_noisy) {
            fprintf(stderr, "%s: --link clean or noisy\n", argv[0]);
            return 2;
        }
        argv[2] = argv[0];
        argc -= 2;
        argv += 2;
    }
    if (tw_test_seed_ops(argc, argv, &seed, &ops) < 0)
        return 2;
    clean_link_seed = seed;
    noisy_link_seed = seed + (1u << 20);
    /* The FPGA top's geometry is fixed when it is Verilated: read it. */
    tw_dev d;
    tw_geometry g;
    tw_sim_config any = {0};
    if (open_clean(&d, &any) < 0 || tw_probe(&d, &g) < 0) {
        printf("FAIL spi/setup: cannot open the Verilated SPI top\n");
        return 1;
    }
    tw_dev_close(&d);
    tw_sim_config geo = {.levels = g.levels, .slot_bits = g.slot_bits, .fifo_log2 = g.fifo_log2};
    /* An access is 13 bytes at 8-10 clocks a bit: ~500x Wishbone's 2 clocks. */
    tw_backend backends[2] = {
        {.name = "spi", .open = open_clean, .cfg = geo, .time_scale = 512},
        {.name = "spi-noisy", .open = open_noisy, .cfg = geo, .time_scale = 640},
    };
    spi_geo = geo;
    int failed = 0;
    printf("# spi: seed=%llu%s\n", (unsigned long long)seed,
           run_clean && run_noisy ? "" : run_clean ? " (clean link)" : " (noisy link)");
    if (run_clean) {
        failed += !tw_test_run("spi", "open_refusals", test_open_refusals, &backends[0]);
        failed += !tw_test_run("spi", "bare_chip_clock", test_bare_chip_clock, &backends[0]);
    }
    for (int k = 0; k < 2; k++) {
        if (!(k == 0 ? run_clean : run_noisy))
            continue;
        failed += tw_driver_suite(&backends[k]);
        failed += !tw_random_run(&backends[k], seed, ops, NULL, 0, 0);
    }
    if (run_noisy) {
        failed += !tw_test_run("spi", "faults_never_pass", test_faults_never_pass, &backends[1]);
        int ok = noisy_frames_checked();
        printf("%s spi/noisy_link_retries_and_counts\n", ok ? "ok" : "FAIL");
        failed += !ok;
    }
    return failed ? 1 : 0;
}
