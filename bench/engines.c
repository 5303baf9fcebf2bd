/* The registry of engines: tickwheel's driver first, then the software
 * reference schemes (Varghese & Lauck's Schemes 1-7, a binary heap, Lawn). */
#include <string.h>

#include "engine.h"

extern const engine_ops eng_tickwheel_ops;
extern const engine_ops eng_scheme1_ops; /* decrement every timer each tick */
extern const engine_ops eng_scheme2_ops; /* ordered list */
extern const engine_ops eng_scheme3_ops; /* pairing heap */
extern const engine_ops eng_scheme4_ops; /* wheel of MaxInterval slots + overflow list */
extern const engine_ops eng_scheme5_ops; /* hashed wheel, sorted lists */
extern const engine_ops eng_scheme6_ops; /* hashed wheel, unsorted lists */
extern const engine_ops eng_scheme7_ops; /* hierarchical wheels with cascades */
extern const engine_ops eng_heap_ops;    /* binary heap */
extern const engine_ops eng_lawn_ops;    /* TTL buckets */

const engine_ops *const all_engines[] = {
    &eng_tickwheel_ops,
    &eng_scheme1_ops,
    &eng_scheme2_ops,
    &eng_scheme3_ops,
    &eng_scheme4_ops,
    &eng_scheme5_ops,
    &eng_scheme6_ops,
    &eng_scheme7_ops,
    &eng_heap_ops,
    &eng_lawn_ops,
    NULL,
};

const engine_ops *engine_by_name(const char *name)
{
    for (const engine_ops *const *e = all_engines; name && *e; e++)
        if (!strcmp((*e)->name, name))
            return *e;
    return NULL;
}
