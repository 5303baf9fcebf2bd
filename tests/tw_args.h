/* Strict parsing of a test program's numeric options: a seed typed wrong
 * must not silently become another seed (the run would not replay). */
#ifndef TW_ARGS_H
#define TW_ARGS_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* A whole number in [min, max], decimal or 0x hex: returns 0 with *out
 * set, or -1 for anything else (empty, a sign or space, trailing text,
 * overflow). A leading zero is decimal: 010 is ten. */
static inline int tw_arg_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return -1;
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    errno = 0;
    unsigned long long v = strtoull(s, &end, hex ? 16 : 10);
    if (*end || errno == ERANGE || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

#endif
