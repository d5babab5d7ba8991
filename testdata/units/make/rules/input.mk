# Build rules for the tool.
CC ?= cc
CFLAGS := -O2 -Wall
obj-y := main.o
obj-$(CONFIG_NET) += net.o
obj-y += util.o

include scripts/common.mk

all: tool docs

tool: $(obj-y)
	$(CC) $(CFLAGS) -o $@ $^

%.o: %.c config.h
	$(CC) $(CFLAGS) -c $<

define run_test
	./tool --test $(1)
endef

check: tool
	$(call run_test,smoke)

.PHONY: all check
ifdef CONFIG_SMP # CONFIG_NOT_THIS
obj-y += smp.o
endif
