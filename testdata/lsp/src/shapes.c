/* shapes.c - rectangles given by two corners. */
#include "shapes.h"

/* Absolute value. */
static int span(int a, int b)
{
	return a > b ? a - b : b - a;
}

/* Area of the rectangle with corners a and b. */
int area(struct point a, struct point b)
{
	return span(a.x, b.x) *
	       span(a.y, b.y);
}

/* Perimeter of the same rectangle. */
int perimeter(struct point a, struct point b)
{
	return 2 * (span(a.x, b.x) + span(a.y, b.y));
}
