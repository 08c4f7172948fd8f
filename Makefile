# Top-level Makefile: only delegates (see README.md).
#   make        set up, build everything, run the main demo in a VM
#               (QEMU 10.0 + Linux 6.12)
#   make test   every test: unit, library, and VM + QEMU's qtests on both
#               stacks (QEMU 10.0 + Linux 6.12, QEMU 7.2 + Linux 6.1)
#   STACK=10.0|7.2  one stack only, for qemu, guest, demo, vmtest, qtest, test
#   make check  the fast subset: no root, no QEMU, no VM
#   make check-layers  libreis' layers: no upward call, no cycle
#   make shell  a shell in the Debian guest, the drive and this directory
#               in it; make run CMD='...' runs a command there
BUILD ?= $(CURDIR)/build
ISP_CACHE ?= /var/cache/isp-ssd
# WERROR=1 turns every C warning into an error (.ci/run sets it).
WERROR ?=
export BUILD ISP_CACHE WERROR
# Compile jobs for the C parts (the folders' Makefiles declare every
# dependency); JOBS=1 for a serial build.
JOBS ?= $(shell nproc 2>/dev/null || echo 1)

# A stack: a QEMU version (qemu-patches/<version>/) and the guest kernel
# flavour it is tested with (scripts/vm-lib.sh pairs them the same way).
STACK_KERNELS := 10.0:bookworm-backports 7.2:bookworm
STACKS := $(foreach p,$(STACK_KERNELS),$(firstword $(subst :, ,$(p))))
ifneq ($(STACK),)
ifeq ($(filter $(STACK),$(STACKS)),)
$(error STACK=$(STACK): use one of $(STACKS))
endif
TEST_STACKS := $(STACK)
DEMO_STACK := $(STACK)
else
TEST_STACKS := $(STACKS)
DEMO_STACK := 10.0
endif
# A shell loop over the chosen stacks with $$s (version) and $$k (kernel
# flavour) set: every stack runs, the recipe fails if one did.
for_stacks = rc=0; for sk in $(filter $(addsuffix :%,$(TEST_STACKS)),$(STACK_KERNELS)); do \
	s=$${sk%%:*}; k=$${sk\#*:};
end_stacks = || rc=1; done; exit $$rc

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

# The Python module (python/README.md) against Debian's python3.
.PHONY: python
python: hostlib
	$(MAKE) -C python

qemu: deps hwmodel
	@$(for_stacks) QEMU_VERSION=$$s scripts/qemu-build.sh $(end_stacks)

guest: deps hostlib examples
	$(MAKE) -j$(JOBS) -C tests guest-bins
	@$(for_stacks) GUEST_KERNEL=$$k scripts/guest-image.sh $(end_stacks)
ifeq ($(GUEST),debian)
	@$(MAKE) --no-print-directory guest-debian
endif

# The Debian guest (docs/debian-guest.md): its base root built once with
# mmdebstrap and cached, the project's layer, a boot image per kernel.
# GUEST_PACKAGES="pkg ..." adds Debian packages to the base.
.PHONY: guest-debian shell run
guest-debian: deps hostlib examples python
	@scripts/guest-debian.sh

# make shell: a login shell in the Debian guest with the drive and the
# current directory (SHARE=DIR for another) at /mnt/host; make run CMD='...'
# runs CMD there without a terminal, its output on stdout, and fails when
# it fails (scripts/vm-run.sh returns its exact exit status). The stack is
# the demo's (STACK=7.2 for the other); GUEST=initramfs boots the test
# programs' guest instead.
SHARE ?= $(or $(PWD),$(CURDIR))
RUN_GUEST := $(if $(filter initramfs,$(GUEST)),initramfs,debian)
shell run:
	@$(MAKE) --no-print-directory -s qemu STACK=$(DEMO_STACK) >&2
	@$(MAKE) --no-print-directory -s $(if $(filter debian,$(RUN_GUEST)),guest-debian,guest) \
		STACK=$(DEMO_STACK) >&2
	@cd "$(SHARE)" && STACK=$(DEMO_STACK) GUEST=$(RUN_GUEST) ISP_SHARE="$(SHARE)" \
		$(CURDIR)/scripts/vm-run.sh $(if $(filter shell,$@),--shell,-- "$$CMD")

# The demo needs one stack only: the newer unless STACK says otherwise.
# Q="question|question" (a command-line variable, so in the recipe's
# environment) asks the user's questions (scripts/demo.sh): taken as
# written ($ included, never expanded by make), kept from sub-makes.
ifneq ($(origin Q),undefined)
override Q := $(value Q)
export Q
MAKEOVERRIDES := $(filter-out Q=%,$(MAKEOVERRIDES))
endif
demo: corpus
	@scripts/demo-questions.sh $(BUILD)/demo/questions.txt; [ $$? != 1 ]
ifeq ($(ISP_DEMO),python)
	@$(MAKE) --no-print-directory qemu guest-debian STACK=$(DEMO_STACK)
	STACK=$(DEMO_STACK) scripts/demo-python.sh
else
	@$(MAKE) --no-print-directory qemu guest STACK=$(DEMO_STACK)
	STACK=$(DEMO_STACK) scripts/demo.sh
endif

# The user's questions alone, checked (what `make demo Q=...` passes on).
.PHONY: demo-questions
demo-questions:
	@scripts/demo-questions.sh $(BUILD)/demo/questions.txt; rc=$$?; [ $$rc != 1 ] && \
		{ [ $$rc = 3 ] && echo "no Q: the built-in questions" || cat $(BUILD)/demo/questions.txt; }

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

# The Debian guest is built here too (a cold base takes minutes, cached
# after); when it cannot be built its test is one SKIP naming the reason.
vmtest: qemu guest
	@mkdir -p $(BUILD)/results
	@$(MAKE) --no-print-directory guest-debian >$(BUILD)/results/guest-debian.log 2>&1 || \
		{ tail -n 5 $(BUILD)/results/guest-debian.log; \
		  echo "vmtest: the Debian guest could not be built: its test skips"; }
	@$(for_stacks) echo "== vmtest: stack $$s (QEMU $$s, kernel $$k)" && \
		$(MAKE) --no-print-directory -C tests vmtest STACK=$$s $(end_stacks)

qtest: qemu
	@$(for_stacks) echo "== qtest: stack $$s (QEMU $$s)" && \
		$(MAKE) --no-print-directory -C tests qtest STACK=$$s $(end_stacks)

# --- fabric (docs/fabric.md): the RAG demo sharded over NVMe/TCP ---------
# Needs stack 10.0 (Linux 6.12 has nvmet passthru).
.PHONY: demo-fabric
demo-fabric: corpus
	@$(MAKE) --no-print-directory qemu guest STACK=10.0
	STACK=10.0 scripts/fabric-demo.sh

# Runs every suite even when one fails; the summary decides the exit code.
test: deps corpus
	@rm -f $(BUILD)/results/*.counts $(BUILD)/results/*/*.counts
	-@$(MAKE) --no-print-directory check
	-@$(MAKE) --no-print-directory vmtest
	-@$(MAKE) --no-print-directory qtest
	-@$(MAKE) --no-print-directory doctest
	@tests/summary.sh $(BUILD)/results $(TEST_STACKS)

# The commands of README.md and docs/*.md, as written (README.md, "Commands
# in these documents are tested"): the host ones, then those that need
# root or a VM; the guest ones run in the VM suite (test_vm_doc_cmds).
.PHONY: doctest doc-test-long
doctest: hostlib examples
	-@tests/doc-commands.sh run host $(BUILD)/results
	-@tests/doc-commands.sh run vm $(BUILD)/results

# The minutes-long ones (benchmarks, make fidelity, sanitizers).
doc-test-long: hostlib examples
	@tests/doc-commands.sh run long $(BUILD)/results

# libreis, its headers, the reis tool and the man pages (host-lib/Makefile:
# PREFIX=/usr/local, DESTDIR=).
.PHONY: install
install: hostlib
	$(MAKE) -C host-lib install

bench: hostlib examples corpus
	$(MAKE) -C examples bench

# Emulator vs a plain scan vs FAISS, one run (docs/benchmarks.md).
bench-search: hostlib corpus
	$(MAKE) -C examples bench-search

# The model against the papers: docs/fidelity.md, .csv and plots (a
# benchmark, 1966 s of CPU, about 17 minutes on 2 quiet cores; gnuplot from scripts/setup-deps.sh).
.PHONY: fidelity
fidelity: hostlib
	$(MAKE) -C examples fidelity

# Device groups (docs/group.md): the RAG demo's WordNet database sharded over
# four in-process drives, its questions, the scheduled run and Table I.
.PHONY: demo-group
demo-group: hostlib examples corpus
	@scripts/rag-bundle.sh $(BUILD)/demo/group-ns.img >/dev/null
	@{ $(BUILD)/examples/group_demo $$(ls -t $(BUILD)/demo/rag-*.img | head -n 1) --drives 4; \
		echo $$? >$(BUILD)/demo/group.rc; } | tee $(BUILD)/demo/group.log; \
		[ "$$(cat $(BUILD)/demo/group.rc)" = 0 ] && \
		scripts/demo-plot.sh group $(BUILD)/demo/group.log $(BUILD)/demo/group.svg

# make check's suites built with ASan + UBSan (in $(BUILD)/asan; slower).
# The plain library and reis too: the doc-commands runner's test puts
# build/host-lib on a block's PATH, and a fresh clone has none.
sanitize: hostlib
	$(MAKE) -C host-lib sanitize

clean:
	rm -rf $(BUILD)

# ---- fuzzing (tests/fuzz/README.md): libFuzzer with ASan + UBSan ----
# make fuzz FUZZ_TIME=secs runs each harness that long, keeping its corpus
# in $(BUILD)/fuzz; make check runs each for a short fixed count instead.
# Then the QEMU glue through QEMU's generic-fuzz (scripts/qemu-fuzz.sh: a
# clang --enable-fuzzing build of the patched QEMU 10.0, cached; its first
# build takes a long while) for QEMU_FUZZ_TIME secs.
FUZZ_TIME ?= 60
QEMU_FUZZ_TIME ?= $(FUZZ_TIME)
.PHONY: fuzz fuzz-coverage qemu-fuzz
fuzz: tools
	$(MAKE) -j$(JOBS) -C tests/fuzz all
	$(MAKE) --no-print-directory -C tests/fuzz run FUZZ_TIME=$(FUZZ_TIME)
	BUILD=$(BUILD) QEMU_FUZZ_TIME=$(QEMU_FUZZ_TIME) scripts/qemu-fuzz.sh run

qemu-fuzz:
	BUILD=$(BUILD) scripts/qemu-fuzz.sh build

fuzz-coverage: tools
	$(MAKE) -j$(JOBS) -C tests/fuzz $(BUILD)/fuzz/fuzz_isp_cov
	$(MAKE) --no-print-directory -C tests/fuzz coverage
