/* main.c - prints an area. */
#include <stdio.h>
#include "shapes.h"

int main(void)
{
	struct point a = {0, 0}, b = {3, 4};
	/* naïve 🙂 */ int r = area(a, b);
	printf("%d %d\n", r, perimeter(a, b));
	return 0;
}
