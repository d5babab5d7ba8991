#include <stdio.h>
#include "util.h"

/* Maximum number of users. */
#define MAX_USERS 64

/** A user of the system. */
struct user {
	int id;           /* identifier */
	char name[32];
};

enum color { RED, GREEN = 2, BLUE };

typedef struct user user_t;

static int counter;

int add(int a, int b);

/* Adds two numbers. */
int add(int a, int b)
{
	return a + b;
}

static void log_user(const struct user *u)
{
	printf("%d %s\n", u->id, u->name);
	counter = add(counter, 1);
}
