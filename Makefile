# Thin front for CMake + Ninja. `make` builds build/tlparse; `make test` is the fast inner
# loop (the unit, golden, version, layers and quick CLI suites in the Release build, under a
# minute on two cores); `make check` runs every test (unit, golden, CLI, conformance against
# ../shared when present) in a normal and an ASan+UBSan build; `make demo` renders the
# bundled sample trace; `make bench` measures.
# `make install` (PREFIX, DESTDIR), `make deb` (build/deb/*.deb) and `make wheel`
# (build/wheel/*.whl) package it. `make web` builds the web page (build-web/site/index.html:
# the engine compiled to WebAssembly, in one file).
BUILD ?= build
ASAN_BUILD ?= build-asan
CMAKE_FLAGS ?=
OUT ?= tl_out
PREFIX ?= /usr/local
DESTDIR ?=
VERSION := $(strip $(file <VERSION))
DEB_DIR ?= $(BUILD)/deb
WHEEL_BUILD ?= build-wheel
WHEEL_DIR ?= $(BUILD)/wheel
WEB_BUILD ?= build-web

# The ctest labels `make test` runs (each suite's label is its name; the unit tests' is unit).
TEST_LABELS ?= unit|golden|version|layers|cli|wronginput|badinput|names

FORMAT_FILES = $(wildcard src/*/*.c src/*/*.h web/*.c web/compat/*.[ch] web/compat/*/*.h) include/tlparse/*.h tests/unit/*.c fuzz/*.c

.PHONY: all deps check-deps test check check-torch demo bench fuzz tsan format format-check clean install deb wheel web print-version

# The plain build configures no tests, so it needs only what `scripts/deps.sh build` installs;
# `make check` turns the tests on in the same tree once their packages are there.
all: deps
	@[ -f $(BUILD)/build.ninja ] || cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	@ninja -C $(BUILD) tlparse

deps:
	@scripts/deps.sh build

check-deps:
	@scripts/deps.sh check

# The fast inner loop: $(TEST_LABELS) in $(BUILD), tests turned on there when they are not.
# Three at once on two cores: test_follow mostly waits, test_zip is the longest (~20 s of CPU).
test: all
	@scripts/deps.sh test
	@grep -qs '^TL_TESTS:BOOL=ON' $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) -DTL_TESTS=ON >/dev/null
	@ninja -C $(BUILD)
	@cd $(BUILD) && ctest --output-on-failure -j3 -L '^($(TEST_LABELS))$$'

check: check-deps all format-check web
	@grep -qs '^TL_TESTS:BOOL=ON' $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) -DTL_TESTS=ON >/dev/null
	@[ -f $(ASAN_BUILD)/build.ninja ] || cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Asan -DTL_DEVELOPER=ON -DTL_TESTS=ON $(CMAKE_FLAGS)
	@[ -f build-clang/build.ninja ] || cmake -S . -B build-clang -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DTL_DEVELOPER=ON -DTL_TESTS=ON $(CMAKE_FLAGS)
	@ninja -C $(BUILD)
	@ninja -C build-clang
	@ninja -C $(ASAN_BUILD)
	@cd $(BUILD) && ctest --output-on-failure -j2 -L 'cli|golden|conformance|install|slurm'
	@cd $(ASAN_BUILD) && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ctest --output-on-failure -j2 -LE 'install|slurm|pytest'
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=3
	@$(MAKE) --no-print-directory tsan

# The diagnosis against real PyTorch (tests/torch.sh): 2.13 from a venv it makes in
# $(BUILD)/torch-2.13 and 2.6 from ../shared/tools/torch-python, whose root it builds when
# needed; $(TORCH_PYTHON) alone when set (any python3 with torch). `make check` runs the
# versions that are ready; CI runs this on the host. Then the wheel's pytest plugin under both
# (tests/pytest_plugin.sh, ctest label "pytest", which `make check` leaves out).
check-torch: all
	@rc=0; TL_TORCH_REQUIRED=1 tests/torch.sh $(BUILD)/tlparse || rc=1; \
	TL_TORCH_REQUIRED=1 tests/pytest_plugin.sh $(BUILD)/tlparse || rc=1; exit $$rc

# The CLI, man page, completions, libtlparse (static and shared), headers and tlparse.pc
# into $(DESTDIR)$(PREFIX).
install: all
	@ninja -C $(BUILD) tlparse tlparse_static tlparse_shared
	@DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

# tlparse, libtlparse0 and libtlparse-dev .debs in $(DEB_DIR), built by dpkg-buildpackage in
# a copy of the tree (scripts/make-deb.sh says how).
deb: deps
	@scripts/deps.sh deb
	@scripts/make-deb.sh "$(DEB_DIR)" "$(VERSION)"

# $(WHEEL_DIR)/tlparse_c-$(VERSION)-py3-none-linux_<arch>.whl: python/tlparse_c and a tlparse
# that needs only glibc (libmd, zlib and libzstd linked statically, in its own build dir).
wheel: deps
	@scripts/deps.sh wheel
	@[ -f $(WHEEL_BUILD)/build.ninja ] || cmake -S . -B $(WHEEL_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DTL_STATIC_DEPS=ON -DCMAKE_EXE_LINKER_FLAGS=-s $(CMAKE_FLAGS) >/dev/null
	@ninja -C $(WHEEL_BUILD) tlparse
	@python3 scripts/build_wheel.py --binary $(WHEEL_BUILD)/tlparse --out $(WHEEL_DIR)

# $(WEB_BUILD)/site/index.html: the page, its scripts and the engine (web/, compiled to
# wasm32-wasi by Debian's clang with wasi-libc and Debian's zlib and libzstd sources) in one
# file that opens from file:// or any static host.
web:
	@scripts/deps.sh web
	@scripts/web-source.sh zlib $(WEB_BUILD)/zlib-src
	@scripts/web-source.sh libzstd $(WEB_BUILD)/zstd-src
	@grep -qs '^TL_ZSTD_SRC:PATH=.' $(WEB_BUILD)/CMakeCache.txt || cmake -S web -B $(WEB_BUILD) -G Ninja -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/web/wasi-toolchain.cmake -DTL_ZLIB_SRC=$(CURDIR)/$(WEB_BUILD)/zlib-src -DTL_ZSTD_SRC=$(CURDIR)/$(WEB_BUILD)/zstd-src >/dev/null
	@ninja -C $(WEB_BUILD)
	@echo "web: $(WEB_BUILD)/site/index.html"

demo: all
	@if [ -n "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]; then nb=; else nb=--no-browser; fi; \
	$(BUILD)/tlparse tests/fixtures/demo.log -o $(OUT) --overwrite $$nb && \
	echo "demo: report written to $(OUT)/index.html"

bench: all
	@scripts/deps.sh bench
	@bench/run.sh

fuzz:
	@scripts/deps.sh fuzz
	@grep -qs 'CMAKE_C_FLAGS:STRING=.*fuzzer-no-link' build-fuzz/CMakeCache.txt || CC=clang cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTL_FUZZ=ON -DTL_TESTS=OFF -DCMAKE_C_FLAGS='-O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all'
	@ninja -C build-fuzz
	@fuzz/run.sh build-fuzz $${FUZZ_SECONDS:-60}

# ThreadSanitizer over the threaded paths (raw.log copy, md5 worker, ranks parsed side by
# side) on our fixtures.
tsan:
	@scripts/deps.sh fuzz
	@[ -f build-tsan/build.ninja ] || CC=clang cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTL_TESTS=OFF -DCMAKE_C_FLAGS='-O1 -g -fsanitize=thread' -DCMAKE_EXE_LINKER_FLAGS='-fsanitize=thread' >/dev/null
	@ninja -C build-tsan tlparse >/dev/null
	@tests/tsan.sh build-tsan/tlparse

# The version, from the file VERSION (tests/version.sh checks that all agree with it).
print-version:
	@echo $(VERSION)

format:
	@clang-format -i $(FORMAT_FILES)

format-check:
	@command -v clang-format >/dev/null || { echo "format-check: clang-format is missing (scripts/deps.sh check installs it)"; exit 1; }; \
	clang-format --dry-run --Werror $(FORMAT_FILES)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-clang build-fuzz build-tsan $(WHEEL_BUILD) $(WEB_BUILD)
