/* The examples' numeric options: a whole number in [min, max], decimal or
 * 0x hex, nothing around it (so "010" is ten and " -5" is refused). The
 * rule of tests/tw_args.h, written out here because the examples build
 * against the installed library alone (tests/install_check.sh). Returns 0
 * with *out set, or -1 leaving it alone. */
#ifndef TW_EXAMPLE_ARGS_H
#define TW_EXAMPLE_ARGS_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

static inline int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
    if (*end || errno || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

#endif
