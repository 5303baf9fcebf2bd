/* The Verilated RTL of tw_core behind the device interface: the simulator's
 * and the tests' backend (sim/tw_vl.cpp), built per geometry with the
 * model, so not in the installed library. */
#ifndef TW_VL_H
#define TW_VL_H

#include "tw_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 0 and *dev filled, or a negative TW_E* code. cfg may be NULL; a geometry
 * it sets (levels non-zero) must be the one the model was Verilated with
 * (TW_EINVAL otherwise), and its trace names an FST waveform to write. */
int tw_vl_open(tw_dev *dev, const tw_sim_config *cfg);

#ifdef __cplusplus
}
#endif

#endif
