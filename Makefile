# Convenience driver around CMake. `make example` and `make test` install the Debian packages
# first, so both work on a fresh machine.
BUILD_DIR ?= build
JOBS ?= 2

# Prerequisites run in the order written (deps before build before the command).
.NOTPARALLEL:
.PHONY: all build test example bench deps clean format

all: build

build:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD_DIR) -j$(JOBS)

test: deps build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j$(JOBS)

# The 10 s work cycle of four-bar A with its hydraulic circuit (seed 000): notes, then the summary.
example: deps build
	./$(BUILD_DIR)/hydyn run four-bar-a --out $(BUILD_DIR)/four-bar-a.csv

# Every built-in model, hydraulic work cycles included, 5 runs each (a few seconds); writes
# bench/results/<hostname>/explicit.csv and compares with the file it replaces.
bench: build
	./$(BUILD_DIR)/hydyn_bench

deps:
	./scripts/install-deps

clean:
	rm -rf $(BUILD_DIR)

format:
	find $(wildcard src include tests bench) -name '*.[ch]' -print0 | xargs -0 -r clang-format -i
