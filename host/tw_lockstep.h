/* Lockstep backend: the C model beside another backend, every read compared. */
#ifndef TW_LOCKSTEP_H
#define TW_LOCKSTEP_H

#include <stdint.h>

#include "tw_dev.h"

/* Opens the C model and `open_other` (e.g. tw_vl_open) with the same config. */
int tw_lockstep_open(tw_dev *dev, const tw_sim_config *cfg,
                     int (*open_other)(tw_dev *, const tw_sim_config *));
/* The first difference seen, or NULL while the two agree. */
const char *tw_lockstep_difference(const tw_dev *dev);
/* Reads and waits compared so far. */
uint64_t tw_lockstep_compares(const tw_dev *dev);

#endif
