# zc: zcs, zcc, cyclesoak and run_rr, sharing lib/.

CC ?= cc
CFLAGS ?= -O2 -g -Wall -Wextra
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
INSTALL ?= install

# Always needed, whatever CFLAGS the user gives.
ZC_CFLAGS = -std=gnu11 -D_GNU_SOURCE
ifeq ($(SANITIZE),1)
ZC_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer
ZC_LDFLAGS += -fsanitize=address,undefined
endif

BUILD = build
PROGS = zcs zcc cyclesoak run_rr
LIB_MODULES = opt proto timing cpu net soak
LIB_OBJS = $(LIB_MODULES:%=$(BUILD)/lib/%.o)
UNIT_TESTS = $(LIB_MODULES:%=$(BUILD)/tests/test_%)
TEST_HELPERS = $(BUILD)/tests/capture $(BUILD)/tests/loadgen

ALL_CFLAGS = $(ZC_CFLAGS) $(CFLAGS) -MMD -MP
ALL_LDFLAGS = $(ZC_LDFLAGS) $(LDFLAGS)

.PHONY: all check bench install clean FORCE
.SECONDARY:

all: $(PROGS)

# Rebuild everything when the compiler or its flags change (e.g. SANITIZE=1).
$(BUILD)/flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' | cmp -s - $@ || \
		echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' > $@

$(BUILD)/%.o: %.c $(BUILD)/flags
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/libzc.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

$(PROGS): %: $(BUILD)/%.o $(BUILD)/libzc.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(ALL_LDFLAGS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(BUILD)/libzc.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(ALL_LDFLAGS)

check: $(PROGS) $(UNIT_TESTS) $(TEST_HELPERS)
	@bash tests/run.sh $(UNIT_TESTS)

# The results table on loopback; BENCH_ARGS passes options to scripts/zc-matrix.
bench: $(PROGS)
	@bash scripts/zc-matrix $(BENCH_ARGS)

install: $(PROGS)
	$(INSTALL) -d $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 755 $(PROGS) $(DESTDIR)$(BINDIR)

clean:
	rm -rf $(BUILD) $(PROGS)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
