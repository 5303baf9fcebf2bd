# tickwheel: the one entry point.
#   make sim            the Verilated chip driven by the C driver on a built-in scenario
#   make sim TRACE=1    ... and write a waveform (build/sim.fst)
#   make wave           a short scenario's waveform and its GTKWave layout
#   make plot           wheel occupancy and interrupts over a run (build/occupancy.svg)
#   make test           every check; ends with "N passed, M failed"
#   make lint           Verilator -Wall on all RTL and the fpga/ceiling/ measurement tops
#   make formal         the RTL's formal properties (FORMAL_DEEP=1: deeper bounds)
#   make bench          workloads W1-W4 and micro-benchmarks: CSV and plots in bench/results/
#   make bench-quick    the same at tiny sizes, a few seconds (make test runs it)
#   make fuzz           libFuzzer targets (clang); long runs: docs/verification.md
#   make deps           install missing Debian packages
#   make regs           regenerate the register map's Verilog, C and docs
#   make install PREFIX=...  library, headers, pkg-config file
#   make examples       build examples/*.c against the library
#   make clean
# SAN=1 builds the C and co-simulation code with AddressSanitizer and UBSan
# (make test SAN=1 leaves out lint, the RTL testbenches, the formal proofs
# and the fuzz runs: none of them depends on how the C code is built).

BUILD    ?= build
SAN      ?= 0
TRACE    ?= 0
# Verilator's generated models are built without the sanitizers, so the plain
# and SAN=1 builds share them (see SANFLAGS).
MODEL_BUILD := $(BUILD)
ifeq ($(SAN),1)
BUILD    := $(BUILD)/san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# The models, Verilator's generated C++ of the RTL, are not sanitised: they
# hold no code of ours, their trace code reads buffers unaligned (UBSan), and
# instrumented they took four-fifths of the sanitised run's time. Its
# runtime gets AddressSanitizer only (its FST writer shifts negative values).
# The C driver, the glue around the models (sim/*.cpp) and the tests keep
# every check.
VLRT_SANFLAGS := -fsanitize=address -fno-omit-frame-pointer
endif

CC       ?= cc
CXX      ?= c++
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -Wall -Wextra -Werror -Ihost -Isim $(SANFLAGS)
CXXFLAGS ?= -O2 -g
LDLIBS   := -lz -pthread $(SANFLAGS)

VERILATOR    ?= verilator
VL_ROOT      := /usr/share/verilator
VL_CXXFLAGS  := $(CXXFLAGS) -std=c++17 -faligned-new -I$(VL_ROOT)/include -I$(VL_ROOT)/include/vltstd \
                -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_TRACE_VCD=0 -Wno-unused-parameter $(SANFLAGS)
RTL          := rtl/tw_core.v rtl/tw_bitmap.v rtl/tw_evfifo.v rtl/tw_search.v
REGS_OUT     := rtl/tw_regs.vh host/tw_regs.h docs/registers.md

# Verilated geometries: LEVELS_SLOT-BITS_FIFO-LOG2. The first is the default
# chip; the rest cover m = 1, 2, 4 with small and large wheels.
GEOMETRIES   := 4_8_4 1_12_4 2_4_2 1_4_2 2_10_4 4_4_2
DEFAULT_GEO  := 4_8_4
geo_args      = -GLEVELS=$(word 1,$(subst _, ,$1)) -GSLOT_BITS=$(word 2,$(subst _, ,$1)) \
                -GFIFO_LOG2=$(word 3,$(subst _, ,$1))

TOOLS        := verilator iverilog vvp yosys yosys-smtbmc z3 pkg-config gnuplot icepll
DEB_PACKAGES := verilator iverilog yosys nextpnr-ice40 fpga-icestorm fpga-icestorm-chipdb z3 zlib1g-dev python3 \
                pkgconf gnuplot-nox clang libclang-rt-dev
# icetime's device database: fpga-icestorm only recommends it.
ICESTORM_CHIPDB := /usr/share/fpga-icestorm/chipdb/chipdb-8k.txt

LIB_SRC      := host/tickwheel.c host/tw_model.c host/tw_spi.c host/tw_spidev.c host/tw_lockstep.c \
                host/tw_search_model.c
LIB_OBJ      := $(LIB_SRC:%.c=$(BUILD)/%.o)

.PHONY: all deps sim test lint formal regs check-regs bench bench-quick fuzz install clean examples wave plot
# Keep objects that pattern chains would otherwise delete and rebuild each run.
.SECONDARY:
all: $(BUILD)/tw-sim

# ------------------------------------------------------------------ deps
# Installs only what is missing, so a machine that has everything never needs root.
deps:
	@missing=""; \
	for t in $(TOOLS); do command -v $$t >/dev/null 2>&1 || missing=1; done; \
	[ -f /usr/include/zlib.h ] || missing=1; \
	[ -f $(ICESTORM_CHIPDB) ] || missing=1; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing $(DEB_PACKAGES)"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $(DEB_PACKAGES) >/dev/null; \
	fi

$(BUILD)/.deps:
	@$(MAKE) --no-print-directory deps
	@mkdir -p $(@D) && touch $@

# -------------------------------------------------------------- register map
regs:
	python3 tools/gen_regs.py rtl/tw_regs.toml $(REGS_OUT)

check-regs:
	@python3 tools/gen_regs.py --check rtl/tw_regs.toml $(REGS_OUT)

# ------------------------------------------------------------------ C code
$(BUILD)/%.o: %.c host/tw_regs.h $(wildcard host/*.h) $(wildcard sim/*.h) $(wildcard tests/*.h) $(wildcard examples/*.h) | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libtickwheel.a: $(LIB_OBJ)
	ar rcs $@ $^

# ------------------------------------------------------------- Verilator
VL_RUNTIME := verilated verilated_fst_c verilated_threads
$(BUILD)/vlrt/%.o: $(VL_ROOT)/include/%.cpp | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CXX) $(filter-out $(SANFLAGS),$(VL_CXXFLAGS)) $(VLRT_SANFLAGS) -w -c $< -o $@

# One Verilated model per geometry, each with the same class name, so every
# test binary links exactly one.
$(MODEL_BUILD)/vl/%/Vtw_core__ALL.a: $(RTL) rtl/tw_regs.vh | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(VERILATOR) --cc --build -j 2 -O3 --x-assign fast --x-initial fast --trace-fst -Wall \
	  -Irtl $(call geo_args,$*) --Mdir $(@D) --top-module tw_core \
	  -MAKEFLAGS "OPT_FAST=-O1 OPT_SLOW=-O1" \
	  $(RTL) > $(@D)/verilator.log 2>&1 || (cat $(@D)/verilator.log; exit 1)

$(BUILD)/vl/%/tw_vl.o: sim/tw_vl.cpp sim/tw_vl.h $(MODEL_BUILD)/vl/%/Vtw_core__ALL.a host/tw_dev.h host/tw_regs.h
	@mkdir -p $(@D)
	$(CXX) $(VL_CXXFLAGS) -Ihost -Isim -I$(MODEL_BUILD)/vl/$* -c $< -o $@

vl_objs = $(BUILD)/vl/$1/tw_vl.o $(MODEL_BUILD)/vl/$1/Vtw_core__ALL.a $(VL_RUNTIME:%=$(BUILD)/vlrt/%.o)

# The board-independent FPGA top (SPI bridge + core), for the SPI backend.
SPI_RTL := rtl/tw_spi.v rtl/tw_spi_top.v $(RTL)
$(MODEL_BUILD)/vlspi/%/Vtw_spi_top__ALL.a: $(SPI_RTL) rtl/tw_regs.vh | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(VERILATOR) --cc --build -j 2 -O3 --x-assign fast --x-initial fast -Wall \
	  -Irtl $(call geo_args,$*) --Mdir $(@D) --top-module tw_spi_top \
	  -MAKEFLAGS "OPT_FAST=-O2 OPT_SLOW=-O1" \
	  $(SPI_RTL) > $(@D)/verilator.log 2>&1 || (cat $(@D)/verilator.log; exit 1)

$(BUILD)/vlspi/%/tw_vl_spi.o: sim/tw_vl_spi.cpp $(MODEL_BUILD)/vlspi/%/Vtw_spi_top__ALL.a sim/tw_vl_spi.h host/tw_spi.h host/tw_regs.h
	@mkdir -p $(@D)
	$(CXX) $(VL_CXXFLAGS) -Ihost -Isim -I$(MODEL_BUILD)/vlspi/$* -c $< -o $@

vlspi_objs = $(BUILD)/vlspi/$1/tw_vl_spi.o $(MODEL_BUILD)/vlspi/$1/Vtw_spi_top__ALL.a $(VL_RUNTIME:%=$(BUILD)/vlrt/%.o)

# The search's word scan alone (rtl/tw_search.v), per geometry LEVELS_SLOT-BITS,
# against its C twin in lockstep (tests/test_search_lockstep.cpp).
SEARCH_GEOMETRIES := 4_8 1_12 2_4 3_5 1_2
search_geo_args    = -GLEVELS=$(word 1,$(subst _, ,$1)) -GSLOT_BITS=$(word 2,$(subst _, ,$1))
$(MODEL_BUILD)/vlsearch/%/Vtw_search__ALL.a: rtl/tw_search.v | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(VERILATOR) --cc --build -j 2 -O3 --x-assign fast --x-initial fast -Wall \
	  -Irtl $(call search_geo_args,$*) --Mdir $(@D) --top-module tw_search \
	  -MAKEFLAGS "OPT_FAST=-O1 OPT_SLOW=-O1" \
	  rtl/tw_search.v > $(@D)/verilator.log 2>&1 || (cat $(@D)/verilator.log; exit 1)

$(BUILD)/vlsearch/%/test_search_lockstep.o: tests/test_search_lockstep.cpp $(MODEL_BUILD)/vlsearch/%/Vtw_search__ALL.a \
                                            host/tw_search_model.h tests/tw_args.h
	@mkdir -p $(@D)
	$(CXX) $(VL_CXXFLAGS) -Ihost -I$(MODEL_BUILD)/vlsearch/$* -DTW_LEVELS=$(word 1,$(subst _, ,$*)) \
	  -DTW_SLOT_BITS=$(word 2,$(subst _, ,$*)) -c $< -o $@

$(BUILD)/tests/test-search-%: $(BUILD)/vlsearch/%/test_search_lockstep.o $(MODEL_BUILD)/vlsearch/%/Vtw_search__ALL.a \
                              $(BUILD)/host/tw_search_model.o $(VL_RUNTIME:%=$(BUILD)/vlrt/%.o)
	@mkdir -p $(@D)
	$(CXX) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS)

# ------------------------------------------------------------------ sim
# tw-sim parses its numbers as the test programs do (tests/tw_args.h).
$(BUILD)/sim/tw_sim.o: CFLAGS += -Itests
# Both Verilated models, the chip alone and the FPGA top, share one runtime.
$(BUILD)/tw-sim: $(BUILD)/sim/tw_sim.o $(BUILD)/libtickwheel.a $(call vl_objs,$(DEFAULT_GEO)) \
                 $(call vlspi_objs,$(DEFAULT_GEO))
	$(CXX) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS)

SIM_ARGS ?=
sim: $(BUILD)/tw-sim
	$(BUILD)/tw-sim $(if $(filter 1,$(TRACE)),--trace $(BUILD)/sim.fst) $(SIM_ARGS)

# make wave: a short scenario's waveform and the saved GTKWave layout for it
# (sim/tickwheel.gtkw: the bus, time and the level pointers, commands, the
# search, events and the FIFO, the interrupt), checked against each other.
WAVE_ARGS ?= --scenario mixed --timers 40 --duration 3000
wave: $(BUILD)/tw-sim $(BUILD)/fst-signals
	$(BUILD)/tw-sim $(WAVE_ARGS) --trace $(BUILD)/wave.fst
	@sh tools/check_gtkw.sh sim/tickwheel.gtkw $(BUILD)/wave.fst $(BUILD)/fst-signals
	@echo "open it: gtkwave $(BUILD)/wave.fst sim/tickwheel.gtkw"

# make plot: wheel occupancy and interrupts over a run (SVG via gnuplot).
PLOT_ARGS ?= --backend model --scenario mixed
plot: $(BUILD)/tw-sim
	$(BUILD)/tw-sim $(PLOT_ARGS) --plot $(BUILD)/occupancy.svg

# Lists the signals in an FST file, with the FST reader Verilator ships
# (its code is not ours to sanitise: built plain even under SAN=1).
FST_API := $(VL_ROOT)/include/gtkwave
$(BUILD)/fst-signals: tools/fst_signals.c | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) -O2 -w -I$(FST_API) -DFST_CONFIG_INCLUDE='"fst_config.h"' -o $@ \
	  $< $(FST_API)/fstapi.c $(FST_API)/lz4.c $(FST_API)/fastlz.c -lz

# --------------------------------------------------------------- install
# make install PREFIX=/usr/local: static and shared library, headers and a
# pkg-config file. The library holds the driver and the C model and SPI
# backends; the Verilator backends stay with the simulator (build/tw-sim).
PREFIX   ?= /usr/local
LIBDIR   ?= $(PREFIX)/lib
INCDIR   ?= $(PREFIX)/include/tickwheel
# The map's version, read by its own parser (evaluated only where used).
VERSION   = $(shell python3 tools/gen_regs.py --version rtl/tw_regs.toml)
PUB_HDRS := host/tickwheel.h host/tw_dev.h host/tw_err.h host/tw_regs.h host/tw_spi.h
PIC_OBJ  := $(LIB_SRC:%.c=$(BUILD)/pic/%.o)

$(BUILD)/pic/%.o: %.c $(wildcard host/*.h) | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -c $< -o $@

$(BUILD)/libtickwheel.so.$(VERSION): $(PIC_OBJ)
	$(CC) -shared -Wl,-soname,libtickwheel.so.$(word 1,$(subst ., ,$(VERSION))) -o $@ $^

# The pkg-config file names PREFIX, so every install writes it afresh.
install: $(BUILD)/libtickwheel.a $(BUILD)/libtickwheel.so.$(VERSION)
	@printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(PREFIX)/include' '' \
	  'Name: tickwheel' 'Description: host driver for the tickwheel timer coprocessor' \
	  'Version: $(VERSION)' 'Libs: -L$${libdir} -ltickwheel' 'Cflags: -I$${includedir}/tickwheel' \
	  > $(BUILD)/tickwheel.pc
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)
	install -m 644 $(BUILD)/libtickwheel.a $(DESTDIR)$(LIBDIR)/
	install -m 755 $(BUILD)/libtickwheel.so.$(VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libtickwheel.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libtickwheel.so.$(word 1,$(subst ., ,$(VERSION)))
	ln -sf libtickwheel.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libtickwheel.so
	install -m 644 $(PUB_HDRS) $(DESTDIR)$(INCDIR)/
	install -m 644 $(BUILD)/tickwheel.pc $(DESTDIR)$(LIBDIR)/pkgconfig/

# -------------------------------------------------------------- examples
# quickstart: the smallest program; retransmit: RTO timers re-armed on acks,
# in virtual time; event_loop: poll() woken by the chip's interrupt, real time.
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
examples: $(EXAMPLES)

$(BUILD)/examples/%: $(BUILD)/examples/%.o $(BUILD)/libtickwheel.a
	$(CC) -o $@ $^ -pthread $(SANFLAGS)

# ------------------------------------------------------------------ engines
# The software reference schemes and tickwheel behind bench/engine.h.
ENGINE_SRC := bench/engines.c bench/eng_tickwheel.c bench/eng_scheme1.c bench/eng_scheme2.c \
              bench/eng_scheme3.c bench/eng_scheme4.c bench/eng_scheme5.c bench/eng_scheme6.c \
              bench/eng_scheme7.c bench/eng_heap.c bench/eng_lawn.c
ENGINE_OBJ := $(ENGINE_SRC:%.c=$(BUILD)/%.o)
$(ENGINE_OBJ) $(BUILD)/tests/test_engines.o: CFLAGS += -Ibench
$(ENGINE_OBJ) $(BUILD)/tests/test_engines.o: bench/engine.h bench/eng_util.h

$(BUILD)/tests/test-engines: $(BUILD)/tests/test_engines.o $(ENGINE_OBJ) $(BUILD)/libtickwheel.a
	$(CC) -o $@ $^ $(SANFLAGS)

# ------------------------------------------------------------------ bench
$(BUILD)/bench-micro: $(BUILD)/bench/micro.o $(BUILD)/libtickwheel.a $(call vl_objs,$(DEFAULT_GEO))
	$(CXX) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS)

# The workload drivers of ../shared/workloads.md, one process per run.
BENCH_WORKLOADS := w1 w2 w3 w4
BENCH_BINS := $(BENCH_WORKLOADS:%=$(BUILD)/bench-%) $(BUILD)/bench-micro
$(BENCH_WORKLOADS:%=$(BUILD)/bench/%.o): CFLAGS += -Ibench -Itests
$(BENCH_WORKLOADS:%=$(BUILD)/bench/%.o): bench/engine.h bench/bench_util.h

$(BUILD)/bench-%: $(BUILD)/bench/%.o $(ENGINE_OBJ) $(BUILD)/libtickwheel.a
	$(CC) -o $@ $^ -lm $(SANFLAGS)

# make bench: every workload at its standard sizes (tens of minutes; progress
# on the terminal), CSV and plots in bench/results/, see docs/performance.md.
# make bench-quick: every workload at tiny sizes, a few seconds; fails if the
# engines disagree or a timer fires late (make test runs it).
bench: $(BENCH_BINS) | $(BUILD)/.deps
	@BUILD=$(BUILD) sh bench/run.sh

bench-quick: $(BENCH_BINS) | $(BUILD)/.deps
	@BUILD=$(BUILD) sh bench/run.sh --quick

# ------------------------------------------------------------------ fuzz
# libFuzzer targets on the driver: fuzz-api (the API on the C model, with an
# oracle) and fuzz-device (a hostile device). make test runs each briefly
# over its corpus in tests/fuzz/corpus/ when clang is installed.
FUZZ_CC    ?= clang
FUZZ_FLAGS := -g -O1 -std=c11 -Wall -Wextra -Werror -Ihost -fsanitize=fuzzer,address,undefined \
              -fno-sanitize-recover=undefined
FUZZ_BINS  := $(BUILD)/fuzz/fuzz-api $(BUILD)/fuzz/fuzz-device
HAVE_FUZZ_CC := $(shell command -v $(FUZZ_CC) >/dev/null 2>&1 && echo 1)

$(BUILD)/fuzz/fuzz-api: tests/fuzz/fuzz_api.c host/tickwheel.c host/tw_model.c host/tw_search_model.c
$(BUILD)/fuzz/fuzz-device: tests/fuzz/fuzz_device.c host/tickwheel.c
$(FUZZ_BINS): tests/fuzz/fuzz_input.h host/tw_regs.h $(wildcard host/*.h) | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(filter %.c,$^) -o $@

fuzz: $(FUZZ_BINS)

# ------------------------------------------------------------------ tests
TEST_COMMON := $(BUILD)/tests/tw_test.o $(BUILD)/tests/test_driver.o $(BUILD)/tests/test_random.o $(BUILD)/tests/test_misuse.o \
               $(BUILD)/tests/test_lockstep.o $(BUILD)/tests/test_faults.o $(BUILD)/tests/tw_faultdev.o \
               $(BUILD)/libtickwheel.a

$(BUILD)/tests/test-%: $(TEST_COMMON) $(BUILD)/tests/test_main.o $(call vl_objs,%)
	$(CXX) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS)

TEST_BINS := $(GEOMETRIES:%=$(BUILD)/tests/test-%) $(BUILD)/tests/test-spi $(BUILD)/tests/test-spidev \
             $(BUILD)/tests/test-engines $(BUILD)/tests/tw-sim-standin \
             $(SEARCH_GEOMETRIES:%=$(BUILD)/tests/test-search-%)

$(BUILD)/tests/test-spi: $(BUILD)/tests/tw_test.o $(BUILD)/tests/test_driver.o $(BUILD)/tests/test_random.o \
                         $(BUILD)/tests/test_spi_main.o $(BUILD)/libtickwheel.a $(call vlspi_objs,$(DEFAULT_GEO))
	$(CXX) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS)

# The spidev backend against a stand-in /dev/spidev (tests/fake_spidev.c
# defines the system calls the backend makes) over the same Verilated top.
$(BUILD)/tests/test-spidev: $(BUILD)/tests/tw_test.o $(BUILD)/tests/test_driver.o $(BUILD)/tests/test_random.o \
                            $(BUILD)/tests/test_spidev.o $(BUILD)/tests/fake_spidev.o $(BUILD)/libtickwheel.a \
                            $(call vlspi_objs,$(DEFAULT_GEO))
	$(CXX) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS)

# tw-sim itself on that stand-in: --spi-dev /dev/tw-stand-in-spidev reaches
# one board (tests/tw_sim_standin.c; tests/sim_cli.sh runs it).
$(BUILD)/tests/tw-sim-standin: $(BUILD)/sim/tw_sim.o $(BUILD)/tests/tw_sim_standin.o $(BUILD)/tests/fake_spidev.o \
                               $(BUILD)/tests/tw_test.o $(BUILD)/libtickwheel.a $(call vl_objs,$(DEFAULT_GEO)) \
                               $(call vlspi_objs,$(DEFAULT_GEO))
	$(CXX) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS)

lint: | $(BUILD)/.deps
	@for g in $(GEOMETRIES); do \
	  $(VERILATOR) --lint-only -Wall -Irtl $$(echo $$g | awk -F_ '{print "-GLEVELS="$$1" -GSLOT_BITS="$$2" -GFIFO_LOG2="$$3}') \
	    --top-module tw_spi_top $(SPI_RTL) || exit 1; \
	done
	@# The search's word scan on its own (rtl/tw_search.v), at the chip's
	@# geometries and the extremes of its range.
	@for g in $(GEOMETRIES) 1_2_1 3_5_1 4_11_1 4_3_1; do \
	  $(VERILATOR) --lint-only -Wall -Irtl $$(echo $$g | awk -F_ '{print "-GLEVELS="$$1" -GSLOT_BITS="$$2}') \
	    --top-module tw_search rtl/tw_search.v || exit 1; \
	done
	@# The measurement tops of fpga/ceiling/ (fpga/ceiling/fmax.sh).
	@$(VERILATOR) --lint-only -Wall -Irtl --top-module tw_search_top fpga/ceiling/tw_search_top.v \
	  rtl/tw_search.v rtl/tw_bitmap.v
	@$(VERILATOR) --lint-only -Wall -Irtl --top-module tw_core_top fpga/ceiling/tw_core_top.v $(RTL)
	@# Each board's top and its glue, the iCE40 cells as port shells
	@# (fpga/common/ice40_lint.v, waivers in fpga/common/lint.vlt), the PLL
	@# settings from icepll as fpga/build.sh makes them.
	@$(foreach b,$(FPGA_BOARDS),mkdir -p $(BUILD)/lint/$b && \
	  icepll -i 12 -o $(FPGA_MHZ_$b) -f $(BUILD)/lint/$b/pll.vh > $(BUILD)/lint/$b/icepll.txt && \
	  $(VERILATOR) --lint-only -Wall -Irtl -I$(BUILD)/lint/$b --top-module top fpga/common/lint.vlt \
	    fpga/$b/top.v fpga/common/tw_board_glue.v fpga/common/ice40_lint.v $(SPI_RTL) || exit 1;)
	@echo "lint: clean"

# Yosys + yosys-smtbmc + z3 (tests/formal/run.sh, docs/verification.md).
formal: | $(BUILD)/.deps
	@sh tests/formal/run.sh $(BUILD)/formal

# Random operations in make test: the default geometry runs the binaries'
# full count, the other geometries fewer (the same code paths at other sizes).
# Under the sanitizers everything runs several times slower, so every count
# is smaller; the plain pass runs the large ones.
TEST_OPS := $(if $(SANFLAGS),OPS=20000 SWEEP_OPS=5000 SPI_OPS=1000 ENGINE_OPS=50000,SWEEP_OPS=30000)

test: $(TEST_BINS) $(BUILD)/tw-sim $(EXAMPLES) $(BUILD)/fst-signals $(BENCH_BINS) $(if $(and $(HAVE_FUZZ_CC),$(if $(SANFLAGS),,1)),$(FUZZ_BINS)) | $(BUILD)/.deps
	@WAVE_ARGS="$(WAVE_ARGS)" BUILD=$(BUILD) GEOMETRIES="$(GEOMETRIES)" SEARCH_GEOMETRIES="$(SEARCH_GEOMETRIES)" $(if $(SEED),SEED=$(SEED)) $(TEST_OPS) LINT=$(if $(SANFLAGS),0,1) FORMAL=$(if $(SANFLAGS),0,1) RTL=$(if $(SANFLAGS),0,1) FUZZ=$(if $(SANFLAGS),0,1) \
	  FPGA_MHZ_icebreaker=$(FPGA_MHZ_icebreaker) FPGA_MHZ_hx8k=$(FPGA_MHZ_hx8k) sh tests/run_all.sh

clean:
	rm -rf build

# ------------------------------------------------------------------ fpga
# make fpga: the SPI-attached chip (rtl/tw_spi_top.v) on two iCE40 boards,
# Yosys -> nextpnr-ice40 -> icepack -> icetime, for each geometry of the
# sweep (the first is the default chip). Bitstreams under fpga/build/ (the
# board's own as fpga/build/tickwheel-<board>.bin), summary in fpga/report.csv
# and fpga/REPORT.md; see docs/fpga.md. A build that does not fit or misses
# its clock is reported, not fatal; a board left without a bitstream is.
#   make fpga FPGA_MHZ_hx8k=17     clock a board's PLL differently (16-275 MHz)
#   make fpga-clean                remove fpga/build
FPGA_BOARDS         := icebreaker hx8k
FPGA_SWEEP          := 4_8 1_12 2_10 2_8 3_8 4_6
FPGA_MHZ_icebreaker ?= 48
FPGA_MHZ_hx8k       ?= 120
# The geometry whose bitstream is the board's: the default chip on both.
FPGA_GEO_icebreaker ?= 4_8
FPGA_GEO_hx8k       ?= 4_8
# nextpnr seeds: the board's geometry is placed and routed at each, and the
# fastest becomes the board's bitstream; the sweep uses the first.
FPGA_SEEDS          ?= 1 2 3 4 5
# nextpnr's heap placer timing weight (empty: its default, 10); docs/fpga.md
# gives the measurements behind these.
FPGA_TW_icebreaker  ?=
FPGA_TW_hx8k        ?= 30
FPGA_JOBS           ?= 2
FPGA_OUT            := fpga/build
FPGA_RTL            := rtl/tw_spi_top.v rtl/tw_spi.v rtl/tw_core.v rtl/tw_bitmap.v rtl/tw_evfifo.v rtl/tw_search.v rtl/tw_regs.vh
FPGA_SEED           := $(firstword $(FPGA_SEEDS))
fpga_comma          := ,
fpga_space          := $(subst ,, )
# One directory per board, clock, placer weight and seed, so changing any rebuilds.
fpga_dir             = $(FPGA_OUT)/$1/$(FPGA_MHZ_$1)mhz$(if $(FPGA_TW_$1),_tw$(FPGA_TW_$1))_s$3/$2
FPGA_RESULTS        := $(foreach b,$(FPGA_BOARDS),$(foreach g,$(FPGA_SWEEP),$(call fpga_dir,$b,$g,$(FPGA_SEED))))
FPGA_TRIES          := $(foreach b,$(FPGA_BOARDS),$(foreach s,$(FPGA_SEEDS),$(call fpga_dir,$b,$(FPGA_GEO_$b),$s)))
# The tools make deps must see (their packages are in DEB_PACKAGES already).
TOOLS               += nextpnr-ice40 icepack icetime icepll clang

.PHONY: fpga fpga-all fpga-clean
fpga: | $(BUILD)/.deps
	@mkdir -p $(FPGA_OUT) && date +%s > $(FPGA_OUT)/.started
	@$(MAKE) --no-print-directory -j$(FPGA_JOBS) fpga-all

# The area analysis (about two minutes, serial) goes first so it overlaps the builds.
fpga-all: $(FPGA_OUT)/area/area.json $(FPGA_OUT)/ceiling/ceiling.csv $(addsuffix /result.txt,$(sort $(FPGA_RESULTS) $(FPGA_TRIES))) fpga/report.py | $(BUILD)/.deps
	python3 fpga/report.py --csv fpga/report.csv --md fpga/REPORT.md --area $(FPGA_OUT)/area/area.json \
	  --ceiling $(FPGA_OUT)/ceiling/ceiling.csv \
	  --bin-dir $(FPGA_OUT) \
	  $(foreach b,$(FPGA_BOARDS),--bin $b=$(subst $(fpga_space),$(fpga_comma),$(foreach s,$(FPGA_SEEDS),$(call fpga_dir,$b,$(FPGA_GEO_$b),$s)))) \
	  --seed $(FPGA_SEED) --started "$$(cat $(FPGA_OUT)/.started 2>/dev/null)" --command "make fpga" $(FPGA_RESULTS)

# One build: $* is <clock>[_tw<weight>]_s<seed>/<levels>_<slot bits>; a
# board's own files rebuild only that board.
define fpga_board_rule
$(FPGA_OUT)/$1/%/result.txt: $(FPGA_RTL) fpga/common/tw_board_glue.v fpga/build.sh fpga/$1/top.v fpga/$1/$1.pcf | $(BUILD)/.deps
	@PLACER_TW=$(FPGA_TW_$1) sh fpga/build.sh $1 $$(subst _, ,$$(notdir $$*)) $(FPGA_MHZ_$1) $$(@D) \
	  $$(lastword $$(subst _s, ,$$(patsubst %/,%,$$(dir $$*))))
endef
$(foreach b,$(FPGA_BOARDS),$(eval $(call fpga_board_rule,$b)))

$(FPGA_OUT)/area/area.json: fpga/area.py $(FPGA_RTL) | $(BUILD)/.deps
	python3 fpga/area.py $(@D)

# What the fabric allows a bare tick counter of 48 bits, and of 24 (the half
# the chip's split counter steps); half a minute.
$(FPGA_OUT)/ceiling/ceiling.csv: fpga/ceiling.sh fpga/ceiling/counter.v | $(BUILD)/.deps
	sh fpga/ceiling.sh $(@D) $(FPGA_SEED)

fpga-clean:
	rm -rf $(FPGA_OUT)
