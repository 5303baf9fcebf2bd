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
    noisy_total = *st;
    uint32_t errs = 0;
    tw_dev_read(&dev, TW_REG_SPI_ERRORS, &errs);
    printf("# spi-noisy: %llu frames, %llu retries (%llu requests rejected by the bridge, %llu bad responses), bridge counted %u\n",
           (unsigned long long)st->frames, (unsigned long long)st->retries,
           (unsigned long long)st->rejected_requests, (unsigned long long)st->bad_responses,
           (unsigned)TW_GET(TW_SPI_ERRORS_COUNT, errs));
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
         TW_GET(TW_SPI_ERRORS_COUNT, errs) >= st->rejected_requests;
    tw_dev_close(&dev);
    return ok;
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
    int failed = 0;
    printf("# spi: seed=%llu%s\n", (unsigned long long)seed,
           run_clean && run_noisy ? "" : run_clean ? " (clean link)" : " (noisy link)");
    for (int k = 0; k < 2; k++) {
        if (!(k == 0 ? run_clean : run_noisy))
            continue;
        failed += tw_driver_suite(&backends[k]);
        failed += !tw_random_run(&backends[k], seed, ops, NULL, 0, 0);
    }
    if (run_noisy) {
        int ok = noisy_frames_checked();
        printf("%s spi/noisy_link_retries_and_counts\n", ok ? "ok" : "FAIL");
        failed += !ok;
    }
    return failed ? 1 : 0;
}
