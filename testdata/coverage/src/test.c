/* test.c - checks area, leaves perimeter alone. */
#include "shapes.h"

int main(void)
{
	return area(3, 4) == 12 && area(2, 5) == 10 ? 0 : 1;
}
