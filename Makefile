# Thin wrappers over CMake. The two commands a new user needs:
#   make reproduce   install what is missing, build, run every reproduction -> out/REPORT.md, out/index.html
#   make test        install what is missing, build, run the test suite
# Everything else is plain CMake (see README.md).

JOBS ?= 2
BUILD ?= build
OUT ?= out
# Rebuilds from a fresh clone reuse earlier compilations when ccache is
# installed (optional; nothing else depends on it). Paths below the clone are
# hashed relative to it, so clones in other folders share the cache.
LAUNCHER := $(if $(shell command -v ccache),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR ?= $(CURDIR)

.PHONY: all deps build test reproduce benchmarks build-benchmarks test-sanitize test-memcheck fuzz-smoke clean

all: build

deps:
	@./scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(LAUNCHER)
	cmake --build $(BUILD) -j$(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

reproduce: build
	./$(BUILD)/experiments/iklab run all --out $(OUT)

benchmarks: build-benchmarks
	./build-bench/benchmarks/iklab_benchmarks

# The microbenchmarks built but not run (CI checks that they compile).
build-benchmarks: deps
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DIKLAB_BUILD_BENCHMARKS=ON $(LAUNCHER)
	cmake --build build-bench -j$(JOBS) --target iklab_benchmarks

# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer.
test-sanitize: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIKLAB_SANITIZE=ON $(LAUNCHER)
	cmake --build build-asan -j$(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitize/lsan-suppressions.txt \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j$(JOBS)

# The solver and study tests of the Release build under valgrind memcheck:
# an uninitialised read or invalid access fails (scripts/memcheck.sh).
test-memcheck: build
	./scripts/memcheck.sh $(BUILD)/tests/iklab_tests

# A short libFuzzer run of the URDF, BVH and target CSV readers on seeds made from the
# shipped robots and skeletons, then of the reach map (HDF5), reach journal and
# scene readers on files iklab wrote (tests/fuzz/seeds) (clang; instrumented with
# ASan + UBSan). About 30 + 30 + 30 + 3 x 20 s of fuzzing.
FUZZ_SECONDS ?= 30
READER_FUZZ_SECONDS ?= 20
fuzz-smoke:
	@./scripts/install-deps.sh --fuzz
	cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DIKLAB_BUILD_TESTS=OFF -DIKLAB_BUILD_FUZZERS=ON $(LAUNCHER)
	cmake --build build-fuzz -j$(JOBS) --target iklab_urdf_fuzzer iklab_bvh_fuzzer
	mkdir -p build-fuzz/corpus/urdf build-fuzz/corpus/bvh
	./build-fuzz/tests/fuzz/iklab_urdf_fuzzer -max_total_time=$(FUZZ_SECONDS) -max_len=2048 \
	  -dict=tests/fuzz/urdf.dict build-fuzz/corpus/urdf build-fuzz/tests/fuzz/seeds/urdf
	./build-fuzz/tests/fuzz/iklab_bvh_fuzzer -max_total_time=$(FUZZ_SECONDS) \
	  -dict=tests/fuzz/bvh.dict build-fuzz/corpus/bvh build-fuzz/tests/fuzz/seeds/bvh
	cmake --build build-fuzz -j$(JOBS) --target iklab_target_csv_fuzzer
	mkdir -p build-fuzz/corpus/csv
	./build-fuzz/tests/fuzz/iklab_target_csv_fuzzer -max_total_time=$(FUZZ_SECONDS) \
	  -dict=tests/fuzz/csv.dict build-fuzz/corpus/csv build-fuzz/tests/fuzz/seeds/csv
	cmake --build build-fuzz -j$(JOBS) --target iklab_reach_map_fuzzer \
	  iklab_reach_journal_fuzzer iklab_scene_fuzzer
	for reader in reach_journal scene; do \
	  mkdir -p build-fuzz/corpus/$$reader && \
	  ./build-fuzz/tests/fuzz/iklab_$${reader}_fuzzer -max_total_time=$(READER_FUZZ_SECONDS) \
	    build-fuzz/corpus/$$reader build-fuzz/tests/fuzz/seeds/$$reader || exit 1; \
	done
	# libhdf5 1.10 (Debian) leaks its own allocations when it refuses some
	# damaged images (a checksum recomputed by the harness): leaks inside it
	# are not reported; crashes and sanitizer errors still are.
	mkdir -p build-fuzz/corpus/reach_map
	ASAN_OPTIONS=detect_leaks=0 ./build-fuzz/tests/fuzz/iklab_reach_map_fuzzer \
	  -max_total_time=$(READER_FUZZ_SECONDS) -detect_leaks=0 \
	  build-fuzz/corpus/reach_map build-fuzz/tests/fuzz/seeds/reach_map

clean:
	rm -rf $(BUILD) build-bench build-asan build-fuzz
