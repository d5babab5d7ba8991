/* shapes.h - points and areas. */
#ifndef SHAPES_H
#define SHAPES_H

/* A point on the plane. */
struct point {
	int x;
	int y;
};

int area(struct point a, struct point b);
int perimeter(struct point a, struct point b);

#endif
