/*
 * ring.c - a fixed-size ring buffer used only inside this file: every
 * function is static, so the public outline has nothing of its own.
 */
#include <stddef.h>
#include <string.h>

#define RING_SIZE 64

static unsigned char ring[RING_SIZE];
static size_t head, tail;

static size_t ring_next(size_t i)
{
	return (i + 1) % RING_SIZE;
}

static int ring_empty(void)
{
	return head == tail;
}

static int ring_full(void)
{
	return ring_next(head) == tail;
}

static int ring_put(unsigned char c)
{
	if (ring_full())
		return -1;
	ring[head] = c;
	head = ring_next(head);
	return 0;
}

static int ring_get(unsigned char *c)
{
	if (ring_empty())
		return -1;
	*c = ring[tail];
	tail = ring_next(tail);
	return 0;
}

static size_t ring_used(void)
{
	return (head + RING_SIZE - tail) % RING_SIZE;
}

static size_t ring_free(void)
{
	return RING_SIZE - 1 - ring_used();
}

static void ring_clear(void)
{
	head = tail = 0;
	memset(ring, 0, sizeof(ring));
}

static size_t ring_write(const unsigned char *s, size_t n)
{
	size_t k = 0;
	while (k < n && ring_put(s[k]) == 0)
		k++;
	return k;
}

static size_t ring_read(unsigned char *s, size_t n)
{
	size_t k = 0;
	while (k < n && ring_get(&s[k]) == 0)
		k++;
	return k;
}

static int ring_peek(unsigned char *c)
{
	if (ring_empty())
		return -1;
	*c = ring[tail];
	return 0;
}

static size_t ring_drop(size_t n)
{
	unsigned char c;
	size_t k = 0;
	while (k < n && ring_get(&c) == 0)
		k++;
	return k;
}
