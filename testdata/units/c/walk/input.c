/* One of each form c.scm's patterns match (the C walk must find the same). */
#include <stdio.h>
#include "local.h"

#define LIMIT 16
#define CALLS(x) do_call(x) + helper(LIMIT)
#define APPLY(fn, x) fn(x)

typedef struct { int x, y; } point_t, *point_p;
typedef union { int i; float f; } num_t;
typedef enum { RED, GREEN } color_t;
typedef struct tagged { int v; } tagged_t, *tagged_p;
typedef int count_t, *count_p, counts_t[4];
typedef int (*handler_t)(int);
typedef int *(*maker_t)(void);
typedef unsigned long ulong_t;
typedef struct fwd fwd_t;
typedef MACRO_TYPE(int) boxed_t;

struct list {
	struct list *next, *prev;
	int (*cmp)(const void *, const void *);
	char name[8];
};
union word { int i; char c[4]; };
enum mode { MODE_A = 1, MODE_B };

int proto(int a), *proto_ptr(void);
static char **proto_ptr2(void);

static int helper(int v)
{
	return v;
}

int *ptr_fn(void)
{
	return NULL;
}

char **ptr_ptr_fn(void)
{
	return NULL;
}

int old_style(a, b)
	int a;
	char *b;
{
	return a;
}

SYSCALL_DEFINE2(demo, int, fd, char *, buf)
{
	return fd;
}

static int compare(int *pa, int **ppa, int arr[], handler_t h)
{
	int local = 1, *lp = &local, la[2];
	char *s;
	int other;
	if (h == helper || helper != h)
		return 0;
	other = helper;
	handler_t cb = helper;
	handler_t cond = local ? helper : compare;
	struct list l = { .cmp = compare, .next = NULL };
	handler_t table[] = { helper, compare, LIMIT };
	(*h)(local);
	l.cmp(pa, pa);
	register_fn(helper, local, LIMIT, s);
	s = (char *)helper;
	lp = &other;
	(void)la;
	(void)ppa;
	(void)arr;
	(void)cb;
	(void)cond;
	(void)table;
	return compare;
}

static __attribute__((unused)) int attributed(void)
{
	return 0;
}

static int global_a = 1, *global_p;

notrace NOKPROBE(x) int err_fn(int (*f)(int), int b)
{
	return b ? f(b) : helper;
}

notrace NOKPROBE(x) int *err_ptr_fn(int b)
{
	return &helper;
}

BPF_CALL_2(bpf_demo, req, resp)
{
	return req ? resp : helper;
}

void *vp = &helper;

int is_default(handler_t h)
{
	return h != helper && compare == h;
}
