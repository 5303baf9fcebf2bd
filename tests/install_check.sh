#!/bin/sh
# Installs into a scratch prefix and builds examples/quickstart.c out of the
# tree against it with pkg-config, statically and shared, then runs both;
# likewise the retransmission demo, shared.
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
cd "$root"
