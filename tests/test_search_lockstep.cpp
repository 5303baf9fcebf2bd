// The Verilated rtl/tw_search.v against its C twin (host/tw_search_model.c)
// in lockstep: random bitmaps and bases, every output compared on every
// clock (o_valid, o_found, o_next, each level's o_waddr lane), searches
// run to their answer or abandoned by a write and a new start. The search
// ports are modelled here: the word at a clock's address comes next clock.
// Built once per geometry (TW_LEVELS, TW_SLOT_BITS).
//   build/tests/test-search-4_8 [--seed N] [--searches N]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <climits>
#include <ctime>

#include "Vtw_search.h"
#include "verilated.h"

extern "C" {
#include "tw_args.h"
#include "tw_search_model.h"
}

namespace {

constexpr unsigned kLevels = TW_LEVELS;
constexpr unsigned kB = TW_SLOT_BITS;
constexpr unsigned kSlots = 1u << kB;
constexpr unsigned kSW = kB < 4 ? 1u << kB : 16u;
constexpr unsigned kNW = kSlots / kSW;
constexpr unsigned kWA = kB > 4 ? kB - 4 : 1;

uint64_t rng;
uint64_t rnd()
{
    uint64_t z = (rng += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

struct Bench {
    VerilatedContext ctx;
    Vtw_search *top;
    tw_search_model model;
    uint16_t bitmap[kLevels][kNW];
    const uint16_t *words[TW_SEARCH_MAX_LEVELS];
    uint64_t port_q = 0;    // what the search ports show this clock
    uint64_t clocks = 0;
    uint64_t seed = 0;
    int failed = 0;

    Bench() : top(new Vtw_search(&ctx))
    {
        std::memset(bitmap, 0, sizeof bitmap);
        for (unsigned k = 0; k < TW_SEARCH_MAX_LEVELS; k++)
            words[k] = k < kLevels ? bitmap[k] : nullptr;
        tw_search_model_init(&model, kLevels, kB);
    }
    ~Bench() { delete top; }

    void set(unsigned level, unsigned slot, bool busy)
    {
        uint16_t bit = (uint16_t)(1u << (slot % kSW));
        if (busy) bitmap[level][slot / kSW] |= bit;
        else      bitmap[level][slot / kSW] &= (uint16_t)~bit;
    }

    unsigned lane(unsigned k) const { return (unsigned)(top->o_waddr >> (k * kWA)) & ((1u << kWA) - 1); }

    // One clock with these inputs (reset apart, the model steps with it).
    void clock(bool start, uint64_t base, bool rst = false)
    {
        uint64_t next_port = 0;
        for (unsigned k = 0; k < kLevels; k++)
            next_port |= (uint64_t)bitmap[k][lane(k) % kNW] << (k * kSW);
        top->i_rst = rst;
        top->i_start = start;
        top->i_base = base;
        top->i_words = port_q;
        top->i_clk = 1;
        top->eval();
        top->i_clk = 0;
        top->eval();
        port_q = next_port;
        if (rst)
            return;
        tw_search_model_step(&model, start, base, words);
        clocks++;
        compare();
    }

    void compare()
    {
        bool ok = (bool)top->o_valid == (bool)model.valid && (bool)top->o_found == (bool)model.found &&
                  (uint64_t)top->o_next == model.next;
        for (unsigned k = 0; k < kLevels; k++)
            ok = ok && lane(k) == model.waddr;
        if (ok || failed++ >= 5)
            return;
        std::printf("FAIL search-lockstep-%ux%u: clock %llu (%u since the start): RTL valid %d found %d next %012llx "
                    "waddr %llx, model %d %d %012llx %x (seed %llu)\n",
                    kLevels, kB, (unsigned long long)clocks, model.t, (int)top->o_valid, (int)top->o_found,
                    (unsigned long long)top->o_next, (unsigned long long)top->o_waddr, model.valid, model.found,
                    (unsigned long long)model.next, model.waddr, (unsigned long long)seed);
    }
};

uint64_t random_base()
{
    uint64_t base = rnd() & ((UINT64_C(1) << 48) - 1);
    for (unsigned k = 0; k < 48 / kB; k++) {
        uint64_t field = ((UINT64_C(1) << kB) - 1) << (k * kB);
        switch (rnd() % 8) {
        case 0: base &= ~field; break;
        case 1: base |= field; break;
        default: break;
        }
    }
    if (rnd() % 8 == 0)
        base |= UINT64_C(0xffffff) << 24;
    return base;
}

// Bitmap changes before a search: a clear, a few writes, many, or slots at
// chosen offsets from the next base's pointers (word edges, the revolution).
void mutate(Bench &b, uint64_t base)
{
    unsigned kind = (unsigned)(rnd() % 8);
    if (kind == 0)
        std::memset(b.bitmap, 0, sizeof b.bitmap);
    unsigned n = kind == 1 ? 0 : kind <= 3 ? 1 + (unsigned)(rnd() % 4) : kind == 4 ? kSlots / 2 : 2 + (unsigned)(rnd() % 8);
    if (n > 64)
        n = 64;
    for (unsigned i = 0; i < n; i++) {
        unsigned k = (unsigned)(rnd() % kLevels);
        if (kind >= 5) {
            unsigned p = (unsigned)(base >> (k * kB)) & (kSlots - 1);
            unsigned qb = (p + 1) % kSW, o;
            switch (rnd() % 4) {
            case 0: o = 1 + (unsigned)(rnd() % kSlots); break;
            case 1: o = kSlots - (unsigned)(rnd() % 3); break;
            case 2: o = 1 + (unsigned)(rnd() % (kNW + 1)) * kSW - qb + (unsigned)(rnd() % 2); break;
            default: o = 1 + (unsigned)(rnd() % (5 * kSW)); break;
            }
            if (o < 1) o = 1;
            if (o > kSlots) o = kSlots;
            b.set(k, (p + o) % kSlots, rnd() % 8 != 0);
        } else {
            b.set(k, (unsigned)(rnd() % kSlots), kind == 4 ? rnd() % 2 : rnd() % 4 != 0);
        }
    }
}

}  // namespace

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(nullptr);
    long searches = 20000;
    for (int i = 1; i < argc; i++) {
        uint64_t n = 0;
        if (!std::strcmp(argv[i], "--seed") && i + 1 < argc && tw_arg_u64(argv[i + 1], 0, UINT64_MAX, &seed) == 0) {
            i++;
        } else if (!std::strcmp(argv[i], "--searches") && i + 1 < argc &&
                   tw_arg_u64(argv[i + 1], 1, LONG_MAX, &n) == 0) {
            searches = (long)n;
            i++;
        } else {
            std::fprintf(stderr, "usage: %s [--seed N] [--searches N]\n", argv[0]);
            return 2;
        }
    }
    rng = seed;
    Bench b;
    b.seed = seed;
    std::printf("# search-lockstep-%ux%u seed %llu (replay: --seed %llu)\n", kLevels, kB,
                (unsigned long long)seed, (unsigned long long)seed);
    for (int i = 0; i < 3; i++)
        b.clock(false, 0, true);
    b.compare();
    long abandoned = 0;
    uint32_t longest = 0;
    uint64_t base = random_base();
    for (long n = 0; n < searches && !b.failed; n++) {
        mutate(b, base);
        b.clock(true, base);
        uint32_t t_valid = b.model.t_valid;
        if (t_valid > longest)
            longest = t_valid;
        // Abandoned at a random clock in a quarter of the searches: a write,
        // and the next search starts in the next clock.
        uint32_t stop = rnd() % 4 == 0 ? 1 + (uint32_t)(rnd() % t_valid) : t_valid + 1 + (uint32_t)(rnd() % 3);
        while (b.model.t < stop)
            b.clock(false, base);
        if (stop <= t_valid) {
            abandoned++;
            b.set((unsigned)(rnd() % kLevels), (unsigned)(rnd() % kSlots), true);
        }
        base = random_base();
    }
    if (longest > tw_search_model_worst_clocks(kLevels, kB)) {
        std::printf("FAIL search-lockstep-%ux%u: a search of %u clocks, beyond the worst case %u\n", kLevels, kB,
                    longest, tw_search_model_worst_clocks(kLevels, kB));
        b.failed++;
    }
    // The twin's own edges, which no search above reaches: a geometry out
    // of range is refused (the limits themselves taken), and a search's clock
    // count saturates, so its answer stands however long the chip idles after
    // it (the RTL's o_valid stays high until the next start).
    static const unsigned geometries[][3] = {{0, 8, 0}, {5, 8, 0}, {1, 1, 0}, {1, 13, 0}, {4, 12, 0}, {3, 15, 0},
                                             {1, 2, 1}, {4, 11, 1}, {3, 12, 1}, {4, 2, 1}};
    for (const auto &g : geometries) {
        tw_search_model m;
        int rc = tw_search_model_init(&m, g[0], g[1]);
        if (rc != (g[2] ? 0 : -1)) {
            std::printf("FAIL search-lockstep-%ux%u: the twin %s geometry %u x %u\n", kLevels, kB,
                        g[2] ? "refused" : "took", g[0], g[1]);
            b.failed++;
        }
    }
    tw_search_model m = b.model;
    tw_search_model_step(&m, 1, base, b.words);
    while (!m.valid && m.t < 10000)
        tw_search_model_step(&m, 0, base, b.words);
    int found = m.found;
    uint64_t next = m.next;
    m.t = UINT32_MAX - 2;
    for (int i = 0; i < 4; i++)
        tw_search_model_step(&m, 0, base, b.words);
    if (!m.valid || m.t != UINT32_MAX || m.found != found || m.next != next) {
        std::printf("FAIL search-lockstep-%ux%u: 2^32 clocks after a search the twin shows valid %d found %d next "
                    "%012llx (t %u), not 1 %d %012llx\n",
                    kLevels, kB, m.valid, m.found, (unsigned long long)m.next, m.t, found, (unsigned long long)next);
        b.failed++;
    }
    if (b.failed)
        return 1;
    std::printf("ok search-lockstep-%ux%u (%ld searches, %ld abandoned, %llu clocks compared, longest %u)\n", kLevels,
                kB, searches, abandoned, (unsigned long long)b.clocks, longest);
    return 0;
}
