/* A fuzz input read as a stream: each call takes the next bytes, and an
 * exhausted input reads as zeros (fuzz_empty() tells). */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tickwheel.h"

typedef struct fuzz_input {
    const uint8_t *p;
    size_t left;
} fuzz_input;

static inline void fuzz_init(fuzz_input *in, const uint8_t *data, size_t size)
{
    in->p = data;
    in->left = size;
}

static inline int fuzz_empty(const fuzz_input *in) { return in->left == 0; }

static inline uint8_t fuzz_u8(fuzz_input *in)
{
    if (!in->left)
        return 0;
    in->left--;
    return *in->p++;
}

static inline uint16_t fuzz_u16(fuzz_input *in)
{
    uint16_t lo = fuzz_u8(in);
    return (uint16_t)(lo | (uint16_t)fuzz_u8(in) << 8);
}

static inline uint32_t fuzz_u32(fuzz_input *in)
{
    uint32_t lo = fuzz_u16(in);
    return lo | (uint32_t)fuzz_u16(in) << 16;
}

/* A broken guarantee: say which, and abort (libFuzzer keeps the input). */
static inline __attribute__((noreturn, format(printf, 1, 2))) void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

static inline int list_is_empty(const tw_list *l) { return l->next == l; }

#endif
