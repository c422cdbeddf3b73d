# SPDX-License-Identifier: Apache-2.0
# tapdp: the Open vSwitch kernel datapath as a userspace daemon.
#
#   make                 build/tapdpd, build/libtapdp.so, build/tapdp-run
#   make check           unit tests, integration tests, the same under
#                        ASan/UBSan, and the unprivileged scenario
#   make unit            cmocka unit tests only
#   make asan            the sanitizer build, in build-asan/
#   make fuzz            explores: runs each libFuzzer target FUZZ_SECONDS (15) s
#                        from its kept inputs (make check only replays them;
#                        a crash found here goes to tests/fuzz-seeds/<target>/)
#   make fuzz-campaign   each target FUZZ_CAMPAIGN_SECONDS (3600) s with
#                        FUZZ_JOBS (the cores) processes, what adds
#                        coverage merged into tests/fuzz-seeds/<target>/;
#                        prints runs, corpus, coverage and crashes per
#                        target (tests/fuzz/campaign.sh); FUZZ_CAMPAIGN=
#                        "fuzz-X ..." picks targets
#   make bench           builds and runs bench/*.c (bench-flow-load only
#                        built: bench/flow-load.sh runs it)
#   make install         PREFIX (/usr/local) and DESTDIR honoured

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
LIBDIR  ?= $(PREFIX)/lib/tapdp
MANDIR  ?= $(PREFIX)/share/man
BUILD   ?= build
VERSION := 0.1

CC      ?= cc
PKGS    := libmnl glib-2.0 liburcu-memb liburcu-cds libbpf
# CFLAGS, CPPFLAGS and LDFLAGS are the user's (make CFLAGS=-O0 works); what
# the code needs to build at all is in TAPDP_CFLAGS. CI builds with -Werror.
CFLAGS  ?= -O2 -g
TAPDP_CFLAGS := -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
	   -Wshadow -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes \
	   -Werror=implicit -I. -DTAPDP_VERSION='"$(VERSION)"'
ifneq ($(CI),)
TAPDP_CFLAGS += -Werror
endif
DAEMON_CFLAGS := $(TAPDP_CFLAGS) $(shell pkg-config --cflags $(PKGS))
LDLIBS  := $(shell pkg-config --libs $(PKGS)) -lpthread
ifdef SAN
DAEMON_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
ALL_CFLAGS = $(DAEMON_CFLAGS) $(CPPFLAGS) $(CFLAGS)

# Every .c of the daemon's modules is part of it, in the order of
# docs/ARCHITECTURE.md's map.
MODULES   := common packet genl-server tap flow ct actions datapath families
CORE_SRCS := $(wildcard $(MODULES:%=%/*.c))
CORE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/obj/%.o) $(BUILD)/gen/fastpath-obj.o

# The fast path's BPF programs (bpf/), compiled by clang for the BPF
# target and linked into the daemon as bytes that libbpf loads.
BPF_CLANG ?= clang
BPF_CFLAGS := -O2 -g -target bpf -Wall -Werror -I. \
	      -I/usr/include/$(shell $(CC) -print-multiarch)
%/bpf/fastpath.bpf.o: bpf/fastpath.bpf.c bpf/fastpath-abi.h \
		      bpf/fastpath-key.h
	@mkdir -p $(dir $@)
	$(BPF_CLANG) $(BPF_CFLAGS) -c -o $@ $<

%/gen/fastpath-obj.o: %/bpf/fastpath.bpf.o Makefile
	@mkdir -p $(dir $@)
	printf '%s\n' '.section .rodata' '.balign 8' \
	  '.globl fastpath_bpf_obj, fastpath_bpf_obj_size' \
	  'fastpath_bpf_obj:' '.incbin "$<"' '1:' '.balign 8' \
	  'fastpath_bpf_obj_size: .quad 1b - fastpath_bpf_obj' \
	  '.section .note.GNU-stack,"",@progbits' | $(CC) -c -x assembler -o $@ -
.PRECIOUS: %/bpf/fastpath.bpf.o

UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/%,$(wildcard tests/unit/test-*.c))
# What the unit tests share (frame and attribute builders, sockets, fake
# ports).
UNIT_LIB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,\
	$(filter-out tests/unit/test-%,$(wildcard tests/unit/*.c)))
.SECONDARY: $(UNIT_LIB_OBJS)

all: $(BUILD)/tapdpd $(BUILD)/libtapdp.so $(BUILD)/tapdp-run \
     $(BUILD)/tapdpctl

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The daemon's main and its sandbox, with the system call names for the
# sandbox's log lines, generated from the C library's list.
DAEMON_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard daemon/*.c)) \
	       $(BUILD)/gen/syscall-names.o

$(BUILD)/gen/syscall-names.c: scripts/gen-syscall-names.sh
	@mkdir -p $(dir $@)
	CC="$(CC)" sh $< >$@.tmp && mv $@.tmp $@

$(BUILD)/gen/syscall-names.o: $(BUILD)/gen/syscall-names.c \
			      daemon/syscall-names.h
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# tapdp_daemon_self in the dynamic symbol table tells a shim preloaded into
# the daemon whose process it is (daemon/tapdpd.c).
$(BUILD)/tapdpd: $(DAEMON_OBJS) $(CORE_OBJS)
	$(CC) $(LDFLAGS) -Wl,--export-dynamic-symbol=tapdp_daemon_self \
	      -o $@ $^ $(LDLIBS)

# The shim is loaded into every client: no sanitizer runtime, no libraries
# beyond libc, nothing exported but the wrapped calls.
SHIM_SRCS := compat/shim.c compat/route.c compat/dgram.c compat/real.c \
	     compat/autoload.c
$(BUILD)/libtapdp.so: $(SHIM_SRCS) compat/dgram.h compat/real.h compat/route.h \
		      compat/autoload.h \
		      include/tapdp/proto.h include/tapdp/kinds.h
	@mkdir -p $(BUILD)
	$(CC) $(TAPDP_CFLAGS) $(CPPFLAGS) $(CFLAGS) -fPIC -shared \
	      -fvisibility=hidden $(LDFLAGS:-fsanitize%=) -o $@ $(SHIM_SRCS) \
	      -ldl -lpthread

# The programs that preload the shim find it as tools/shim-path.h says.
RUN_SRCS := tools/tapdp-run.c tools/shim-path.c tools/module.c
CTL_SRCS := tools/tapdpctl.c tools/shim-path.c tools/genl-client.c \
	    tools/json.c tools/odp-key.c tools/odp-actions.c \
	    tools/ctl-status.c tools/ctl-trace.c tools/ctl-upcalls.c \
	    tools/ctl-drops.c tools/ctl-flows.c tools/ctl-capture.c \
	    tools/ctl-nlmon.c tools/ctl-follow.c tools/ctl-dp.c \
	    tools/pcapng.c
# Neither needs a sanitizer runtime: tapdp-run becomes the client it runs,
# tapdpctl runs under the shim.
$(BUILD)/tapdp-run: $(RUN_SRCS) tools/shim-path.h tools/module.h \
		   include/tapdp/proto.h
	@mkdir -p $(BUILD)
	$(CC) $(TAPDP_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS:-fsanitize%=) \
	      -DTAPDP_LIBDIR='"$(LIBDIR)"' -o $@ $(RUN_SRCS)

$(BUILD)/tapdpctl: $(CTL_SRCS) $(wildcard tools/*.h include/tapdp/*.h)
	@mkdir -p $(BUILD)
	$(CC) $(TAPDP_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS:-fsanitize%=) \
	      -DTAPDP_LIBDIR='"$(LIBDIR)"' -o $@ $(CTL_SRCS) -lmnl

$(BUILD)/test-%: tests/unit/test-%.c $(UNIT_LIB_OBJS) $(CORE_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

# Every allocation the core makes can be made to fail.
$(BUILD)/test-alloc-fail: LDFLAGS += -Wl,--wrap=malloc,--wrap=calloc \
	-Wl,--wrap=realloc,--wrap=strdup,--wrap=posix_memalign \
	-Wl,--wrap=aligned_alloc

# The keeper is the daemon's, not the core's; it sandboxes itself.
$(BUILD)/test-keep: $(BUILD)/obj/daemon/keeper.o \
	$(BUILD)/obj/daemon/subprocess.o $(BUILD)/obj/daemon/sandbox.o \
	$(BUILD)/gen/syscall-names.o
# The namespace agent, and how it tells who else holds a namespace: the
# daemon's.
$(BUILD)/test-ns-agent: $(BUILD)/obj/daemon/ns-agent.o \
	$(BUILD)/obj/daemon/netns-holders.o $(BUILD)/obj/daemon/subprocess.o \
	$(BUILD)/obj/daemon/sandbox.o $(BUILD)/gen/syscall-names.o
# tapdpctl's JSON, flow-key, action and pcapng writers.
$(BUILD)/test-json: $(BUILD)/obj/tools/json.o
$(BUILD)/test-odp-key: $(BUILD)/obj/tools/odp-key.o
$(BUILD)/test-odp-actions: $(BUILD)/obj/tools/odp-actions.o \
	$(BUILD)/obj/tools/odp-key.o
$(BUILD)/test-pcapng: $(BUILD)/obj/tools/pcapng.o
# The fuzz targets' mutator.
$(BUILD)/test-nl-mutator: $(BUILD)/obj/tests/fuzz/nl-mutator.o

$(BUILD)/shim-check: tests/integration/shim-check.c
	$(CC) $(TAPDP_CFLAGS) $(CPPFLAGS) $(CFLAGS) -o $@ $< -lpthread

$(BUILD)/hostile-client: tests/integration/hostile-client.c include/tapdp/proto.h
	$(CC) $(TAPDP_CFLAGS) $(CPPFLAGS) $(CFLAGS) -o $@ $<

# A client written with libnl-genl-3, as many C tools are: tests only, the
# daemon serves netlink and needs no client library. Run under the shim, so
# no sanitizer runtime. libnl's include directory comes first: its
# genl-server/msg.h and genl-server/attr.h share names with the tree's.
$(BUILD)/nl-client: tests/integration/nl-client.c
	@mkdir -p $(BUILD)
	$(CC) $(shell pkg-config --cflags libnl-genl-3.0) $(TAPDP_CFLAGS) \
	      $(CPPFLAGS) $(CFLAGS) $(LDFLAGS:-fsanitize%=) -o $@ $< \
	      $(shell pkg-config --libs libnl-genl-3.0)

# Benchmarks: each prints its figures and a ratio to a baseline it runs.
# bench-flow-load is a client of a running daemon: bench/flow-load.sh runs
# it.
BENCHES := $(patsubst bench/%.c,$(BUILD)/bench-%,\
	$(filter-out bench/flow-load.c,$(wildcard bench/*.c)))

$(BUILD)/bench-%: bench/%.c $(CORE_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Its frames come from the unit tests' builders (without cmocka).
$(BUILD)/bench-conntrack: $(BUILD)/obj/tests/unit/builders.o

# Run under the shim, as nl-client: no sanitizer runtime, libmnl only.
$(BUILD)/bench-flow-load: bench/flow-load.c bench/clock.h
	@mkdir -p $(BUILD)
	$(CC) $(TAPDP_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS:-fsanitize%=) \
	      -o $@ $< $(shell pkg-config --libs libmnl)

$(BUILD)/udpgen: bench/tools/udpgen.c bench/clock.h
	$(CC) $(TAPDP_CFLAGS) $(CPPFLAGS) $(CFLAGS) -o $@ $<

$(BUILD)/tcpcrr: bench/tools/tcpcrr.c bench/clock.h
	$(CC) $(TAPDP_CFLAGS) $(CPPFLAGS) $(CFLAGS) -o $@ $<

$(BUILD)/afpfwd: bench/tools/afpfwd.c
	$(CC) $(TAPDP_CFLAGS) $(CPPFLAGS) $(CFLAGS) -o $@ $< -lpthread

# The fault benchmarks' clients: run under the shim, so no sanitizer
# runtime.
$(BUILD)/dpclient: bench/tools/dpclient.c
	$(CC) $(TAPDP_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS:-fsanitize%=) \
	      -o $@ $< $(shell pkg-config --libs libmnl)

bench: $(BENCHES) $(BUILD)/udpgen $(BUILD)/tcpcrr $(BUILD)/afpfwd \
	$(BUILD)/bench-flow-load
	@for b in $(BENCHES); do echo "== $$b"; $$b || exit 1; done

unit: $(UNIT_TESTS)
	@fail=0; for t in $(UNIT_TESTS); do $$t || fail=1; done; exit $$fail

asan:
	$(MAKE) BUILD=build-asan SAN=1 all

# libFuzzer targets (clang), one per parser, with the netlink mutator
# those of netlink-shaped input use (tests/fuzz/nl-mutator.h). Their entry
# points are libFuzzer's to declare, not a header's.
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz-*.c)
FUZZ_LIB := tests/fuzz/nl-mutator.c
FUZZ_TARGETS := $(patsubst %.c,build-fuzz/%,$(notdir $(FUZZ_SRCS)))
FUZZ_SAN := address,undefined -fno-omit-frame-pointer \
	    -fno-sanitize-recover=undefined
FUZZ_SECONDS ?= 15
# Each source is compiled once, instrumented for libFuzzer, and every
# target links the objects it needs.
FUZZ_CORE_OBJS := $(patsubst %.c,build-fuzz/obj/%.o,$(CORE_SRCS) $(FUZZ_LIB)) \
		  build-fuzz/gen/fastpath-obj.o
.SECONDARY: $(FUZZ_CORE_OBJS)

build-fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(TAPDP_CFLAGS) -Wno-missing-prototypes -g -O1 \
		-fsanitize=fuzzer-no-link,$(FUZZ_SAN) \
		$(shell pkg-config --cflags $(PKGS)) -MMD -MP -c -o $@ $<

define fuzz_rule
build-fuzz/$(basename $(notdir $(1))): build-fuzz/obj/$(1:.c=.o) \
		$(FUZZ_CORE_OBJS)
	clang -fsanitize=fuzzer,$(FUZZ_SAN) -o $$@ $$(filter %.o,$$^) \
		$(LDLIBS)
endef
$(foreach f,$(FUZZ_SRCS),$(eval $(call fuzz_rule,$(f))))
# tapdpctl's flow-key writer is the client's, not the daemon's.
build-fuzz/fuzz-odp-key: build-fuzz/obj/tools/odp-key.o

fuzz: $(FUZZ_TARGETS)
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $$t.corpus; \
		seeds=tests/fuzz-seeds/$$(basename $$t); \
		[ -d $$seeds ] || seeds=; \
		$$t -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 \
			$$t.corpus $$seeds >$$t.log 2>&1 || \
			{ tail -40 $$t.log; exit 1; }; \
		tail -1 $$t.log; \
	done

FUZZ_CAMPAIGN ?= $(notdir $(FUZZ_TARGETS))
fuzz-campaign: $(FUZZ_CAMPAIGN:%=build-fuzz/%)
	tests/fuzz/campaign.sh $^

# The kernel's own OVS selftest, extracted at test time, never committed.
SELFTEST_DIR := build/selftest
$(SELFTEST_DIR)/ovs-dpctl.py:
	@mkdir -p $(SELFTEST_DIR)
	tar -xf /usr/src/linux-source-6.12.tar.xz -C $(SELFTEST_DIR) \
		--strip-components=6 \
		linux-source-6.12/tools/testing/selftests/net/openvswitch/
	touch $@

# Linux 7.2's selftest and the pyroute2 it was written for, from Debian
# sid: downloaded, never installed (scripts/fetch-upstream.sh).
LINUX_7_2 := linux-source-7.2=7.2.13-1
PYROUTE2_0_8 := python3-pyroute2=0.8.1-9
$(SELFTEST_DIR)-7.2/ovs-dpctl.py:
	@mkdir -p $(@D)
	deb=$$(sh scripts/fetch-upstream.sh $(LINUX_7_2)) && \
	dpkg-deb --fsys-tarfile "$$deb" | \
		tar -xO --wildcards './usr/src/linux-source-*.tar.xz' | \
		tar -xJ -C $(@D) --strip-components=6 --wildcards \
		'linux-source-*/tools/testing/selftests/net/openvswitch/'
	touch $@

build/pyroute2-0.8/pyroute2/__init__.py:
	rm -rf build/pyroute2-0.8 build/pyroute2-0.8.tmp
	deb=$$(sh scripts/fetch-upstream.sh $(PYROUTE2_0_8)) && \
	dpkg-deb -x "$$deb" build/pyroute2-0.8.tmp
	mv build/pyroute2-0.8.tmp/usr/lib/python3/dist-packages \
		build/pyroute2-0.8
	rm -rf build/pyroute2-0.8.tmp
	touch $@

selftest: $(SELFTEST_DIR)/ovs-dpctl.py $(SELFTEST_DIR)-7.2/ovs-dpctl.py \
	build/pyroute2-0.8/pyroute2/__init__.py

# OVS's own kernel suites (3.1, 3.5, 4.0) and all of Linux 7.2's
# selftests on tapdp: opt-in, about an hour and a half
# (scripts/check-upstream.sh).
check-upstream: all selftest $(BUILD)/shim-check $(BUILD)/hostile-client \
	$(BUILD)/nl-client $(BUILD)/udpgen $(BUILD)/tcpcrr
	bash scripts/check-upstream.sh all $(OVS_VERSIONS)

check: all $(UNIT_TESTS) $(BUILD)/shim-check $(BUILD)/hostile-client \
	$(BUILD)/nl-client $(BUILD)/udpgen $(BUILD)/tcpcrr $(FUZZ_TARGETS) \
	selftest
	$(MAKE) BUILD=build-asan SAN=1 all build-asan/shim-check \
		build-asan/hostile-client build-asan/nl-client \
		build-asan/udpgen \
		$(UNIT_TESTS:$(BUILD)/%=build-asan/%)
	tests/run-all.sh

install: all
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(LIBDIR) $(DESTDIR)$(MANDIR)/man8
	install -m 0755 $(BUILD)/tapdpd $(DESTDIR)$(SBINDIR)/tapdpd
	$(CC) $(TAPDP_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) \
	      -DTAPDP_LIBDIR='"$(LIBDIR)"' \
	      -o $(BUILD)/tapdp-run.install $(RUN_SRCS)
	$(CC) $(TAPDP_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS:-fsanitize%=) \
	      -DTAPDP_LIBDIR='"$(LIBDIR)"' \
	      -o $(BUILD)/tapdpctl.install $(CTL_SRCS) -lmnl
	install -m 0755 $(BUILD)/tapdp-run.install $(DESTDIR)$(BINDIR)/tapdp-run
	install -m 0755 $(BUILD)/tapdpctl.install $(DESTDIR)$(BINDIR)/tapdpctl
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0644 tools/tapdpctl.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/tapdpctl
	install -m 0644 $(BUILD)/libtapdp.so $(DESTDIR)$(LIBDIR)/libtapdp.so
	install -d $(DESTDIR)$(PREFIX)/share/tapdp
	install -m 0644 tools/wireshark-ovs.lua $(DESTDIR)$(PREFIX)/share/tapdp/
	install -m 0644 docs/tapdpd.8 docs/tapdp-run.8 docs/tapdpctl.8 \
		$(DESTDIR)$(MANDIR)/man8/

clean:
	rm -rf build build-asan build-fuzz

.PHONY: all unit asan fuzz fuzz-campaign bench selftest check check-upstream \
	install clean
-include $(CORE_OBJS:.o=.d) $(UNIT_LIB_OBJS:.o=.d) \
	$(filter $(BUILD)/obj/%,$(DAEMON_OBJS:.o=.d)) \
	$(FUZZ_CORE_OBJS:.o=.d) \
	$(patsubst %.c,build-fuzz/obj/%.d,$(FUZZ_SRCS) tools/odp-key.c)
