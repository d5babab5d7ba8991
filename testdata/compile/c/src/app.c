/* app.c - counts users. */
#include <stdio.h>

/* A user of the system. */
struct user {
	int id;
};

/* Counts the users. */
int count_users(int n)
{
	int unused;
	return n;
}

int main(void)
{
	int total = count_users(3);
	printf("%d\n", totl);
	return 0;
}
