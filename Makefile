# Convenience driver around CMake. `make example` and `make test` install the Debian packages
# first, so both work on a fresh machine. Each command builds only what it runs, and quietly:
# the output of the package install, of CMake's configure step and of the compiler goes to
# $(BUILD_DIR)/install-deps.log, configure.log and build.log, one line says what is under way,
# and the end of the log is shown only when the step fails. V=1 shows all of it.
BUILD_DIR ?= build
JOBS ?= 2
V ?= 0

# Programs are run as ./build/hydyn; an absolute BUILD_DIR is taken as it is.
BIN := $(if $(filter /%,$(BUILD_DIR)),$(BUILD_DIR),./$(BUILD_DIR))
CMAKE_CONFIGURE := cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release

# Prerequisites run in the order written (deps before build before the command).
.NOTPARALLEL:
.PHONY: all build test example bench deps deps-tests clean format

# $(call quietly,WHAT,LOG,COMMAND,WARNING): runs COMMAND with its output in LOG. On failure
# prints the log's last 40 lines, where the error is (without the make[n] directory lines that
# would crowd it out); on success only a count of the lines matching WARNING, so that warnings
# are not lost with the rest of the output.
ifeq ($(V),1)
Q :=
quietly = $(3)
else
Q := @
quietly = mkdir -p $(BUILD_DIR); echo "make: $(1) (log: $(2))"; \
  if ! { $(3); } >$(2) 2>&1; then \
    grep -v -E '^g?make\[[0-9]+\]: (Entering|Leaving) directory' $(2) | tail -n 40; \
    echo "make: $(1) failed; the end of $(2) is above" >&2; \
    exit 1; \
  fi; \
  n=$$(grep -c -- '$(4)' $(2) || true); \
  if [ "$$n" -gt 0 ]; then echo "make: $$n warnings, see $(2)"; fi
endif

# $(call configure_and_build,CMAKE-OPTIONS,TARGETS): TARGETS empty builds everything.
define configure_and_build
$(Q)$(call quietly,configuring $(BUILD_DIR),$(BUILD_DIR)/configure.log,$(CMAKE_CONFIGURE) $(1),CMake Warning)
$(Q)$(call quietly,building $(or $(2),everything),$(BUILD_DIR)/build.log,cmake --build $(BUILD_DIR) $(addprefix --target ,$(2)) -j$(JOBS),warning:)
endef

all: build

# Library, command, tests (when Check is installed) and benchmark.
build:
	$(call configure_and_build,,)

# Everything, then every test. HYDYN_TESTS=ON makes a missing Check an error at configure time
# rather than a build without tests that passes.
test: deps-tests
	$(call configure_and_build,-DHYDYN_TESTS=ON,)
	ctest --test-dir $(BUILD_DIR) --output-on-failure --no-tests=error -j$(JOBS)

# The 10 s work cycle of four-bar A with its hydraulic circuit (seed 000): notes, then the
# summary. Only the command is built: neither the tests nor Check are needed.
example: deps
	$(call configure_and_build,,hydyn)
	$(BIN)/hydyn run four-bar-a --out $(BUILD_DIR)/four-bar-a.csv

# Every built-in model, hydraulic work cycles included, 5 runs each, and the cost of recording
# four-bar A to CSV and HDF5 (a few seconds); writes $(BUILD_DIR)/bench/results/<hostname>/
# explicit.csv and compares with the file it replaces. Not part of `make test`: timings are not
# tests.
bench: deps
	$(call configure_and_build,-DHYDYN_BENCH=ON,hydyn_bench)
	$(BIN)/hydyn_bench

deps:
	@./scripts/install-deps --log $(BUILD_DIR)/install-deps.log

deps-tests:
	@./scripts/install-deps --tests --log $(BUILD_DIR)/install-deps.log

clean:
	rm -rf $(BUILD_DIR)

format:
	find $(wildcard src include tests bench) -name '*.[ch]' -print0 | xargs -0 -r clang-format -i
