# SPDX-License-Identifier: GPL-2.0
#
# kdapl top-level Makefile.
#
#   make            build kdapl.ko against KDIR, udapl-shim and the user-space
#                   test programs
#   make demo       set up, build, boot a VM and show the Interface Adapters
#   make check      set up, build, static checks, KUnit and VM tests
#   make bench      kdapl against raw verbs in the VM: prints a table
#   make kcsan      the KUnit suites and connection tests under KCSAN
#   make stress     the /dev/kdapl fuzzer and kill -9 runs at full length
#
# KDIR defaults to the headers of the running kernel when they are
# installed, else to Debian's linux-headers-amd64.

running_kdir := /lib/modules/$(shell uname -r)/build
debian_kver := $(shell dpkg-query -W -f='$${Depends}' linux-headers-amd64 \
		 2>/dev/null | sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
KDIR ?= $(if $(wildcard $(running_kdir)),$(running_kdir),\
	     /usr/src/linux-headers-$(debian_kver))

# Where the debug kernels of the test bench are; see
# tests/vm/debug-kernel.sh.
DEBUG_KDIR = $(shell tests/vm/debug-kernel.sh debug)/build
KCSAN_KDIR = $(shell tests/vm/debug-kernel.sh kcsan)/build

.PHONY: all modules shim user clean setup check demo bench debug-modules \
	kcsan-modules kcsan \
	vm-test vm-shell kunit print-kdir stress

all: modules shim user

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

shim:
	$(MAKE) -C udapl-shim

user:
	$(MAKE) -C tests/user/dat-constants
	$(MAKE) -C tests/user/kdapl-dev
	$(MAKE) -C tests/user/shim
	$(MAKE) -C tests/user/udat-bench
	$(MAKE) -C tests/fuzz

# Kbuild cannot put objects of an external module elsewhere than its
# source, so the builds against the debug kernels work on a copy.
define copy_build
	rm -rf build/$(1) && mkdir -p build/$(1)/tests
	cp -r Kbuild kdapl include build/$(1)/
	cp -r tests/kunit tests/kmod tests/bench build/$(1)/tests/
	find build/$(1) -name '*.o' -o -name '*.ko' -o -name '.*.cmd' | \
		xargs rm -f
	$(MAKE) -C $(2) M=$(CURDIR)/build/$(1) KDAPL_TESTS=1 modules
endef

debug-modules:
	$(call copy_build,debug,$(DEBUG_KDIR))

kcsan-modules:
	$(call copy_build,kcsan,$(KCSAN_KDIR))

# The KUnit suites and the connection tests under KCSAN (its own kernel,
# about 10 minutes to build once); not part of make check.  See
# Documentation/testing.rst.
kcsan:
	bash tests/kcsan.sh

# The full-length fuzzer and kill -9 runs in the debug VM (hours); make
# check runs short ones.  See Documentation/reliability.rst.
stress:
	bash tests/stress.sh

setup:
	bash tests/setup.sh

check:
	bash tests/check.sh

demo:
	bash tests/demo.sh

# See Documentation/benchmark.rst.  By default the repeatable figures
# (--icount); BENCH_ARGS= gives real time under TCG (15 noisy rounds).
BENCH_ARGS ?= --icount --reps 3
bench:
	bash tests/bench/run.sh $(BENCH_ARGS)

# make vm-test T="ias_hotplug" [KERNEL=debug]
KERNEL ?= distro
vm-test:
	bash tests/run-vm.sh $(KERNEL) $(T)

# make vm-shell [KERNEL=debug]
vm-shell:
	bash tests/run-vm.sh --shell $(KERNEL)

kunit:
	bash tests/kunit/run.sh

print-kdir:
	@echo $(KDIR)

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tests/user/dat-constants clean || true
	$(MAKE) -C tests/user/kdapl-dev clean || true
	$(MAKE) -C tests/user/shim clean || true
	$(MAKE) -C udapl-shim clean || true
	rm -rf build
