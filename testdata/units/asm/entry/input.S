/* SPDX-License-Identifier: GPL-2.0 */
#include <linux/linkage.h>

#define STACK_SIZE 4096

.macro SAVE_REGS save=1
	pushq %rdi
	pushq %rsi
.endm

/* The system call entry point. */
SYM_CODE_START(entry_syscall)
	SAVE_REGS
	call do_syscall		# the C side
	jmp .Lreturn
.Lreturn:
	sysretq
SYM_CODE_END(entry_syscall)

SYM_FUNC_START_LOCAL(clear_regs)
	xorl %eax, %eax
	ret
SYM_FUNC_END(clear_regs)

	.globl legacy_entry
legacy_entry:
	call clear_regs
	ret

	.data
boot_table:
	.quad entry_syscall
	.quad legacy_entry
	.set TABLE_LEN, 2
