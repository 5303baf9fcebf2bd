#define _POSIX_C_SOURCE 200809L
/* tw-sim: runs a built-in timer scenario on a tickwheel chip through the C
 * driver, in virtual time, and prints what happened. The chip is simulated
 * (the Verilated RTL by default, the C model, or the Verilated FPGA top with
 * the driver's SPI frames clocked through its bridge) or a real board on
 * this host's SPI pins (Linux spidev). Every timer must fire exactly at its deadline, exactly once
 * per start, and never after a stop. Optionally writes a waveform and a plot
 * of wheel occupancy and interrupts over time. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tickwheel.h"
#include "tw_args.h"
#include "tw_spi.h"
#include "tw_vl.h"
#include "tw_vl_spi.h"

/* ------------------------------------------------------------ scenarios */

typedef struct sim_timer {
    tw_timer timer;
    uint64_t interval, deadline;
    int armed;    /* started and neither fired nor stopped: must fire at deadline */
    int periodic; /* re-armed by its callback */
} sim_timer;

typedef struct action {
    uint64_t at;
    uint32_t index;
    uint32_t is_stop;
} action;

typedef struct plan {
    sim_timer *timers;
    uint64_t ntimers, ticks;
    action *acts;
    size_t nacts, cap;
} plan;

static uint64_t rng_state;
static uint64_t rnd(uint64_t n) /* splitmix64; n > 0 */
{
    uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return (z ^ (z >> 31)) % n;
}

static int add_action(plan *p, uint64_t at, uint64_t index, int is_stop)
{
    if (p->nacts == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 1024;
        action *a = realloc(p->acts, cap * sizeof *a);
        if (!a)
            return -1;
        p->acts = a;
        p->cap = cap;
    }
    p->acts[p->nacts++] = (action){at, (uint32_t)index, (uint32_t)is_stop};
    return 0;
}

/* Starts spread over the first half of the run; intervals short (one bottom
 * revolution), medium (many) and long (a second level and beyond); a fifth
 * stopped before they fire, a tenth periodic. */
static int build_mixed(plan *p)
{
    for (uint64_t i = 0; i < p->ntimers; i++) {
        sim_timer *s = &p->timers[i];
        uint64_t kind = rnd(10), start = rnd(p->ticks / 2);
        s->interval = kind < 3 ? 1 + rnd(255) : kind < 7 ? 256 + rnd(65536) : 1 + rnd(p->ticks / 2);
        s->periodic = kind == 9 && s->interval >= 16;
        if (add_action(p, start, i, 0))
            return -1;
        if (!s->periodic && rnd(5) == 0 && add_action(p, start + rnd(s->interval), i, 1))
            return -1;
    }
    return 0;
}

/* Connections with an RTO of 200..999 ticks each, re-armed on every ack
 * (most re-arms move a pending timer later); one ack in twenty is lost and
 * the RTO fires before the next send re-arms it. */
#define RETRANSMIT_ACTIONS 4000000u
static int build_retransmit(plan *p)
{
    uint64_t per_timer = RETRANSMIT_ACTIONS / p->ntimers;
    if (per_timer < 8)
        per_timer = 8;
    for (uint64_t i = 0; i < p->ntimers; i++) {
        sim_timer *s = &p->timers[i];
        s->interval = 200 + rnd(800);
        uint64_t t = rnd(p->ticks / 10 + 1);
        for (uint64_t n = 0; n < per_timer && t < p->ticks; n++) {
            if (add_action(p, t, i, 0))
                return -1;
            t += rnd(20) ? 1 + rnd(s->interval - 1) : s->interval + 1 + rnd(s->interval);
        }
    }
    return 0;
}

/* Three storms: every timer is due inside one of three 16-tick windows,
 * started at any time before it, so thousands of callbacks run on a few
 * ticks after a flood of cascades into the same slots. */
static int build_storm(plan *p)
{
    for (uint64_t i = 0; i < p->ntimers; i++) {
        sim_timer *s = &p->timers[i];
        uint64_t storm = p->ticks / 4 * (1 + i % 3), start = rnd(storm);
        s->interval = storm + rnd(16) - start;
        if (add_action(p, start, i, 0))
            return -1;
    }
    return 0;
}

/* Intervals log-uniform from 1 tick to 2^36 ticks (past the default chip's
 * 2^32-tick reach) over a very long run: the chip skips the empty stretches
 * many slots a clock, and the driver places timers beyond the top level. */
static int build_long(plan *p)
{
    for (uint64_t i = 0; i < p->ntimers; i++) {
        sim_timer *s = &p->timers[i];
        s->interval = 1 + rnd(UINT64_C(1) << rnd(37));
        if (add_action(p, rnd(p->ticks / 2), i, 0))
            return -1;
    }
    return 0;
}

typedef struct scenario {
    const char *name;
    uint64_t default_ticks;
    int (*build)(plan *p);
    const char *what;
} scenario;

static const scenario scenarios[] = {
    {"mixed", 300000, build_mixed, "short, medium and long timers; some stopped, some periodic"},
    {"retransmit", 300000, build_retransmit, "RTO timers re-armed on every ack, 1 ack in 20 lost"},
    {"storm", 100000, build_storm, "every timer due in one of three 16-tick windows"},
    {"long", UINT64_C(1) << 37, build_long, "intervals up to 2^36 ticks over a 2^37-tick run"},
};
#define NSCENARIOS (sizeof scenarios / sizeof scenarios[0])

/* --------------------------------------------------------------- running */

static struct {
    tw_wheel *wheel;
    uint64_t end;
    uint64_t fired, late, spurious, restarted;
} run;

static void on_expiry(tw_timer *t, uint64_t now, void *arg)
{
    sim_timer *s = arg;
    (void)t;
    run.fired++;
    if (!s->armed)
        run.spurious++; /* fired twice, or after a stop */
    else if (now != s->deadline)
        run.late++;
    s->armed = 0;
    if (s->periodic && now + s->interval <= run.end) {
        s->deadline = now + s->interval;
        s->armed = 1;
        if (tw_start(run.wheel, t, s->interval) == 0)
            run.restarted++;
    }
}

static int by_time(const void *a, const void *b)
{
    const action *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    if (x->is_stop != y->is_stop)
        return (int)x->is_stop - (int)y->is_stop;
    return x->index < y->index ? -1 : x->index > y->index;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A progress bar on stderr, redrawn at most ten times a second. */
static struct {
    int on;
    double last;
} progress;

static void progress_show(uint64_t now, uint64_t end, int done)
{
    double t = seconds_now();
    if (!progress.on || (!done && t - progress.last < 0.1))
        return;
    progress.last = t;
    unsigned pct = end ? (unsigned)((double)now * 100.0 / (double)end) : 100;
    char bar[41];
    memset(bar, ' ', 40);
    memset(bar, '#', pct * 40 / 100);
    bar[40] = 0;
    fprintf(stderr, "\r[%s] %3u%%  tick %llu of %llu", bar, pct, (unsigned long long)now,
            (unsigned long long)end);
    if (done)
        fputc('\n', stderr);
    fflush(stderr);
}

/* Samples for --plot: occupancy and interrupts at evenly spaced ticks. */
#define PLOT_SAMPLES 400
typedef struct sample {
    uint64_t tick, pending, irqs, events;
    unsigned busy[4];
} sample;

static void take_sample(sample *out, const tw_wheel *w, const tw_dev *dev, uint64_t now)
{
    memset(out, 0, sizeof *out);
    out->tick = now;
    out->pending = tw_count_pending(w);
    out->irqs = dev->irqs;
    out->events = w->stats.events;
    /* The driver's mirror of the chip's busy bits, one count per level. */
    size_t per_level = (size_t)1 << w->geo.slot_bits;
    for (size_t idx = 0; idx < w->nslots; idx++)
        if (w->armed[idx / 64] >> (idx % 64) & 1)
            out->busy[idx / per_level]++;
}

/* The --plot file's numbers go beside it: FILE.svg's FILE.csv (malloc'd). */
static char *plot_csv_path(const char *svg)
{
    size_t len = strlen(svg);
    char *csv = malloc(len + 1);
    if (csv) {
        memcpy(csv, svg, len - 4);
        strcpy(csv + len - 4, ".csv");
    }
    return csv;
}

/* s as the inside of a gnuplot single-quoted string, in which '' is one
 * quote; NULL if out of memory. */
static char *gp_quoted(const char *s)
{
    size_t n = 0;
    for (const char *p = s; *p; p++)
        n += *p == '\'' ? 2 : 1;
    char *q = malloc(n + 1), *o = q;
    if (!q)
        return NULL;
    for (const char *p = s; *p; p++) {
        *o++ = *p;
        if (*p == '\'')
            *o++ = '\'';
    }
    *o = '\0';
    return q;
}

static int write_plot(const char *svg, const sample *s, size_t n, const tw_geometry *geo,
                      const char *title)
{
    char *csv = plot_csv_path(svg);
    if (!csv)
        return -1;
    FILE *f = fopen(csv, "w");
    if (!f) {
        fprintf(stderr, "tw-sim: cannot write %s: %s\n", csv, strerror(errno));
        free(csv);
        return -1;
    }
    fprintf(f, "tick,pending,interrupts,events");
    for (unsigned l = 0; l < geo->levels; l++)
        fprintf(f, ",busy_level%u", l);
    fputc('\n', f);
    for (size_t i = 0; i < n; i++) {
        /* Interrupts and events in the interval since the previous sample. */
        uint64_t di = i ? s[i].irqs - s[i - 1].irqs : s[i].irqs;
        uint64_t de = i ? s[i].events - s[i - 1].events : s[i].events;
        fprintf(f, "%llu,%llu,%llu,%llu", (unsigned long long)s[i].tick, (unsigned long long)s[i].pending,
                (unsigned long long)di, (unsigned long long)de);
        for (unsigned l = 0; l < geo->levels; l++)
            fprintf(f, ",%u", s[i].busy[l]);
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "tw-sim: cannot write %s\n", csv);
        free(csv);
        return -1;
    }

    /* gnuplot draws it: three panels sharing the time axis. */
    char *q_svg = gp_quoted(svg), *q_title = gp_quoted(title), *q_csv = gp_quoted(csv);
    FILE *gp = q_svg && q_title && q_csv ? popen("gnuplot", "w") : NULL;
    if (!gp) {
        fprintf(stderr, "tw-sim: %s; the data is in %s\n",
                q_svg && q_title && q_csv ? "cannot run gnuplot (make deps installs it)" : "out of memory", csv);
        free(q_svg);
        free(q_title);
        free(q_csv);
        free(csv);
        return -1;
    }
    fprintf(gp,
            "set terminal svg size 900,640 font 'sans,11' background rgb 'white'\n"
            "set output '%s'\n"
            "set datafile separator ','\n"
            "set key autotitle columnhead top right\n"
            "set grid\n"
            "set multiplot layout 3,1 title '%s'\n"
            "set lmargin 12\n"
            "set format x ''\n"
            "set ylabel 'pending timers'\n"
            "plot '%s' using 1:2 with lines lw 2 lc rgb '#1f77b4' notitle\n"
            "set ylabel 'busy slots'\n"
            "plot for [l=0:%u] '%s' using 1:(column(5+l)) with lines lw 1.5 title sprintf('level %%d', l)\n"
            "set format x '%%g'\n"
            "set xlabel 'tick'\n"
            "set ylabel 'per sample'\n"
            "plot '%s' using 1:3 with steps lw 1.5 lc rgb '#d62728' title 'interrupts', "
            "'' using 1:4 with steps dt 2 lc rgb '#404040' title 'events'\n"
            "unset multiplot\n",
            q_svg, q_title, q_csv, geo->levels - 1, q_csv, q_csv);
    free(q_svg);
    free(q_title);
    free(q_csv);
    int status = pclose(gp);
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 127)
            fprintf(stderr, "tw-sim: gnuplot is not installed (make deps installs it); the data is in %s\n", csv);
        else
            fprintf(stderr, "tw-sim: gnuplot failed; the data is in %s\n", csv);
        free(csv);
        return -1;
    }
    printf("  plot             %s (data in %s)\n", svg, csv);
    free(csv);
    return 0;
}

/* ---------------------------------------------------------- command line */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tw-sim [options]\n"
            "Runs a timer scenario on a tickwheel chip through the C driver, in virtual\n"
            "time, and checks that every timer fires exactly on its tick. The chip is\n"
            "simulated, or a board on this host's SPI pins (--backend spidev).\n\n"
            "  --backend NAME       vl: the Verilated RTL over Wishbone (default); model: the C\n"
            "                       model of the chip; spi: the Verilated FPGA top (SPI bridge +\n"
            "                       chip), every register access an SPI frame clocked bit by bit;\n"
            "                       spidev: a board on this host's SPI pins (docs/fpga.md)\n"
            "  --geometry M,B,F     C model only: M levels of 2^B slots, FIFO of 2^F (default 4,8,4)\n"
            "  --spi-corrupt P      spi only: each frame has a bit flipped with probability P\n"
            "                       (0..1, default 0); the link detects it and retries\n"
            "  --spi-drop P         spi only: each frame is cut short, loses its response or\n"
            "                       is answered late with probability P (0..1, default 0)\n"
            "  --spi-dev PATH       spidev only: the SPI device (default /dev/spidev0.0)\n"
            "  --chip-hz N          spidev only: the clock the bitstream runs at (default\n"
            "                       48000000, the iCEBreaker's; 120000000 for the HX8K)\n"
            "  --spi-hz N           spidev only: SCK, at most chip-hz / 8 (the default)\n"
            "  --irq CHIP:LINE      spidev only: the IRQ pin as a GPIO line, e.g.\n"
            "                       /dev/gpiochip0:25; without it STATUS is polled over SPI\n"
            "  --scenario NAME      the workload (default mixed), one of:\n");
    for (size_t i = 0; i < NSCENARIOS; i++)
        fprintf(f, "                         %-11s %s\n", scenarios[i].name, scenarios[i].what);
    fprintf(f,
            "  --timers N           timers in the scenario (default 10000)\n"
            "  --duration N         length of the run in ticks (default: the scenario's,\n"
            "                       300000 for mixed); --ticks is the same\n"
            "  --seed N             random seed (default 1)\n"
            "  --trace FILE         write a waveform (FST; Verilated backend only)\n"
            "  --plot FILE.svg      plot pending timers, busy slots per level and interrupts\n"
            "                       over time (gnuplot; the numbers go to FILE.csv)\n"
            "  --progress           show a progress bar (the default when stderr is a terminal)\n"
            "  --help               this text\n");
}

static int parse_u64(const char *opt, const char *s, uint64_t *out)
{
    if (tw_arg_u64(s, 0, UINT64_MAX, out) == 0)
        return 0;
    fprintf(stderr, "tw-sim: %s wants a non-negative whole number (decimal, or hex after 0x), not '%s'\n",
            opt, s);
    return -1;
}

/* "M,B,F": three numbers as parse_u64 reads them, each small enough that
 * the range check after the options sees it unchanged. */
static int parse_geometry(const char *s, unsigned *m, unsigned *b, unsigned *f)
{
    unsigned *fields[3] = {m, b, f};
    char buf[64];
    size_t len = strlen(s);
    if (len >= sizeof buf)
        return -1;
    memcpy(buf, s, len + 1);
    char *part = buf;
    for (int i = 0; i < 3; i++) {
        char *comma = strchr(part, ',');
        if ((i < 2) != (comma != NULL))
            return -1;
        if (comma)
            *comma = 0;
        uint64_t v;
        if (tw_arg_u64(part, 0, 1000, &v))
            return -1;
        *fields[i] = (unsigned)v;
        if (comma)
            part = comma + 1;
    }
    return 0;
}

/* The word of the option getopt_long just read: the last word, or the one
 * before it when the option's value came as the next word. */
static const char *option_word(char **argv)
{
    return optarg && optarg == argv[optind - 1] && optind >= 2 ? argv[optind - 2] : argv[optind - 1];
}

/* getopt_long takes any unambiguous prefix of a long option (--time for
 * --timers); tw-sim takes whole names only, so that a typo is not read as
 * another option. */
static int whole_option_name(const char *word, const char *name)
{
    if (strncmp(word, "--", 2) != 0)
        return 1;
    word += 2;
    size_t len = strcspn(word, "=");
    return len == strlen(name) && strncmp(word, name, len) == 0;
}

/* Can the run's output go to path? Checked before the run, so that a bad
 * path costs no simulation; a file the check creates is removed again. */
static int check_writable(const char *opt, const char *path)
{
    int existed = access(path, F_OK) == 0;
    FILE *f = fopen(path, "a");
    if (!f) {
        fprintf(stderr, "tw-sim: %s: cannot write '%s': %s\n", opt, path, strerror(errno));
        return -1;
    }
    fclose(f);
    if (!existed)
        remove(path);
    return 0;
}

static int parse_prob(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || end == s || !(v >= 0 && v <= 1)) {
        fprintf(stderr, "tw-sim: %s wants a probability from 0 to 1, not '%s'\n", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

/* "CHIP:LINE", split at the last colon. */
static int parse_irq(const char *s, char *chip, size_t chip_size, uint32_t *line)
{
    const char *colon = strrchr(s, ':');
    char *end;
    if (colon && colon > s && (size_t)(colon - s) < chip_size && colon[1] >= '0' && colon[1] <= '9') {
        errno = 0;
        unsigned long v = strtoul(colon + 1, &end, 10);
        if (!errno && !*end && v <= UINT32_MAX) {
            memcpy(chip, s, (size_t)(colon - s));
            chip[colon - s] = 0;
            *line = (uint32_t)v;
            return 0;
        }
    }
    fprintf(stderr, "tw-sim: --irq wants CHIP:LINE (e.g. /dev/gpiochip0:25), not '%s'\n", s);
    return -1;
}

typedef enum { BACKEND_VL, BACKEND_MODEL, BACKEND_SPI, BACKEND_SPIDEV, NBACKENDS } backend_kind;
static const char *const backend_names[NBACKENDS] = {"vl", "model", "spi", "spidev"};

static int parse_backend(const char *s, backend_kind *out)
{
    for (int k = 0; k < NBACKENDS; k++)
        if (!strcmp(s, backend_names[k])) {
            *out = (backend_kind)k;
            return 0;
        }
    fprintf(stderr, "tw-sim: --backend is 'vl', 'model', 'spi' or 'spidev', not '%s'\n", s);
    return -1;
}

/* arg is a group of short options (-x, -xy) holding c. */
static int in_short_group(const char *arg, int c)
{
    return arg && c && arg[0] == '-' && arg[1] && arg[1] != '-' && strchr(arg + 1, c);
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n > m && !strcmp(s + n - m, tail);
}

int main(int argc, char **argv)
{
    backend_kind backend = BACKEND_VL;
    const char *trace = NULL, *plot = NULL;
    const scenario *sc = &scenarios[0];
    uint64_t ntimers = 10000, ticks = 0, seed = 1;
    static const struct option opts[] = {
        {"backend", required_argument, 0, 'b'},  {"timers", required_argument, 0, 'n'},
        {"ticks", required_argument, 0, 't'},    {"duration", required_argument, 0, 't'},
        {"seed", required_argument, 0, 's'},     {"trace", required_argument, 0, 'w'},
        {"help", no_argument, 0, 'h'},           {"geometry", required_argument, 0, 'g'},
        {"scenario", required_argument, 0, 'c'}, {"plot", required_argument, 0, 'p'},
        {"progress", no_argument, 0, 'P'},       {"spi-corrupt", required_argument, 0, 'C'},
        {"spi-drop", required_argument, 0, 'D'}, {"spi-dev", required_argument, 0, 'S'},
        {"chip-hz", required_argument, 0, 'H'},  {"spi-hz", required_argument, 0, 'K'},
        {"irq", required_argument, 0, 'I'},      {0, 0, 0, 0},
    };
    unsigned geo_m = 4, geo_b = 8, geo_f = 4;
    int geometry_given = 0, spi_faults_given = 0;
    double spi_corrupt = 0, spi_drop = 0;
    const char *spi_dev = "/dev/spidev0.0";
    uint64_t chip_hz = 48000000, spi_hz = 0;
    char irq_chip[256];
    uint32_t irq_line = 0;
    int spidev_given = 0, irq_given = 0, ticks_given = 0;
    int c;
    opterr = 0; /* our own messages, below */
    progress.on = isatty(STDERR_FILENO);
    int opt_index = -1;
    while ((c = getopt_long(argc, argv, ":h", opts, &opt_index)) != -1) {
        if (opt_index >= 0 && c != '?' && c != ':' && !whole_option_name(option_word(argv), opts[opt_index].name)) {
            fprintf(stderr, "tw-sim: unknown option '%s' (did you mean --%s? tw-sim --help lists the options)\n",
                    option_word(argv), opts[opt_index].name);
            return 2;
        }
        opt_index = -1;
        switch (c) {
        case 'g':
            if (parse_geometry(optarg, &geo_m, &geo_b, &geo_f)) {
                fprintf(stderr, "tw-sim: --geometry wants M,B,F (e.g. 2,10,4), not '%s'\n", optarg);
                return 2;
            }
            geometry_given = 1;
            break;
        case 'c': {
            sc = NULL;
            for (size_t i = 0; i < NSCENARIOS; i++)
                if (!strcmp(optarg, scenarios[i].name))
                    sc = &scenarios[i];
            if (!sc) {
                fprintf(stderr, "tw-sim: no scenario '%s'; there are:", optarg);
                for (size_t i = 0; i < NSCENARIOS; i++)
                    fprintf(stderr, " %s", scenarios[i].name);
                fprintf(stderr, "\n");
                return 2;
            }
            break;
        }
        case 'b': if (parse_backend(optarg, &backend)) return 2; break;
        case 'n': if (parse_u64("--timers", optarg, &ntimers)) return 2; break;
        case 't': if (parse_u64("--duration", optarg, &ticks)) return 2; ticks_given = 1; break;
        case 's': if (parse_u64("--seed", optarg, &seed)) return 2; break;
        case 'w': trace = optarg; break;
        case 'p': plot = optarg; break;
        case 'P': progress.on = 1; break;
        case 'C': if (parse_prob("--spi-corrupt", optarg, &spi_corrupt)) return 2; spi_faults_given = 1; break;
        case 'D': if (parse_prob("--spi-drop", optarg, &spi_drop)) return 2; spi_faults_given = 1; break;
        case 'S': spi_dev = optarg; spidev_given = 1; break;
        case 'H': if (parse_u64("--chip-hz", optarg, &chip_hz)) return 2; spidev_given = 1; break;
        case 'K': if (parse_u64("--spi-hz", optarg, &spi_hz)) return 2; spidev_given = 1; break;
        case 'I':
            if (parse_irq(optarg, irq_chip, sizeof irq_chip, &irq_line))
                return 2;
            spidev_given = irq_given = 1;
            break;
        case 'h': usage(stdout); return 0;
        case ':': /* only long options take values */
            fprintf(stderr, "tw-sim: %s needs a value (tw-sim --help lists the options)\n", argv[optind - 1]);
            return 2;
        /* A refused short option is optopt, in the word getopt is in or has
         * just left (a group like -xy); a long one is the word it left. */
        default:
            if (in_short_group(optind < argc ? argv[optind] : NULL, optopt) ||
                in_short_group(argv[optind - 1], optopt))
                fprintf(stderr, "tw-sim: unknown option '-%c' (tw-sim --help lists the options)\n", optopt);
            else
                fprintf(stderr, "tw-sim: unknown option '%s' (tw-sim --help lists the options)\n",
                        argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "tw-sim: unexpected argument '%s' (tw-sim --help lists the options)\n", argv[optind]);
        return 2;
    }
    if (!ticks_given)
        ticks = sc->default_ticks;
    if (spidev_given && backend != BACKEND_SPIDEV) {
        fprintf(stderr, "tw-sim: --spi-dev, --chip-hz, --spi-hz and --irq need --backend spidev\n");
        return 2;
    }
    if (!spi_hz)
        spi_hz = chip_hz / 8;
    if (chip_hz == 0 || chip_hz > UINT32_MAX || spi_hz == 0 || spi_hz > chip_hz / 8) {
        fprintf(stderr, "tw-sim: --chip-hz must be 1..%lu and --spi-hz 1..chip-hz / 8 (the bridge's "
                        "limit), not %llu and %llu\n",
                (unsigned long)UINT32_MAX, (unsigned long long)chip_hz, (unsigned long long)spi_hz);
        return 2;
    }
    if (spi_faults_given && backend != BACKEND_SPI) {
        fprintf(stderr, "tw-sim: --spi-corrupt and --spi-drop need --backend spi\n");
        return 2;
    }
    if (ntimers < 1 || ntimers > 10000000) {
        fprintf(stderr, "tw-sim: --timers must be 1..10000000, not %llu\n", (unsigned long long)ntimers);
        return 2;
    }
    if (ticks < 100 || ticks > (UINT64_C(1) << 48)) {
        fprintf(stderr, "tw-sim: --duration must be 100..2^48 ticks, not %llu\n", (unsigned long long)ticks);
        return 2;
    }
    if (geometry_given && backend != BACKEND_MODEL) {
        fprintf(stderr, "tw-sim: --geometry needs --backend model (the RTL's is fixed when it is built)\n");
        return 2;
    }
    if (geometry_given && (geo_m < 1 || geo_m > 4 || geo_b < 2 || geo_b > 12 || geo_m * geo_b > 44 ||
                           geo_f < 2 || geo_f > 12)) {
        fprintf(stderr, "tw-sim: geometry %u,%u,%u is out of range: 1..4 levels, 2..12 slot bits, "
                        "levels x slot bits <= 44, 2..12 FIFO bits\n", geo_m, geo_b, geo_f);
        return 2;
    }
    if (trace && backend != BACKEND_VL) {
        fprintf(stderr, "tw-sim: --trace needs --backend vl\n");
        return 2;
    }
    if (plot && !ends_with(plot, ".svg")) {
        fprintf(stderr, "tw-sim: --plot writes SVG: give a file name ending in .svg, not '%s'\n", plot);
        return 2;
    }
    if (trace && check_writable("--trace", trace) < 0)
        return 2;
    if (plot) {
        char *csv = plot_csv_path(plot);
        if (!csv) {
            fprintf(stderr, "tw-sim: out of memory\n");
            return 1;
        }
        int bad_path = check_writable("--plot", plot) < 0 || check_writable("--plot", csv) < 0;
        free(csv);
        if (bad_path)
            return 2;
    }

    tw_dev dev;
    tw_sim_config cfg = {geo_m, geo_b, geo_f, trace};
    tw_vl_spi_faults faults = {0};
    tw_vl_spi_config spi = {.sim = {0, 0, 0, NULL}, .half_period = 4, .corrupt_rate = spi_corrupt,
                            .drop_rate = spi_drop, .seed = seed, .faults = &faults};
    tw_spidev_config board = {.spi_path = spi_dev, .speed_hz = (uint32_t)spi_hz, .chip_hz = (uint32_t)chip_hz,
                              .irq_chip = irq_given ? irq_chip : NULL, .irq_line = irq_line};
    int rc = backend == BACKEND_VL       ? tw_vl_open(&dev, trace ? &cfg : NULL)
             : backend == BACKEND_SPI    ? tw_vl_spi_open(&dev, &spi)
             : backend == BACKEND_SPIDEV ? tw_spidev_open(&dev, &board)
                                         : tw_model_open(&dev, &cfg);
    if (rc < 0) {
        if (backend != BACKEND_SPIDEV)
            fprintf(stderr, "tw-sim: cannot open the %s backend: %s\n", backend_names[backend], tw_strerror(rc));
        else if (irq_given)
            fprintf(stderr, "tw-sim: cannot open the board on %s with its IRQ on %s line %u: %s\n", spi_dev,
                    irq_chip, irq_line, tw_strerror(rc));
        else
            fprintf(stderr, "tw-sim: cannot open the board on %s: %s\n", spi_dev, tw_strerror(rc));
        return 1;
    }
    tw_geometry geo;
    tw_wheel wheel;
    tw_config tcfg = {.source = TW_TIME_VIRTUAL};
    void *mem = NULL;
    rc = tw_probe(&dev, &geo);
    if (rc == 0 && !(mem = malloc(tw_mem_size(&geo))))
        rc = TW_ENOMEM;
    if (rc == 0)
        rc = tw_init(&wheel, &dev, mem, tw_mem_size(&geo), &tcfg);
    if (rc < 0) {
        fprintf(stderr, "tw-sim: driver init failed: %s\n", tw_strerror(rc));
        return 1;
    }

    rng_state = seed;
    plan p = {calloc(ntimers, sizeof(sim_timer)), ntimers, ticks, NULL, 0, 0};
    size_t nsamples = plot ? (ticks < PLOT_SAMPLES ? ticks : PLOT_SAMPLES) : 0;
    sample *samples = plot ? calloc(nsamples + 1, sizeof *samples) : NULL;
    if (!p.timers || (plot && !samples) || sc->build(&p) < 0) {
        fprintf(stderr, "tw-sim: out of memory\n");
        return 1;
    }
    for (uint64_t i = 0; i < ntimers; i++)
        tw_timer_init(&p.timers[i].timer, on_expiry, &p.timers[i]);
    qsort(p.acts, p.nacts, sizeof *p.acts, by_time);
    run.wheel = &wheel;
    run.end = ticks;

    printf("tickwheel sim: %s backend, %u levels x %u slots, FIFO %u, scenario %s, %llu timers over %llu ticks, "
           "seed %llu\n",
           dev.ops->name, geo.levels, 1u << geo.slot_bits, 1u << geo.fifo_log2, sc->name,
           (unsigned long long)ntimers, (unsigned long long)ticks, (unsigned long long)seed);
    fflush(stdout);
    double t0 = seconds_now();
    uint64_t now = 0, starts = 0, stopped = 0, lost = 0, wrong_stop = 0;
    size_t a = 0, ns = 0;
    /* Stop at every action, every plot sample and every 1/200 of the run
     * (for the progress bar); advance in between. */
    uint64_t step = ticks / 200 ? ticks / 200 : 1;
    while (rc >= 0) {
        uint64_t target = ticks;
        if (a < p.nacts && p.acts[a].at < target)
            target = p.acts[a].at;
        uint64_t next_sample = ns < nsamples ? (ns + 1) * ticks / nsamples : ticks;
        if (next_sample < target)
            target = next_sample;
        if ((now / step + 1) * step < target)
            target = (now / step + 1) * step;
        if (target > now) {
            rc = tw_advance(&wheel, target - now, UINT32_MAX);
            now = target;
            progress_show(now, ticks, 0);
        }
        if (rc < 0)
            break;
        if (ns < nsamples && now == (ns + 1) * ticks / nsamples)
            take_sample(&samples[ns++], &wheel, &dev, now);
        if (a < p.nacts && p.acts[a].at == now) {
            sim_timer *s = &p.timers[p.acts[a].index];
            /* Its deadline has passed (expiries at `now` ran in the advance): it must have fired. */
            if (s->armed && s->deadline <= now) {
                lost++;
                s->armed = 0;
            }
            if (p.acts[a].is_stop) {
                int was = tw_stop(&wheel, &s->timer);
                stopped += was == 1;
                wrong_stop += was != s->armed;
                s->armed = 0;
            } else {
                s->deadline = now + s->interval;
                s->armed = 1;
                rc = tw_start(&wheel, &s->timer, s->interval);
                starts++;
            }
            a++;
            continue;
        }
        if (now == ticks && (a == p.nacts || p.acts[a].at > ticks))
            break; /* what is left comes after the run */
    }
    double elapsed = seconds_now() - t0;
    progress_show(now, ticks, 1);
    if (rc < 0) {
        fprintf(stderr, "tw-sim: driver error at tick %llu: %s\n", (unsigned long long)now, tw_strerror(rc));
        return 1;
    }

    uint64_t pending_left = 0;
    for (uint64_t i = 0; i < ntimers; i++) {
        sim_timer *s = &p.timers[i];
        int pend = tw_pending(&s->timer);
        pending_left += pend == 1;
        if (s->armed && s->deadline <= ticks)
            lost++; /* due inside the run, never fired */
        else if (pend != s->armed)
            wrong_stop++;
    }
    uint64_t cycles = tw_dev_cycles(&dev);
    uint64_t bus = dev.reads + dev.writes;
    printf("  timers started   %12llu  (+%llu periodic re-arms)\n", (unsigned long long)starts,
           (unsigned long long)run.restarted);
    printf("  timers fired     %12llu\n", (unsigned long long)run.fired);
    printf("  timers stopped   %12llu\n", (unsigned long long)stopped);
    printf("  still pending    %12llu  (deadline after the run)\n", (unsigned long long)pending_left);
    printf("  interrupts       %12llu  (%.3f per fired timer)\n", (unsigned long long)dev.irqs,
           run.fired ? (double)dev.irqs / (double)run.fired : 0.0);
    printf("  chip events      %12llu  (%llu cascades, %llu for emptied slots)\n",
           (unsigned long long)wheel.stats.events, (unsigned long long)wheel.stats.cascades,
           (unsigned long long)wheel.stats.empty_events);
    printf("  bus transactions %12llu  (%llu reads, %llu writes; %.2f per timer operation)\n",
           (unsigned long long)bus, (unsigned long long)dev.reads, (unsigned long long)dev.writes,
           (double)bus / (double)(starts + run.restarted + stopped + run.fired));
    printf("  fired late       %12llu\n", (unsigned long long)run.late);
    printf("  lost             %12llu\n", (unsigned long long)lost);
    printf("  wrong            %12llu  (fired twice or after a stop, or a stop that misjudged pending)\n",
           (unsigned long long)(run.spurious + wrong_stop));
    printf("  %s %12llu  in %.2f s = %.2f M cycles/s\n",
           backend == BACKEND_SPIDEV ? "board cycles    " : "simulated cycles", (unsigned long long)cycles,
           elapsed, elapsed > 0 ? (double)cycles / elapsed / 1e6 : 0.0);
    const tw_spi_stats *link = tw_spi_get_stats(&dev);
    if (link) {
        printf("  spi frames       %12llu  (%llu retried: %llu bad responses of which %llu late, %llu requests the "
               "bridge rejected)\n",
               (unsigned long long)link->frames, (unsigned long long)link->retries,
               (unsigned long long)link->bad_responses, (unsigned long long)link->late_responses,
               (unsigned long long)link->rejected_requests);
        if (spi_faults_given)
            printf("  faults injected  %12llu  (%llu flipped bits, %llu cut requests, %llu lost responses, %llu late "
                   "responses)\n",
                   (unsigned long long)(faults.flipped_bits + faults.cut_requests + faults.lost_responses +
                                        faults.late_responses),
                   (unsigned long long)faults.flipped_bits, (unsigned long long)faults.cut_requests,
                   (unsigned long long)faults.lost_responses, (unsigned long long)faults.late_responses);
    }
    if (trace)
        printf("  waveform         %s\n", trace);
    int plot_failed = 0;
    if (plot) {
        char title[160];
        snprintf(title, sizeof title, "tw-sim --scenario %s: %u x %u slots, %llu timers, seed %llu", sc->name,
                 geo.levels, 1u << geo.slot_bits, (unsigned long long)ntimers, (unsigned long long)seed);
        plot_failed = write_plot(plot, samples, ns, &geo, title) < 0;
    }
    free(p.timers);
    free(p.acts);
    free(samples);
    tw_dev_close(&dev);
    free(mem);
    int bad = run.late || lost || run.spurious || wrong_stop;
    printf("%s\n", bad ? "RESULT: FAIL (late, lost or wrong timers)" : "RESULT: ok (every timer on its tick)");
    /* A summary that could not be written (a full disk, a closed pipe) is
     * a failed run, not a silent one. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "tw-sim: the summary could not be written to standard output\n");
        return 1;
    }
    return bad || plot_failed ? 1 : 0;
}
