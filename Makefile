# Thin wrappers over CMake/CTest. `make demo` and `make test` work on a fresh Debian 12 machine:
# both run `deps` first, which installs only the Debian packages that are missing.
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
TALA := $(BUILD_DIR)/tala

# Every Debian package the build, the demo and the benchmarks use.
DEB_PACKAGES := cmake ninja-build g++ pkg-config make \
  libgtest-dev libgmock-dev \
  libsimdjson-dev libcli11-dev libfmt-dev libutf8proc-dev libstemmer-dev wordnet-base \
  libcurl4-openssl-dev libsqlite3-dev libcpp-httplib-dev nlohmann-json3-dev libtomlplusplus-dev
# What only the tests add: a real browser for the HTML report test.
TEST_PACKAGES := chromium

.PHONY: all deps test-deps configure build test demo bench format clean

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

test-deps:
	$(call install_missing,$(TEST_PACKAGES))

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build test-deps
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

demo: build
	@bash examples/demo.sh $(TALA)

bench: build
	@bash bench/run_all.sh $(BUILD_DIR)

format:
	@git ls-files '*.h' '*.cc' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
