/* File-level definitions inside #if blocks are definitions; a declaration
 * inside a function stays local whether or not an #if surrounds it. */
#include <stddef.h>

#ifdef CONFIG_STATS
static unsigned long hits;
unsigned long misses = 0, *miss_log;
#elif defined(CONFIG_TRACE)
int trace_level;
#else
int __hidden_counter;
char *names[4];
#endif

#if defined(CONFIG_SYSCALLS)
SYSCALL_DEFINE2(stat_reset, int, which, unsigned long, flags)
{
	return 0;
}
#endif

int lookup(int key)
{
	int found = 0;
#ifdef CONFIG_STATS
	unsigned long local_hits = hits;
	int slot;
#else
	int slot = key;
#endif
	found = slot + 1;
	return found;
}

int a, b = 2;
