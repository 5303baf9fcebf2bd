/* Strict parsing of a test program's numeric options: a seed typed wrong
 * must not silently become another seed (the run would not replay). */
#ifndef TW_ARGS_H
#define TW_ARGS_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* A whole number in [min, max] (decimal, 0x hex or 0 octal): 0 and *out
 * set, or -1 for anything else (empty, a sign, trailing text, overflow). */
static inline int tw_arg_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    if (!s || !*s || *s == '-' || *s == '+')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end || errno == ERANGE || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

#endif
