/* Strict parsing of numeric options, for the test programs, the benchmark
 * drivers and tw-sim: a seed typed wrong must not silently become another
 * seed (the run would not replay). */
#ifndef TW_ARGS_H
#define TW_ARGS_H

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* argv[*i] is "--seed N" or "--ops N" with a good N: stores it, steps *i
 * onto N and returns 1; else 0 (the caller's option, or its usage). --ops
 * is at least 1 and at most LONG_MAX / 10, so ten times it (the C model's
 * share) still fits. */
static inline int tw_arg_seed_ops(int argc, char **argv, int *i, uint64_t *seed, long *ops)
{
    uint64_t n;
    if (*i + 1 >= argc)
        return 0;
    if (!strcmp(argv[*i], "--seed") && tw_arg_u64(argv[*i + 1], 0, UINT64_MAX, seed) == 0)
        return ++*i, 1;
    if (!strcmp(argv[*i], "--ops") && tw_arg_u64(argv[*i + 1], 1, LONG_MAX / 10, &n) == 0)
        return *ops = (long)n, ++*i, 1;
    return 0;
}

#endif
