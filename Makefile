# Thin wrappers over CMake. The two commands a new user needs:
#   make reproduce   install what is missing, build, run every reproduction -> out/REPORT.md
#   make test        install what is missing, build, run the test suite
# Everything else is plain CMake (see README.md).

JOBS ?= 2
BUILD ?= build
OUT ?= out

.PHONY: all deps build test reproduce benchmarks test-sanitize clean

all: build

deps:
	@./scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j$(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

reproduce: build
	./$(BUILD)/experiments/iklab run all --out $(OUT)

benchmarks: deps
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DIKLAB_BUILD_BENCHMARKS=ON
	cmake --build build-bench -j$(JOBS) --target iklab_benchmarks
	./build-bench/benchmarks/iklab_benchmarks

# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer.
test-sanitize: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIKLAB_SANITIZE=ON
	cmake --build build-asan -j$(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j$(JOBS)

clean:
	rm -rf $(BUILD) build-bench build-asan
