/* Fault injection: a device backend wrapped around another (the C model or
 * the Verilated RTL) that breaks it on purpose, seeded so a run replays. */
#ifndef TW_FAULTDEV_H
#define TW_FAULTDEV_H

#include <stdint.h>

#include "tw_dev.h"

/* Rates in parts per million of register accesses (events: of EVT_INFO reads). */
typedef struct tw_fault_plan {
    uint64_t seed;
    unsigned drop_request_ppm;  /* the access fails and never reaches the chip */
    unsigned lose_response_ppm; /* the access happens, but fails on the way back */
    unsigned spurious_ppm;      /* EVT_INFO shows a made-up event: a real slot, a passed tick */
    unsigned bad_event_ppm;     /* EVT_INFO shows an impossible one: slot or level out of
                                 * range, or a tick from the future */
    uint64_t reset_every;       /* pulse the chip's reset after about this many accesses */
} tw_fault_plan;

typedef struct tw_fault_counts {
    uint64_t accesses, dropped_requests, lost_responses, spurious_events, bad_events, resets;
} tw_fault_counts;

/* Takes over `inner` (closing the wrapper closes it). */
int tw_faultdev_open(tw_dev *dev, tw_dev *inner, const tw_fault_plan *plan);
/* Faults injected so far (NULL if dev is not a fault device). */
const tw_fault_counts *tw_faultdev_counts(const tw_dev *dev);
/* Stops or resumes injecting (a test's own setup and final checks run clean). */
void tw_faultdev_enable(tw_dev *dev, int on);

#endif
