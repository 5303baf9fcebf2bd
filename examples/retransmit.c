/* Retransmission timers: many connections, one RTO timer each, re-armed on
 * every ack; the network loses some acks, and every lost ack must cost
 * exactly one retransmission, exactly one RTO after the segment was sent.
 *
 * Everything runs in the wheel, in virtual time on the C model of the chip:
 * an ack in flight is a timer too (it "arrives" RTT ticks after the send).
 * An ack pushes the RTO later, which the driver does without a bus
 * transaction (a lazy re-arm), so the chip hears little of the traffic.
 *
 *   retransmit [--seed N] [--connections 1..1000000] [--ticks 1..100000000]
 * Prints a summary; exits 1 if any check fails, 2 for a bad option.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tickwheel.h"
#include "args.h"

#define RTO_MIN 200      /* ticks; doubled after each retransmission of a segment */
#define RTO_MAX 6400
#define RTT_MAX 150      /* below RTO_MIN: an ack that is not lost beats the RTO */
#define LOSS_PERCENT 5

typedef struct conn {
    tw_timer rto, ack;
    uint64_t sent_at;      /* tick the outstanding segment went out */
    uint64_t rto_ticks;    /* its RTO */
    int ack_lost;          /* the network dropped its ack */
    uint64_t segments, retransmits, lost;
} conn;

static struct {
    tw_wheel wheel;
    uint64_t rng, end;
    uint64_t sent, acked, lost, lost_due, retransmits, longest_rto;
    uint64_t wrong_tick, spurious, failures;
} demo;

static uint64_t rnd(uint64_t n) /* splitmix64 */
{
    uint64_t z = (demo.rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return (z ^ (z >> 31)) % n;
}

static void check(int rc)
{
    if (rc < 0) {
        fprintf(stderr, "retransmit: %s\n", tw_strerror(rc));
        demo.failures++;
    }
}

/* Sends (or resends) the connection's segment at tick `now`. */
static void transmit(conn *c, uint64_t now)
{
    c->sent_at = now;
    if (c->rto_ticks > demo.longest_rto)
        demo.longest_rto = c->rto_ticks;
    c->ack_lost = rnd(100) < LOSS_PERCENT;
    demo.sent++;
    if (c->ack_lost) {
        demo.lost++;
        /* The RTO of one due inside the run must fire before it ends. */
        if (now + c->rto_ticks <= demo.end) {
            c->lost++;
            demo.lost_due++;
        }
    } else {
        check(tw_start(&demo.wheel, &c->ack, 1 + rnd(RTT_MAX)));
    }
    /* A pending RTO moves later here: no bus transaction. */
    check(tw_start(&demo.wheel, &c->rto, c->rto_ticks));
}

static void on_ack(tw_timer *t, uint64_t now, void *arg)
{
    conn *c = arg;
    (void)t;
    demo.acked++;
    c->segments++;
    c->rto_ticks = RTO_MIN;
    transmit(c, now); /* the next segment, with a fresh RTO */
}

static void on_rto(tw_timer *t, uint64_t now, void *arg)
{
    conn *c = arg;
    (void)t;
    if (!c->ack_lost)
        demo.spurious++;   /* its ack was on its way: the RTO fired early */
    if (now != c->sent_at + c->rto_ticks)
        demo.wrong_tick++; /* not exactly one RTO after the send */
    c->retransmits++;
    demo.retransmits++;
    if (c->rto_ticks < RTO_MAX)
        c->rto_ticks *= 2;
    transmit(c, now);
}

int main(int argc, char **argv)
{
    static const char usage[] =
        "usage: retransmit [--seed N] [--connections 1..1000000] [--ticks 1..100000000]\n";
    uint64_t seed = 1, nconn = 1000, ticks = 100000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return 0;
        }
        /* Bounds on memory (a million connections) and on the run: its time
         * grows with connections × ticks (10,000 × 1,000,000: seconds). */
        uint64_t *dst = !strcmp(argv[i], "--seed") ? &seed
                        : !strcmp(argv[i], "--connections") ? &nconn
                        : !strcmp(argv[i], "--ticks") ? &ticks : NULL;
        uint64_t min = dst == &seed ? 0 : 1;
        uint64_t max = dst == &seed ? UINT64_MAX : dst == &nconn ? 1000000 : 100000000;
        if (!dst || i + 1 == argc || parse_u64(argv[i + 1], min, max, dst)) {
            fputs(usage, stderr);
            return 2;
        }
        i++;
    }

    tw_dev dev;
    tw_sim_config chip = {.levels = 4, .slot_bits = 8, .fifo_log2 = 4};
    tw_geometry geo;
    tw_config cfg = {.source = TW_TIME_VIRTUAL};
    int rc = tw_model_open(&dev, &chip);
    if (rc == 0)
        rc = tw_probe(&dev, &geo);
    void *mem = rc == 0 ? malloc(tw_mem_size(&geo)) : NULL;
    conn *conns = calloc(nconn, sizeof *conns);
    if (rc == 0 && (!mem || !conns))
        rc = TW_ENOMEM;
    if (rc == 0)
        rc = tw_init(&demo.wheel, &dev, mem, tw_mem_size(&geo), &cfg);
    if (rc < 0) {
        fprintf(stderr, "retransmit: %s\n", tw_strerror(rc));
        return 1;
    }
    demo.rng = seed;
    demo.end = ticks;

    for (uint64_t i = 0; i < nconn; i++) {
        conn *c = &conns[i];
        tw_timer_init(&c->rto, on_rto, c);
        tw_timer_init(&c->ack, on_ack, c);
        c->rto_ticks = RTO_MIN;
        transmit(c, 0);
    }
    uint64_t writes_before = dev.writes;
    check(tw_advance_to(&demo.wheel, ticks, UINT32_MAX));

    /* A lost ack whose RTO was due inside the run and never fired. */
    uint64_t missed = 0;
    for (uint64_t i = 0; i < nconn; i++) {
        const conn *c = &conns[i];
        missed += c->ack_lost && c->sent_at + c->rto_ticks <= ticks;
    }
    const tw_stats *st = &demo.wheel.stats;
    printf("retransmit demo: %llu connections, %llu ticks, seed %llu, %d%% of acks lost\n",
           (unsigned long long)nconn, (unsigned long long)ticks, (unsigned long long)seed, LOSS_PERCENT);
    printf("  segments sent       %10llu\n", (unsigned long long)demo.sent);
    printf("  acks received       %10llu\n", (unsigned long long)demo.acked);
    printf("  acks lost           %10llu  (%llu with their RTO due in the run)\n", (unsigned long long)demo.lost,
           (unsigned long long)demo.lost_due);
    printf("  retransmissions     %10llu\n", (unsigned long long)demo.retransmits);
    printf("  longest RTO         %10llu  (from %d, doubled on each retransmission, at most %d)\n",
           (unsigned long long)demo.longest_rto, RTO_MIN, RTO_MAX);
    printf("  RTO re-arms         %10llu  (%llu without a bus transaction)\n",
           (unsigned long long)(demo.acked + demo.retransmits), (unsigned long long)st->lazy_rearms);
    printf("  bus writes          %10llu  (%.2f per segment)\n",
           (unsigned long long)(dev.writes - writes_before),
           demo.sent ? (double)(dev.writes - writes_before) / (double)demo.sent : 0.0);
    printf("  interrupts          %10llu\n", (unsigned long long)dev.irqs);
    int ok = !demo.failures && !demo.spurious && !demo.wrong_tick && !missed &&
             demo.retransmits == demo.lost_due;
    if (ok && demo.lost_due == 0)
        printf("ok: no lost ack had its RTO due in so short a run, and no RTO fired (more ticks show them)\n");
    else if (ok)
        printf("ok: every lost ack due in the run led to exactly one retransmission, one RTO after its send\n");
    else
        printf("FAIL: %llu lost acks due, %llu retransmissions (%llu with no lost ack, %llu off their tick, "
               "%llu never sent), %llu driver errors\n",
               (unsigned long long)demo.lost_due, (unsigned long long)demo.retransmits,
               (unsigned long long)demo.spurious, (unsigned long long)demo.wrong_tick,
               (unsigned long long)missed, (unsigned long long)demo.failures);
    tw_dev_close(&dev);
    free(conns);
    free(mem);
    return ok ? 0 : 1;
}
