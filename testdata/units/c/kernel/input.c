#include <linux/module.h>

static int __init foo_init(void)
{
	return register_foo(&foo_ops);
}
module_init(foo_init);

/**
 * sys_restart_syscall - restart a system call
 */
SYSCALL_DEFINE0(restart_syscall)
{
	return current->restart_block.fn(&current->restart_block);
}

SYSCALL_DEFINE3(read, unsigned int, fd, char __user *, buf, size_t, count)
{
	return ksys_read(fd, buf, count);
}

asmlinkage __visible void __sched schedule(void)
{
	__schedule(SM_NONE);
}
EXPORT_SYMBOL(schedule);

int __attribute__((weak)) arch_setup(void)
{
	return 0;
}

#ifdef CONFIG_FOO
void foo_enabled(void)
{
	pr_info("on\n");
}
#else
static inline void foo_enabled(void) { }
#endif

#define min(a, b) ((a) < (b) ? (a) : (b))

/* K&R style */
int old_style(a, b)
	int a;
	char *b;
{
	return a + min(a, 1);
}

static struct file_operations foo_fops = {
	.open = foo_open,
};

__FORTIFY_INLINE size_t bounded_len(const char *p, size_t maxlen)
{
	return maxlen;
}
