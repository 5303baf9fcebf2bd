/* tw-sim's spidev backend end to end, without a board: tw-sim's own objects
 * linked with the stand-in kernel of tests/fake_spidev.h, which comes up
 * before tw-sim's main with one board clocked at STANDIN_HZ. So
 *
 *   tw-sim-standin --backend spidev --spi-dev /dev/tw-stand-in-spidev \
 *       --chip-hz 24000000 [--irq /dev/tw-stand-in-gpiochip:25] [tw-sim options]
 *
 * runs a scenario through the path from tw-sim's options to the kernel.
 * At exit the stand-in prints on stderr one line of what the backend set up
 * there, for tests/sim_cli.sh to compare with the options given:
 *
 *   stand-in: board_hz=H sck_hz=S irq_line=L board_cycles=C frames=F line_waits=W violations=V[: first]
 *
 * irq_line is "none" if no line was requested; board_cycles is what the
 * last board closed ran, which tw-sim's "board cycles" matches only if it
 * counted in the board's own clock. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fake_spidev.h"

/* Neither tw-sim's default --chip-hz (48 MHz) nor the HX8K's 120 MHz, so a
 * clock that tw-sim did not pass through shows. */
#define STANDIN_HZ 24000000u

__attribute__((constructor)) static void standin_up(void)
{
    if (fake_spidev_init(1) < 0) {
        fprintf(stderr, "stand-in: no temporary file for the device: %s\n", strerror(errno));
        _exit(1);
    }
    set_board_hz(STANDIN_HZ);
}

__attribute__((destructor)) static void standin_down(void)
{
    char line[16] = "none";
    if (fake.request.num_lines)
        snprintf(line, sizeof line, "%u", (unsigned)fake.request.offsets[0]);
    fprintf(stderr,
            "stand-in: board_hz=%u sck_hz=%u irq_line=%s board_cycles=%llu frames=%llu line_waits=%llu "
            "violations=%lu%s%s\n",
            (unsigned)fake.hz, (unsigned)fake.speed_set, line, (unsigned long long)fake.cycles_at_close,
            (unsigned long long)fake.frames, (unsigned long long)fake.gpio_polls, fake.violations,
            fake.violations ? ": " : "", fake.violations ? fake.violation : "");
    fake_spidev_remove();
}
