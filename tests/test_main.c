/* One test binary per Verilated geometry: runs the driver suite and the
 * randomised oracle test on the C model and on the Verilated RTL, both with
 * the geometry this binary's RTL was built with.
 *
 *   test-L_B_F [--backend model|vl|all] [--suite driver|random|lockstep|faults|all]
 *              [--seed N] [--ops N]
 *
 * The randomised test runs --ops operations on the RTL (default 100k) and ten
 * times as many on the C model, which is that much faster.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tw_regs.h"
#include "tw_args.h"
#include "tw_test.h"
#include "tw_vl.h"

int tw_driver_suite(const tw_backend *b);
int tw_random_run(const tw_backend *b, uint64_t seed, long ops, uint64_t summary[6], unsigned coarse_shift,
                  unsigned visit_batch);
int tw_lockstep_run(const tw_backend *other, uint64_t seed, long ops);
int tw_lockstep_divergence_run(const char *geo_name, const tw_sim_config *cfg, uint64_t seed);
int tw_faults_suite(const tw_backend *b, uint64_t seed);
int tw_misuse_run(const tw_backend *b, uint64_t seed);

/* The geometry this binary's RTL was Verilated with. */
static tw_sim_config vl_geo;

/* tw_vl_open refuses what it cannot give: no device, a geometry other than
 * the Verilated one (each of its three numbers), a trace it cannot write.
 * No geometry (NULL, or levels 0) takes the Verilated one. */
static void test_vl_open_refusals(const tw_backend *b)
{
    tw_dev dev;
    tw_geometry g;
    (void)b;
    CHECK_EQ(tw_vl_open(NULL, &vl_geo), TW_EINVAL);
    tw_test_refuses_other_geometries(&vl_geo, tw_vl_open);
    tw_sim_config traced = vl_geo;
    traced.trace = "/nonexistent-dir/tickwheel/wave.fst";
    CHECK_EQ(tw_vl_open(&dev, &traced), TW_EIO);
    /* A device opened from garbage starts its statistics at zero. */
    tw_sim_config none = {0};
    const tw_sim_config *any[2] = {NULL, &none};
    for (int i = 0; i < 2; i++) {
        memset(&dev, 0xA5, sizeof dev);
        CHECK_OK(tw_vl_open(&dev, any[i]));
        CHECK(dev.reads == 0 && dev.writes == 0 && dev.waits == 0 && dev.irqs == 0);
        CHECK_OK(tw_probe(&dev, &g));
        CHECK(g.levels == vl_geo.levels && g.slot_bits == vl_geo.slot_bits && g.fifo_log2 == vl_geo.fifo_log2);
        tw_dev_close(&dev);
    }
}

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [--backend model|vl|all] [--suite driver|random|lockstep|faults|all] [--seed N] [--ops N]\n"
            "  replay a randomised failure with the seed it printed\n",
            prog);
    exit(2);
}

int main(int argc, char **argv)
{
    const char *backend = "all", *suite = "all";
    uint64_t seed = (uint64_t)time(NULL);
    long ops = 100000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--backend") && i + 1 < argc)
            backend = argv[++i];
        else if (!strcmp(argv[i], "--suite") && i + 1 < argc)
            suite = argv[++i];
        else if (!tw_arg_seed_ops(argc, argv, &i, &seed, &ops))
            usage(argv[0]);
    }
    if (strcmp(backend, "model") && strcmp(backend, "vl") && strcmp(backend, "all"))
        usage(argv[0]);
    if (strcmp(suite, "driver") && strcmp(suite, "random") && strcmp(suite, "lockstep") && strcmp(suite, "faults") &&
        strcmp(suite, "all"))
        usage(argv[0]);
    /* Lockstep compares the two backends, so it has nothing to run on one. */
    if (!strcmp(suite, "lockstep") && strcmp(backend, "all")) {
        fprintf(stderr, "%s: --suite lockstep runs the model against the RTL: it needs --backend all\n", argv[0]);
        return 2;
    }

    /* The RTL's geometry is fixed at Verilation: read it, give the model the same. */
    tw_dev probe_dev;
    tw_geometry g;
    if (tw_vl_open(&probe_dev, NULL) < 0 || tw_probe(&probe_dev, &g) < 0) {
        printf("FAIL setup: cannot open the Verilated model\n");
        return 1;
    }
    tw_dev_close(&probe_dev);
    tw_sim_config geo = {.levels = g.levels, .slot_bits = g.slot_bits, .fifo_log2 = g.fifo_log2};
    tw_backend backends[2] = {
        /* The pipelined chip's access takes 5 clocks (7 after a CMD),
         * against the 2 time_scale counts from (docs/chip.md); the model
         * is that chip cycle for cycle. */
        {.name = "model", .open = tw_model_open, .cfg = geo, .time_scale = 3},
        {.name = "vl", .open = tw_vl_open, .cfg = geo, .time_scale = 3},
    };
    char names[2][64];
    snprintf(names[0], sizeof names[0], "model-L%uB%uF%u", g.levels, g.slot_bits, g.fifo_log2);
    snprintf(names[1], sizeof names[1], "vl-L%uB%uF%u", g.levels, g.slot_bits, g.fifo_log2);
    backends[0].name = names[0];
    backends[1].name = names[1];

    int failed = 0;
    vl_geo = geo;
    if (strcmp(backend, "model") && (!strcmp(suite, "all") || !strcmp(suite, "driver")))
        failed += !tw_test_run("vl", "open_refusals", test_vl_open_refusals, &backends[1]);
    for (int k = 0; k < 2; k++) {
        if (strcmp(backend, "all") && strncmp(backends[k].name, backend, strlen(backend)))
            continue;
        if (!strcmp(suite, "all") || !strcmp(suite, "driver"))
            failed += tw_driver_suite(&backends[k]);
        if (!strcmp(suite, "all") || !strcmp(suite, "random"))
            failed += !tw_random_run(&backends[k], seed, k == 0 ? 10 * ops : ops, NULL, 0, 0);
        if (!strcmp(suite, "all") || !strcmp(suite, "random"))
            failed += !tw_random_run(&backends[k], seed + 2, ops, NULL, 3, 0); /* coarse mode */
        if (k == 0 && (!strcmp(suite, "all") || !strcmp(suite, "random")))
            failed += !tw_random_run(&backends[k], seed + 3, ops, NULL, 0, 1 + (unsigned)(seed % 4));
        if (k == 0 && (!strcmp(suite, "all") || !strcmp(suite, "random")))
            failed += !tw_misuse_run(&backends[k], seed + 5); /* the driver alone: model only */
        if (!strcmp(suite, "all") || !strcmp(suite, "faults"))
            failed += tw_faults_suite(&backends[k], seed + 4);
    }

    /* The C model is the RTL cycle for cycle: the same workload must leave
     * both with the same expiries, events, time, clock cycles and bus traffic. */
    if (!strcmp(backend, "all") && (!strcmp(suite, "all") || !strcmp(suite, "random"))) {
        static const char *what[6] = {"fired", "events", "now", "cycles", "reads", "writes"};
        uint64_t sm[6] = {0}, sv[6] = {0};
        long n = ops / 5 > 0 ? ops / 5 : 1;
        int ok = tw_random_run(&backends[0], seed + 1, n, sm, 0, 0) & tw_random_run(&backends[1], seed + 1, n, sv, 0, 0);
        for (int i = 0; i < 6 && ok; i++)
            if (sm[i] != sv[i]) {
                printf("FAIL agree/%s: %s: model %llu, RTL %llu (seed %llu)\n", names[1] + 3, what[i],
                       (unsigned long long)sm[i], (unsigned long long)sv[i],
                       (unsigned long long)(seed + 1));
                ok = 0;
            }
        if (ok)
            printf("ok agree/%s/model_equals_rtl (cycles %llu)\n", names[1] + 3, (unsigned long long)sm[3]);
        failed += !ok;
    }
    /* Register-level lockstep of the two: --ops x 10 random operations. */
    if (!strcmp(backend, "all") && (!strcmp(suite, "all") || !strcmp(suite, "lockstep"))) {
        failed += !tw_lockstep_run(&backends[1], seed + 3, 10 * ops);
        /* ... and the lockstep itself, against a model with one planted difference. */
        failed += !tw_lockstep_divergence_run(names[1] + 3, &geo, seed + 5);
    }
    return failed ? 1 : 0;
}
