#include <stddef.h>

static int ext_open(struct inode *inode, struct file *file);
static int ext_release(struct inode *inode, struct file *file);
static long ext_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* Operations of the device. */
static const struct file_operations ext_fops = {
	.open = ext_open,
	.release = ext_release,
	.unlocked_ioctl = ext_ioctl,
};

static void (*const handlers[])(void) = { ext_reset, ext_flush };

#define CALL_BOTH(x) do { ext_reset(); flush_all(x); x(); } while (0)
#define ext_log(fmt, ...) printk(KERN_INFO "ext: " fmt, ##__VA_ARGS__)

static int worker(void *data)
{
	int (*op)(void) = ext_reset;
	size_t n = sizeof(data);
	ops.flush = ext_flush;
	register_handler(worker, data, n, GFP_KERNEL);
	return op();
}

SYSCALL_DEFINE1(ext_close, int, fd)
{
	return close_fd(fd, ext_release);
}
