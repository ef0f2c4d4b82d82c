# The two commands: `make demo` runs the bundled AscendC examples on the CPU, `make test` runs every
# test. Both install missing Debian packages first (scripts/install-deps.sh is idempotent).
BUILD     ?= build
JOBS      ?= $(shell nproc)
CMAKE_GEN := -G Ninja

.PHONY: all deps build demo test test-quick test-sanitizers bench fuzz asan tsan install clean

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
	cmake --build build/bench-release -j $(JOBS) --target bench_machine bench_vector bench_sim bench_check bench_perf bench_alloc bench_matmul bench_ops bench_ops_matmul bench_attention bench_tune bench_matmul_epilogue ops_model fused_model
	/usr/bin/python3 benchmarks/run_all.py --build build/bench-release --out build/bench/results.jsonl

# The libFuzzer targets (the caching allocator, chip descriptions, AICORE_ALLOC_CONF, level-0
# vector parameters, aclnn tensor descriptors and phase 1/2), built with Debian's clang-16, each
# run for FUZZ_SECONDS one after another;
# each keeps its corpus in $(BUILD)/fuzz-corpus/NAME (the chip fuzzer starts from the presets).
FUZZ_SECONDS ?= 60
FUZZERS := runtime/memory/alloc_fuzzer fuzz/chip_json_fuzzer fuzz/alloc_conf_fuzzer fuzz/level0_fuzzer \
           fuzz/aclnn_fuzzer fuzz/aclnn_ops_fuzzer
fuzz:
	@bash scripts/install-deps.sh --fuzz
	cmake -S . -B $(BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_COMPILER_LAUNCHER=$(SAN_LAUNCHER)
	cmake --build $(BUILD) -j $(JOBS) --target runtime_memory_alloc_fuzzer fuzz_chip_json fuzz_alloc_conf \
	  fuzz_level0 fuzz_aclnn fuzz_aclnn_ops
	mkdir -p $(BUILD)/fuzz-corpus/chip_json_fuzzer && cp aicore/arch/presets/*.json $(BUILD)/fuzz-corpus/chip_json_fuzzer/
	@set -e; for f in $(FUZZERS); do \
	  name=$$(basename $$f); mkdir -p $(BUILD)/fuzz-corpus/$$name; \
	  echo "== $$name for $(FUZZ_SECONDS) s"; \
	  $(BUILD)/tests/$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $(BUILD)/fuzz-corpus/$$name; \
	done

asan: deps
	cmake --preset asan-ubsan && cmake --build --preset asan-ubsan -j $(JOBS)
	ctest --preset asan-ubsan

tsan: deps
	cmake --preset tsan && cmake --build --preset tsan -j $(JOBS)
	ctest --preset tsan

# The runtime, sim, robustness and packed-panel-cache tests (quick tier) under ASan/UBSan and
# under TSan, building only those test binaries (and the CLI and helper they run) in the presets'
# build dirs. CI runs it after `make test`. SAN_LAUNCHER=ccache (the default when ccache is
# installed) reuses objects.
SAN_SUITES   := runtime|sim|robustness|kernel.lib.matmul.host.gemm
SAN_LAUNCHER ?= $(shell command -v ccache >/dev/null 2>&1 && echo ccache)
test-sanitizers: deps
	@set -e; for preset in asan-ubsan tsan; do \
	  dir=build/$$preset; \
	  cmake --preset $$preset -DCMAKE_CXX_COMPILER_LAUNCHER=$(SAN_LAUNCHER) >/dev/null; \
	  targets=$$(ninja -C $$dir -t targets all | grep -oE '^($(SAN_SUITES))_[a-z0-9_]+_test:' \
	             | grep -v '_slow_test:' | tr -d ':' | sort -u); \
	  echo "== $$preset: building $$(echo $$targets | wc -w) test binaries"; \
	  ninja -C $$dir -j $(JOBS) $$targets; \
	  ctest --preset $$preset -L quick -R '^($(SAN_SUITES))\.' -j $(JOBS) --timeout 600; \
	done

# Regenerates docs/optimization-walkthrough.md from profiled runs of the staged examples (the
# perf.walkthrough test fails while the committed page differs from a fresh run).
.PHONY: walkthrough
walkthrough: build
	/usr/bin/python3 scripts/walkthrough.py --build $(BUILD) --out docs/optimization-walkthrough.md

clean:
	rm -rf $(BUILD) build/
