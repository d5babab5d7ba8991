/* session.c - the request handler that starts sessions. */
#include "auth.h"

/* Starts a session for a request carrying a password. */
int start_session(struct user *u, const char *password)
{
	int rc = login(u, password);
	if (rc != 0)
		return rc;
	return 0;
}

/* Ends the session. */
int end_session(struct user *u)
{
	return logout(u);
}
