/* auth.c - checks passwords and opens sessions. */
#include "auth.h"
#include <string.h>

/* Compares a password with the stored hash. */
static int check_hash(const char *password, const char *hash)
{
	return strcmp(password, hash) == 0;
}

/* Logs a user in; returns 0 on success, -1 on a wrong password. */
int login(struct user *u, const char *password)
{
	if (!check_hash(password, u->hash))
		return -1;
	u->logged_in = 1;
	return 0;
}

/* Closes the user's session. */
int logout(struct user *u)
{
	u->logged_in = 0;
	return 0;
}
