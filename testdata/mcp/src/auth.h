/* auth.h - users and logging in. */
#ifndef AUTH_H
#define AUTH_H

/* A user account. */
struct user {
	const char *name;   /* login name */
	const char *hash;   /* stored password hash */
	int logged_in;      /* 1 while a session is open */
};

int login(struct user *u, const char *password);
int logout(struct user *u);

#endif
