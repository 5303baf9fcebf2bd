/* The Verilated FPGA top (SPI bridge + core) on its own, without the
 * driver's link over it: for tests that carry the frames themselves, such as
 * the stand-in for /dev/spidev in tests/fake_spidev.c. tw_vl_spi_open (tw_spi.h)
 * is the same model behind tw_spi_open. */
#ifndef TW_VL_SPI_H
#define TW_VL_SPI_H

#include <stddef.h>
#include <stdint.h>

#include "tw_spi.h"

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

#endif
