/* Sum of two counts. */
int sum(int a /* first */, int b /* second */) /* no overflow check */
{
	/* plain addition */
	return a + b;
}

struct point { /* a point */
	int x; /* across */
	int y;
};
