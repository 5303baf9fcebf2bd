/* The smallest complete use of tickwheel: a chip (here the C model), a wheel,
 * two timers, and virtual time. Build: see the Makefile's `examples` target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tickwheel.h"

static void expired(tw_timer *t, uint64_t now, void *arg)
{
    (void)t;
    printf("%s fired at tick %llu\n", (const char *)arg, (unsigned long long)now);
}

int main(int argc, char **argv)
{
    tw_dev dev;
    tw_sim_config chip = {.levels = 4, .slot_bits = 8, .fifo_log2 = 4};
    tw_geometry geo;
    tw_wheel wheel;
    tw_config cfg = {.source = TW_TIME_VIRTUAL};
    tw_timer retransmit, keepalive;
    int rc;

    if (argc > 1) { /* no options: say so rather than ignore them */
        int help = !strcmp(argv[1], "--help");
        fputs("usage: quickstart (no options)\n", help ? stdout : stderr);
        return help ? 0 : 2;
    }
    if ((rc = tw_model_open(&dev, &chip)) < 0 || (rc = tw_probe(&dev, &geo)) < 0)
        goto fail;
    size_t size = tw_mem_size(&geo); /* list heads: the driver never allocates */
    void *mem = malloc(size);
    if ((rc = mem ? tw_init(&wheel, &dev, mem, size, &cfg) : TW_ENOMEM) < 0)
        goto fail;

    tw_timer_init(&retransmit, expired, "retransmit");
    tw_timer_init(&keepalive, expired, "keepalive");
    if ((rc = tw_start(&wheel, &retransmit, 200)) < 0 ||
        (rc = tw_start_range(&wheel, &keepalive, 60000, 70000)) < 0) /* anywhere in the range */
        goto fail;

    uint64_t sleep;
    while (tw_count_pending(&wheel) > 0) {
        if ((rc = tw_ticks_until_next(&wheel, 100000, &sleep)) < 0 || /* the chip's search */
            (rc = tw_advance(&wheel, sleep, 64)) < 0)
            goto fail;
    }
    tw_dev_close(&dev);
    free(mem);
    return 0;
fail:
    fprintf(stderr, "quickstart: %s\n", tw_strerror(rc));
    return 1;
}
