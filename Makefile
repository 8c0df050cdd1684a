# make demo  - install dependencies, build, run the default scenario, say where the results are
# make test  - install dependencies, build with warnings as errors, run every test (not the long ones),
#              then build the fuzz targets (clang, build/fuzz) and run each for a few seconds
# make fuzz  - build the fuzz targets and run each for FUZZ_SECONDS (crashes: build/fuzz/artifacts/)
# make test-long - the long validations and the ParaView pictures (installs paraview and xvfb)
# make install - build and install into PREFIX (default /usr/local; docs/install.md)
# make package - build the Debian package etdem_<version>_amd64.deb (CPack; then apt install ./etdem_*.deb)
JOBS ?= $(shell nproc)
PREFIX ?= /usr/local
DEMO_OUT ?= demo-output
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = scenario set_override stl obj msh vtk

.PHONY: deps build build-cli test test-long fuzz fuzz-build demo bench install package check-prefix format clean

deps:
	@bash scripts/install-deps.sh

build: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)

# The command line alone (the library and etdem_cli): what the demo needs, no tests or benchmarks.
build-cli: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS) --target etdem_cli

test: deps
	cmake --preset ci >/dev/null
	cmake --build --preset ci -j $(JOBS)
	ctest --preset ci -j $(JOBS)
	$(MAKE) --no-print-directory fuzz-build
	ctest --preset fuzz -j $(JOBS)

fuzz-build: deps
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz -j $(JOBS) --target fuzz_targets

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	  echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
	  (cd build/fuzz && ./bin/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix=artifacts/$$t- corpus/$$t seeds/$$t) || exit 1; \
	done

test-long:
	@bash scripts/install-deps.sh --with-paraview --with-packaging
	cmake --preset ci >/dev/null
	cmake --build --preset ci -j $(JOBS)
	ctest --test-dir build/ci -L long --output-on-failure

demo: build-cli
	./build/release/bin/etdem run examples/repose/spheres.toml -o $(DEMO_OUT)
	./build/release/bin/etdem analyze repose $(DEMO_OUT)
	@echo "results: $(DEMO_OUT)/ (energy.csv, state.csv, summary.json, repose.json, particles.pvd; ParaView: ./build/release/bin/etdem view $(DEMO_OUT))"

bench: build
	bash bench/run_pour.sh

# The prefix is checked before anything is built: one line naming it when it cannot be written
# (make's own "*** ... Stop." around it).
check-prefix:
	$(if $(PREFIX_PROBLEM),$(error make install: $(PREFIX_PROBLEM)))

PREFIX_PROBLEM = $(shell bash scripts/check-prefix.sh "$(PREFIX)")

install: check-prefix
	@$(MAKE) --no-print-directory build
	cmake --install build/release --prefix "$(PREFIX)"

package:
	@bash scripts/install-deps.sh --with-packaging
	@$(MAKE) --no-print-directory build
	cd build/release && cpack -G DEB
	cp build/release/etdem_*_amd64.deb .
	@ls -l etdem_*_amd64.deb

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf build $(DEMO_OUT) etdem_*_amd64.deb
