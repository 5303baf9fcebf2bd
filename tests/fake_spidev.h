/* A stand-in Linux kernel for the spidev backend (host/tw_spidev.c), so
 * that it runs end to end without a board.
 *
 * fake_spidev.c defines ioctl, open, close, read, ppoll, poll, usleep and
 * clock_gettime, so the backend's calls to them land there (the linker binds
 * the library's references to the executable's definitions; nothing in the
 * backend changes). A regular file stands in for /dev/spidevB.C: each
 * SPI_IOC_MESSAGE on it is clocked bit by bit through the Verilated FPGA top
 * (sim/tw_vl_spi.h: bridge + core). FAKE_CHIP stands in for a GPIO chip
 * (/dev/gpiochipN, uAPI v2) whose line FAKE_LINE is the chip's interrupt
 * pin: GPIO_V2_GET_LINE_IOCTL on it hands out a request fd (a /dev/null
 * descriptor underneath), GPIO_V2_LINE_GET_VALUES_IOCTL on that reads the
 * pin, each rising edge queues a gpio_v2_line_event that read() hands out,
 * and a ppoll() (or poll()) for POLLIN returns at once while events are
 * queued, or runs the chip until the pin rises. Time is the boards' own: CLOCK_MONOTONIC
 * reads their clock (BOARD_HZ unless set_board_hz changes it), and sleeping or
 * polling runs it, so a run takes no real time waiting and replays from its
 * seed.
 *
 * The state is open to the program's checks (`fake`): what the backend
 * asked for, what happened, and knobs to make the kernel refuse or corrupt. */
#ifndef FAKE_SPIDEV_H
#define FAKE_SPIDEV_H

#include <linux/gpio.h>
#include <stdint.h>
#include <sys/types.h>

#include "tw_spi.h"
#include "tw_vl_spi.h"

#define BOARD_HZ 48000000u /* the iCEBreaker's clock; test_clock_hx8k runs at 120 MHz */
#define FAKE_CHIP "/dev/tw-stand-in-gpiochip" /* opened here, never by the kernel */
#define FAKE_CHIP_LINES 58 /* as a Raspberry Pi 4's gpiochip0 */
#define FAKE_LINE 25       /* the IRQ pin: GPIO25, as docs/fpga.md wires it */
/* Opened as the stand-in's file, for a program that cannot be told the
 * file's own (temporary) name. */
#define FAKE_SPIDEV "/dev/tw-stand-in-spidev"
/* The kernel's event queue for a one-line request that leaves
 * event_buffer_size at 0; when it is full the oldest event is dropped. */
#define LINE_EVENTS_MAX 16
#define MAX_BOARDS 4

typedef struct board {
    int fd;              /* the spidev file descriptor the backend holds; -1: free */
    int irq_seen;        /* the IRQ pin's level when last looked at, for its edges */
    unsigned setup;      /* which setup ioctls came: 1 mode, 2 bits, 4 speed */
    uint8_t mode, bits;
    uint32_t speed;
    tw_vl_spi_chip *chip;
    uint64_t born;       /* the shared clock when the chip started */
    /* A request the bridge took whose response was corrupted here: a retry
     * of it may be answered as a repeat, until the bridge takes another. */
    int retry_owed;
    uint8_t retry_of[TW_SPI_FRAME_LEN];
} board;

typedef struct fake_kernel {
    char spidev_path[64];
    dev_t spidev_dev;
    ino_t spidev_ino;
    board boards[MAX_BOARDS];
    int last_board;          /* the last one set up: a line request wires its IRQ pin to FAKE_LINE */
    int chip_fds[MAX_BOARDS]; /* the backend's descriptors of FAKE_CHIP; -1: free */
    struct {
        int fd;              /* the backend's line request, or -1: the line is free */
        board *board;        /* whose IRQ pin the line is */
        struct gpio_v2_line_event queue[LINE_EVENTS_MAX];
        unsigned head, unread;
        uint32_t seqno;
        unsigned immediate_wakes; /* waits in a row answered at once by unread events */
        uint64_t last_edge;  /* the shared clock at the last rising edge */
        int gone;            /* the GPIO chip was removed: every call on the request fails */
    } line;
    struct gpio_v2_line_request request; /* the last line request, as the backend asked */
    int refuse_line;         /* an errno to refuse line requests with (0: none) */
    uint64_t look_cycles;    /* how long reading the line may take: until it rises, at most this */
    uint64_t now;            /* the shared board clock, in cycles */
    uint32_t hz;             /* its rate, for sleeps, polls and CLOCK_MONOTONIC */
    uint64_t hz_since, ns_at_hz; /* now and the monotonic time when hz was set */
    unsigned long fail_request; /* an ioctl request to refuse (0: none) */
    unsigned corrupt_ppm;    /* frames with one bit flipped, per million */
    uint64_t rng;
    /* What happened, for the checks. */
    uint64_t frames, flipped_requests, flipped_responses, stale_repeats, gpio_polls, sleeps;
    uint64_t longest_wait_ns; /* the longest timeout asked of a wait on the line */
    uint64_t edges, edges_read, edges_dropped; /* rising edges queued, read, lost to a full queue */
    uint64_t looks, looks_with_unread; /* reads of the line's level; those with events unread */
    unsigned long violations;
    char violation[200];
    /* For a program that cannot look inside: what the backend set up last. */
    uint32_t speed_set;      /* the SCK rate of the last SPI_IOC_WR_MAX_SPEED_HZ */
    uint64_t cycles_at_close; /* the clocks the last board closed had run */
} fake_kernel;
extern fake_kernel fake;

/* Creates the stand-in's file (fake.spidev_path, under $TMPDIR) and seeds
 * its random numbers; -1 with errno set if the file cannot be made. */
int fake_spidev_init(uint64_t seed);
/* Removes the file. */
void fake_spidev_remove(void);
/* Boards clocked at hz from now on (none may be open). */
void set_board_hz(uint32_t hz);
uint64_t fake_random(void);
/* Descriptors the backend holds open: spidev boards, GPIO chips. */
int boards_open(void);
int chip_fds_open(void);

#endif
