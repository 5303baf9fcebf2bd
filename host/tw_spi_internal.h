/* For the library's own SPI backends, not installed (the Makefile's
 * PUB_HDRS): what a backend needs to find its own state in a tw_dev that
 * tw_spi_open made. */
#ifndef TW_SPI_INTERNAL_H
#define TW_SPI_INTERNAL_H

#include "tw_spi.h"

/* The transport_ctx given to tw_spi_open if `dev` is a device it opened over
 * `transport` (the same table, by address); NULL for any other device,
 * including NULL and a closed one. */
#if defined(__GNUC__) && defined(__ELF__)
/* Not exported from the shared library either. */
__attribute__((visibility("hidden")))
#endif
void *tw_spi_transport_ctx(const tw_dev *dev, const tw_spi_transport *transport);

#endif
