# make demo  - install dependencies, build, run the default scenario, say where the results are
# make test  - install dependencies, build with warnings as errors, run every test (not the long ones)
JOBS ?= $(shell nproc)
DEMO_OUT ?= demo-output

.PHONY: deps build test test-long demo bench format clean

deps:
	@bash scripts/install-deps.sh

build: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)

test: deps
	cmake --preset ci >/dev/null
	cmake --build --preset ci -j $(JOBS)
	ctest --preset ci -j $(JOBS)

test-long: deps
	cmake --preset ci >/dev/null
	cmake --build --preset ci -j $(JOBS)
	ctest --test-dir build/ci -L long --output-on-failure

demo: build
	./build/release/bin/etdem run examples/repose/spheres.toml -o $(DEMO_OUT)
	./build/release/bin/etdem analyze repose $(DEMO_OUT)
	@echo "results: $(DEMO_OUT)/ (energy.csv, state.csv, summary.json, repose.json; open $(DEMO_OUT)/particles.pvd in ParaView)"

bench: build
	bash bench/run_pour.sh

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf build $(DEMO_OUT)
