#ifndef TYPES_H
#define TYPES_H

/* A list node. */
typedef struct node {
	struct node *next;
	union {
		int ival;
		double dval;
	} u;
	int (*visit)(struct node *n, void *arg);
} node_t;

typedef struct {
	int x, y;
} point;

typedef enum { MODE_A, MODE_B } mode_t;

typedef int (*cmp_fn)(const void *, const void *);

union value {
	long l;
	char c;
};

extern int node_count;
struct node *node_new(int v);
static inline int node_empty(const struct node *n) { return n == 0; }

#endif
