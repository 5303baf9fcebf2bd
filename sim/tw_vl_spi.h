/* The Verilated FPGA top (SPI bridge + core), the simulator's and the
 * tests' (built with the model, so not in the installed library):
 * tw_vl_spi_open puts it behind the driver's SPI link (tw_spi_open), and
 * tw_vl_spi_chip_* give it on its own, without the link, for tests that
 * carry the frames themselves, such as the stand-in for /dev/spidev in
 * tests/fake_spidev.c. */
#ifndef TW_VL_SPI_H
#define TW_VL_SPI_H

#include <stddef.h>
#include <stdint.h>

#include "tw_spi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tw_vl_spi_config {
    tw_sim_config sim;       /* geometry check, as for tw_vl_open (tw_vl.h) */
    unsigned half_period;    /* system clocks per half SCK period (>= 4) */
    double corrupt_rate;     /* probability that a frame gets one bit flipped */
    double drop_rate;        /* probability that a frame is cut short (CS_N rises
                              * mid-request: nothing done), half of these; or
                              * its response is lost (MISO floats high: the
                              * access happened) or, unless a bit is flipped,
                              * answered late (0x00, as by a bus slave slower
                              * than the deadline: the access happened) */
    uint64_t seed;           /* for the faults and SCK phase jitter */
    struct tw_vl_spi_faults *faults; /* optional: counts of faults injected */
} tw_vl_spi_config;

typedef struct tw_vl_spi_faults {
    uint64_t flipped_bits, cut_requests, lost_responses, late_responses;
} tw_vl_spi_faults;
/* A device on the top through tw_spi_open, frames clocked through bit by bit. */
int tw_vl_spi_open(tw_dev *dev, const tw_vl_spi_config *cfg);

typedef struct tw_vl_spi_chip tw_vl_spi_chip;

/* A chip out of reset, clocked and faulted as cfg says (cfg->sim is not
 * used); NULL if cfg is invalid or memory is short. */
tw_vl_spi_chip *tw_vl_spi_chip_new(const tw_vl_spi_config *cfg);
void tw_vl_spi_chip_free(tw_vl_spi_chip *chip);
/* One frame with CS_N low throughout, SPI mode 0, MSB first. */
int tw_vl_spi_chip_transfer(tw_vl_spi_chip *chip, const uint8_t *tx, uint8_t *rx, size_t len);
/* Runs the clock until it has run to_cycle cycles in all, or (stop_on_irq)
 * until the interrupt line is high. Returns the line. */
int tw_vl_spi_chip_run(tw_vl_spi_chip *chip, uint64_t to_cycle, int stop_on_irq);
int tw_vl_spi_chip_irq(const tw_vl_spi_chip *chip);
uint64_t tw_vl_spi_chip_cycles(const tw_vl_spi_chip *chip);

#ifdef __cplusplus
}
#endif

#endif
