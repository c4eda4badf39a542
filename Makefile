# Thin wrapper: install dependencies, configure, build, run. Every target installs what
# it needs first, so each works on a fresh Debian 12 machine.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
TOPOPLACE := $(BUILD)/api/cli/topoplace
DEMO_DIR ?= topoplace-data

.PHONY: all deps build demo test bench asan clean

all: build

deps:
	bash deploy/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

# The main job on the embedded default: a built-in reference fabric, saved locally.
demo: build
	@mkdir -p $(DEMO_DIR)
	$(TOPOPLACE) fabric generate --preset superpod-4su --out $(DEMO_DIR)/superpod-4su.json
	$(TOPOPLACE) fabric show --fabric $(DEMO_DIR)/superpod-4su.json --json

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 900

bench: build
	@for b in $(BUILD)/tests/bench/*_bench; do \
	  echo "== $$b"; $$b --benchmark_repetitions=5 --benchmark_report_aggregates_only=true; done

# Same tests under AddressSanitizer + UndefinedBehaviorSanitizer.
asan:
	$(MAKE) test BUILD=build-asan CMAKE_FLAGS="-DTOPOPLACE_SANITIZE=ON -DTOPOPLACE_BENCHMARKS=OFF -DCMAKE_BUILD_TYPE=Debug"

clean:
	rm -rf $(BUILD) build-asan $(DEMO_DIR)
