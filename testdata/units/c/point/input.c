/* point.c - points on a grid. */
#include <stdio.h>

#define GRID_MAX 64
#define GRID_MIN 0

typedef unsigned int cell_t;

struct point {
	int x;
	int y;
	union {
		cell_t cell;
		long raw;
	};
};

enum color { RED, GREEN, BLUE };

int grid_size;

/* Adds two points. */
struct point point_add(struct point a, struct point b)
{
	struct point r = { a.x + b.x, a.y + b.y };
	return r;
}

static int clamp(int v)
{
	return v < GRID_MIN ? GRID_MIN : v > GRID_MAX ? GRID_MAX : v;
}

int point_print(const struct point *p, FILE *out)
{
	return fprintf(out, "(%d, %d)\n", clamp(p->x), clamp(p->y)) +;
}
