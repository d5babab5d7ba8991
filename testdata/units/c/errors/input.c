int good(void)
{
	return 1;
}

/* Has a syntax error in its body. */
int broken(int x)
{
	return x +;
}

int after(void)
{
	return good(;
}

static int last(void)
{
	return after();
}
