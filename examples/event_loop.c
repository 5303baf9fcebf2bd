/* tickwheel in an event loop: the loop sleeps in poll() until the chip's
 * interrupt wakes it, at most two ticks longer than tw_ticks_until_next
 * says. Requests to start timers come in on a socket, as any other fd work
 * would.
 *
 * The "board" is the C model of the chip, clocked in real time by a thread
 * of its own (1 tick = 1 ms from its prescaler). Its interrupt line reaches
 * the loop as an eventfd, the way a kernel driver or a GPIO line (the spidev
 * backend's line request, a UIO device) would: the thread writes the eventfd
 * while the line is high.
 *
 * On a real board (docs/fpga.md) there is no clock thread, eventfd or bus
 * lock: open it with tw_spidev_open and an IRQ line (irq_chip, irq_line
 * set), tw_init the wheel on that device, put tw_spidev_irq_fd(&dev) in the
 * poll set with POLLIN where b.irq_fd is, and
 * where the loop reads the eventfd, call tw_dev_wait_irq(&dev, 0) instead:
 * it reads the line's queued edge events without waiting (the fd is the
 * device's: never read or close it; tw_dev_close closes it) and returns the
 * line's level. Then service as below. That fd wakes the loop on the line's
 * rises only, where this eventfd is written again every millisecond while
 * the line stays high; the loop never sleeps on a high line either way,
 * because tw_ticks_until_next answers 0 while events wait in the chip.
 *
 * Locking: the wheel belongs to the loop's thread alone (the driver is not
 * thread-safe). Other threads reach it only through fds. The bus is shared
 * between the loop and the clock thread, so every bus transaction takes the
 * board's mutex (a real bus serialises itself).
 *
 *   event_loop [--seed N] [--timers N]
 * Exits 1 unless every timer fired exactly once, none early, and the
 * interrupt woke the loop.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tickwheel.h"
#include "args.h"

#define CLOCK_HZ 100000u   /* the simulated chip's clock */
#define TICK_CYCLES 100u   /* prescaler: 100 cycles a tick, so a tick is 1 ms */
#define MAX_INTERVAL 300u  /* ms */
#define SERVICE_BUDGET 64u /* callbacks per tw_service call */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------- the board stand-in */

typedef struct board {
    tw_dev chip;          /* the C model */
    pthread_mutex_t bus;  /* one bus transaction at a time */
    int irq_fd;           /* eventfd: written while the interrupt line is high */
    atomic_int stop;
    pthread_t clock_thread;
} board;

static int board_read(void *ctx, uint32_t addr, uint32_t *value)
{
    board *b = ctx;
    pthread_mutex_lock(&b->bus);
    int rc = tw_dev_read(&b->chip, addr, value);
    pthread_mutex_unlock(&b->bus);
    return rc;
}

static int board_write(void *ctx, uint32_t addr, uint32_t value)
{
    board *b = ctx;
    pthread_mutex_lock(&b->bus);
    int rc = tw_dev_write(&b->chip, addr, value);
    pthread_mutex_unlock(&b->bus);
    return rc;
}

/* The clock thread runs the chip; waiting is only looking at the line. */
static int board_wait_irq(void *ctx, uint64_t max_cycles)
{
    board *b = ctx;
    const uint64_t ns_per_cycle = 1000000000u / CLOCK_HZ;
    uint64_t now = mono_ns();
    /* A budget past what 64 bits of nanoseconds hold waits for ever, rather
     * than wrapping to a short wait. */
    uint64_t until = max_cycles > (UINT64_MAX - now) / ns_per_cycle ? UINT64_MAX
                                                                    : now + max_cycles * ns_per_cycle;
    for (;;) {
        pthread_mutex_lock(&b->bus);
        int line = tw_model_run(&b->chip, 0);
        pthread_mutex_unlock(&b->bus);
        if (line != 0 || mono_ns() >= until)
            return line;
        nanosleep(&(struct timespec){0, 100000}, NULL);
    }
}

static uint64_t board_cycles(void *ctx)
{
    board *b = ctx;
    pthread_mutex_lock(&b->bus);
    uint64_t c = tw_dev_cycles(&b->chip);
    pthread_mutex_unlock(&b->bus);
    return c;
}

static const tw_dev_ops board_ops = {
    .name = "model on a clock thread",
    .read = board_read,
    .write = board_write,
    .wait_irq = board_wait_irq,
    .cycles = board_cycles,
};

/* Every millisecond, run the clock up to wall time; while the interrupt
 * line is high, say so on the eventfd (a level-triggered interrupt). */
static void *clock_main(void *arg)
{
    board *b = arg;
    pthread_mutex_lock(&b->bus);
    uint64_t start = mono_ns(), base = tw_dev_cycles(&b->chip);
    pthread_mutex_unlock(&b->bus);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!atomic_load(&b->stop)) {
        next.tv_nsec += 1000000;
        if (next.tv_nsec >= 1000000000) {
            next.tv_nsec -= 1000000000;
            next.tv_sec++;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
        uint64_t due = base + (mono_ns() - start) / (1000000000u / CLOCK_HZ);
        pthread_mutex_lock(&b->bus);
        /* Bus transactions clock the model too: count them as time passed. */
        uint64_t ran = tw_dev_cycles(&b->chip);
        int line = tw_model_run(&b->chip, due > ran ? due - ran : 0);
        pthread_mutex_unlock(&b->bus);
        if (line == 1 && write(b->irq_fd, &(uint64_t){1}, sizeof(uint64_t)) < 0)
            perror("event_loop: eventfd");
    }
    return NULL;
}

/* ---------------------------------------------------- the application */

typedef struct request {
    uint32_t id, interval_ms;
} request;

typedef struct app_timer {
    tw_timer timer;
    uint32_t id, interval;
    uint64_t started_tick;  /* chip time just before tw_start */
    uint64_t started_ns;
    unsigned fired;
} app_timer;

static struct {
    int sock;                 /* the loop's end of the request socket */
    uint64_t early, max_late_ticks, max_late_us, fired;
} loop;

static void on_expiry(tw_timer *t, uint64_t now, void *arg)
{
    app_timer *a = arg;
    (void)t;
    a->fired++;
    loop.fired++;
    uint64_t due = a->started_tick + a->interval;
    if (now < due)
        loop.early++;
    else if (now - due > loop.max_late_ticks)
        loop.max_late_ticks = now - due;
    uint64_t took_us = (mono_ns() - a->started_ns) / 1000u;
    if (took_us > a->interval * 1000u && took_us - a->interval * 1000u > loop.max_late_us)
        loop.max_late_us = took_us - a->interval * 1000u;
    /* Tell the requester. */
    if (send(loop.sock, &a->id, sizeof a->id, 0) < 0)
        perror("event_loop: reply");
}

/* The client: asks for timers at random moments, then waits for every
 * reply and counts them per timer. */
typedef struct client {
    int sock;
    uint32_t ntimers;
    uint64_t seed;
    unsigned *replies;
} client;

static uint64_t rnd(uint64_t *state, uint64_t n) /* splitmix64 */
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return (z ^ (z >> 31)) % n;
}

/* One reply; 0 if none waits and `wait` is 0. */
static int take_reply(client *c, int wait)
{
    uint32_t id;
    if (recv(c->sock, &id, sizeof id, wait ? 0 : MSG_DONTWAIT) != sizeof id)
        return 0;
    if (id < c->ntimers)
        c->replies[id]++;
    return 1;
}

static void *client_main(void *arg)
{
    client *c = arg;
    uint64_t rng = c->seed;
    uint32_t got = 0;
    for (uint32_t i = 0; i < c->ntimers; i++) {
        request r = {i, 1 + (uint32_t)rnd(&rng, MAX_INTERVAL)};
        nanosleep(&(struct timespec){0, (long)rnd(&rng, 4000000)}, NULL);
        if (send(c->sock, &r, sizeof r, 0) < 0)
            perror("event_loop: request");
        /* Read replies as they come, or the socket fills and both ends block. */
        while (take_reply(c, 0))
            got++;
    }
    while (got < c->ntimers && take_reply(c, 1))
        got++;
    request quit = {UINT32_MAX, 0};
    send(c->sock, &quit, sizeof quit, 0);
    return NULL;
}

int main(int argc, char **argv)
{
    static const char usage[] = "usage: event_loop [--seed N] [--timers 1..100000]\n";
    uint64_t seed = 1, ntimers = 200;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return 0;
        }
        uint64_t *dst = !strcmp(argv[i], "--seed") ? &seed : !strcmp(argv[i], "--timers") ? &ntimers : NULL;
        uint64_t min = dst == &seed ? 0 : 1, max = dst == &seed ? UINT64_MAX : 100000;
        if (!dst || i + 1 == argc || parse_u64(argv[i + 1], min, max, dst)) {
            fputs(usage, stderr);
            return 2;
        }
        i++;
    }

    /* The board: chip, bus lock, interrupt eventfd, clock thread. */
    static board b;
    tw_sim_config chip = {.levels = 4, .slot_bits = 8, .fifo_log2 = 4};
    int rc = tw_model_open(&b.chip, &chip);
    if (rc < 0) {
        fprintf(stderr, "event_loop: %s\n", tw_strerror(rc));
        return 1;
    }
    pthread_mutex_init(&b.bus, NULL);
    b.irq_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    tw_dev dev = {.ops = &board_ops, .ctx = &b};

    /* The wheel, on the chip's prescaler: real time. */
    tw_geometry geo;
    tw_wheel wheel;
    /* visit_batch: a slot crowded with timers is worked off a few hundred at
     * a time, so requests are still answered in between (the loop comes
     * straight back: tw_ticks_until_next answers 0 while work is left). */
    tw_config cfg = {.source = TW_TIME_INTERNAL, .prescale = TICK_CYCLES - 1, .visit_batch = 256};
    void *mem = NULL;
    rc = tw_probe(&dev, &geo);
    if (rc == 0 && !(mem = malloc(tw_mem_size(&geo))))
        rc = TW_ENOMEM;
    if (rc == 0)
        rc = tw_init(&wheel, &dev, mem, tw_mem_size(&geo), &cfg);
    int sv[2];
    app_timer *timers = calloc(ntimers, sizeof *timers);
    unsigned *replies = calloc(ntimers, sizeof *replies);
    if (rc == 0 && (b.irq_fd < 0 || !timers || !replies || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0))
        rc = TW_ENOMEM;
    if (rc < 0) {
        fprintf(stderr, "event_loop: setup failed: %s\n", rc == TW_ENOMEM ? strerror(errno) : tw_strerror(rc));
        return 1;
    }
    loop.sock = sv[0];
    client cl = {sv[1], (uint32_t)ntimers, seed, replies};
    pthread_t client_thread;
    pthread_create(&b.clock_thread, NULL, clock_main, &b);
    pthread_create(&client_thread, NULL, client_main, &cl);

    /* The loop. */
    uint64_t wake_irq = 0, wake_timeout = 0, wake_request = 0, requests = 0;
    uint64_t t0 = mono_ns(), tick0;
    tw_now(&wheel, &tick0);
    int quit = 0;
    while (rc >= 0 && !(quit && tw_count_pending(&wheel) == 0)) {
        uint64_t sleep_ticks;
        rc = tw_ticks_until_next(&wheel, 1000, &sleep_ticks);
        if (rc < 0)
            break;
        struct pollfd fds[2] = {{.fd = b.irq_fd, .events = POLLIN}, {.fd = loop.sock, .events = POLLIN}};
        /* The interrupt wakes the loop at a deadline; the timeout is only
         * the backstop for a lost one, so it waits two ticks longer: one for
         * the line's own delay (here the clock thread runs the chip in 1 ms
         * steps) and one to spare. A timeout of exactly the answer would
         * race the interrupt. 0 (events wait) is no sleep at all. */
        int n = poll(fds, 2, (int)(sleep_ticks ? sleep_ticks + 2 : 0)); /* a tick is a millisecond */
        if (n < 0 && errno != EINTR) {
            perror("event_loop: poll");
            break;
        }
        if (n == 0)
            wake_timeout++;
        if (n > 0 && (fds[0].revents & POLLIN)) {
            /* On a board: tw_dev_wait_irq(&dev, 0) in place of this read. */
            uint64_t count;
            if (read(b.irq_fd, &count, sizeof count) == sizeof count)
                wake_irq++;
        }
        if (n > 0 && (fds[1].revents & POLLIN)) {
            request r;
            if (recv(loop.sock, &r, sizeof r, 0) == sizeof r) {
                wake_request++;
                if (r.id == UINT32_MAX) {
                    quit = 1;
                } else if (r.id < ntimers && r.interval_ms > 0) {
                    app_timer *a = &timers[r.id];
                    a->id = r.id;
                    a->interval = r.interval_ms;
                    tw_timer_init(&a->timer, on_expiry, a);
                    rc = tw_now(&wheel, &a->started_tick);
                    a->started_ns = mono_ns();
                    if (rc == 0)
                        rc = tw_start(&wheel, &a->timer, r.interval_ms);
                    requests++;
                }
            }
        }
        /* The interrupt, a timeout or a request: handle whatever is due. */
        while (rc >= 0 && (rc = tw_service(&wheel, SERVICE_BUDGET)) == (int)SERVICE_BUDGET)
            ;
    }
    uint64_t wall_ms = (mono_ns() - t0) / 1000000u, tick_end = 0;
    tw_now(&wheel, &tick_end);
    atomic_store(&b.stop, 1);
    pthread_join(b.clock_thread, NULL);
    pthread_join(client_thread, NULL);
    if (rc < 0) {
        fprintf(stderr, "event_loop: driver error: %s\n", tw_strerror(rc));
        return 1;
    }

    uint64_t not_once = 0, replies_wrong = 0;
    for (uint64_t i = 0; i < ntimers; i++) {
        not_once += timers[i].fired != 1;
        replies_wrong += replies[i] != 1;
    }
    printf("event loop: %llu timers of 1..%u ms, chip clock %u kHz on a thread (1 tick = 1 ms), seed %llu\n",
           (unsigned long long)ntimers, MAX_INTERVAL, CLOCK_HZ / 1000, (unsigned long long)seed);
    printf("  ran %llu ms of wall time, %llu chip ticks\n", (unsigned long long)wall_ms,
           (unsigned long long)(tick_end - tick0));
    printf("  woken by the interrupt  %6llu\n", (unsigned long long)wake_irq);
    printf("  woken by the timeout    %6llu\n", (unsigned long long)wake_timeout);
    printf("  woken by a request      %6llu\n", (unsigned long long)wake_request);
    printf("  timers fired            %6llu  (%llu not exactly once, %llu early)\n",
           (unsigned long long)loop.fired, (unsigned long long)not_once, (unsigned long long)loop.early);
    printf("  latest, in chip ticks   %6llu  (host service latency, on top of the 1-tick rounding)\n",
           (unsigned long long)loop.max_late_ticks);
    printf("  latest, in wall time    %6.1f ms\n", (double)loop.max_late_us / 1000.0);
    int ok = requests == ntimers && !not_once && !replies_wrong && !loop.early && wake_irq > 0;
    if (ok)
        printf("ok: every timer fired once and none early; the interrupt woke the loop %llu times\n",
               (unsigned long long)wake_irq);
    else
        printf("FAIL: %llu of %llu requests seen, %llu timers not fired exactly once, %llu replies wrong, "
               "%llu early, %llu interrupt wake-ups\n",
               (unsigned long long)requests, (unsigned long long)ntimers, (unsigned long long)not_once,
               (unsigned long long)replies_wrong, (unsigned long long)loop.early, (unsigned long long)wake_irq);
    tw_dev_close(&b.chip);
    close(b.irq_fd);
    close(sv[0]);
    close(sv[1]);
    free(timers);
    free(replies);
    free(mem);
    return ok ? 0 : 1;
}
