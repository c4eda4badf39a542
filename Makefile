# Thin wrapper: install dependencies, configure, build, run. Every target installs what
# it needs first, so each works on a fresh Debian 12 machine.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
TOPOPLACE := $(BUILD)/api/cli/topoplace
DEMO_DIR ?= topoplace-data

.PHONY: all deps configure build build-demo demo console test fuzz bench report goodput-table fault-report preemption-report tidy asan tsan package image clean

all: build

deps:
	bash deploy/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Only what the demo runs (the CLI and the daemon), not the test suite: a first run on a
# fresh 2-core machine compiles about half as much.
build-demo: configure
	cmake --build $(BUILD) -j $(JOBS) --target topoplace topoplaced

# The main job on the embedded default: place a realistic job on a built-in reference
# fabric with topoplace and every baseline side by side, then run topoplaced on its
# embedded default (built-in fabric, local SQLite file) and reserve/commit jobs through it.
demo: build-demo
	@mkdir -p $(DEMO_DIR)
	$(TOPOPLACE) place --fabric preset:rail-28k --job tp=8,pp=8,dp=32,model=175b --load 0.6 --seed 7 --compare
	$(TOPOPLACE) place --fabric preset:rail-28k --job tp=8,pp=8,dp=32,model=175b --load 0.6 --seed 7 --render $(DEMO_DIR)/plan.svg > /dev/null
	@echo "demo: the plan is drawn in $(DEMO_DIR)/plan.svg"
	BUILD=$(BUILD) DEMO_DIR=$(DEMO_DIR) bash deploy/demo.sh

# The web console on the demo's database, until Ctrl-C (CONSOLE_LISTEN picks the address).
console: build-demo
	BUILD=$(BUILD) DEMO_DIR=$(DEMO_DIR) bash deploy/console.sh

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

# The goodput issue's checks over seeds 1-3 in docs/report/goodput.md (~10 min).
goodput-table: build
	bash deploy/make-goodput-table.sh $(TOPOPLACE)

# Regenerates the fault evaluation in docs/report/faults/.
fault-report: build
	bash deploy/make-fault-report.sh $(TOPOPLACE)

# clang-tidy with the checks of .clang-tidy over every production source (~15 min).
tidy: build
	bash tests/testing/run_clang_tidy.sh build

# Regenerates the preemption and look-ahead evaluation in docs/report/preemption/.
preemption-report: build
	bash deploy/make-preemption-report.sh $(TOPOPLACE)

# Medians of 5 runs of every benchmark, printed and recorded in BENCH_RECORD (one JSON
# file per benchmark binary in that folder); tests/bench/compare_bench.py OLD NEW prints
# the ratios between two such records, tests/bench/placement_ratios.py RECORD issue 36's
# placement ratios (printed at the end). The runs of all a binary's benchmarks are
# interleaved in random order, so that a slow spell of a shared machine lands on every
# benchmark alike rather than on the one running then (ratios are read within a record).
BENCH_RECORD ?= bench-results/$(shell git rev-parse --short HEAD 2>/dev/null || echo local)
bench: build
	@mkdir -p $(BENCH_RECORD); for b in $(BUILD)/tests/bench/*_bench; do \
	  echo "== $$b"; $$b --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
	    --benchmark_report_aggregates_only=true \
	    --benchmark_out=$(BENCH_RECORD)/$$(basename $$b).json --benchmark_out_format=json; done
	@echo "recorded in $(BENCH_RECORD)"
	@python3 tests/bench/placement_ratios.py $(BENCH_RECORD) || true

# Same tests under AddressSanitizer + UndefinedBehaviorSanitizer.
asan:
	$(MAKE) test BUILD=build-asan CMAKE_FLAGS="-DTOPOPLACE_SANITIZE=ON -DTOPOPLACE_BENCHMARKS=OFF -DCMAKE_BUILD_TYPE=Debug"

# ThreadSanitizer over the tests that run threads against each other: the TSan build's own
# checks (Abseil's locks are seen, a race still is), the SQLite ledger's contract (group
# commit over two mutexes), the etcd ledger and its group commit, HA failover, the service
# under concurrent clients, the extender. Not in `make test`: it builds the tree a third
# time (about 12 minutes on 2 cores from scratch, 1 of them the tests). A report from
# any process fails the run.
TSAN_TESTS = tsan_annotations_check store_sqlite_sqlite_ledger_test etcd_ledger_test \
	group_commit_test ha_integration_test service_integration_test k8s_extender_test \
	k8s_extender_server_test
TSAN_SUITES = Tsan Sqlite LedgerTest Etcd EtcdLedgerTest \
	GroupCommitTest HaTest ServiceTest ExtenderWire PodGroup GangPlanner ExtenderHandlersTest \
	ExtenderServerTest
space := $() $()
# Every process's reports, the daemons' the tests start included, go to files checked after.
TSAN_REPORTS = suppressions=$(CURDIR)/tests/tsan/suppressions.txt \
	log_path=$(CURDIR)/build-tsan/tsan-reports/report
tsan: deps
	cmake -S . -B build-tsan -G Ninja -DTOPOPLACE_TSAN=ON -DTOPOPLACE_BENCHMARKS=OFF
	cmake --build build-tsan -j $(JOBS) --target topoplaced topoplace $(TSAN_TESTS)
	rm -rf build-tsan/tsan-reports && mkdir -p build-tsan/tsan-reports
	cd build-tsan && TSAN_OPTIONS="second_deadlock_stack=1 $(TSAN_REPORTS)" \
	  ctest --output-on-failure --no-tests=error -j $(JOBS) \
	    -R '^($(subst $(space),|,$(strip $(TSAN_SUITES))))[./]'; \
	  status=$$?; if ls tsan-reports/* > /dev/null 2>&1; then cat tsan-reports/*; \
	  echo "make tsan: ThreadSanitizer reported the races above"; exit 1; fi; exit $$status

# Debian packages, one per role (cmake/Packaging.cmake), into $(BUILD)/packages/.
package: build
	cd $(BUILD) && cpack -G DEB -B $(CURDIR)/$(BUILD)/packages
	@ls -l $(BUILD)/packages/*.deb

# The container image of deploy/image/Containerfile, from those packages (needs podman,
# buildah or a docker engine; says why not otherwise).
image: package
	bash deploy/image/build-image.sh $(BUILD)/packages $$(sed -n 's/^project(topoplace VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)

clean:
	rm -rf $(BUILD) build-asan build-fuzz $(DEMO_DIR)
