# The two commands: `make demo` runs the bundled AscendC examples on the CPU, `make test` runs every
# test. Both install missing Debian packages first (scripts/install-deps.sh is idempotent).
BUILD     ?= build
JOBS      ?= $(shell nproc)
CMAKE_GEN := -G Ninja

.PHONY: all deps build demo test test-quick bench fuzz asan tsan install clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# The demo builds only what it runs (the library, the tools, the examples: target aicore_demo).
demo: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target aicore_demo
	bash scripts/demo.sh $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 600

test-quick: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L quick

bench: deps
	cmake -S . -B build/bench-release $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Release
	cmake --build build/bench-release -j $(JOBS) --target bench_machine bench_vector bench_sim bench_check bench_perf bench_alloc bench_matmul
	/usr/bin/python3 benchmarks/run_all.py --build build/bench-release --out build/bench/results.jsonl

# The caching allocator's libFuzzer target, built with Debian's clang-16, run for FUZZ_SECONDS.
FUZZ_SECONDS ?= 60
fuzz:
	@bash scripts/install-deps.sh --fuzz
	cmake -S . -B $(BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) --target runtime_memory_alloc_fuzzer
	$(BUILD)/tests/runtime/memory/alloc_fuzzer -max_total_time=$(FUZZ_SECONDS)

asan: deps
	cmake --preset asan-ubsan && cmake --build --preset asan-ubsan -j $(JOBS)
	ctest --preset asan-ubsan

tsan: deps
	cmake --preset tsan && cmake --build --preset tsan -j $(JOBS)
	ctest --preset tsan

# Regenerates docs/optimization-walkthrough.md from profiled runs of the staged examples (the
# perf.walkthrough test fails while the committed page differs from a fresh run).
.PHONY: walkthrough
walkthrough: build
	/usr/bin/python3 scripts/walkthrough.py --build $(BUILD) --out docs/optimization-walkthrough.md

clean:
	rm -rf $(BUILD) build/
