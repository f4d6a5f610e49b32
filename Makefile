# zc: zcs, zcc, cyclesoak and run_rr, sharing lib/.

CC ?= cc
CFLAGS ?= -O2 -g -Wall -Wextra
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man/man1
INSTALL ?= install

# Always needed, whatever CFLAGS the user gives.
# -iquote .: lib/, tx/ and rx/'s headers, named from the top ("lib/json.h") in client/ and server/ too.
ZC_CFLAGS = -std=gnu11 -D_GNU_SOURCE -iquote .
ifeq ($(SANITIZE),1)
ZC_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer
ZC_LDFLAGS += -fsanitize=address,undefined
endif

BUILD = build
# Build on every CPU unless told how (make -jN), and never beside a clean.
ifeq ($(MAKELEVEL)$(filter -j%,$(MAKEFLAGS))$(filter clean,$(MAKECMDGOALS)),0)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif
PROGS = zcs zcc cyclesoak run_rr
# Each program's file at the top, its options and main; below zcc.c,
# client/ (-P's streams, a stream's run, its report and its turns), below
# zcs.c, server/ (its two servers, the turns it follows or takes, its
# intervals and the host's meter it shares).
ZCC_OBJS = $(BUILD)/zcc.o $(addprefix $(BUILD)/client/,parallel.o run.o summary.o txturns.o)
ZCS_OBJS = $(BUILD)/zcs.o $(addprefix $(BUILD)/server/,tcpserve.o followslots.o rxturns.o udpserve.o interval.o hostmeter.o)
LIB_MODULES = opt options proto dgram timing cpu net counts hostlock procstat soak sampling meter uring json link paired system stopsig units tcpinfo netstat turns turnsout turnswire schedule sysctl window limit
LIB_OBJS = $(LIB_MODULES:%=$(BUILD)/lib/%.o)
# zcc's transmit modes: the table above the families (a file each; udp: -u's), and below
# them the stream's framing and the sender they share.
TX_MODULES = table copy splice zerocopy uring udp stream sender memory
TX_OBJS = $(TX_MODULES:%=$(BUILD)/tx/%.o)
# zcs's receive modes: the table above the families (a file each; udp: -u's), and below
# them the receiver they share.
RX_MODULES = table copy splice zerocopy udp receiver
RX_OBJS = $(RX_MODULES:%=$(BUILD)/rx/%.o)
UNIT_TESTS = $(LIB_MODULES:%=$(BUILD)/tests/test_%) $(BUILD)/tests/test_tx $(BUILD)/tests/test_rx
TEST_HELPERS = $(BUILD)/tests/capture $(BUILD)/tests/loadgen $(BUILD)/tests/pagesend $(BUILD)/tests/udppeer \
	$(BUILD)/tests/samplecost \
	$(BUILD)/tests/dgramsend

ALL_CFLAGS = $(ZC_CFLAGS) $(CFLAGS) -MMD -MP
# libm: zcc's floor(), which gcc builds in and clang calls.
ALL_LDFLAGS = $(ZC_LDFLAGS) $(LDFLAGS) -lm

# Coverage-guided fuzzing of the stream, datagram and turns' wire decoders and the option parser, with
# clang's libFuzzer: `make fuzz FUZZ_SECS=N` runs each target N seconds over a
# corpus kept in $(BUILD)/fuzz, seeded from tests/fuzz-corpus.
FUZZ_CC ?= clang
FUZZ_SECS ?= 60
FUZZ_TARGETS = proto opt counts dgram turnswire
FUZZ_FLAGS = -std=gnu11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined

.PHONY: layers all check check-quick bench fuzz install uninstall clean FORCE
.SECONDARY:

all: $(PROGS)

# Rebuild everything when the compiler or its flags change (e.g. SANITIZE=1).
$(BUILD)/flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' | cmp -s - $@ || \
		echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' > $@

# zc's version as git describes it, for -J's "system": kept in $(BUILD)/version,
# rewritten only when it changes, so that lib/system.o alone is rebuilt.
ZC_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
$(BUILD)/version: FORCE
	@mkdir -p $(BUILD)
	@echo '$(ZC_VERSION)' | cmp -s - $@ || echo '$(ZC_VERSION)' > $@
$(BUILD)/lib/system.o: $(BUILD)/version
$(BUILD)/lib/system.o: ZC_CFLAGS += -DZC_VERSION='"$(ZC_VERSION)"'

$(BUILD)/%.o: %.c $(BUILD)/flags
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# Each archive made afresh: one updated in place keeps the objects of files
# since renamed (tx/tx.c), and their symbols clash with the new ones.
$(BUILD)/libzc.a: $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/libtx.a: $(TX_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/librx.a: $(RX_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# zcc links its files and the transmit modes, zcs its files and the receive
# modes, and test_tx and test_rx their modes, before lib/, which they use.
zcc: $(ZCC_OBJS) $(BUILD)/libtx.a
zcs: $(ZCS_OBJS) $(BUILD)/librx.a
cyclesoak: $(BUILD)/cyclesoak.o
run_rr: $(BUILD)/run_rr.o
$(BUILD)/tests/test_tx: $(BUILD)/libtx.a
$(BUILD)/tests/test_rx: $(BUILD)/librx.a

$(PROGS): $(BUILD)/libzc.a
	$(CC) $(ALL_CFLAGS) -o $@ $(filter %.o,$^) $(filter %/libtx.a %/librx.a,$^) $(BUILD)/libzc.a $(ALL_LDFLAGS)

# The independent peers, which share no code with zc, run at full speed under
# SANITIZE=1 too: they check zc's datagrams a byte at a time, and an
# instrumented one lost them at 512 MiB/s. Built from their source and tests/peer.h alone.
PEERS = $(BUILD)/tests/udppeer $(BUILD)/tests/dgramsend
$(PEERS): $(BUILD)/tests/%: tests/%.c tests/peer.h $(BUILD)/flags
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -D_GNU_SOURCE $(CFLAGS) -o $@ $<

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(BUILD)/libzc.a
	$(CC) $(ALL_CFLAGS) -o $@ $(filter %.o,$^) $(filter %/libtx.a %/librx.a,$^) $(BUILD)/libzc.a $(ALL_LDFLAGS)

# Every object the programs link, for make layers.
PROG_OBJS = $(ZCC_OBJS) $(ZCS_OBJS) $(BUILD)/cyclesoak.o $(BUILD)/run_rr.o \
	$(TX_OBJS) $(RX_OBJS) $(LIB_OBJS)

# No circle among the objects, as the linker sees them: a lower file never calls the file above.
layers: $(PROGS)
	@bash scripts/layers $(PROG_OBJS)

# "+": the tests' own make (the scripts build what they run) shares this
# one's jobs and its variables (SANITIZE=1, CFLAGS), and so rebuilds nothing.
check: $(PROGS) $(UNIT_TESTS) $(TEST_HELPERS)
	+@bash tests/run.sh $(UNIT_TESTS)

# The edit-compile-test loop's: the unit tests and the files that say they
# are quick (no meter, no benchmark), in under a minute.
check-quick: $(PROGS) $(UNIT_TESTS) $(TEST_HELPERS)
	+@QUICK=1 bash tests/run.sh $(UNIT_TESTS)

$(BUILD)/fuzz/fuzz_%: tests/fuzz_%.c lib/%.c lib/%.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz_$*.c $(filter lib/%.c,$^)

# The datagram format writes its integers as the stream's do; the turns' wire
# too, and reads into the turns' figures; zcs keeps a table as proto_rx takes it.
$(BUILD)/fuzz/fuzz_dgram: lib/proto.c
$(BUILD)/fuzz/fuzz_turnswire: lib/proto.c lib/turns.c lib/paired.c

fuzz: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(BUILD)/fuzz/corpus-$$t && \
		echo "fuzz_$$t: $(FUZZ_SECS) s" && \
		(cd $(BUILD)/fuzz && ./fuzz_$$t -max_total_time=$(FUZZ_SECS) -print_final_stats=1 \
			corpus-$$t $(CURDIR)/tests/fuzz-corpus/$$t) || exit 1; \
	done

# The results tables on loopback, at full speed and then every method at one
# rate; BENCH_ARGS passes options to scripts/zc-matrix (--rate none: full
# speed only). REMOTE='ssh user@host' runs them between two hosts, zcs on
# the far one through that command, both ends metered; REMOTE_DIR is where
# zc is built there (its zcs, and its counts_per_sec). SENDER_CPUS and
# RECEIVER_CPUS put each end, and its meter, on CPUs of its own.
export REMOTE REMOTE_DIR SENDER_CPUS RECEIVER_CPUS
bench: $(PROGS)
	@if [ -n "$$REMOTE_DIR" ] && [ -z "$$REMOTE" ]; then \
		echo "make bench: REMOTE_DIR=$$REMOTE_DIR needs REMOTE, the command that reaches the far host ('ssh user@host')" >&2; exit 2; fi
	+@bash scripts/zc-matrix --rate auto $${REMOTE:+--remote "$$REMOTE"} \
		$${REMOTE_DIR:+--remote-dir "$$REMOTE_DIR" --remote-zcs "$$REMOTE_DIR/zcs"} \
		$${SENDER_CPUS:+--sender-cpus "$$SENDER_CPUS"} $${RECEIVER_CPUS:+--receiver-cpus "$$RECEIVER_CPUS"} $(BENCH_ARGS)

install: $(PROGS)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)
	$(INSTALL) -m 755 $(PROGS) $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 644 $(PROGS:%=man/%.1) $(DESTDIR)$(MANDIR)

# What install put there, and nothing else: the directories may hold others' files.
uninstall:
	rm -f $(PROGS:%=$(DESTDIR)$(BINDIR)/%) $(PROGS:%=$(DESTDIR)$(MANDIR)/%.1)

clean:
	rm -rf $(BUILD) $(PROGS)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
