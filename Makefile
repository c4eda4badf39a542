# Thin wrapper: install dependencies, configure, build, run. Every target installs what
# it needs first, so each works on a fresh Debian 12 machine.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
TOPOPLACE := $(BUILD)/api/cli/topoplace
DEMO_DIR ?= topoplace-data

.PHONY: all deps build demo test fuzz bench report asan clean

all: build

deps:
	bash deploy/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

# The main job on the embedded default: place a realistic job on a built-in reference
# fabric with topoplace and every baseline side by side, then run topoplaced on its
# embedded default (built-in fabric, local SQLite file) and reserve/commit jobs through it.
demo: build
	@mkdir -p $(DEMO_DIR)
	$(TOPOPLACE) place --fabric preset:rail-28k --job tp=8,pp=8,dp=32,model=175b --load 0.6 --seed 7 --compare
	$(TOPOPLACE) place --fabric preset:rail-28k --job tp=8,pp=8,dp=32,model=175b --load 0.6 --seed 7 --render $(DEMO_DIR)/plan.svg > /dev/null
	@echo "demo: the plan is drawn in $(DEMO_DIR)/plan.svg"
	BUILD=$(BUILD) DEMO_DIR=$(DEMO_DIR) bash deploy/demo.sh

# Every test: a short run of each libFuzzer target (its own clang build), then the whole
# ctest suite (unit, integration with real lldpd/Slurm/topoplaced, CLI), whose summary
# closes the output.
test: build
	bash tests/fuzz/run_fuzzers.sh $(TEST_FUZZ_SECONDS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 900

# libFuzzer targets (clang) for every parser, each for FUZZ_SECONDS (TEST_FUZZ_SECONDS
# within `make test`).
FUZZ_SECONDS ?= 60
TEST_FUZZ_SECONDS ?= 10
fuzz: deps
	bash tests/fuzz/run_fuzzers.sh $(FUZZ_SECONDS)

# Regenerates the simulator's evaluation report in docs/report/.
report: build
	bash deploy/make-report.sh $(TOPOPLACE)

bench: build
	@for b in $(BUILD)/tests/bench/*_bench; do \
	  echo "== $$b"; $$b --benchmark_repetitions=5 --benchmark_report_aggregates_only=true; done

# Same tests under AddressSanitizer + UndefinedBehaviorSanitizer.
asan:
	$(MAKE) test BUILD=build-asan CMAKE_FLAGS="-DTOPOPLACE_SANITIZE=ON -DTOPOPLACE_BENCHMARKS=OFF -DCMAKE_BUILD_TYPE=Debug"

clean:
	rm -rf $(BUILD) build-asan build-fuzz $(DEMO_DIR)
