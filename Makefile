# Top-level Makefile: only delegates (see README.md).
#   make        set up, build everything, run the main demo in a VM
#   make test   every test: unit, library, VM, QEMU's nvme qtests
#   make check  the fast subset: no root, no QEMU, no VM
#   make check-layers  libreis' layers: no upward call, no cycle
BUILD ?= $(CURDIR)/build
ISP_CACHE ?= /var/cache/isp-ssd
# WERROR=1 turns every C warning into an error (.ci/run sets it).
WERROR ?=
export BUILD ISP_CACHE WERROR
# Compile jobs for the C parts (the folders' Makefiles declare every
# dependency); JOBS=1 for a serial build.
JOBS ?= $(shell nproc 2>/dev/null || echo 1)

.PHONY: all deps tools hwmodel hostlib examples qemu guest demo check test \
	vmtest qtest corpus corpus-full bench bench-search sanitize clean check-layers

all: demo

# The set-up step (apt, root) belongs to the targets that need QEMU, the
# guest or the corpus; the C parts only need a compiler (scripts/check-tools.sh).
deps:
	@scripts/setup-deps.sh

tools:
	@scripts/check-tools.sh

hwmodel: tools
	$(MAKE) -j$(JOBS) -C hw-model

hostlib: hwmodel
	$(MAKE) -j$(JOBS) -C host-lib

examples: hostlib
	$(MAKE) -j$(JOBS) -C examples

qemu: deps hwmodel
	scripts/qemu-build.sh

guest: deps hostlib examples
	$(MAKE) -j$(JOBS) -C tests guest-bins
	scripts/guest-image.sh

demo: qemu guest corpus
	scripts/demo.sh

check: hostlib examples
	$(MAKE) --no-print-directory -C host-lib check-layers
	$(MAKE) -j$(JOBS) -C tests all
	$(MAKE) -C tests check

# scripts/check-layers.sh over libreis' objects (docs/libreis.md, Layers).
check-layers: hostlib
	$(MAKE) --no-print-directory -C host-lib check-layers

# Real data (docs/corpus.md): WordNet glosses embedded with USE-lite, cached
# under $(ISP_CACHE)/corpus. The subset feeds tests and the demo.
corpus: deps
	scripts/corpus.sh

corpus-full: deps
	scripts/corpus.sh --full

vmtest: qemu guest
	$(MAKE) -C tests vmtest

qtest: qemu
	$(MAKE) -C tests qtest

# Runs every suite even when one fails; the summary decides the exit code.
test: deps corpus
	@rm -f $(BUILD)/results/*.counts
	-@$(MAKE) --no-print-directory check
	-@$(MAKE) --no-print-directory vmtest
	-@$(MAKE) --no-print-directory qtest
	@tests/summary.sh $(BUILD)/results

bench: hostlib examples corpus
	$(MAKE) -C examples bench

# Emulator vs a plain scan vs FAISS, one run (docs/benchmarks.md).
bench-search: hostlib corpus
	$(MAKE) -C examples bench-search

# make check's suites built with ASan + UBSan (in $(BUILD)/asan; slower).
sanitize: hwmodel
	$(MAKE) -C host-lib sanitize

clean:
	rm -rf $(BUILD)
