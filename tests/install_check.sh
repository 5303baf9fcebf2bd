#!/bin/sh
# Installs into a scratch prefix and builds examples/quickstart.c out of the
# tree against it with pkg-config, statically and shared, then runs both;
# likewise the retransmission demo, shared, and a C++ program.
set -eu
BUILD=${BUILD:-build}
root=$(pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
env -u MAKEFLAGS -u MAKELEVEL make -s install PREFIX="$scratch/prefix" BUILD="$BUILD" SAN=0 >/dev/null
mkdir "$scratch/app"
cp examples/quickstart.c examples/retransmit.c examples/args.h "$scratch/app/"
cd "$scratch/app"
export PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig"
cc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags tickwheel) quickstart.c \
   -o quickstart-shared $(pkg-config --libs tickwheel)
cc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags tickwheel) quickstart.c \
   -o quickstart-static "$scratch/prefix/lib/libtickwheel.a"
LD_LIBRARY_PATH="$scratch/prefix/lib" ./quickstart-shared | grep -qx 'retransmit fired at tick 200'
./quickstart-static | grep -qx 'retransmit fired at tick 200'
cc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags tickwheel) retransmit.c \
   -o retransmit $(pkg-config --libs tickwheel)
LD_LIBRARY_PATH="$scratch/prefix/lib" ./retransmit --connections 200 --ticks 20000 | grep -q '^ok: '
# The shared library really is the installed one.
LD_LIBRARY_PATH="$scratch/prefix/lib" ldd ./quickstart-shared | grep -q "$scratch/prefix/lib/libtickwheel.so"
# Every function the installed headers declare is in the installed library
# (static inline ones aside), and C++ links against them by their C names.
nm -D --defined-only "$scratch/prefix/lib/libtickwheel.so" | awk '{print $3}' | sort > defined
cat "$scratch"/prefix/include/tickwheel/*.h | grep -v '^static' |
    sed -n 's/^[a-z][a-z0-9_ ]*[ *]\(tw_[a-z0-9_]*\)(.*/\1/p' | sort -u > declared
[ -s declared ] && [ "$(wc -l < declared)" -gt 20 ]
missing=$(comm -23 declared defined)
[ -z "$missing" ] || { echo "declared but not in the library: $missing"; exit 1; }
cat > app.cpp <<'CPP'
#include <cstdio>
#include "tickwheel.h"
#include "tw_regs.h"
#include "tw_spi.h"
static void on_fire(tw_timer *, uint64_t now, void *arg) { *static_cast<uint64_t *>(arg) = now; }
int main()
{
    tw_dev dev;
    tw_sim_config chip = {4, 8, 4, nullptr};
    tw_geometry g;
    static long mem[1 << 16];
    tw_wheel w;
    tw_config cfg = {};
    tw_timer t;
    uint64_t fired = 0;
    if (tw_model_open(&dev, &chip) < 0 || tw_probe(&dev, &g) < 0 || tw_mem_size(&g) > sizeof mem ||
        tw_init(&w, &dev, mem, sizeof mem, &cfg) < 0 || tw_timer_init(&t, on_fire, &fired) < 0 ||
        tw_start(&w, &t, 200) < 0 || tw_advance(&w, 300, 64) < 0 || tw_spi_get_stats(&dev) != nullptr) {
        std::puts(tw_strerror(TW_EINVAL));
        return 1;
    }
    std::printf("fired at %llu\n", static_cast<unsigned long long>(fired));
    tw_dev_close(&dev);
    return 0;
}
CPP
c++ -std=c++11 -Wall -Wextra -Werror $(pkg-config --cflags tickwheel) app.cpp -o app-cpp $(pkg-config --libs tickwheel)
LD_LIBRARY_PATH="$scratch/prefix/lib" ./app-cpp | grep -qx 'fired at 200'
cd "$root"
