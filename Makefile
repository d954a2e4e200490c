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
#   make stress     the fuzzer, kill -9, soak and two-host runs at full length
#   make install    install the module, the shim, headers, man pages and
#                   the udev rule (DESTDIR, PREFIX); make uninstall
#   make install-dkms  the module's source and dkms.conf in /usr/src
#   make deb        the Debian packages, into build/deb
#   make htmldocs   Documentation/ as HTML, into build/htmldocs
#
# KDIR defaults to the headers of the running kernel when they are
# installed, else to Debian's linux-headers-amd64.

running_kdir := /lib/modules/$(shell uname -r)/build
debian_kver := $(shell dpkg-query -W -f='$${Depends}' linux-headers-amd64 \
		 2>/dev/null | sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
KDIR ?= $(strip $(if $(wildcard $(running_kdir)),$(running_kdir),\
	     /usr/src/linux-headers-$(debian_kver)))

# Where the debug kernels of the test bench are; see
# tests/vm/debug-kernel.sh.
DEBUG_KDIR = $(shell tests/vm/debug-kernel.sh debug)/build
KCSAN_KDIR = $(shell tests/vm/debug-kernel.sh kcsan)/build

.PHONY: all modules shim kdaplctl user clean setup check demo bench debug-modules \
	kcsan-modules kcsan \
	vm-test vm-shell kunit print-kdir print-kver stress conformance \
	install uninstall install-module uninstall-module install-shim \
	uninstall-shim install-tools uninstall-tools install-headers \
	uninstall-headers install-man \
	uninstall-man install-data uninstall-data install-dkms uninstall-dkms \
	deb htmldocs samples

all: modules shim kdaplctl user

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

shim:
	$(MAKE) -C udapl-shim

kdaplctl:
	$(MAKE) -C kdaplctl

user:
	$(MAKE) -C tests/user/dat-constants
	$(MAKE) -C tests/user/kdapl-dev
	$(MAKE) -C tests/user/shim
	$(MAKE) -C tests/user/udat-bench
	$(MAKE) -C tests/fuzz
	$(MAKE) -C tests/user/asuser
	$(MAKE) -C tests/user/tcphold

# The README's first steps: a kDAT consumer built out of tree against
# this tree's Module.symvers, and a uDAPL program.
samples: modules
	$(MAKE) -C samples/kdat_hello KDIR=$(KDIR) KDAPL=$(CURDIR)
	test -f samples/kdat_hello/kdat_hello.ko
	$(MAKE) -C samples/udat_hello

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

# OFA's tools, the whole matrix, over kdapl and OFA's provider (about
# an hour).  See Documentation/conformance.rst.
conformance:
	bash tests/conformance.sh

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

print-kver:
	@echo $(KVER)

# Installation.  PREFIX and DESTDIR work as usual; udev and dkms read
# only their own directories, so the udev rule and the DKMS source go to
# UDEVRULESDIR and DKMSSRCDIR whatever PREFIX is.  Without DESTDIR, depmod
# and ldconfig run on the live system.
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
PREFIX ?= /usr
MULTIARCH = $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || \
		    $(CC) -print-multiarch)
LIBDIR ?= $(PREFIX)/lib/$(MULTIARCH)
INCLUDEDIR ?= $(PREFIX)/include
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/kdapl
UDEVRULESDIR ?= /lib/udev/rules.d
DKMSSRCDIR ?= /usr/src/kdapl-$(VERSION)

# The release of the kernel KDIR builds for.  Debian's headers carry the
# upstream version in include/config/kernel.release, so take the one the
# module's vermagic gets.
KVER = $(shell sed -n 's/^.define UTS_RELEASE "\(.*\)"/\1/p' \
	       $(KDIR)/include/generated/utsrelease.h)
MODDIR = $(DESTDIR)/lib/modules/$(KVER)/updates

SHIM_SONAME := libdaplkdapl.so.2
SHIM_REAL := $(SHIM_SONAME).0.0
HEADERS := include/uapi/rdma/kdapl_ioctl.h include/rdma/kdat.h \
	   include/rdma/kdat_types.h include/rdma/kdat_ib_extensions.h \
	   include/rdma/kdat_counter_names.h
MANPAGES := $(wildcard man/*.[1-9])
# What DKMS needs to build the module: no tests, no build products.
DKMS_FILES := dkms.conf Kbuild kdapl/Makefile kdapl/Kconfig \
	      $(filter-out %.mod.c,$(wildcard kdapl/*.[ch])) $(HEADERS)

install: install-module install-shim install-tools install-headers \
	 install-man install-data

uninstall: uninstall-module uninstall-shim uninstall-tools \
	   uninstall-headers uninstall-man uninstall-data

# kbuild's modules_install, into updates/ so that the module wins over
# one of the same name in the kernel's own tree.  Kbuild signs it only if
# KDIR has the signing key (Debian's headers do not); its depmod would
# work on DESTDIR, so it is left out and run here on the live system.
install-module: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=updates KERNELRELEASE=$(KVER) DEPMOD=true \
		$(if $(wildcard $(KDIR)/certs/signing_key.pem),,CONFIG_MODULE_SIG_ALL=) \
		modules_install
	$(if $(DESTDIR),,depmod -a $(KVER))

uninstall-module:
	rm -f $(MODDIR)/kdapl/kdapl.ko
	-rmdir $(MODDIR)/kdapl $(MODDIR) 2>/dev/null
	$(if $(DESTDIR),,depmod -a $(KVER))

# The real file gets the full version, the soname and the development
# link point to it as for any Debian library.
install-shim: shim
	install -d $(DESTDIR)$(LIBDIR)
	install -m 644 build/udapl-shim/$(SHIM_SONAME) \
		$(DESTDIR)$(LIBDIR)/$(SHIM_REAL)
	ln -sf $(SHIM_REAL) $(DESTDIR)$(LIBDIR)/$(SHIM_SONAME)
	ln -sf $(SHIM_SONAME) $(DESTDIR)$(LIBDIR)/libdaplkdapl.so
	$(if $(DESTDIR),,ldconfig)

uninstall-shim:
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,$(SHIM_REAL) $(SHIM_SONAME) \
		libdaplkdapl.so)
	$(if $(DESTDIR),,ldconfig)

install-tools: kdaplctl
	install -D -m 755 build/kdaplctl/kdaplctl $(DESTDIR)$(SBINDIR)/kdaplctl

uninstall-tools:
	rm -f $(DESTDIR)$(SBINDIR)/kdaplctl

install-headers:
	install -d $(DESTDIR)$(INCLUDEDIR)/rdma
	install -m 644 $(HEADERS) $(DESTDIR)$(INCLUDEDIR)/rdma/

uninstall-headers:
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/rdma/,$(notdir $(HEADERS)))

install-man:
	$(foreach m,$(MANPAGES),install -D -m 644 $(m) \
		$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)) &&) true

uninstall-man:
	rm -f $(foreach m,$(MANPAGES),\
		$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)))

# The udev rule, and the modules-load.d snippet as an example only: the
# administrator decides whether kdapl loads at boot.
install-data:
	install -D -m 644 dist/60-kdapl.rules \
		$(DESTDIR)$(UDEVRULESDIR)/60-kdapl.rules
	install -D -m 644 dist/kdapl-modules-load.conf \
		$(DESTDIR)$(DOCDIR)/examples/modules-load.d/kdapl.conf

uninstall-data:
	rm -f $(DESTDIR)$(UDEVRULESDIR)/60-kdapl.rules \
		$(DESTDIR)$(DOCDIR)/examples/modules-load.d/kdapl.conf
	-rmdir $(DESTDIR)$(DOCDIR)/examples/modules-load.d \
		$(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) 2>/dev/null

# The module's source where DKMS looks for it; then
# dkms install kdapl/$(VERSION) -k <kernel version>.
install-dkms:
	$(foreach f,$(DKMS_FILES),install -D -m 644 $(f) \
		$(DESTDIR)$(DKMSSRCDIR)/$(f) &&) true

uninstall-dkms:
	rm -rf $(DESTDIR)$(DKMSSRCDIR)

# Documentation/ as HTML with Debian's python3-sphinx; warnings are
# errors.
htmldocs:
	sphinx-build -W -q -b html Documentation build/htmldocs

# The Debian packages (debian/), built from a copy of the tree's sources
# (tracked files and new ones git does not ignore) so that neither the
# packaging's leftovers nor the results land in the tree or beside it:
# the .debs, .buildinfo and .changes end up in build/deb.
deb:
	rm -rf build/deb && mkdir -p build/deb/src
	git ls-files -z --cached --others --exclude-standard | \
		tar -c --null -T - --ignore-failed-read -f - | \
		tar -x -C build/deb/src
	cd build/deb/src && dpkg-buildpackage -us -uc -b
	rm -rf build/deb/src

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tests/user/dat-constants clean || true
	$(MAKE) -C tests/user/kdapl-dev clean || true
	$(MAKE) -C tests/user/shim clean || true
	$(MAKE) -C udapl-shim clean || true
	rm -rf build
